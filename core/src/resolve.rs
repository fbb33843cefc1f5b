//! The rule that turns (function, pinned ABI, stream mode) into a lookup, and the [`Resolver`]
//! seam a lookup goes through.
//!
//! The one rule: a field typed `PFN_X_vN` is requested at exactly version `N`, with an explicit
//! stream flag (legacy, or per-thread at the `_ptds`/`_ptsz` ABI's own version), never `DEFAULT`,
//! never at the runtime's, header's or driver's version. Where only the unversioned
//! `cudaGetDriverEntryPoint` exists, it is used only when the ABI history proves it returns
//! exactly ABI `N`. This module must never hand out a pointer of another ABI.
//!
//! It knows nothing of libraries: the two built-in resolvers live in `backend`, loading them in
//! `library`.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::RefUnwindSafe;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::abi_history;
use crate::error::{Error, ErrorKind, Status};
use crate::ffi;
use crate::manifest::Abi;
use crate::stream::StreamMode;
use crate::sys::CUresult;

/// Which version a lookup asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// The newest ABI whose version is `<=` this one (`1000 * major + 10 * minor`).
    ByVersion(u32),
    /// The unversioned lookup, answering for the version in [`Versioning::Unversioned`].
    Unversioned,
}

/// What one lookup found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupResult {
    /// The call succeeded, the status said found, and the pointer is not null.
    Found(NonNull<c_void>),
    /// The driver does not know the symbol (status 1, or success with a null pointer).
    SymbolNotFound,
    /// The driver has the symbol, but only in ABIs newer than the requested version (status 2).
    VersionNotSufficient,
    /// The call failed with `INVALID_VALUE` for a version newer than the driver.
    VersionTooNew,
    /// Any other failure of the lookup call itself: its result (`cudaError_t` or `CUresult`).
    Failed(Status),
}

/// Which queries a [`Resolver`] answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Versioning {
    /// [`Query::ByVersion`] (the driver, libcudart 12.5 and newer).
    Versioned,
    /// Only [`Query::Unversioned`], answering for this version (libcudart 11.x and 12.0–12.4,
    /// whose `cudaGetDriverEntryPoint` asks for the runtime's own version).
    Unversioned(u32),
    /// No lookup can be made now: the failing call that says why (e.g. a libcudart 11.x cannot
    /// tell its own version without a driver).
    Unavailable(Status),
}

/// A source of driver function pointers: libcudart, libcuda, or one the program supplies.
///
/// # Safety
///
/// Generated code calls every pointer returned in [`LookupResult::Found`] through the function type of
/// the requested ABI. An implementation must therefore guarantee that such a pointer:
/// - is the driver function `symbol` with exactly the ABI a CUDA driver's `cuGetProcAddress`
///   returns for that query and stream flag (for [`Query::Unversioned`]: at the version that
///   [`versioning`](Resolver::versioning) gave), or a function with the very same
///   signature and calling convention (`extern "C"`);
/// - stays valid for the rest of the process (libraries are never unloaded).
///
/// `cuGetErrorName` and `cuGetErrorString` are resolved through [`lookup`](Resolver::lookup) too,
/// and called.
///
/// A resolver is shared by every table configured with it, across threads and across
/// `catch_unwind` (tables and [`Config`](crate::Config) are `RefUnwindSafe`), hence the
/// `RefUnwindSafe` bound: a type with interior mutability that stays consistent when a caller
/// panics may implement it by hand (`impl std::panic::RefUnwindSafe for MyResolver {}`).
pub unsafe trait Resolver: Send + Sync + RefUnwindSafe {
    /// A short description for error messages, e.g. `libcudart 12.9 (/usr/lib/libcudart.so.12)`.
    fn describe(&self) -> String;

    /// Which queries [`lookup`](Resolver::lookup) answers. Asked before every resolution of one
    /// function, and once for all the functions a table's `resolve_all` resolves.
    fn versioning(&self) -> Versioning;

    /// Looks up `symbol` (a base name such as `cuCtxCreate`) with `mode`'s stream flag
    /// ([`StreamMode::flag`]).
    fn lookup(&self, symbol: &CStr, query: Query, mode: StreamMode) -> LookupResult;

    /// The driver's version, if known; only used in error messages.
    fn driver_version(&self) -> Option<u32> {
        None
    }

    /// Name and description of a failing `CUresult`, for [`ErrorKind::Cuda`].
    ///
    /// The default resolves `cuGetErrorName` and `cuGetErrorString` (ABI 6000, legacy) through
    /// [`lookup`](Resolver::lookup) on every call; the built-in backends cache them.
    fn error_strings(&self, code: u32) -> (Option<String>, Option<String>) {
        let fns = ErrorStringFns::new();
        // SAFETY: by the trait's contract, `resolve_symbol` only returns pointers of the requested
        // ABI, here the ABI 6000 of cuGetErrorName / cuGetErrorString.
        unsafe {
            fns.strings(code, &|name, symbol| {
                resolve_symbol(self, StreamMode::Legacy, name, symbol, &ERROR_STRING_ABI).ok()
            })
        }
    }
}

