//! The crate's error type: every way finding, resolving or calling a driver function can fail.
//!
//! Errors are values. Nothing in this crate panics on a missing library, a missing symbol, a driver
//! that is too old or a failing `CUresult`; each is an [`ErrorKind`] whose message says what was
//! tried and what to do. [`Error`] is one pointer wide so that `Result<NonNull<_>, Error>` stays
//! small on the hot path.

use std::fmt::{self, Write as _};

use crate::version::CudaVersion;

/// An error from this crate. Match on [`kind`](Error::kind) for the details.
///
/// `{}` and `{:?}` both print the message, so that `fn main() -> Result<(), Error>` and
/// `.unwrap()` show what was tried and what to do; `{:#?}` prints the structure.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<ErrorKind>);

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.debug_tuple("Error").field(&self.0).finish()
        } else {
            fmt::Display::fmt(self, f)
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

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
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No candidate library could be loaded. `tried` holds every path (or loader name) tried,
    /// with the loader's message for it, in search order.
    LibraryNotFound {
        /// `"libcudart"` or `"libcuda"`.
        library: &'static str,
        /// The environment variable that names the library to load (`CUDA_DRIVER_TABLE_CUDART`
        /// or `CUDA_DRIVER_TABLE_LIBCUDA`), for the advice in the message.
        env_var: &'static str,
        /// `(path or name, why it failed)` for every candidate, in order.
        tried: Vec<(String, String)>,
    },

    /// The library given explicitly loaded, but it lacks the lookup functions of a CUDA library.
    NotACudaLibrary {
        /// `"libcudart"` or `"libcuda"`.
        library: &'static str,
        /// The file that was loaded.
        path: String,
        /// The lookup functions it does not export.
        missing: Vec<&'static str>,
    },

    /// The requested version is newer than the installed driver.
    DriverTooOld {
        /// The driver function.
        function: &'static str,
        /// The version the lookup asked for.
        requested: u32,
        /// The driver's version (`cuDriverGetVersion`), if it could be read.
        driver: Option<u32>,
    },

    /// The driver does not know this function at all.
    SymbolNotFound {
        /// The driver function.
        function: &'static str,
        /// The pinned ABI version.
        version: u32,
    },

    /// The driver has the function, but only in ABIs newer than the pinned one.
    VersionNotSufficient {
        /// The driver function.
        function: &'static str,
        /// The pinned ABI version.
        version: u32,
    },

    /// Only the unversioned `cudaGetDriverEntryPoint` is available (libcudart 11.x or 12.0–12.4),
    /// and it would not return the pinned ABI, or that cannot be proven.
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

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LibraryNotFound {
                library,
                env_var,
                tried,
            } => f.write_str(&not_found_message(library, env_var, tried)),
            Self::NotACudaLibrary {
                library,
                path,
                missing,
            } => write!(
                f,
                "{path} loaded, but it is not a usable CUDA {} library: it exports none of {}",
                if *library == "libcuda" {
                    "driver"
                } else {
                    "runtime"
                },
                missing.join(", ")
            ),
            Self::DriverTooOld {
                function,
                requested,
                driver,
            } => {
                let driver = match driver {
                    Some(d) => format!("older (CUDA {})", CudaVersion(*d)),
                    None => "older (its version is unknown)".to_owned(),
                };
                write!(
                    f,
                    "{function}: requested at version {requested} (CUDA {}), but the driver is \
                     {driver}; update the NVIDIA driver, or pin an older ABI of {function}",
                    CudaVersion(*requested)
                )
            }
            Self::SymbolNotFound { function, version } => write!(
                f,
                "{function} (ABI {version}) was not found in the driver; the driver may be too \
                 old for it"
            ),
            Self::VersionNotSufficient { function, version } => write!(
                f,
                "{function}: the driver has it, but only in an ABI newer than the pinned ABI \
                 {version}; pin a newer ABI"
            ),
            Self::UnversionedLookupUnsafe {
                function,
                requested,
                runtime_version,
                would_get,
            } => f.write_str(&unversioned_message(
                function,
                *requested,
                *runtime_version,
                *would_get,
            )),
            Self::LookupFailed {
                function,
                code,
                name,
                description,
                backend,
            } => {
                write!(f, "looking up {function} through {backend} failed: ")?;
                write_code(f, name, *code, description)
            }
            Self::Cuda {
                function,
                code,
                name,
                description,
            } => {
                write!(
                    f,
                    "{function} failed: {} ({code})",
                    name.as_deref().unwrap_or("unknown CUresult")
                )?;
                match description {
                    Some(d) => write!(f, ": {d}"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl ErrorKind {
    /// The driver function this error is about; `None` for failures of the library itself.
    pub fn function(&self) -> Option<&'static str> {
        match self {
            Self::LibraryNotFound { .. } | Self::NotACudaLibrary { .. } => None,
            Self::DriverTooOld { function, .. }
            | Self::SymbolNotFound { function, .. }
            | Self::VersionNotSufficient { function, .. }
            | Self::UnversionedLookupUnsafe { function, .. }
            | Self::LookupFailed { function, .. }
            | Self::Cuda { function, .. } => Some(function),
        }
    }

    /// The message without the function's name, for a failure that does not depend on the
    /// function (no library, not a CUDA library, a lookup call that fails for every name); `None`
    /// for a failure of this function alone. `resolve_all` reports a shared cause once.
    pub(crate) fn shared_cause(&self) -> Option<String> {
        match self {
            Self::LibraryNotFound { .. } | Self::NotACudaLibrary { .. } => Some(self.to_string()),
            Self::LookupFailed {
                code,
                name,
                description,
                backend,
                ..
            } => {
                let mut s = format!("looking them up through {backend} failed: ");
                // Writing to a String cannot fail.
                let _ = write_code(&mut s, name, *code, description);
                Some(s)
            }
            _ => None,
        }
    }
}

/// `name (code): description`, without the colon when there is no description.
fn write_code(out: &mut impl fmt::Write, name: &str, code: i32, description: &str) -> fmt::Result {
    write!(out, "{name} ({code})")?;
    if description.is_empty() {
        Ok(())
    } else {
        write!(out, ": {description}")
    }
}

/// The error has no underlying cause: `source()` is `None` for every kind.
impl std::error::Error for ErrorKind {}

fn not_found_message(library: &str, var: &str, tried: &[(String, String)]) -> String {
    let (what, hint) = if library == "libcuda" {
        (
            "the CUDA driver library (libcuda.so.1)",
            "install the NVIDIA driver, set",
        )
    } else {
        (
            "the CUDA runtime library (libcudart)",
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
    let rt = CudaVersion(runtime_version);
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

    /// The message of every variant, pinned byte for byte (`Display` is written by hand).
    #[test]
    fn display_messages() {
        const UNVERSIONED_TAIL: &str = "only has the unversioned cudaGetDriverEntryPoint, which \
             returns the newest ABI up to its own version. Use libcudart 12.5 or newer \
             (cudaGetDriverEntryPointByVersion), or the driver backend Config::driver()";
        let cases: Vec<(ErrorKind, String)> = vec![
            (
                ErrorKind::LibraryNotFound {
                    library: "libcudart",
                    env_var: "CUDA_DRIVER_TABLE_CUDART",
                    tried: vec![
                        ("libcudart.so.12".into(), "not found".into()),
                        ("/opt/cuda/lib64/libcudart.so".into(), "bad ELF".into()),
                    ],
                },
                "could not load the CUDA runtime library (libcudart); tried:\n  \
                 libcudart.so.12: not found\n  /opt/cuda/lib64/libcudart.so: bad ELF\n\
                 To fix: install the CUDA runtime (a CUDA toolkit or the nvidia-cuda-runtime \
                 wheel), set CUDA_DRIVER_TABLE_CUDART to the library's full path, or give it in \
                 code with Config::library(..), or use the driver backend Config::driver()"
                    .into(),
            ),
            (
                ErrorKind::LibraryNotFound {
                    library: "libcuda",
                    env_var: "CUDA_DRIVER_TABLE_LIBCUDA",
                    tried: vec![],
                },
                "could not load the CUDA driver library (libcuda.so.1); tried: nothing\n\
                 To fix: install the NVIDIA driver, set CUDA_DRIVER_TABLE_LIBCUDA to the \
                 library's full path, or give it in code with Config::library(..)"
                    .into(),
            ),
            (
                ErrorKind::NotACudaLibrary {
                    library: "libcuda",
                    path: "/x/libcuda.so".into(),
                    missing: vec!["cuGetProcAddress_v2", "cuGetProcAddress"],
                },
                "/x/libcuda.so loaded, but it is not a usable CUDA driver library: it exports \
                 none of cuGetProcAddress_v2, cuGetProcAddress"
                    .into(),
            ),
            (
                ErrorKind::NotACudaLibrary {
                    library: "libcudart",
                    path: "/x/libfoo.so".into(),
                    missing: vec!["cudaGetDriverEntryPoint"],
                },
                "/x/libfoo.so loaded, but it is not a usable CUDA runtime library: it exports \
                 none of cudaGetDriverEntryPoint"
                    .into(),
            ),
            (
                ErrorKind::DriverTooOld {
                    function: "cuMemAlloc",
                    requested: 12050,
                    driver: Some(12020),
                },
                "cuMemAlloc: requested at version 12050 (CUDA 12.5), but the driver is older \
                 (CUDA 12.2); update the NVIDIA driver, or pin an older ABI of cuMemAlloc"
                    .into(),
            ),
            (
                ErrorKind::DriverTooOld {
                    function: "cuMemAlloc",
                    requested: 12050,
                    driver: None,
                },
                "cuMemAlloc: requested at version 12050 (CUDA 12.5), but the driver is older \
                 (its version is unknown); update the NVIDIA driver, or pin an older ABI of \
                 cuMemAlloc"
                    .into(),
            ),
            (
                ErrorKind::SymbolNotFound {
                    function: "cuFoo",
                    version: 2000,
                },
                "cuFoo (ABI 2000) was not found in the driver; the driver may be too old for it"
                    .into(),
            ),
            (
                ErrorKind::VersionNotSufficient {
                    function: "cuFoo",
                    version: 2000,
                },
                "cuFoo: the driver has it, but only in an ABI newer than the pinned ABI 2000; \
                 pin a newer ABI"
                    .into(),
            ),
            (
                ErrorKind::UnversionedLookupUnsafe {
                    function: "cuCtxCreate",
                    requested: 3020,
                    runtime_version: 12040,
                    would_get: Some(11040),
                },
                format!(
                    "cuCtxCreate is pinned to ABI 3020 but libcudart 12.4 would return ABI \
                     11040: libcudart 12.4 {UNVERSIONED_TAIL}"
                ),
            ),
            (
                ErrorKind::UnversionedLookupUnsafe {
                    function: "cuNoSuchFunction",
                    requested: 12000,
                    runtime_version: 12000,
                    would_get: None,
                },
                format!(
                    "cuNoSuchFunction is pinned to ABI 12000, but the ABI history does not know \
                     it, so it cannot be proven that libcudart 12.0 would return that ABI: \
                     libcudart 12.0 {UNVERSIONED_TAIL}"
                ),
            ),
            (
                ErrorKind::UnversionedLookupUnsafe {
                    function: "cuCtxCreate",
                    requested: 3020,
                    runtime_version: 1000,
                    would_get: None,
                },
                format!(
                    "cuCtxCreate is pinned to ABI 3020, but libcudart 1.0 has no ABI of it at or \
                     below its own version: libcudart 1.0 {UNVERSIONED_TAIL}"
                ),
            ),
            (
                ErrorKind::LookupFailed {
                    function: "cuMemAlloc",
                    code: 35,
                    name: "cudaErrorInsufficientDriver".into(),
                    description: "CUDA driver version is insufficient for CUDA runtime version"
                        .into(),
                    backend: "libcudart 12.4 (/usr/lib/libcudart.so.12)".into(),
                },
                "looking up cuMemAlloc through libcudart 12.4 (/usr/lib/libcudart.so.12) failed: \
                 cudaErrorInsufficientDriver (35): CUDA driver version is insufficient for CUDA \
                 runtime version"
                    .into(),
            ),
            (
                ErrorKind::Cuda {
                    function: "cuMemAlloc",
                    code: 2,
                    name: Some("CUDA_ERROR_OUT_OF_MEMORY".into()),
                    description: Some("out of memory".into()),
                },
                "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory".into(),
            ),
            (
                ErrorKind::Cuda {
                    function: "cuFoo",
                    code: 999,
                    name: Some("CUDA_ERROR_UNKNOWN".into()),
                    description: None,
                },
                "cuFoo failed: CUDA_ERROR_UNKNOWN (999)".into(),
            ),
            (
                ErrorKind::Cuda {
                    function: "cuFoo",
                    code: 12345,
                    name: None,
                    description: None,
                },
                "cuFoo failed: unknown CUresult (12345)".into(),
            ),
        ];
        for (kind, expected) in cases {
            assert_eq!(kind.to_string(), expected);
            assert!(std::error::Error::source(&kind).is_none());
            let e = Error::from(kind);
            assert_eq!(e.to_string(), expected);
            assert!(std::error::Error::source(&e).is_none());
        }
    }

    #[test]
    fn lookup_failure_without_description_has_no_trailing_colon() {
        let e = Error::from(ErrorKind::LookupFailed {
            function: "cuInit",
            code: 12345,
            name: "unknown CUresult".into(),
            description: String::new(),
            backend: "the CUDA driver (libcuda.so.1, cuGetProcAddress_v2)".into(),
        });
        assert_eq!(
            e.to_string(),
            "looking up cuInit through the CUDA driver (libcuda.so.1, cuGetProcAddress_v2) \
             failed: unknown CUresult (12345)"
        );
    }

    /// `fn main() -> Result<(), Error>` prints `Error: {:?}`: that must be the message, with
    /// its lines; `{:#?}` still shows the structure.
    #[test]
    fn debug_is_the_message_and_alternate_debug_the_structure() {
        let e = Error::from(ErrorKind::SymbolNotFound {
            function: "cuFoo",
            version: 2000,
        });
        assert_eq!(format!("{e:?}"), e.to_string());
        let structure = format!("{e:#?}");
        assert!(
            structure.starts_with("Error(\n    SymbolNotFound {"),
            "{structure}"
        );
        assert!(structure.contains("function: \"cuFoo\""), "{structure}");
    }

    #[test]
    fn function_and_shared_cause() {
        let not_found = ErrorKind::LibraryNotFound {
            library: "libcuda",
            env_var: "CUDA_DRIVER_TABLE_LIBCUDA",
            tried: vec![],
        };
        assert_eq!(not_found.function(), None);
        assert_eq!(not_found.shared_cause(), Some(not_found.to_string()));
        let lookup = |function| ErrorKind::LookupFailed {
            function,
            code: 35,
            name: "cudaErrorInsufficientDriver".into(),
            description: "CUDA driver version is insufficient".into(),
            backend: "libcudart 12.9 (/x)".into(),
        };
        assert_eq!(lookup("cuInit").function(), Some("cuInit"));
        assert_eq!(
            lookup("cuInit").shared_cause(),
            lookup("cuMemAlloc").shared_cause()
        );
        let own = ErrorKind::SymbolNotFound {
            function: "cuFoo",
            version: 2000,
        };
        assert_eq!(own.function(), Some("cuFoo"));
        assert_eq!(own.shared_cause(), None);
    }
}
