//! How a table finds its driver functions: which backend, which library, which default stream.
//!
//! A [`Config`] is a small `Copy` value built by `const fn`s, so that
//! `static T: Table = Table::new();` works. It holds no library handle and does no work: loading
//! happens in `library` on the first resolution. It must never hold per-instance state.
//! [`Config::resolver`] is defined beside the loading, in `library`. With the `stand-in` feature
//! it may instead hold a stand-in driver (`StandIn`) that answers the calls of its tables.

#[cfg(feature = "stand-in")]
use std::ffi::CStr;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::resolve::Resolver;
#[cfg(feature = "stand-in")]
use crate::resolve::{LookupResult, Query, Versioning};
#[cfg(feature = "stand-in")]
use crate::stand_in::StandIn;
use crate::stream::StreamMode;

/// Where driver function pointers come from.
#[derive(Clone, Copy)]
pub enum Backend {
    /// The CUDA runtime library (`libcudart`), through `cudaGetDriverEntryPointByVersion`
    /// (libcudart 12.5 and newer) or, where only that exists, `cudaGetDriverEntryPoint`.
    /// The default.
    Runtime,
    /// The driver library (`libcuda.so.1`), through `cuGetProcAddress_v2` (drivers 12.0 and
    /// newer) or `cuGetProcAddress` (11.3 and newer). Needs no libcudart.
    Driver,
    /// A resolver supplied by the program, for example one that wraps an already loaded driver.
    Custom(&'static dyn Resolver),
}

impl fmt::Debug for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backend::Runtime => f.write_str("Runtime"),
            Backend::Driver => f.write_str("Driver"),
            Backend::Custom(r) => f.debug_tuple("Custom").field(&r.describe()).finish(),
        }
    }
}

/// An explicit library path: a `&'static str` from a `const` context or a leaked path.
#[derive(Clone, Copy, Debug)]
enum LibraryPath {
    Str(&'static str),
    Path(&'static Path),
}

/// The configuration of a driver table: backend, optional explicit library path, stream mode.
///
/// ```
/// use cuda_driver_table::{Config, StreamMode};
///
/// const CUDART: Config = Config::runtime();
/// const DRIVER_PER_THREAD: Config = Config::driver().per_thread();
/// // SAFETY: the path is the CUDA 12.9 toolkit's libcudart.
/// const PINNED: Config =
///     unsafe { Config::runtime().library("/usr/local/cuda-12.9/lib64/libcudart.so.12") };
/// assert_eq!(DRIVER_PER_THREAD.stream_mode(), StreamMode::PerThread);
/// # let _ = (CUDART, PINNED);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Config {
    backend: Backend,
    library: Option<LibraryPath>,
    stream_mode: StreamMode,
    /// The default configuration's way out: when the search finds no libcudart at all, resolve
    /// through libcuda instead.
    driver_fallback: bool,
    /// The stand-in that answers the calls of this configuration's tables, if it is one's.
    #[cfg(feature = "stand-in")]
    stand_in: Option<StandInRef>,
}

/// A stand-in, as a configuration holds it.
#[cfg(feature = "stand-in")]
#[derive(Clone, Copy)]
struct StandInRef(&'static dyn StandIn);

#[cfg(feature = "stand-in")]
impl fmt::Debug for StandInRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.describe())
    }
}

/// What [`Config::backend`] shows of a stand-in's configuration: a resolver that answers no
/// lookup, so that the stand-in itself, whose lookups may hand out pointers that are not the
/// functions, is never reached as a [`Resolver`] but through its configuration.
#[cfg(feature = "stand-in")]
struct StandInsOwn;

// SAFETY: it hands out no pointer.
#[cfg(feature = "stand-in")]
unsafe impl Resolver for StandInsOwn {
    fn describe(&self) -> String {
        "a stand-in driver's configuration (`Config::stand_in`)".to_owned()
    }
    fn versioning(&self) -> Versioning {
        Versioning::Unavailable(stand_in_refused())
    }
    fn lookup(&self, _: &CStr, _: Query, _: StreamMode) -> LookupResult {
        LookupResult::Failed(stand_in_refused())
    }
    fn error_strings(&self, _: u32) -> (Option<String>, Option<String>) {
        (None, None)
    }
}

/// Why a stand-in's resolver is not used on its own.
#[cfg(feature = "stand-in")]
pub(crate) fn stand_in_refused() -> crate::error::Status {
    crate::error::Status::new(
        801,
        "CUDA_ERROR_NOT_SUPPORTED",
        "a stand-in driver's resolver cannot be used on its own (`Config::custom` of it would \
         reach none of its answers); make tables with its own configuration, \
         `Cuda::with_config(driver.config())`",
    )
}
#[cfg(feature = "stand-in")]
static STAND_INS_OWN: StandInsOwn = StandInsOwn;

impl Config {
    /// The default configuration, what a table without `backend = ...` uses: the runtime backend
    /// (`libcudart`, found by the usual search), or, on a machine where no libcudart can be found
    /// at all (a container with only the NVIDIA driver, say), the driver's own
    /// `cuGetProcAddress` (`libcuda.so.1`), exactly typed as always. A libcudart that is found
    /// but fails is reported, not replaced. The legacy default stream.
    /// [`Config::resolver`]'s `describe()`, tracing and errors say which library is in use.
    pub const fn new() -> Self {
        let mut config = Self::runtime();
        config.driver_fallback = true;
        config
    }

    /// The runtime backend (`libcudart`), found by the usual search, and nothing else: no falling
    /// back to libcuda where no libcudart is found (`backend = runtime` in the attribute).
    pub const fn runtime() -> Self {
        Self::with_backend(Backend::Runtime)
    }