/// The ABI of `cuGetErrorName` and `cuGetErrorString` that error messages use.
pub(crate) const ERROR_STRING_ABI: Abi = Abi {
    version: 6000,
    export: None,
    per_thread: None,
};

/// Resolves driver function `name` at `abi` through `resolver`, in stream mode `mode`: the
/// request is [`Abi::request`], and nothing else is ever asked.
pub(crate) fn resolve_with<R: Resolver + ?Sized>(
    resolver: &R,
    mode: StreamMode,
    name: &'static str,
    abi: &Abi,
) -> Result<NonNull<c_void>, Error> {
    let request = abi.request(mode);
    // A name that cannot be a C symbol (it holds a NUL byte) names no driver function.
    let Ok(symbol) = CString::new(name) else {
        return Err(ErrorKind::SymbolNotFound {
            function: name,
            version: request.0,
        }
        .into());
    };
    resolve_request(resolver, &resolver.versioning(), name, &symbol, request)
}

/// [`resolve_with`] for a name that is already a C string (`symbol`, the same name with its NUL):
/// what tables use, whose names are NUL-terminated statics, so that nothing is copied.
pub(crate) fn resolve_symbol<R: Resolver + ?Sized>(
    resolver: &R,
    mode: StreamMode,
    name: &'static str,
    symbol: &CStr,
    abi: &Abi,
) -> Result<NonNull<c_void>, Error> {
    resolve_request(
        resolver,
        &resolver.versioning(),
        name,
        symbol,
        abi.request(mode),
    )
}

/// The rule itself: asks `resolver`, whose [`Versioning`] is `versioning` (asked once for a whole
/// table by `resolve_all`), for `name` (`symbol`, with its NUL) at exactly `request`, a version
/// and a stream flag as [`Abi::request`] makes them; an unversioned lookup only where the ABI
/// history proves it returns exactly that version.
pub(crate) fn resolve_request<R: Resolver + ?Sized>(
    resolver: &R,
    versioning: &Versioning,
    name: &'static str,
    symbol: &CStr,
    (version, flag): (u32, StreamMode),
) -> Result<NonNull<c_void>, Error> {
    let (query, asked) = match *versioning {
        Versioning::Versioned => (Query::ByVersion(version), version),
        Versioning::Unversioned(runtime) => {
            check_unversioned(name, version, flag, runtime)?;
            (Query::Unversioned, runtime)
        }
        Versioning::Unavailable(ref status) => {
            return Err(ErrorKind::LookupFailed {
                function: name,
                status: status.clone(),
                backend: resolver.describe(),
            }
            .into())
        }
    };
    let kind = match resolver.lookup(symbol, query, flag) {
        LookupResult::Found(p) => return Ok(p),
        LookupResult::SymbolNotFound => ErrorKind::SymbolNotFound {
            function: name,
            version,
        },
        LookupResult::VersionNotSufficient => ErrorKind::VersionNotSufficient {
            function: name,
            version,
        },
        LookupResult::VersionTooNew => ErrorKind::DriverTooOld {
            function: name,
            requested: asked,
            driver: resolver.driver_version(),
        },
        LookupResult::Failed(status) => ErrorKind::LookupFailed {
            function: name,
            status,
            backend: resolver.describe(),
        },
    };
    Err(kind.into())
}

/// The unversioned lookup at `runtime` returns the newest ABI `<= runtime` of the flag's list.
/// Allow it only when that is exactly `version`.
fn check_unversioned(
    name: &'static str,
    version: u32,
    flag: StreamMode,
    runtime: u32,
) -> Result<(), Error> {
    let would_get = abi_history::abis(name).and_then(|(legacy, per_thread)| {
        let list = match flag {
            StreamMode::Legacy => legacy,
            StreamMode::PerThread => per_thread,
        };
        abi_history::newest_at_or_below(list, runtime)
    });
    if would_get == Some(version) {
        Ok(())
    } else {
        Err(ErrorKind::UnversionedLookupUnsafe {
            function: name,
            requested: version,
            runtime_version: runtime,
            would_get,
        }
        .into())
    }
}

