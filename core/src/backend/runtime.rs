//! The runtime backend: driver entry points through a loaded `libcudart` (`cudart64_*.dll` on
//! Windows).
//!
//! `cudaGetDriverEntryPointByVersion` (12.5+) takes the pinned version. Older libraries (11.3 to
//! 12.4) only have `cudaGetDriverEntryPoint`, which answers for the runtime's own version; it is
//! asked once for the driver's `cuGetProcAddress` (whose ABI at that version the history proves:
//! 11030 or 12000), and every function is then asked of that at exactly its pinned version,
//! still through the driver libcudart loaded. Only when that cannot be had (11.x without a
//! driver cannot even tell its version) is the unversioned lookup used directly, and `resolve`
//! decides whether that is safe. This module only calls the library; it never picks versions.

use std::cmp::Reverse;
use std::ffi::{c_int, c_void, CStr, OsStr};
use std::path::{Path, PathBuf};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use libloading::Library;

use super::{
    absolute_dirs, export, BuiltIn, BuiltInResolver, Candidate, Env, GetProc, Os, Searched,
    VersionedLookup,
};
use crate::abi_history;
use crate::error::{CudaLibrary, Status};
use crate::ffi;
use crate::resolve::{
    c_string, classify, resolve_symbol, ErrorStringFns, LookupResult, Query, Resolver, Versioning,
    ERROR_STRING_ABI,
};
use crate::stream::StreamMode;
use crate::version::CudaVersion;

/// The loader names of libcudart, newest first.
const LOADER_NAMES: &[&str] = &["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"];
/// The same on Windows.
const DLL_NAMES: &[&str] = &["cudart64_13.dll", "cudart64_12.dll", "cudart64_110.dll"];

#[derive(Clone, Copy)]
enum EntryPoint {
    /// `cudaGetDriverEntryPointByVersion`.
    ByVersion(ffi::RtEntryPointByVersion),
    /// Only `cudaGetDriverEntryPoint`, whose signature depends on the runtime's major version:
    /// typed when called.
    Unversioned(ffi::Untyped),
}

/// A loaded libcudart: [`Backend::Runtime`](crate::Backend::Runtime).
pub(crate) struct Runtime {
    path: String,
    entry: EntryPoint,
    /// The runtime's version once read; 0 until then. libcudart 11.x fails to tell it
    /// (`cudaErrorInsufficientDriver`) when there is no driver, so it is read when needed.
    version: AtomicU32,
    runtime_get_version: Option<ffi::RtGetVersion>,
    driver_get_version: Option<ffi::RtGetVersion>,
    error_name: Option<ffi::RtErrorText>,
    error_string: Option<ffi::RtErrorText>,
    cu_errors: ErrorStringFns,
    /// With only the unversioned entry point: the driver's `cuGetProcAddress`, obtained through
    /// it once (it needs a driver, and for 11.x the runtime's version), so that every function
    /// is then asked at exactly its pinned version.
    get_proc: OnceLock<GetProc>,
}

impl Runtime {
    /// The runtime's version (`cudaRuntimeGetVersion`), or the failing call's result.
    fn runtime_version(&self) -> Result<u32, c_int> {
        let cached = self.version.load(Ordering::Relaxed);
        if cached != 0 {
            return Ok(cached);
        }
        let Some(f) = self.runtime_get_version else {
            return Err(-1);
        };
        let mut v: c_int = 0;
        // SAFETY: `v` is a valid out-parameter.
        let rc = unsafe { f(&mut v) };
        match (rc, u32::try_from(v)) {
            (0, Ok(v)) if v > 0 => {
                self.version.store(v, Ordering::Relaxed);
                Ok(v)
            }
            (0, _) => Err(-1),
            (rc, _) => Err(rc),
        }
    }

    /// libcudart's name and description of its `cudaError_t` `rc` (-1: no runtime version).
    fn describe_code(&self, rc: c_int) -> Status {
        if rc == -1 {
            return Status {
                code: rc,
                name: "no runtime version".to_owned(),
                description: "cudaRuntimeGetVersion is missing or returned no version".to_owned(),
            };
        }
        let text = |f: Option<ffi::RtErrorText>| {
            // SAFETY: cudaGetErrorName/String accept any code and return a static string.
            f.and_then(|f| unsafe { c_string(f(rc)) })
                .unwrap_or_else(|| "unknown".to_owned())
        };
        Status {
            code: rc,
            name: text(self.error_name),
            description: text(self.error_string),
        }
    }