    /// The driver backend (`libcuda.so.1`), found by the usual search.
    pub const fn driver() -> Self {
        Self::with_backend(Backend::Driver)
    }

    /// A resolver supplied by the program.
    pub const fn custom(resolver: &'static dyn Resolver) -> Self {
        Self::with_backend(Backend::Custom(resolver))
    }

    const fn with_backend(backend: Backend) -> Self {
        Self {
            backend,
            library: None,
            stream_mode: StreamMode::Legacy,
            driver_fallback: false,
            #[cfg(feature = "stand-in")]
            stand_in: None,
        }
    }

    /// The configuration of a stand-in driver: its lookups resolve the tables' functions, and
    /// it answers their calls itself ([`StandIn::call`]) instead of the pointers. Its
    /// [`backend`](Self::backend) is a resolver that answers nothing, and
    /// [`resolver`](Self::resolver) refuses it: the stand-in is reached only through its tables.
    #[cfg(feature = "stand-in")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stand-in")))]
    pub const fn stand_in(stand_in: &'static dyn StandIn) -> Self {
        let mut config = Self::custom(&STAND_INS_OWN);
        config.stand_in = Some(StandInRef(stand_in));
        config
    }

    /// The stand-in of this configuration, if it is one's: what a table's methods hand their
    /// calls to (`call::invoke`).
    #[cfg(feature = "stand-in")]
    #[inline(always)]
    pub(crate) fn stand_in_driver(&self) -> Option<&'static dyn StandIn> {
        match self.stand_in {
            Some(StandInRef(s)) => Some(s),
            None => None,
        }
    }

    /// Load exactly this library (libcudart or libcuda, after the backend) instead of searching.
    ///
    /// The path is used as given; nothing else is tried when it fails. Ignored by
    /// [`Backend::Custom`].
    ///
    /// # Safety
    ///
    /// Loading runs the library's initialisers, and the backend calls the CUDA functions the
    /// library exports through CUDA's signatures and hands out the pointers they return as
    /// driver functions of the types a table calls them through. So the library `path` names
    /// (as the system loader resolves it: a full path, or a bare file name through the loader's
    /// search) must be safe to load into this process, and whatever it exports under the names
    /// of the backend's library (libcudart's `cuda*` functions for [`Backend::Runtime`],
    /// libcuda's `cu*` functions for [`Backend::Driver`]) must be those functions, with their
    /// signatures and behaviour: the backend's CUDA library itself, or a faithful stand-in. A
    /// path that names no file, a folder, or a library that exports none of them is an error,
    /// not undefined behaviour.
    pub const unsafe fn library(mut self, path: &'static str) -> Self {
        self.library = Some(LibraryPath::Str(path));
        self.driver_fallback = false;
        self
    }

    /// Like [`library`](Self::library), for a path known only at run time.
    ///
    /// The path is leaked: loaded libraries are never unloaded either, so a program that makes a
    /// handful of configurations loses nothing. Do not call it in a loop.
    ///
    /// # Safety
    ///
    /// As [`library`](Self::library): the library `path` names must be safe to load, and what it
    /// exports under the names of the backend's CUDA library must be those functions.
    pub unsafe fn library_owned(mut self, path: impl Into<PathBuf>) -> Self {
        let path: &'static Path = Box::leak(path.into().into_boxed_path());
        self.library = Some(LibraryPath::Path(path));
        self.driver_fallback = false;
        self
    }

    /// This configuration with default-stream mode `mode` (read back by
    /// [`stream_mode`](Self::stream_mode)).
    pub const fn with_stream_mode(mut self, mode: StreamMode) -> Self {
        self.stream_mode = mode;
        self
    }

    /// Shorthand for `.with_stream_mode(StreamMode::PerThread)`.
    pub const fn per_thread(self) -> Self {
        self.with_stream_mode(StreamMode::PerThread)
    }

    /// The backend.
    pub const fn backend(&self) -> Backend {
        self.backend
    }

    /// The explicit library path, if one was given.
    pub fn library_path(&self) -> Option<&'static Path> {
        self.library.map(|library| match library {
            LibraryPath::Str(s) => Path::new(s),
            LibraryPath::Path(p) => p,
        })
    }

    /// Whether this is the default configuration's runtime backend, which resolves through libcuda
    /// where no libcudart can be found ([`Config::new`]).
    pub const fn falls_back_to_driver(&self) -> bool {
        self.driver_fallback
    }

    /// The default-stream mode ([`with_stream_mode`](Self::with_stream_mode)).
    pub const fn stream_mode(&self) -> StreamMode {
        self.stream_mode
    }
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Compiles only if everything a static table needs is const.
    // SAFETY: never loaded; the path would be a CUDA toolkit's libcudart.
    static STATIC_CONFIG: Config =
        unsafe { Config::new().library("/opt/cuda/libcudart.so.12") }.per_thread();

    #[test]
    fn const_construction_and_getters() {
        assert!(matches!(STATIC_CONFIG.backend(), Backend::Runtime));
        assert_eq!(STATIC_CONFIG.stream_mode(), StreamMode::PerThread);
        assert_eq!(
            STATIC_CONFIG.library_path(),
            Some(Path::new("/opt/cuda/libcudart.so.12"))
        );
        let d = Config::driver();
        assert!(matches!(d.backend(), Backend::Driver));
        assert_eq!(d.stream_mode(), StreamMode::Legacy);
        assert_eq!(d.library_path(), None);
        // SAFETY: never loaded.
        let owned = unsafe { Config::runtime().library_owned(String::from("/x/libcudart.so.13")) };
        assert_eq!(owned.library_path(), Some(Path::new("/x/libcudart.so.13")));
    }
}
