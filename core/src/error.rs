//! Every error type of the crate: [`Error`] and its [`ErrorKind`], the [`Status`] of a failed
//! lookup call, the [`CudaLibrary`] a loading error is about, and [`Errors`], the report of a
//! table's `resolve_all`.
//!
//! Errors are values. Nothing in this crate panics on a missing library, a missing symbol, a driver
//! that is too old or a failing `CUresult`; each is an [`ErrorKind`] whose message says what was
//! tried and what to do. [`Error`] is one pointer wide so that `Result<NonNull<_>, Error>` stays
//! small on the hot path.
//!
//! The messages are written here; what is particular to one library (its name, how to install
//! it, what to use instead) comes with the error, from its backend, as a [`CudaLibrary`].

use std::ffi::OsStr;
use std::fmt;
use std::path::PathBuf;

use crate::version::CudaVersion;

/// An error from this crate. Match on [`kind`](Error::kind) for the details.
///
/// `{}` and `{:?}` both print the message, so that `fn main() -> Result<(), Error>` and
/// `.unwrap()` show what was tried and what to do; `{:#?}` prints the structure. A table's
/// `resolve_all()` report converts into it, so `?` works on both in such a `main`.
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

/// `resolve_all()?` in a function returning `Result<_, Error>`.
impl From<Errors> for Error {
    fn from(errors: Errors) -> Self {
        ErrorKind::ResolveAll(errors).into()
    }
}

/// The result of a failed call: a lookup call's `cudaError_t` (libcudart) or `CUresult` (the
/// driver), or a status the lookup reported, with its name and description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The code.
    pub code: i32,
    /// Its name, e.g. `cudaErrorInsufficientDriver`.
    pub name: String,
    /// Its description; empty when there is none.
    pub description: String,
}

impl Status {
    /// A status of `code` with its name and description.
    pub fn new(code: i32, name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            code,
            name: name.into(),
            description: description.into(),
        }
    }
}

/// `name (code): description`, without the colon when there is no description.
impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name, self.code)?;
        if self.description.is_empty() {
            Ok(())
        } else {
            write!(f, ": {}", self.description)
        }
    }
}

/// What a PTX image the driver refused with `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` needs: read off
/// its `.version` and `.target` lines, against the driver present. `{}` prints what it needs
/// against what there is on one line and, where a driver too old is the cause, the fix on the
/// next.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnsupportedPtx {
    /// The PTX's ISA version (`.version 9.1`: `(9, 1)`).
    pub isa: (u32, u32),
    /// Its target (`.target sm_90a`: `sm_90a`).
    pub target: String,
    /// The oldest driver that loads PTX of that ISA ([`ptx::driver_for_isa`](crate::ptx::driver_for_isa));
    /// `None` for an ISA newer than this crate knows.
    pub needs: Option<u32>,
    /// The driver's version (`cuDriverGetVersion`), if it could be read.
    pub driver: Option<u32>,
}

impl UnsupportedPtx {
    /// What PTX of ISA `isa` for `target` needs, against a driver of version `driver`.
    pub fn new(isa: (u32, u32), target: String, driver: Option<u32>) -> Self {
        Self {
            isa,
            target,
            needs: crate::ptx::driver_for_isa(isa.0, isa.1),
            driver,
        }
    }
}

