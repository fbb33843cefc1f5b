//! Test support shared by the unit tests: an in-process resolver that records every request.

use std::ffi::{c_char, c_void, CStr};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::manifest::{Abi, PerThread};
use crate::resolve::{LookupResult, Query, Resolver, Versioning};
use crate::stream::StreamMode;
use crate::sys::CUresult;

/// An ABI at `version` with, optionally, a per-thread twin at `per_thread`.
pub(crate) const fn abi(version: u32, per_thread: Option<u32>) -> Abi {
    Abi {
        version,
        export: None,
        per_thread: match per_thread {
            Some(version) => Some(PerThread {
                version,
                export: None,
            }),
            None => None,
        },
    }
}

pub(crate) type Respond = fn(&CStr, Query, StreamMode) -> LookupResult;

/// Records `(symbol, query, flag)` of every lookup and answers with `respond`.
pub(crate) struct Recorder {
    pub(crate) unversioned: Option<u32>,
    pub(crate) driver: Option<u32>,
    pub(crate) respond: Respond,
    pub(crate) requests: Mutex<Vec<(String, Query, StreamMode)>>,
    pub(crate) calls: AtomicUsize,
}

impl Recorder {
    pub(crate) fn versioned(respond: Respond) -> &'static Self {
        Box::leak(Box::new(Self {
            unversioned: None,
            driver: Some(13000),
            respond,
            requests: Mutex::new(Vec::new()),
            calls: AtomicUsize::new(0),
        }))
    }

    /// Like an old libcudart: only the unversioned lookup, answering for `runtime`.
    pub(crate) fn unversioned(runtime: u32, respond: Respond) -> &'static Self {
        Box::leak(Box::new(Self {
            unversioned: Some(runtime),
            driver: Some(13000),
            respond,
            requests: Mutex::new(Vec::new()),
            calls: AtomicUsize::new(0),
        }))
    }

    pub(crate) fn requests(&self) -> Vec<(String, Query, StreamMode)> {
        self.requests.lock().unwrap().clone()
    }
}

// SAFETY: the pointers handed out are `fake_*` functions below; tests that call them through a
// type (cuGetErrorName/String) give functions of exactly that type, the others never call them.
unsafe impl Resolver for Recorder {
    fn describe(&self) -> String {
        "recording resolver".to_owned()
    }
    fn versioning(&self) -> Versioning {
        match self.unversioned {
            Some(v) => Versioning::Unversioned(v),
            None => Versioning::Versioned,
        }
    }
    fn lookup(&self, symbol: &CStr, query: Query, flag: StreamMode) -> LookupResult {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.requests
            .lock()
            .unwrap()
            .push((symbol.to_str().unwrap().to_owned(), query, flag));
        (self.respond)(symbol, query, flag)
    }
    fn driver_version(&self) -> Option<u32> {
        self.driver
    }
}

/// What the recorder hands out as "the function": never called, so any stable address will do.
/// A static's (a function's address may differ between two casts under Miri).
static FAKE_FUNCTION: u8 = 0;

pub(crate) fn fake_ptr() -> NonNull<c_void> {
    NonNull::from(&FAKE_FUNCTION).cast()
}

pub(crate) fn found(_: &CStr, _: Query, _: StreamMode) -> LookupResult {
    LookupResult::Found(fake_ptr())
}

/// `CUresult cuGetErrorName(CUresult, const char**)` knowing one code.
pub(crate) unsafe extern "C" fn fake_get_error_name(
    code: CUresult,
    out: *mut *const c_char,
) -> CUresult {
    if code != CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: the caller passes a valid out-parameter.
    unsafe { *out = c"CUDA_ERROR_OUT_OF_MEMORY".as_ptr() };
    CUresult::CUDA_SUCCESS
}

/// Likewise `cuGetErrorString`.
pub(crate) unsafe extern "C" fn fake_get_error_string(
    code: CUresult,
    out: *mut *const c_char,
) -> CUresult {
    if code != CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: the caller passes a valid out-parameter.
    unsafe { *out = c"out of memory".as_ptr() };
    CUresult::CUDA_SUCCESS
}
