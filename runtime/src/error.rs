//! The crate's error type: every way finding, resolving or calling a driver function can fail.
//!
//! Errors are values. Nothing in this crate panics on a missing library, a missing symbol, a driver
//! that is too old or a failing `CUresult`; each is an [`ErrorKind`] whose message says what was
//! tried and what to do. [`Error`] is one pointer wide so that `Result<NonNull<_>, Error>` stays
//! small on the hot path.

use std::fmt::Write as _;

use crate::config::Config;

/// An error from this crate. Match on [`kind`](Error::kind) for the details.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(transparent)]
pub struct Error(Box<ErrorKind>);

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0
    }

    /// Consumes the error, giving its kind.
    pub fn into_kind(self) -> ErrorKind {
        *self.0
    }

    /// The `CUresult` of a failed driver call ([`ErrorKind::Cuda`]), else `None`.
    pub fn code(&self) -> Option<u32> {
        match *self.0 {
            ErrorKind::Cuda { code, .. } => Some(code),
            _ => None,
        }
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Self(Box::new(kind))
    }
}

/// The ways finding, resolving or calling a driver function can fail.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No candidate library could be loaded. `tried` holds every path (or loader name) tried,
    /// with the loader's message for it, in search order.
    #[error("{}", not_found_message(library, tried))]
    LibraryNotFound {
        /// `"libcudart"` or `"libcuda"`.
        library: &'static str,
        /// `(path or name, why it failed)` for every candidate, in order.
        tried: Vec<(String, String)>,
    },

    /// The library given explicitly loaded, but it lacks the lookup functions of a CUDA library.
    #[error(
        "{path} loaded, but it is not a usable CUDA {} library: it exports none of {}",
        if *library == "libcuda" { "driver" } else { "runtime" },
        missing.join(", ")
    )]
    NotACudaLibrary {
        /// `"libcudart"` or `"libcuda"`.
        library: &'static str,
        /// The file that was loaded.
        path: String,
        /// The lookup functions it does not export.
        missing: Vec<&'static str>,
    },

    /// The requested version is newer than the installed driver.
    #[error(
        "{function}: requested at version {requested} (CUDA {}), but the driver is {}; \
         update the NVIDIA driver, or pin an older ABI of {function}",
        cuda_version(*requested),
        match driver { Some(d) => format!("older (CUDA {})", cuda_version(*d)), None => "older (its version is unknown)".to_owned() }
    )]
    DriverTooOld {
        /// The driver function.
        function: &'static str,
        /// The version the lookup asked for.
        requested: u32,
        /// The driver's version (`cuDriverGetVersion`), if it could be read.
        driver: Option<u32>,
    },

    /// The driver does not know this function at all.
    #[error(
        "{function} (ABI {version}) was not found in the driver; the driver may be too old for it"
    )]
    SymbolNotFound {
        /// The driver function.
        function: &'static str,
        /// The pinned ABI version.
        version: u32,
    },

    /// The driver has the function, but only in ABIs newer than the pinned one.
    #[error(
        "{function}: the driver has it, but only in an ABI newer than the pinned ABI {version}; \
         pin a newer ABI"
    )]
    VersionNotSufficient {
        /// The driver function.
        function: &'static str,
        /// The pinned ABI version.
        version: u32,
    },

    /// Only the unversioned `cudaGetDriverEntryPoint` is available (libcudart 11.x or 12.0–12.4),
    /// and it would not return the pinned ABI, or that cannot be proven.
    #[error("{}", unversioned_message(function, *requested, *runtime_version, *would_get))]
    UnversionedLookupUnsafe {
        /// The driver function.
        function: &'static str,
        /// The pinned ABI version.
        requested: u32,
        /// The libcudart version the unversioned lookup answers for.
        runtime_version: u32,
        /// The ABI it would return according to the ABI history (`None`: none or unknown).
        would_get: Option<u32>,
    },

    /// The lookup call itself failed (for example libcudart's `cudaErrorInsufficientDriver` when
    /// no driver is installed).
    #[error("looking up {function} through {backend} failed: {name} ({code}): {description}")]
    LookupFailed {
        /// The driver function.
        function: &'static str,
        /// The lookup call's result (`cudaError_t` for libcudart, `CUresult` for libcuda).
        code: i32,
        /// Its name, e.g. `cudaErrorInsufficientDriver`.
        name: String,
        /// Its description.
        description: String,
        /// The backend, as [`Resolver::describe`](crate::Resolver::describe) gives it.
        backend: String,
    },

    /// A driver function returned a failing `CUresult`.
    #[error(
        "{function} failed: {} ({code}){}",
        name.as_deref().unwrap_or("unknown CUresult"),
        description.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
    )]
    Cuda {
        /// The driver function.
        function: &'static str,
        /// The `CUresult`.
        code: u32,
        /// From `cuGetErrorName`, if it could be resolved and knows the code.
        name: Option<String>,
        /// From `cuGetErrorString`, if it could be resolved and knows the code.
        description: Option<String>,
    },
}

