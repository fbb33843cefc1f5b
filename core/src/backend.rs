//! The two built-in resolvers, one per library: [`Runtime`] (libcudart) and [`Driver`]
//! (libcuda), matching [`Backend::Runtime`](crate::Backend::Runtime) and
//! [`Backend::Driver`](crate::Backend::Driver).
//!
//! Each module holds everything specific to its library: the lookup calls, the symbols that
//! identify it, the environment variable that names it and where the search looks for it.
//! Loading and caching are `library`'s, for either backend's [`BuiltIn`].

mod driver;
mod runtime;

pub(crate) use driver::Driver;
/// The two backends as the loading code takes them.
pub(crate) use driver::BUILT_IN as DRIVER;
pub(crate) use runtime::Runtime;
pub(crate) use runtime::BUILT_IN as RUNTIME;

use std::ffi::{c_int, c_void, CStr, OsStr, OsString};
use std::path::{Path, PathBuf};
use std::ptr::{null_mut, NonNull};
use std::sync::OnceLock;

use libloading::Library;

use crate::error::{quoted, CudaLibrary, Error, Status};
use crate::ffi;
use crate::manifest::cu_result_name;
use crate::resolve::{classify, LookupResult, Resolver};
use crate::stream::StreamMode;

/// The environment variable naming the libcudart to load (runtime backend), as an absolute path
/// or a bare file name for the system loader.
pub const ENV_CUDART: &str = Runtime::LIBRARY.env_var;
/// The environment variable naming the libcuda to load (driver backend), as an absolute path or
/// a bare file name for the system loader.
pub const ENV_LIBCUDA: &str = Driver::LIBRARY.env_var;

/// The outcome of loading a built-in backend's library, cached once per process.
pub(crate) type Loaded = Result<&'static dyn BuiltInResolver, Error>;