impl fmt::Display for UnsupportedPtx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (major, minor) = self.isa;
        write!(f, "The PTX is ISA {major}.{minor} for ")?;
        // The image's text: a control character (a terminal escape) is shown, not sent.
        for c in self.target.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        f.write_str(", ")?;
        match self.needs {
            Some(needs) => write!(f, "which needs a CUDA {} driver", CudaVersion(needs))?,
            None => {
                let (newest_major, newest_minor) = crate::ptx::newest_known_isa();
                write!(
                    f,
                    "newer than this crate knows (it knows ISAs up to {newest_major}.\
                     {newest_minor}, and the drivers that load them)"
                )?;
            }
        }
        match self.driver {
            Some(driver) => write!(f, "; this driver is CUDA {}.", CudaVersion(driver))?,
            None => f.write_str("; this driver's version is unknown.")?,
        }
        let older = match (self.needs, self.driver) {
            // The driver loads the ISA: its version is not what it refused.
            (Some(needs), Some(driver)) if needs <= driver => return Ok(()),
            (Some(needs), _) => format!(" to CUDA {} or newer", CudaVersion(needs)),
            (None, _) => String::new(),
        };
        write!(
            f,
            "\nTo fix: update the NVIDIA driver{older}, or make the PTX for "
        )?;
        match self
            .driver
            .and_then(|driver| Some((driver, crate::ptx::newest_isa_for_driver(driver)?)))
        {
            Some((driver, (major, minor))) => write!(
                f,
                "ISA {major}.{minor} or older (what a CUDA {} toolkit writes)",
                CudaVersion(driver)
            ),
            None => f.write_str("an older ISA"),
        }
    }
}

/// One of the two libraries the built-in backends load, as its errors name it and advise on it.
/// Each backend defines its own (`"libcudart"` for [`Backend::Runtime`](crate::Backend::Runtime),
/// `"libcuda"` for [`Backend::Driver`](crate::Backend::Driver)); `{}` prints the name. The name is
/// the same on every system, for matching; [`title`](Self::title) names the system's files
/// (`nvcuda.dll` and `cudart64_*.dll` on Windows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CudaLibrary {
    /// `"libcudart"` or `"libcuda"`.
    pub name: &'static str,
    /// What it is, in a sentence, with the system's file names: `the CUDA runtime library
    /// (libcudart)`; on Windows `the CUDA runtime library (cudart64_*.dll)`.
    pub title: &'static str,
    /// What kind of library it is: `CUDA runtime library`.
    pub kind: &'static str,
    /// The environment variable that names the library to load.
    pub env_var: &'static str,
    /// How to get it: `install the NVIDIA driver`.
    pub install: &'static str,
    /// How to do without it, if there is a way: `use the driver backend Config::driver()`.
    pub instead: Option<&'static str>,
}

impl fmt::Display for CudaLibrary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Where the library that failed to load came from: this decides what the message advises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A path given in code, [`Config::library`](crate::Config::library).
    Code,
    /// The library's environment variable ([`CudaLibrary::env_var`]).
    Environment,
    /// The search (neither named a library).
    Search,
}