    /// Name and description of a driver `CUresult`, from the driver's `cuGetErrorName` and
    /// `cuGetErrorString` (ABI 6000) asked of its `cuGetProcAddress`; `None`s without it.
    fn cu_errors_of(&self, code: u32) -> (Option<String>, Option<String>) {
        let Some(g) = self.get_proc.get().copied() else {
            return (None, None);
        };
        // SAFETY: `found` returns the driver's own function of that name at ABI 6000 (the type
        // `strings` calls it through) or nothing.
        unsafe {
            self.cu_errors
                .strings(code, &|_, symbol| g.found(symbol, ERROR_STRING_ABI.version))
        }
    }

    /// The unversioned `cudaGetDriverEntryPoint`, which answers for the runtime's version `r`.
    fn unversioned_lookup(
        &self,
        f: ffi::Untyped,
        symbol: &CStr,
        r: u32,
        mode: StreamMode,
    ) -> LookupResult {
        let mut ptr: *mut c_void = null_mut();
        let mut status: c_int = -1;
        let (rc, status) = if r >= 12000 {
            // SAFETY: libcudart 12.x exports the 4-argument form.
            let f = unsafe { std::mem::transmute::<ffi::Untyped, ffi::RtEntryPoint12>(f) };
            // SAFETY: NUL-terminated symbol, valid out-parameters.
            let rc = unsafe { f(symbol.as_ptr(), &mut ptr, mode.flag(), &mut status) };
            (rc, Some(status))
        } else {
            // SAFETY: libcudart 11.x exports the 3-argument form.
            let f = unsafe { std::mem::transmute::<ffi::Untyped, ffi::RtEntryPoint11>(f) };
            // SAFETY: NUL-terminated symbol, valid out-parameter (no status in 11.x).
            let rc = unsafe { f(symbol.as_ptr(), &mut ptr, mode.flag()) };
            (rc, None)
        };
        classify(rc, status, ptr, r, &|| self.driver_version(), &|rc| {
            self.describe_code(rc)
        })
    }

    /// The driver's `cuGetProcAddress`, asked of the unversioned entry point (libcudart 11.3 to
    /// 12.4), if the ABI history proves which of its ABIs that returns: the newest at or below the
    /// runtime's version, 11030 for 11.x and 12000 for 12.x. Kept once found.
    ///
    /// `Err(Some(status))` when a call on the way failed (`cudaRuntimeGetVersion`, or the lookup
    /// itself: without a driver both fail with `cudaErrorInsufficientDriver`); that failure is
    /// every lookup's, so it is the one reason reported for all. `Err(None)` without the
    /// unversioned entry point, or when the driver does not hand out `cuGetProcAddress` or its ABI
    /// cannot be proven.
    fn get_proc(&self) -> Result<GetProc, Option<Status>> {
        if let Some(g) = self.get_proc.get() {
            return Ok(*g);
        }
        let EntryPoint::Unversioned(f) = self.entry else {
            return Err(None);
        };
        let r = match self.runtime_version() {
            Ok(r) => r,
            Err(rc) => {
                return Err(Some(self.explained(
                    rc,
                    "cudaRuntimeGetVersion, needed because this libcudart only has the \
                     unversioned cudaGetDriverEntryPoint",
                )))
            }
        };
        let Some((legacy, _)) = abi_history::abis("cuGetProcAddress") else {
            return Err(None);
        };
        let Some(abi) = abi_history::newest_at_or_below(legacy, r) else {
            return Err(None);
        };
        let p = match self.unversioned_lookup(f, c"cuGetProcAddress", r, StreamMode::Legacy) {
            LookupResult::Found(p) => p,
            LookupResult::Failed(status) => {
                return Err(Some(Status {
                    description: format!(
                        "{} (cudaGetDriverEntryPoint asked for the driver's cuGetProcAddress, \
                         through which this libcudart looks functions up by version)",
                        status.description
                    ),
                    ..status
                }))
            }
            _ => return Err(None),
        };
        let g = match abi {
            // SAFETY: the unversioned lookup at `r` returns the newest ABI at or below `r`,
            // which the history says is 11030: `CUresult cuGetProcAddress(const char*, void**,
            // int, cuuint64_t)`.
            11030 => GetProc::V1(unsafe {
                std::mem::transmute::<*mut c_void, ffi::GetProcAddress>(p.as_ptr())
            }),
            // SAFETY: likewise ABI 12000, `cuGetProcAddress_v2` with its status argument.
            12000 => GetProc::V2(unsafe {
                std::mem::transmute::<*mut c_void, ffi::GetProcAddressV2>(p.as_ptr())
            }),
            _ => return Err(None),
        };
        Ok(*self.get_proc.get_or_init(|| g))
    }