/// `12050` -> `"12.5"`.
pub(crate) fn cuda_version(v: u32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

fn not_found_message(library: &str, tried: &[(String, String)]) -> String {
    let (what, var, hint) = if library == "libcuda" {
        (
            "the CUDA driver library (libcuda.so.1)",
            crate::library::ENV_LIBCUDA,
            "install the NVIDIA driver, set",
        )
    } else {
        (
            "the CUDA runtime library (libcudart)",
            crate::library::ENV_CUDART,
            "install the CUDA runtime (a CUDA toolkit or the nvidia-cuda-runtime wheel), set",
        )
    };
    let mut s = format!("could not load {what}; tried:");
    if tried.is_empty() {
        s.push_str(" nothing");
    }
    for (path, why) in tried {
        let _ = write!(s, "\n  {path}: {why}");
    }
    let _ = write!(
        s,
        "\nTo fix: {hint} {var} to the library's full path, or give it in code with \
         Config::library(..)"
    );
    if library != "libcuda" {
        s.push_str(", or use the driver backend Config::driver()");
    }
    s
}

fn unversioned_message(
    function: &str,
    requested: u32,
    runtime_version: u32,
    would_get: Option<u32>,
) -> String {
    let rt = cuda_version(runtime_version);
    let why = match would_get {
        Some(got) => format!(
            "{function} is pinned to ABI {requested} but libcudart {rt} would return ABI {got}"
        ),
        None if crate::abi_history::abis(function).is_none() => format!(
            "{function} is pinned to ABI {requested}, but the ABI history does not know it, so it \
             cannot be proven that libcudart {rt} would return that ABI"
        ),
        None => format!(
            "{function} is pinned to ABI {requested}, but libcudart {rt} has no ABI of it at or \
             below its own version"
        ),
    };
    format!(
        "{why}: libcudart {rt} only has the unversioned cudaGetDriverEntryPoint, which returns \
         the newest ABI up to its own version. Use libcudart 12.5 or newer \
         (cudaGetDriverEntryPointByVersion), or the driver backend Config::driver()"
    )
}

/// Turns a `CUresult` into `Ok(())` or [`ErrorKind::Cuda`].
///
/// The error carries the code's name and description from `cuGetErrorName`/`cuGetErrorString`,
/// resolved lazily through `config`'s resolver (ABI 6000, legacy stream). Generated code calls
/// this after every driver call. It never panics; when the names cannot be had they are `None`.
#[inline]
pub fn cuda_result(config: &Config, function: &'static str, code: u32) -> Result<(), Error> {
    if code == 0 {
        Ok(())
    } else {
        Err(cuda_error(config, function, code))
    }
}

#[cold]
#[inline(never)]
fn cuda_error(config: &Config, function: &'static str, code: u32) -> Error {
    let (name, description) = match crate::library::resolver_for(config) {
        Ok(resolver) => resolver.error_strings(code),
        Err(_) => (None, None),
    };
    ErrorKind::Cuda {
        function,
        code,
        name,
        description,
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_pointer() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
        assert_eq!(
            std::mem::size_of::<Result<std::ptr::NonNull<std::ffi::c_void>, Error>>(),
            2 * std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn versions_print_as_releases() {
        assert_eq!(cuda_version(12050), "12.5");
        assert_eq!(cuda_version(11080), "11.8");
        assert_eq!(cuda_version(3020), "3.2");
    }

    #[test]
    fn code_only_for_cuda_errors() {
        let e: Error = ErrorKind::Cuda {
            function: "cuMemAlloc",
            code: 2,
            name: Some("CUDA_ERROR_OUT_OF_MEMORY".into()),
            description: Some("out of memory".into()),
        }
        .into();
        assert_eq!(e.code(), Some(2));
        assert_eq!(
            e.to_string(),
            "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"
        );
        let e: Error = ErrorKind::SymbolNotFound {
            function: "cuFoo",
            version: 2000,
        }
        .into();
        assert_eq!(e.code(), None);
    }
}
