//! The image a module load was given, kept by the generated method of `cuModuleLoadData`,
//! `cuModuleLoadDataEx`, `cuLinkAddData` and `cuLibraryLoadData` so that a load the driver refused
//! with `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` can say what its PTX needs
//! ([`UnsupportedPtx`](crate::UnsupportedPtx)). The image is read only then, and only a bounded
//! prefix: up to its first NUL byte (PTX is NUL-terminated text), its size where the function
//! takes one, and [`READ_AT_MOST`] bytes.

use std::ffi::c_void;

use crate::config::Config;
use crate::error::{Error, ErrorKind, UnsupportedPtx};
use crate::library::resolver_for;

/// The most bytes of an image read for its `.version` and `.target` lines, which PTX puts first
/// (after a few lines of comments).
pub(crate) const READ_AT_MOST: usize = 64 * 1024;

/// The most characters of a `.target` word kept for the error.
const TARGET_AT_MOST: usize = 64;

/// `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`.
const UNSUPPORTED_PTX_VERSION: u32 = 222;

/// A module load's image, as its caller passed it.
pub struct PtxImage {
    start: *const u8,
    /// The image's size where the function takes one (`cuLinkAddData`).
    size: Option<usize>,
}

impl PtxImage {
    /// The image of `cuModuleLoadData`, `cuModuleLoadDataEx` or `cuLibraryLoadData`.
    ///
    /// # Safety
    ///
    /// `image` is null or points to a module image as those functions take it, readable up to
    /// and including its first NUL byte for as long as the value lives: NUL-terminated PTX text,
    /// a cubin (an ELF file, whose header's padding bytes 9 to 15 are zeros) or a fatbin (whose
    /// header's version, 1, is followed by a zero at byte 5).
    pub unsafe fn text(image: *const c_void) -> Self {
        Self {
            start: image.cast(),
            size: None,
        }
    }

    /// The image of `cuLinkAddData`, `size` bytes long.
    ///
    /// # Safety
    ///
    /// `image` is null or readable for `size` bytes for as long as the value lives.
    pub unsafe fn sized(image: *const c_void, size: usize) -> Self {
        Self {
            start: image.cast(),
            size: Some(size),
        }
    }

    /// The image's first bytes: up to its first NUL byte, its size, or [`READ_AT_MOST`].
    fn prefix(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        if self.start.is_null() {
            return bytes;
        }
        let limit = self
            .size
            .map_or(READ_AT_MOST, |size| size.min(READ_AT_MOST));
        for i in 0..limit {
            // SAFETY: the image is readable up to its first NUL byte, or for its size (`text`'s
            // and `sized`'s contracts); every byte before `i` was read and was not NUL, and `i` is
            // below the size where there is one.
            let byte = unsafe { self.start.add(i).read() };
            if byte == 0 {
                break;
            }
            bytes.push(byte);
        }
        bytes
    }
}

/// `result` of a module load of `image` through `config`, with what the PTX needs added to a
/// `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` error when the image is PTX text.
pub fn with_ptx_image(
    result: Result<(), Error>,
    config: &Config,
    image: PtxImage,
) -> Result<(), Error> {
    result.map_err(|error| unsupported_ptx(error, config, &image))
}

#[cold]
#[inline(never)]
fn unsupported_ptx(error: Error, config: &Config, image: &PtxImage) -> Error {
    if error.code() != Some(UNSUPPORTED_PTX_VERSION) {
        return error;
    }
    let Some(found) = crate::ptx::find(&image.prefix()).into_iter().next() else {
        return error;
    };
    // A target is a short word (`sm_90a`); the image could hold a longer one.
    let target = found.target.chars().take(TARGET_AT_MOST).collect();
    let driver = resolver_for(config)
        .ok()
        .and_then(|resolver| resolver.driver_version());
    match error.into_kind() {
        ErrorKind::Cuda {
            function,
            code,
            name,
            description,
            ptx: _,
        } => ErrorKind::Cuda {
            function,
            code,
            name,
            description,
            ptx: Some(UnsupportedPtx::new(found.isa, target, driver)),
        }
        .into(),
        other => other.into(),
    }
}

/// A generated module load's result with what its PTX needs: `ptx_image!(<the call>, <the table's
/// TableCore>, <the image parameter>)`, with the size parameter after it for `cuLinkAddData`.
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_ptx_image {
    ($call:expr, $table:expr, $image:ident) => {
        $crate::__private::with_ptx_image(
            $call,
            $table.config(),
            // SAFETY: `$image` is the image parameter of `cuModuleLoadData`,
            // `cuModuleLoadDataEx` or `cuLibraryLoadData`, whose caller upholds the function's
            // contract (the method's `# Safety`): it points to NUL-terminated PTX, a cubin or a
            // fatbin, as `PtxImage::text` asks, and the value is dropped before the method
            // returns.
            unsafe { $crate::__private::PtxImage::text($image) },
        )
    };
    ($call:expr, $table:expr, $image:ident, $size:ident) => {
        $crate::__private::with_ptx_image(
            $call,
            $table.config(),
            // SAFETY: `$image` and `$size` are the data and size parameters of `cuLinkAddData`,
            // whose caller upholds the function's contract (the method's `# Safety`): the data
            // is readable for its size, and the value is dropped before the method returns.
            unsafe { $crate::__private::PtxImage::sized($image, $size) },
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix_of_text(bytes: &[u8]) -> Vec<u8> {
        // SAFETY: `bytes` is readable up to its first NUL (each test's image has one), and
        // outlives the value.
        unsafe { PtxImage::text(bytes.as_ptr().cast()) }.prefix()
    }

    #[test]
    fn an_image_is_read_to_its_first_nul_at_most() {
        assert_eq!(
            prefix_of_text(b".version 9.0\n\0.target x\0"),
            b".version 9.0\n"
        );
        assert_eq!(prefix_of_text(b"\0"), b"");
        // A cubin: its ELF header's padding ends the text at byte 9.
        assert_eq!(
            prefix_of_text(b"\x7fELF\x02\x01\x01\x33\x07\0\0\0\0\0\0\0"),
            b"\x7fELF\x02\x01\x01\x33\x07"
        );
        // Long text: READ_AT_MOST bytes.
        let mut long = vec![b'/'; READ_AT_MOST + 10];
        long.push(0);
        assert_eq!(prefix_of_text(&long).len(), READ_AT_MOST);
        // SAFETY: a null image is never read.
        assert!(unsafe { PtxImage::text(std::ptr::null()) }
            .prefix()
            .is_empty());
    }

    #[test]
    fn a_sized_image_is_read_within_its_size() {
        let data = b".version 9.0\n.target sm_90\n";
        for size in [0, 5, data.len()] {
            // SAFETY: `data` is readable for `size` bytes and outlives the value.
            let image = unsafe { PtxImage::sized(data.as_ptr().cast(), size) };
            assert_eq!(image.prefix(), &data[..size]);
        }
        // SAFETY: `data` is readable for its length; a NUL inside ends the text.
        let image = unsafe { PtxImage::sized(b"ab\0cd".as_ptr().cast(), 5) };
        assert_eq!(image.prefix(), b"ab");
    }
}