    /// libcudart's status `rc`, its description followed by `(context)`.
    fn explained(&self, rc: c_int, context: &str) -> Status {
        let status = self.describe_code(rc);
        Status {
            description: format!("{} ({context})", status.description),
            ..status
        }
    }
}

/// Calls `cudaRuntimeGetVersion` or `cudaDriverGetVersion`; 0 (no driver) gives `None`.
fn call_get_version(f: ffi::RtGetVersion) -> Option<u32> {
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid out-parameter.
    let rc = unsafe { f(&mut v) };
    (rc == 0 && v > 0).then_some(v as u32)
}

// SAFETY: the lookups return what libcudart returns for exactly the query made: ByVersion at the
// given version (through cudaGetDriverEntryPointByVersion, or the driver's own cuGetProcAddress
// that the unversioned entry point handed out, at the ABI the history proves), or the unversioned
// lookup at the version that `versioning` reports. libcudart and the driver are never unloaded,
// so their pointers stay valid.
unsafe impl Resolver for Runtime {
    fn describe(&self) -> String {
        let runtime = match self.runtime_version() {
            Ok(v) => format!("libcudart {} ({})", CudaVersion(v), self.path),
            Err(_) => format!("libcudart ({})", self.path),
        };
        match self.get_proc.get() {
            Some(g) => format!("{runtime}, through the driver's {} it hands out", g.name()),
            None => runtime,
        }
    }

    fn versioning(&self) -> Versioning {
        match self.entry {
            EntryPoint::ByVersion(_) => Versioning::Versioned,
            EntryPoint::Unversioned(_) => match self.get_proc() {
                Ok(_) => Versioning::Versioned,
                Err(Some(status)) => Versioning::Unavailable(status),
                Err(None) => match self.runtime_version() {
                    Ok(v) => Versioning::Unversioned(v),
                    Err(rc) => Versioning::Unavailable(self.describe_code(rc)),
                },
            },
        }
    }

    fn lookup(&self, symbol: &CStr, query: Query, mode: StreamMode) -> LookupResult {
        match (self.entry, query) {
            (EntryPoint::ByVersion(f), Query::ByVersion(v)) => {
                let (rc, status, ptr) = VersionedLookup::ByVersion(f).call(symbol, v, mode);
                classify(rc, status, ptr, v, &|| self.driver_version(), &|rc| {
                    self.describe_code(rc)
                })
            }
            (EntryPoint::Unversioned(_), Query::ByVersion(v)) => {
                let g = match self.get_proc() {
                    Ok(g) => g,
                    Err(Some(status)) => return LookupResult::Failed(status),
                    Err(None) => {
                        return LookupResult::Failed(Status {
                            code: -1,
                            name: "unsupported query".to_owned(),
                            description: format!(
                                "{} has no versioned lookup without the driver's cuGetProcAddress",
                                self.describe()
                            ),
                        })
                    }
                };
                // The driver's CUresult, named by the driver's own functions.
                g.lookup(symbol, v, mode, &|| self.driver_version(), &|code| {
                    self.cu_errors_of(code)
                })
            }
            (EntryPoint::Unversioned(f), Query::Unversioned) => match self.runtime_version() {
                Ok(r) => self.unversioned_lookup(f, symbol, r, mode),
                Err(rc) => LookupResult::Failed(self.describe_code(rc)),
            },
            (_, query) => LookupResult::Failed(Status {
                code: -1,
                name: "unsupported query".to_owned(),
                description: format!("{} cannot answer {query:?}", self.describe()),
            }),
        }
    }

    fn driver_version(&self) -> Option<u32> {
        self.driver_get_version.and_then(call_get_version)
    }