/// The ways finding, resolving or calling a driver function can fail.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No candidate library could be loaded, or a path that was named cannot be used.
    LibraryNotFound {
        /// The library.
        library: CudaLibrary,
        /// Where the path came from.
        origin: Origin,
        /// `(what, why it failed)` for every candidate, in search order: a path or a loader
        /// name, quoted as Rust writes strings (so trailing spaces, newlines and bytes that are
        /// not UTF-8 show), with where it came from when it was named; or an environment
        /// variable that was skipped, with its value.
        tried: Vec<(String, String)>,
    },

    /// The library that was named loaded, but it lacks the lookup functions of a CUDA library.
    NotACudaLibrary {
        /// The library it was meant to be.
        library: CudaLibrary,
        /// Where the path came from.
        origin: Origin,
        /// The file that was loaded.
        path: PathBuf,
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

    /// Only the unversioned `cudaGetDriverEntryPoint` is available (libcudart 11.x or 12.0–12.4
    /// without the driver's `cuGetProcAddress`), and it would not return the pinned ABI, or that
    /// cannot be proven.
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
        status: Status,
        /// The backend, as [`Resolver::describe`](crate::Resolver::describe) gives it.
        backend: String,
    },

    /// A driver function returned a failing `CUresult`.
    Cuda {
        /// The driver function.
        function: &'static str,
        /// The `CUresult`.
        code: u32,
        /// From `cuGetErrorName`, or else the bindings' name of the code, if either knows it.
        name: Option<String>,
        /// From `cuGetErrorString`, if it could be resolved and knows the code.
        description: Option<String>,
        /// For `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` from a module load (`cuModuleLoadData`,
        /// `cuModuleLoadDataEx`, `cuLinkAddData`, `cuLibraryLoadData`) of PTX text: what the
        /// PTX needs against the driver present. `None` otherwise.
        ptx: Option<UnsupportedPtx>,
    },

    /// Every failure of a table's `resolve_all` (the conversion of [`Errors`] into [`Error`]).
    ResolveAll(Errors),

    /// The default configuration found neither library: no libcudart, and then no libcuda to
    /// fall back to ([`Config::new`](crate::Config::new)).
    NoCudaLibrary {
        /// Why no libcudart was found (a [`LibraryNotFound`](Self::LibraryNotFound)).
        runtime: Error,
        /// Why libcuda could not be used instead.
        driver: Error,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LibraryNotFound {
                library,
                origin,
                tried,
            } => write_not_found(f, library, *origin, tried),
            Self::NotACudaLibrary {
                library,
                origin,
                path,
                missing,
            } => {
                write!(
                    f,
                    "{} loaded, but it is not a usable {}: it exports none of ",
                    quoted(path.as_os_str()),
                    library.kind,
                )?;
                f.write_str(&missing.join(", "))?;
                match origin {
                    Origin::Code => write!(
                        f,
                        "\nTo fix: give Config::library(..) the path of {}",
                        library.title
                    ),
                    Origin::Environment => write!(
                        f,
                        "\nTo fix: set {} to the path of {}, or unset it to search for it",
                        library.env_var, library.title
                    ),
                    Origin::Search => Ok(()),
                }
            }
            Self::DriverTooOld {
                function,
                requested,
                driver,
            } => {
                write!(
                    f,
                    "{function}: requested at version {requested} (CUDA {}), but the driver is \
                     older (",
                    CudaVersion(*requested)
                )?;
                match driver {
                    Some(d) => write!(f, "CUDA {}", CudaVersion(*d))?,
                    None => f.write_str("its version is unknown")?,
                }
                f.write_str("); update the NVIDIA driver")?;
                match older_abi(function, *requested, *driver) {
                    Some(older) if driver.is_some() => write!(
                        f,
                        ", or pin an older ABI of {function} that this driver has \
                         ({function} = {older})"
                    ),
                    Some(older) => write!(
                        f,
                        ", or pin an older ABI of {function} ({function} = {older})"
                    ),
                    None => Ok(()),
                }
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
            } => {
                let rt = CudaVersion(*runtime_version);
                match would_get {
                    Some(got) => write!(
                        f,
                        "{function} is pinned to ABI {requested} but libcudart {rt} would return \
                         ABI {got}"
                    )?,
                    None if crate::abi_history::abis(function).is_none() => write!(
                        f,
                        "{function} is pinned to ABI {requested}, but the ABI history does not \
                         know it, so it cannot be proven that libcudart {rt} would return that ABI"
                    )?,
                    None => write!(
                        f,
                        "{function} is pinned to ABI {requested}, but libcudart {rt} has no ABI \
                         of it at or below its own version"
                    )?,
                }
                write!(f, ": {}", unversioned_reason(*runtime_version))
            }
            Self::LookupFailed {
                function,
                status,
                backend,
            } => {
                write!(
                    f,
                    "looking up {function} through {backend} failed: {status}"
                )?;
                write!(f, "{}", CauseAndFix(status.code.into()))
            }
            Self::Cuda {
                function,
                code,
                name,
                description,
                ptx,
            } => {
                write!(
                    f,
                    "{function} failed: {} ({code})",
                    name.as_deref().unwrap_or("unknown CUresult")
                )?;
                if let Some(d) = description {
                    write!(f, ": {d}")?;
                }
                if let Some(ptx) = ptx {
                    write!(f, "\n{ptx}")?;
                }
                write!(f, "{}", CauseAndFix((*code).into()))
            }
            Self::ResolveAll(errors) => fmt::Display::fmt(errors, f),
            Self::NoCudaLibrary { runtime, driver } => write!(
                f,
                "no CUDA library could be used: neither the CUDA runtime nor, in its place, the \
                 CUDA driver.\nFirst, {runtime}\nThen, {driver}"
            ),
        }
    }
}

