//! The driver backend: driver entry points through a loaded `libcuda.so.1` (`nvcuda.dll` on
//! Windows).
//!
//! `cuGetProcAddress_v2` (12.0+ drivers) or the 4-argument `cuGetProcAddress` (11.3+). Loading
//! does nothing but find the lookup function: cold start stays one `dlopen` and one `dlsym`.
//! Everything else (the driver's version, error names) is looked up only when an error needs it.

use std::ffi::{c_int, c_void, CStr};
use std::path::Path;
use std::ptr::NonNull;
use std::sync::OnceLock;

use libloading::Library;

use super::{
    export, BuiltIn, BuiltInResolver, Candidate, Env, GetProc, Os, Searched, VersionedLookup,
};
use crate::error::{CudaLibrary, Status};
use crate::ffi;
use crate::resolve::{ErrorStringFns, LookupResult, Query, Resolver, Versioning};
use crate::stream::StreamMode;
use crate::sys::CUresult;

/// A loaded libcuda: [`Backend::Driver`](crate::Backend::Driver).
pub(crate) struct Driver {
    path: String,
    get_proc: GetProc,
    cu_errors: ErrorStringFns,
}

impl Driver {
    /// A pointer only on clear success; used for the helper functions of error messages, so that
    /// a failure there cannot recurse into more error handling.
    fn helper(&self, symbol: &CStr, version: u32) -> Option<NonNull<c_void>> {
        self.get_proc.found(symbol, version)
    }
}

// SAFETY: every pointer comes from the driver's own cuGetProcAddress at exactly the queried
// version and flag; libcuda is never unloaded.
unsafe impl Resolver for Driver {
    fn describe(&self) -> String {
        format!("the CUDA driver ({}, {})", self.path, self.get_proc.name())
    }

    fn versioning(&self) -> Versioning {
        Versioning::Versioned
    }

    fn lookup(&self, symbol: &CStr, query: Query, mode: StreamMode) -> LookupResult {
        let Query::ByVersion(version) = query else {
            return LookupResult::Failed(Status {
                code: -1,
                name: "unsupported query".to_owned(),
                description: "the driver backend only answers versioned lookups".to_owned(),
            });
        };
        self.get_proc
            .lookup(symbol, version, mode, &|| self.driver_version(), &|code| {
                self.error_strings(code)
            })
    }

    fn driver_version(&self) -> Option<u32> {
        let p = self.helper(c"cuDriverGetVersion", 2020)?;
        // SAFETY: the driver returned cuDriverGetVersion at ABI 2020, of this type.
        let f = unsafe { std::mem::transmute::<*mut c_void, ffi::DriverGetVersion>(p.as_ptr()) };
        let mut v: c_int = 0;
        // SAFETY: `v` is a valid out-parameter.
        let rc = unsafe { f(&mut v) };
        (rc == CUresult::CUDA_SUCCESS && v > 0).then_some(v as u32)
    }

    fn error_strings(&self, code: u32) -> (Option<String>, Option<String>) {
        // SAFETY: `helper` returns the driver's own cuGetErrorName/cuGetErrorString at ABI 6000.
        unsafe {
            self.cu_errors
                .strings(code, &|_, symbol| self.helper(symbol, 6000))
        }
    }
}

impl BuiltInResolver for Driver {
    fn versioned_lookup(&self) -> Option<VersionedLookup> {
        Some(VersionedLookup::GetProc(self.get_proc))
    }
}

#[cfg(test)]
impl Driver {
    /// A driver backend around `get_proc`, as [`Driver::wrap`] makes one from a library.
    pub(crate) fn around(path: &str, get_proc: GetProc) -> Self {
        Self {
            path: path.to_owned(),
            get_proc,
            cu_errors: ErrorStringFns::new(),
        }
    }
}

impl Driver {
    /// The driver library as errors name it and advise on it on `os`: `libcuda.so.1`, or
    /// `nvcuda.dll` on Windows.
    pub(crate) const fn library(os: Os) -> CudaLibrary {
        CudaLibrary {
            name: "libcuda",
            title: match os {
                Os::Unix => "the CUDA driver library (libcuda.so.1)",
                Os::Windows => "the CUDA driver library (nvcuda.dll)",
            },
            kind: "CUDA driver library",
            env_var: "CUDA_DRIVER_TABLE_LIBCUDA",
            install: "install the NVIDIA driver",
            instead: None,
        }
    }
}

/// The driver backend, as `library` loads it.
pub(crate) static BUILT_IN: BuiltIn = BuiltIn {
    library: Driver::LIBRARY,
    lookup_symbols: Driver::LOOKUP_SYMBOLS,
    candidates: Driver::candidates,
    wrap: Driver::wrap,
    searched: &SEARCHED,
};

/// The outcome of the driver backend's search, once per process.
static SEARCHED: OnceLock<Searched> = OnceLock::new();

impl Driver {
    /// The library as errors name it on this system.
    pub(crate) const LIBRARY: CudaLibrary = Driver::library(Os::CURRENT);
    /// `cuGetProcAddress_v2`, then `cuGetProcAddress` ([`BuiltIn::lookup_symbols`]).
    pub(crate) const LOOKUP_SYMBOLS: &'static [&'static CStr] =
        &[c"cuGetProcAddress_v2", c"cuGetProcAddress"];

    /// The loader's `libcuda.so.1` (`nvcuda.dll` on Windows) only: the driver is installed
    /// system-wide, and a toolkit's `stubs/libcuda.so` fails every call.
    pub(crate) fn candidates(
        os: Os,
        _env: Env<'_>,
        _skipped: &mut Vec<(String, String)>,
    ) -> Vec<Candidate> {
        vec![Candidate::own(match os {
            Os::Unix => "libcuda.so.1",
            Os::Windows => "nvcuda.dll",
        })]
    }

    /// Wraps a loaded library ([`BuiltIn::wrap`]). `None` when it exports no `cuGetProcAddress*`
    /// (not a libcuda, or a driver older than 11.3). One `dlsym` when it has
    /// `cuGetProcAddress_v2`.
    ///
    /// # Safety
    ///
    /// `lib` must be the CUDA driver library, or at least export the names used here with its
    /// signatures, and stay loaded for the rest of the process if this returns a resolver.
    unsafe fn wrap(lib: &Library, path: &Path) -> Option<&'static dyn BuiltInResolver> {
        // SAFETY: the caller keeps the library loaded, so the copied-out pointers stay valid,
        // and guarantees the driver's signatures: `cuGetProcAddress_v2` is
        // `ffi::GetProcAddressV2`, `cuGetProcAddress` is `ffi::GetProcAddress`.
        let get_proc = unsafe {
            match export(lib, Self::LOOKUP_SYMBOLS[0]) {
                Some(f) => GetProc::V2(f),
                None => GetProc::V1(export(lib, Self::LOOKUP_SYMBOLS[1])?),
            }
        };
        Some(Box::leak(Box::new(Self {
            path: path.display().to_string(),
            get_proc,
            cu_errors: ErrorStringFns::new(),
        })))
    }
}