/// What a configuration resolves through: a built-in backend, or the program's own resolver.
#[derive(Clone, Copy)]
pub(crate) enum Source {
    /// libcudart or libcuda, loaded by this crate.
    BuiltIn(&'static dyn BuiltInResolver),
    /// [`Backend::Custom`](crate::Backend::Custom).
    Custom(&'static dyn Resolver),
}

impl Source {
    /// The resolver, whichever it is.
    pub(crate) fn resolver(self) -> &'static dyn Resolver {
        match self {
            Source::BuiltIn(r) => r,
            Source::Custom(r) => r,
        }
    }

    /// The built-in backend's versioned lookup function, if it has one now; never for a
    /// program's own resolver, which is only asked through [`Resolver`].
    pub(crate) fn versioned_lookup(self) -> Option<VersionedLookup> {
        match self {
            Source::BuiltIn(r) => r.versioned_lookup(),
            Source::Custom(_) => None,
        }
    }
}

/// A built-in backend's resolver (or the driver's standing in for libcudart): a [`Resolver`]
/// whose versioned lookups are calls of one C function, which `resolve_all` calls itself, in a
/// loop over a table's functions, instead of going through [`Resolver::lookup`] each time.
pub(crate) trait BuiltInResolver: Resolver {
    /// The function [`lookup`](Resolver::lookup) calls for a [`Query::ByVersion`] now, if it
    /// answers one now ([`Resolver::versioning`] is `Versioned`).
    ///
    /// [`Query::ByVersion`]: crate::Query::ByVersion
    fn versioned_lookup(&self) -> Option<VersionedLookup>;
}

/// A versioned lookup function of a built-in backend: what its [`Resolver::lookup`] calls for a
/// [`Query::ByVersion`](crate::Query::ByVersion). It answers with the driver's own pointer for
/// (name, version, flag), the same one every time it is asked.
#[derive(Clone, Copy)]
pub(crate) enum VersionedLookup {
    /// The driver's `cuGetProcAddress` (either ABI).
    GetProc(GetProc),
    /// libcudart's `cudaGetDriverEntryPointByVersion` (12.5+).
    ByVersion(ffi::RtEntryPointByVersion),
}

impl VersionedLookup {
    /// One raw call at exactly `version` with `mode`'s flag: `(result, status or None, pointer)`,
    /// for [`classify`] (or [`found`](crate::resolve::found)).
    #[inline(always)]
    pub(crate) fn call(
        self,
        symbol: &CStr,
        version: u32,
        mode: StreamMode,
    ) -> (c_int, Option<c_int>, *mut c_void) {
        match self {
            VersionedLookup::GetProc(g) => g.call(symbol, version, mode),
            VersionedLookup::ByVersion(f) => {
                let mut ptr: *mut c_void = null_mut();
                let mut status: c_int = -1;
                // SAFETY: NUL-terminated symbol, valid out-parameters, documented signature.
                let rc = unsafe { f(symbol.as_ptr(), &mut ptr, version, mode.flag(), &mut status) };
                (rc, Some(status), ptr)
            }
        }
    }
}

/// The outcome of a search: the library, or the error listing every candidate; and whether no
/// candidate file exists at all (the library is not installed, as opposed to installed and
/// failing), which decides the default configuration's fallback from libcudart to libcuda.
#[derive(Clone)]
pub(crate) struct Searched {
    pub(crate) loaded: Loaded,
    pub(crate) found_no_file: bool,
}

/// Reads an environment variable (a parameter so that search plans are testable).
pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// A backend's search candidates on a system, in an environment ([`BuiltIn::candidates`]).
pub(crate) type Candidates = fn(Os, Env<'_>, &mut Vec<(String, String)>) -> Vec<Candidate>;

/// One library a search tries: a path or a bare name for the system loader, and the environment
/// variable it was made from (`CUDA_PATH`, `LD_LIBRARY_PATH`, ...), if any, which the error's
/// list of what was tried names beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub(crate) path: PathBuf,
    pub(crate) from: Option<&'static str>,
}

impl Candidate {
    /// A name or path of the crate's own (a loader name, a system folder's file).
    pub(crate) fn own(path: impl Into<PathBuf>) -> Self {
        Candidate {
            path: path.into(),
            from: None,
        }
    }

    /// A path made from the value of the environment variable `var`.
    pub(crate) fn from_var(path: impl Into<PathBuf>, var: &'static str) -> Self {
        Candidate {
            path: path.into(),
            from: Some(var),
        }
    }

    /// The candidate as the list of what was tried names it: the path quoted, then
    /// `(from $VAR)` for one made from a variable (as a path the variable names is written).
    pub(crate) fn describe(&self) -> String {
        match self.from {
            Some(var) => format!("{} (from ${var})", quoted(self.path.as_os_str())),
            None => quoted(self.path.as_os_str()),
        }
    }
}

impl AsRef<Path> for Candidate {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

/// What `library` needs to know of a built-in backend to find, load and wrap its library: values
/// and plain functions, so that one copy of the loading code serves both backends (`RUNTIME` and
/// `DRIVER`).
pub(crate) struct BuiltIn {
    /// The library: its name, the environment variable naming it, and how errors advise on it.
    pub(crate) library: CudaLibrary,
    /// The lookup functions, in order of preference; a library exporting none is not ours.
    /// NUL-terminated, as the loader takes them.
    pub(crate) lookup_symbols: &'static [&'static CStr],
    /// The candidates of the search (used when neither code nor the environment variable names a
    /// library), in order. Variables that cannot be used are noted in `skipped` as
    /// `(what, why)` for the error message.
    pub(crate) candidates: Candidates,
    /// Wraps a loaded library found at `path` into the backend's resolver, which is kept for the
    /// rest of the process; `None` when it exports none of
    /// [`lookup_symbols`](Self::lookup_symbols) (not this backend's library). Does no call into
    /// the library.
    ///
    /// # Safety
    ///
    /// `lib` must be this backend's CUDA library, or at least export the names used with their
    /// CUDA signatures; and when this returns a resolver, `lib` must stay loaded for the rest of
    /// the process (the resolver holds pointers into it).
    pub(crate) wrap: unsafe fn(lib: &Library, path: &Path) -> Option<&'static dyn BuiltInResolver>,
    /// The process-wide outcome of the search.
    pub(crate) searched: &'static OnceLock<Searched>,
}

/// The function `lib` exports as `name`, if any, as a pointer of type `F`.
///
/// # Safety
///
/// `F` must be a function pointer type of the function `name` exports (or [`ffi::Untyped`],
/// to be typed before it is called), and `lib` must stay loaded while the pointer is used.
pub(crate) unsafe fn export<F: Copy>(lib: &Library, name: &CStr) -> Option<F> {
    // SAFETY: `F` is the export's function pointer type (the caller's promise; `get` checks its
    // size), and the pointer is copied out for as long as the caller keeps `lib` loaded.
    unsafe { lib.get::<F>(name) }.ok().map(|symbol| *symbol)
}

/// The system whose library layout a search plan is for: the one this crate is built for, or
/// another in tests (the Windows plan is tested on Linux too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Os {
    /// Linux and other Unix systems: `libcudart.so.N`, `libcuda.so.1`, `/` separators.
    Unix,
    /// Windows: `cudart64_N.dll`, `nvcuda.dll`, `\` (or `/`) separators, drive letters.
    Windows,
}