impl ErrorKind {
    /// The driver function this error is about; `None` for failures of the library itself and
    /// for [`ResolveAll`](Self::ResolveAll).
    pub fn function(&self) -> Option<&'static str> {
        match self {
            Self::LibraryNotFound { .. }
            | Self::NotACudaLibrary { .. }
            | Self::ResolveAll(_)
            | Self::NoCudaLibrary { .. } => None,
            Self::DriverTooOld { function, .. }
            | Self::SymbolNotFound { function, .. }
            | Self::VersionNotSufficient { function, .. }
            | Self::UnversionedLookupUnsafe { function, .. }
            | Self::LookupFailed { function, .. }
            | Self::Cuda { function, .. } => Some(function),
        }
    }

    /// The message without the function's name, for a failure whose cause does not depend on
    /// the function (no library, neither library, not a CUDA library, a lookup call that fails
    /// for every name, a libcudart that can only look up unversioned); `None` for a failure of
    /// this function alone. [`Errors`] reports a shared cause once.
    fn shared_cause(&self) -> Option<String> {
        match self {
            Self::LibraryNotFound { .. }
            | Self::NotACudaLibrary { .. }
            | Self::NoCudaLibrary { .. } => Some(self.to_string()),
            Self::LookupFailed {
                status, backend, ..
            } => Some(format!(
                "looking them up through {backend} failed: {status}{}",
                CauseAndFix(status.code.into())
            )),
            Self::UnversionedLookupUnsafe {
                runtime_version, ..
            } => Some(format!(
                "libcudart {} cannot be shown to return their pinned ABIs: {}",
                CudaVersion(*runtime_version),
                unversioned_reason(*runtime_version)
            )),
            _ => None,
        }
    }
}

/// The error has no underlying cause: `source()` is `None` for every kind.
impl std::error::Error for ErrorKind {}

fn write_not_found(
    f: &mut fmt::Formatter<'_>,
    library: &CudaLibrary,
    origin: Origin,
    tried: &[(String, String)],
) -> fmt::Result {
    write!(f, "could not load {}; tried:", library.title)?;
    if tried.is_empty() {
        f.write_str(" nothing")?;
    }
    for (what, why) in tried {
        write!(f, "\n  {what}: {why}")?;
    }
    let var = library.env_var;
    match origin {
        Origin::Code => f.write_str(
            "\nTo fix: give Config::library(..) the library's full path (or a bare file name for \
             the system loader), or leave it out to search for the library",
        ),
        Origin::Environment => write!(
            f,
            "\nTo fix: set {var} to the library's full path (or a bare file name for the system \
             loader), or unset it to search for the library"
        ),
        Origin::Search => {
            write!(
                f,
                "\nTo fix: {}, set {var} to the library's full path, or give it in code with \
                 Config::library(..)",
                library.install
            )?;
            match library.instead {
                Some(instead) => write!(f, ", or {instead}"),
                None => Ok(()),
            }
        }
    }
}