    fn error_strings(&self, code: u32) -> (Option<String>, Option<String>) {
        if self.get_proc().is_ok() {
            return self.cu_errors_of(code);
        }
        // SAFETY: `resolve_symbol` returns only the requested ABI 6000 of the named function.
        unsafe {
            self.cu_errors.strings(code, &|name, symbol| {
                resolve_symbol(self, StreamMode::Legacy, name, symbol, &ERROR_STRING_ABI).ok()
            })
        }
    }
}

impl BuiltInResolver for Runtime {
    /// `cudaGetDriverEntryPointByVersion`, or with only the unversioned entry point the driver's
    /// `cuGetProcAddress` it handed out: exactly when [`versioning`](Resolver::versioning) says
    /// `Versioned`.
    fn versioned_lookup(&self) -> Option<VersionedLookup> {
        match self.entry {
            EntryPoint::ByVersion(f) => Some(VersionedLookup::ByVersion(f)),
            EntryPoint::Unversioned(_) => self.get_proc().ok().map(VersionedLookup::GetProc),
        }
    }
}

impl Runtime {
    /// The runtime library as errors name it and advise on it on `os`: `libcudart`, or
    /// `cudart64_*.dll` on Windows.
    pub(crate) const fn library(os: Os) -> CudaLibrary {
        CudaLibrary {
            name: "libcudart",
            title: match os {
                Os::Unix => "the CUDA runtime library (libcudart)",
                Os::Windows => "the CUDA runtime library (cudart64_*.dll)",
            },
            kind: "CUDA runtime library",
            env_var: "CUDA_DRIVER_TABLE_CUDART",
            install: "install the CUDA runtime (a CUDA toolkit or the nvidia-cuda-runtime wheel)",
            instead: Some("use the driver backend Config::driver()"),
        }
    }
}

/// The runtime backend, as `library` loads it.
pub(crate) static BUILT_IN: BuiltIn = BuiltIn {
    library: Runtime::LIBRARY,
    lookup_symbols: Runtime::LOOKUP_SYMBOLS,
    candidates: Runtime::candidates,
    wrap: Runtime::wrap,
    searched: &SEARCHED,
};

/// The outcome of the runtime backend's search, once per process.
static SEARCHED: OnceLock<Searched> = OnceLock::new();