impl Os {
    /// The system this crate is compiled for.
    pub(crate) const CURRENT: Os = if cfg!(windows) { Os::Windows } else { Os::Unix };

    /// Whether `path` is absolute on this system: `/x` on Unix; `C:\x`, `C:/x` or `\\server\x`
    /// on Windows (not `C:x` nor `\x`, which depend on the current drive or directory).
    pub(crate) fn is_absolute(self, path: &OsStr) -> bool {
        let b = path.as_encoded_bytes();
        match self {
            Os::Unix => b.first() == Some(&b'/'),
            Os::Windows => {
                let drive = b.len() >= 3
                    && b[0].is_ascii_alphabetic()
                    && b[1] == b':'
                    && matches!(b[2], b'\\' | b'/');
                let unc = b.len() >= 2 && matches!(b[0], b'\\' | b'/') && b[0] == b[1];
                drive || unc
            }
        }
    }

    /// Whether `path` names a folder at all (a separator, or on Windows a drive prefix): a path
    /// that is not absolute and does this depends on the current directory.
    pub(crate) fn has_folder(self, path: &OsStr) -> bool {
        let b = path.as_encoded_bytes();
        match self {
            Os::Unix => b.contains(&b'/'),
            Os::Windows => b.iter().any(|c| matches!(c, b'\\' | b'/' | b':')),
        }
    }

    /// `base` (without the separators it ends with) followed by the parts of each of `parts`,
    /// with this system's separator. `base` is any `OsStr`, UTF-8 or not.
    pub(crate) fn join(self, base: &OsStr, parts: &[&[&str]]) -> PathBuf {
        let sep = match self {
            Os::Unix => "/",
            Os::Windows => "\\",
        };
        let bytes = base.as_encoded_bytes();
        let is_separator = |b: &u8| *b == b'/' || *b == sep.as_bytes()[0];
        let end = bytes
            .iter()
            .rposition(|b| !is_separator(b))
            .map_or(0, |i| i + 1);
        // SAFETY: the bytes are `as_encoded_bytes` of an `OsStr` of this platform, cut just
        // before a run of ASCII separators: a split immediately before a valid non-empty UTF-8
        // substring, which `from_encoded_bytes_unchecked` allows.
        let mut s = unsafe { OsStr::from_encoded_bytes_unchecked(&bytes[..end]) }.to_owned();
        for list in parts {
            for part in *list {
                s.push(sep);
                s.push(part);
            }
        }
        PathBuf::from(s)
    }
}