/// What a `CUresult` (or libcudart's `cudaError_t` of the same number) that says which driver is
/// there means and what to do, in the words of the system the crate is built for: the cause on
/// one line, the fix on the next. `None` for other codes.
pub(crate) fn cause_and_fix(code: i64, windows: bool) -> Option<(&'static str, &'static str)> {
    // CUDA_ERROR_STUB_LIBRARY, cudaErrorStubLibrary.
    const STUB_LIBRARY: i64 = 34;
    // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, cudaErrorSystemDriverMismatch.
    const SYSTEM_DRIVER_MISMATCH: i64 = 803;
    // CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, cudaErrorCompatNotSupportedOnDevice.
    const COMPAT_NOT_SUPPORTED_ON_DEVICE: i64 = 804;
    Some(match (code, windows) {
        (STUB_LIBRARY, false) => (
            "The libcuda loaded is a stub (a CUDA toolkit's lib64/stubs/libcuda.so, made for \
             linking), whose every function fails: the NVIDIA driver is not installed, or its \
             libcuda.so.1 is not the one found first.",
            "install the NVIDIA driver, and point neither CUDA_DRIVER_TABLE_LIBCUDA nor \
             LD_LIBRARY_PATH at a stubs folder",
        ),
        (STUB_LIBRARY, true) => (
            "The nvcuda.dll loaded is a stub made for linking, whose every function fails: the \
             NVIDIA driver is not installed, or another copy is loaded in place of its own.",
            "install the NVIDIA driver, which puts nvcuda.dll in the system folder, and do not \
             point CUDA_DRIVER_TABLE_LIBCUDA at another copy",
        ),
        (SYSTEM_DRIVER_MISMATCH, false) => (
            "The driver's library (libcuda.so.1) and its loaded kernel module are of different \
             versions: typically the driver was upgraded without a reboot (the module's version \
             is in /proc/driver/nvidia/version).",
            "reboot, or unload and reload the nvidia kernel modules, so that the module running \
             is the installed driver's",
        ),
        (SYSTEM_DRIVER_MISMATCH, true) => (
            "The driver's library (nvcuda.dll) and its kernel-mode driver are of different \
             versions: typically the driver was updated without a restart.",
            "restart the machine, or reinstall the NVIDIA driver",
        ),
        (COMPAT_NOT_SUPPORTED_ON_DEVICE, _) => (
            "The libcuda loaded is a forward-compatibility driver (the cuda-compat package's, \
             usually found through LD_LIBRARY_PATH), and this GPU does not support forward \
             compatibility.",
            "remove the cuda-compat folder from LD_LIBRARY_PATH (and from \
             CUDA_DRIVER_TABLE_LIBCUDA), so that the installed driver's libcuda.so.1 is loaded; \
             for a newer CUDA, update the driver itself",
        ),
        _ => return None,
    })
}

/// `\n<cause>\nTo fix: <fix>` for a code [`cause_and_fix`] explains; nothing for another.
struct CauseAndFix(i64);

impl fmt::Display for CauseAndFix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match cause_and_fix(self.0, cfg!(windows)) {
            Some((cause, fix)) => write!(f, "\n{cause}\nTo fix: {fix}"),
            None => Ok(()),
        }
    }
}

/// `"path"`: a path in double quotes, so that spaces at its ends show in a message, with a quote,
/// control characters (a newline is `\n`) and bytes that are not UTF-8 (`\xFF`) escaped.
/// Backslashes are left alone: they are Windows' separators.
pub(crate) fn quoted(path: &OsStr) -> String {
    let mut s = String::from('"');
    for chunk in path.as_encoded_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '"' || c.is_control() {
                s.extend(c.escape_debug());
            } else {
                s.push(c);
            }
        }
        for byte in chunk.invalid() {
            s.push_str(&format!("\\x{byte:02X}"));
        }
    }
    s.push('"');
    s
}

/// The ABI of `function` to advise pinning when the driver refused version `requested`: the
/// newest ABI in the history older than `requested` and, where the driver's version is known, not
/// newer than it. `None` where the function has no such ABI (`cuLibraryLoadData` has one ABI), or
/// the history does not know it.
fn older_abi(function: &str, requested: u32, driver: Option<u32>) -> Option<u32> {
    let (legacy, _) = crate::abi_history::abis(function)?;
    let older = requested.saturating_sub(1);
    let at_most = driver.map_or(older, |d| d.min(older));
    crate::abi_history::newest_at_or_below(legacy, at_most)
}