/// Interprets a lookup call: its result `rc`, the status it wrote (`None` for the variants
/// without a status argument; the caller presets it to -1), the pointer, and the version asked.
///
/// `not_found_rc` is the code a status-less variant returns for an unknown symbol (500 for both
/// `cudaErrorSymbolNotFound` and `CUDA_ERROR_NOT_FOUND`); it cannot tell "not found" from
/// "version not sufficient".
pub(crate) fn classify(
    rc: c_int,
    status: Option<c_int>,
    ptr: *mut c_void,
    asked: u32,
    driver_version: &dyn Fn() -> Option<u32>,
    describe_code: &dyn Fn(c_int) -> Status,
) -> LookupResult {
    const INVALID_VALUE: c_int = 1;
    const NOT_FOUND: c_int = 500;
    if let Some(p) = found(rc, status, ptr) {
        return LookupResult::Found(p);
    }
    match (rc, status) {
        // Succeeded, but with a null pointer.
        (0, None | Some(0) | Some(-1)) => LookupResult::SymbolNotFound,
        (0, Some(1)) => LookupResult::SymbolNotFound,
        (0, Some(2)) => LookupResult::VersionNotSufficient,
        (0, Some(other)) => LookupResult::Failed(Status {
            code: other,
            name: "unexpected status".to_owned(),
            description: format!("the lookup succeeded but reported status {other}"),
        }),
        (NOT_FOUND, None) => LookupResult::SymbolNotFound,
        (INVALID_VALUE, _) if matches!(driver_version(), Some(d) if asked > d) => {
            LookupResult::VersionTooNew
        }
        (rc, _) => LookupResult::Failed(describe_code(rc)),
    }
}

/// The pointer of a lookup call that clearly found its function, the one case [`classify`] calls
/// [`LookupResult::Found`]: the call succeeded (`rc` 0), its status says found (0, or -1: a status
/// argument the call left untouched, or `None`: a variant without one) and the pointer is not null.
/// What `resolve_all` checks for each function of a built-in backend, which it calls directly.
#[inline(always)]
pub(crate) fn found(rc: c_int, status: Option<c_int>, ptr: *mut c_void) -> Option<NonNull<c_void>> {
    if rc == 0 && matches!(status, None | Some(0 | -1)) {
        NonNull::new(ptr)
    } else {
        None
    }
}

/// Lazily resolved `cuGetErrorName` / `cuGetErrorString` (ABI 6000), cached per backend.
pub(crate) struct ErrorStringFns {
    name: AtomicPtr<c_void>,
    string: AtomicPtr<c_void>,
}

impl ErrorStringFns {
    pub(crate) const fn new() -> Self {
        Self {
            name: AtomicPtr::new(std::ptr::null_mut()),
            string: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Name and description of `code`. `fetch(name, symbol)` resolves `cuGetErrorName` or
    /// `cuGetErrorString` (its name, and the same with a NUL); failures are not cached (this is
    /// an error path).
    ///
    /// # Safety
    ///
    /// `fetch` must return only pointers to the driver function it is asked for
    /// (`cuGetErrorName` or `cuGetErrorString` at ABI 6000: `CUresult f(CUresult, const
    /// char**)`), valid forever.
    pub(crate) unsafe fn strings(
        &self,
        code: u32,
        fetch: &dyn Fn(&'static str, &'static CStr) -> Option<NonNull<c_void>>,
    ) -> (Option<String>, Option<String>) {
        let fetch_into = |slot: &AtomicPtr<c_void>, name: &'static str, symbol: &'static CStr| {
            NonNull::new(slot.load(Ordering::Acquire)).or_else(|| {
                let p = fetch(name, symbol)?;
                slot.store(p.as_ptr(), Ordering::Release);
                Some(p)
            })
        };
        // One call of `cuGetErrorName` or `cuGetErrorString` (both of this type at ABI 6000).
        let text = |f: ffi::GetErrorName| -> Option<String> {
            let mut out: *const c_char = std::ptr::null();
            // SAFETY: `out` is a valid place for the result; any code value is allowed (an
            // unknown one gives CUDA_ERROR_INVALID_VALUE and leaves `out` null).
            let rc = unsafe { f(CUresult(code), &mut out) };
            if rc != CUresult::CUDA_SUCCESS || out.is_null() {
                return None;
            }
            // SAFETY: on success the driver points `out` at a static NUL-terminated string.
            Some(
                unsafe { CStr::from_ptr(out) }
                    .to_string_lossy()
                    .into_owned(),
            )
        };
        let name = fetch_into(&self.name, "cuGetErrorName", c"cuGetErrorName").and_then(|p| {
            // SAFETY: by this function's contract `p` is cuGetErrorName at ABI 6000, whose
            // bindings typedef is `ffi::GetErrorName`.
            text(unsafe { std::mem::transmute::<*mut c_void, ffi::GetErrorName>(p.as_ptr()) })
        });
        let description = fetch_into(&self.string, "cuGetErrorString", c"cuGetErrorString")
            .and_then(|p| {
                // SAFETY: likewise cuGetErrorString, `ffi::GetErrorString`, the same type.
                text(unsafe { std::mem::transmute::<*mut c_void, ffi::GetErrorString>(p.as_ptr()) })
            });
        (name, description)
    }
}

/// Copies a C string returned by a library (null gives `None`).
///
/// # Safety
///
/// `p` must be null or point to a NUL-terminated string that lives at least during this call.
pub(crate) unsafe fn c_string(p: *const c_char) -> Option<String> {
    // SAFETY: not null, and NUL-terminated by the caller's guarantee.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests;