impl Runtime {
    /// The library as errors name it on this system.
    pub(crate) const LIBRARY: CudaLibrary = Runtime::library(Os::CURRENT);
    /// `cudaGetDriverEntryPointByVersion`, then `cudaGetDriverEntryPoint`
    /// ([`BuiltIn::lookup_symbols`]).
    pub(crate) const LOOKUP_SYMBOLS: &'static [&'static CStr] = &[
        c"cudaGetDriverEntryPointByVersion",
        c"cudaGetDriverEntryPoint",
    ];

    /// `$CUDA_PATH` and `$CUDA_HOME` (Unix: `lib64`, then `lib`; Windows: `bin\x64` (13.x),
    /// then `bin`), the loader's names, then the active Python environment: conda's own
    /// `cuda-cudart` package (`$CONDA_PREFIX/lib`, Windows `Library\bin`) and the pip wheel
    /// layouts (`$VIRTUAL_ENV`, `$CONDA_PREFIX`). Never the toolkit's `stubs`.
    pub(crate) fn candidates(
        os: Os,
        env: Env<'_>,
        skipped: &mut Vec<(String, String)>,
    ) -> Vec<Candidate> {
        let (names, toolkit_dirs, conda_dir): (&[&str], &[&[&str]], &[&str]) = match os {
            Os::Unix => (LOADER_NAMES, &[&["lib64"], &["lib"]], &["lib"]),
            Os::Windows => (DLL_NAMES, &[&["bin", "x64"], &["bin"]], &["Library", "bin"]),
        };
        let mut candidates = Vec::new();
        for var in ["CUDA_PATH", "CUDA_HOME"] {
            for root in &absolute_dirs(os, env, &[var], skipped) {
                for dir in toolkit_dirs {
                    for name in names {
                        candidates.push(Candidate::from_var(os.join(root, &[dir, &[name]]), var));
                    }
                }
            }
        }
        for name in names {
            candidates.push(Candidate::own(*name));
        }
        for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
            for prefix in &absolute_dirs(os, env, &[var], skipped) {
                let mut push = |path| candidates.push(Candidate::from_var(path, var));
                if var == "CONDA_PREFIX" {
                    for name in names {
                        push(os.join(prefix, &[conda_dir, &[name]]));
                    }
                }
                match os {
                    Os::Unix => {
                        for site in &site_packages(Path::new(prefix)) {
                            for wheel in UNIX_WHEELS {
                                push(os.join(site.as_os_str(), &[wheel]));
                            }
                        }
                    }
                    Os::Windows => {
                        for wheel in WINDOWS_WHEELS {
                            push(os.join(prefix, &[&["Lib", "site-packages", "nvidia"], wheel]));
                        }
                    }
                }
            }
        }
        candidates
    }

    /// Wraps a loaded library ([`BuiltIn::wrap`]). `None` when it exports no lookup function
    /// (not a libcudart). Does no call into the library.
    ///
    /// # Safety
    ///
    /// `lib` must be a CUDA runtime library, or at least export the `cuda*` names used here with
    /// libcudart's signatures, and stay loaded for the rest of the process if this returns a
    /// resolver.
    unsafe fn wrap(lib: &Library, path: &Path) -> Option<&'static dyn BuiltInResolver> {
        // SAFETY: the caller keeps the library loaded, and guarantees libcudart's signatures,
        // which are the types each export is read as. The unversioned entry point stays untyped
        // until the runtime's major version is known.
        let (entry, runtime_get_version, driver_get_version, error_name, error_string) = unsafe {
            let entry = match export(lib, Self::LOOKUP_SYMBOLS[0]) {
                Some(f) => EntryPoint::ByVersion(f),
                None => EntryPoint::Unversioned(export(lib, Self::LOOKUP_SYMBOLS[1])?),
            };
            (
                entry,
                export(lib, c"cudaRuntimeGetVersion"),
                export(lib, c"cudaDriverGetVersion"),
                export(lib, c"cudaGetErrorName"),
                export(lib, c"cudaGetErrorString"),
            )
        };
        Some(Box::leak(Box::new(Self {
            path: path.display().to_string(),
            entry,
            version: AtomicU32::new(0),
            runtime_get_version,
            driver_get_version,
            error_name,
            error_string,
            cu_errors: ErrorStringFns::new(),
            get_proc: OnceLock::new(),
        })))
    }
}

/// The wheel layouts of a `site-packages` folder on Unix, newest first.
const UNIX_WHEELS: &[&[&str]] = &[
    &["nvidia", "cu13", "lib", "libcudart.so.13"],
    &["nvidia", "cuda_runtime", "lib", "libcudart.so.12"],
    &["nvidia", "cuda_runtime", "lib", "libcudart.so.11.0"],
];
/// The same in `Lib\site-packages\nvidia` on Windows.
const WINDOWS_WHEELS: &[&[&str]] = &[
    &["cu13", "bin", "x86_64", "cudart64_13.dll"],
    &["cuda_runtime", "bin", "cudart64_12.dll"],
    &["cuda_runtime", "bin", "cudart64_110.dll"],
];

/// `prefix/lib/python3.*/site-packages`, newest Python first, a free-threaded build
/// (`python3.13t`) after the usual one of its version (only existing folders).
fn site_packages(prefix: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(prefix.join("lib")) else {
        return Vec::new();
    };
    let mut found: Vec<((u32, bool), PathBuf)> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let version = python_version(&e.file_name())?;
            let site = e.path().join("site-packages");
            site.is_dir().then_some((version, site))
        })
        .collect();
    // Newer minor first; of one minor, the usual build (`false`) before the free-threaded one.
    found.sort_by_key(|&((minor, free_threaded), _)| (Reverse(minor), free_threaded));
    found.into_iter().map(|(_, site)| site).collect()
}

/// The minor version and whether the build is free-threaded of a folder `python3.<minor>[t]`.
fn python_version(name: &OsStr) -> Option<(u32, bool)> {
    let version = name.to_str()?.strip_prefix("python3.")?;
    let (minor, free_threaded) = match version.strip_suffix('t') {
        Some(minor) => (minor, true),
        None => (version, false),
    };
    Some((minor.parse().ok()?, free_threaded))
}