/// Why an unversioned lookup of libcudart `runtime_version` is not made, and what to do.
fn unversioned_reason(runtime_version: u32) -> String {
    let rt = CudaVersion(runtime_version);
    format!(
        "libcudart {rt} only has the unversioned cudaGetDriverEntryPoint, which returns the \
         newest ABI up to its own version, and could not hand out the driver's cuGetProcAddress, \
         which asks by version. To fix: update the NVIDIA driver to CUDA 11.3 or newer (the first \
         with cuGetProcAddress)"
    )
}

/// Every failure of a table's `resolve_all`, in the table's order. Converts into [`Error`]
/// ([`ErrorKind::ResolveAll`]), so `resolve_all()?` works where `Error` is returned.
#[derive(Clone, PartialEq, Eq)]
pub struct Errors(Vec<Error>);

impl Errors {
    /// `Ok` for an empty list.
    ///
    /// # Errors
    ///
    /// The list itself when it is not empty.
    pub fn from_vec(errors: Vec<Error>) -> Result<(), Errors> {
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Errors(errors))
        }
    }

    /// The failures.
    pub fn as_slice(&self) -> &[Error] {
        &self.0
    }

    /// The failures, owned.
    pub fn into_vec(self) -> Vec<Error> {
        self.0
    }
}

/// A failure shared by several functions is written once, with how many it affects and which;
/// each other failure takes one line.
impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // (cause, functions, first error), in order of first appearance.
        let mut shared: Vec<(String, Vec<&'static str>, &Error)> = Vec::new();
        // The failures of one function alone, listed after the shared causes.
        let mut own = 0;
        for e in &self.0 {
            let Some(cause) = e.kind().shared_cause() else {
                own += 1;
                continue;
            };
            let function = e.kind().function().unwrap_or("?");
            match shared.iter_mut().find(|(c, _, _)| *c == cause) {
                Some((_, functions, _)) => functions.push(function),
                None => shared.push((cause, vec![function], e)),
            }
        }
        let n = self.0.len();
        write!(f, "{n} driver function{} could not be resolved", plural(n))?;
        if let ([(cause, functions, _)], 0) = (shared.as_slice(), own) {
            if functions.len() > 1 {
                return write!(f, ", all for one reason:\n{cause}");
            }
        }
        f.write_str(":")?;
        for (cause, functions, first) in &shared {
            match functions.as_slice() {
                [_] => write!(f, "\n  - {first}")?,
                _ => write!(f, "\n  - {}: {cause}", function_list(functions))?,
            }
        }
        if own > 0 {
            for e in &self.0 {
                if e.kind().shared_cause().is_none() {
                    write!(f, "\n  - {e}")?;
                }
            }
        }
        Ok(())
    }
}

/// `Errors` prints like `Error`: `{:?}` is the message, `{:#?}` the list.
impl fmt::Debug for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.debug_tuple("Errors").field(&self.0).finish()
        } else {
            fmt::Display::fmt(self, f)
        }
    }
}

impl std::error::Error for Errors {}

/// The plural ending of a count's noun: `"s"`, or nothing for 1.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `cuInit` / `3 functions (cuA, cuB, cuC)` / `447 functions (cuA, cuB, cuC, cuD, cuE, ...)`.
fn function_list(functions: &[&str]) -> String {
    const SHOWN: usize = 5;
    match functions {
        [one] => (*one).to_owned(),
        _ => {
            let mut names = functions[..functions.len().min(SHOWN)].join(", ");
            if functions.len() > SHOWN {
                names.push_str(", ...");
            }
            format!("{} functions ({names})", functions.len())
        }
    }
}

#[cfg(test)]
mod tests;