/// The absolute directories named by `vars` (in order); the others are noted in `skipped`.
pub(crate) fn absolute_dirs(
    os: Os,
    env: Env<'_>,
    vars: &[&str],
    skipped: &mut Vec<(String, String)>,
) -> Vec<OsString> {
    let mut dirs = Vec::new();
    for var in vars {
        let dir = match env(var) {
            Some(dir) if !dir.is_empty() => dir,
            _ => continue,
        };
        if os.is_absolute(&dir) {
            dirs.push(dir);
        } else {
            skipped.push((
                format!("${var}={}", quoted(&dir)),
                "skipped: not an absolute path".to_owned(),
            ));
        }
    }
    dirs
}

/// The driver's own `cuGetProcAddress`, at one of its two ABIs: taken from `libcuda.so.1` by the
/// driver backend, or handed out by an old libcudart's `cudaGetDriverEntryPoint` to the runtime
/// backend. Either way every lookup through it is made at exactly the pinned version.
#[derive(Clone, Copy)]
pub(crate) enum GetProc {
    /// ABI 12000, with a status argument.
    V2(ffi::GetProcAddressV2),
    /// ABI 11030.
    V1(ffi::GetProcAddress),
}

impl GetProc {
    /// The symbol name of this ABI, for descriptions.
    pub(crate) fn name(self) -> &'static str {
        match self {
            GetProc::V2(_) => "cuGetProcAddress_v2",
            GetProc::V1(_) => "cuGetProcAddress",
        }
    }

    /// One raw call: `(result, status or None, pointer)`.
    #[inline(always)]
    pub(crate) fn call(
        self,
        symbol: &CStr,
        version: u32,
        mode: StreamMode,
    ) -> (c_int, Option<c_int>, *mut c_void) {
        let mut ptr: *mut c_void = null_mut();
        let version = c_int::try_from(version).unwrap_or(c_int::MAX);
        match self {
            GetProc::V2(f) => {
                let mut status: c_int = -1;
                // SAFETY: NUL-terminated symbol, valid out-parameters, documented signature.
                let rc = unsafe { f(symbol.as_ptr(), &mut ptr, version, mode.flag(), &mut status) };
                (rc.0 as c_int, Some(status), ptr)
            }
            GetProc::V1(f) => {
                // SAFETY: as above, without the status argument.
                let rc = unsafe { f(symbol.as_ptr(), &mut ptr, version, mode.flag()) };
                (rc.0 as c_int, None, ptr)
            }
        }
    }

    /// A lookup at exactly `version` with `mode`'s flag, classified; a failing `CUresult` of the
    /// lookup is named by `names` (the driver's `cuGetErrorName`/`cuGetErrorString`), or else by
    /// the bindings (a toolkit's stub library names none; the error says what it is).
    pub(crate) fn lookup(
        self,
        symbol: &CStr,
        version: u32,
        mode: StreamMode,
        driver_version: &dyn Fn() -> Option<u32>,
        names: &dyn Fn(u32) -> (Option<String>, Option<String>),
    ) -> LookupResult {
        let (rc, status, ptr) = self.call(symbol, version, mode);
        classify(rc, status, ptr, version, driver_version, &|rc| {
            let code = rc as u32;
            let (name, description) = names(code);
            let name = name.unwrap_or_else(|| {
                cu_result_name(code)
                    .unwrap_or("unknown CUresult")
                    .to_owned()
            });
            Status {
                code: rc,
                name,
                description: description.unwrap_or_default(),
            }
        })
    }

    /// `name` at `version` (legacy stream) on clear success only; for the helper functions of
    /// error messages, so that a failure there cannot recurse into more error handling.
    pub(crate) fn found(self, symbol: &CStr, version: u32) -> Option<NonNull<c_void>> {
        match self.call(symbol, version, StreamMode::Legacy) {
            (0, None | Some(0 | -1), p) => NonNull::new(p),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
