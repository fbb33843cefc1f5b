//! Generated-table building blocks against an in-process resolver: the lazily filled field
//! (single stored pointer under races, failures not stored, bound to its spec) and the `CUresult`
//! check. CPU only; no CUDA library is loaded.

use std::ffi::{c_void, CStr};
use std::ptr::NonNull;
use std::sync::atomic::Ordering;
use std::sync::Barrier;

use crate::error::ErrorKind;

use super::*;
use crate::manifest::PerThreadAbi;
use crate::resolve::{LookupResult, Query};
use crate::stream::StreamMode;
use crate::sys::CUresult;
use crate::testing::{fake_get_error_name, fake_get_error_string, fake_ptr, found, Recorder};

/// A table of two functions with the same C signature, as the macro would write it.
struct Table;

// SAFETY: `Pfn` is the typedef of exactly `SPEC.abi` (cuCtxSetCurrent, ABI 4000, no per-thread
// twin). The recording resolver hands out a marker address that the tests never call.
unsafe impl Field<0> for Table {
    type Pfn = crate::sys::PFN_cuCtxSetCurrent_v4000;
    const SPEC: FunctionSpec = FunctionSpec {
        name: "cuCtxSetCurrent",
        typedef: "PFN_cuCtxSetCurrent_v4000",
        per_thread_typedef: None,
        abi: AbiInfo {
            version: 4000,
            export: Some("cuCtxSetCurrent"),
            per_thread: None,
        },
    };
}

// SAFETY: `Pfn` is the typedef of cuLaunchKernel's ABI 4000, and its per-thread twin (ABI 7000)
// has the same type. As above, the marker address is never called.
unsafe impl Field<1> for Table {
    type Pfn = crate::sys::PFN_cuLaunchKernel_v4000;
    const SPEC: FunctionSpec = FunctionSpec {
        name: "cuLaunchKernel",
        typedef: "PFN_cuLaunchKernel_v4000",
        per_thread_typedef: Some("PFN_cuLaunchKernel_v7000_ptsz"),
        abi: AbiInfo {
            version: 4000,
            export: Some("cuLaunchKernel"),
            per_thread: Some(PerThreadAbi {
                version: 7000,
                export: Some("cuLaunchKernel_ptsz"),
            }),
        },
    };
}

fn address_of<F: Copy>(f: Option<F>) -> Option<usize> {
    // SAFETY: `F` is a function pointer type of pointer size (the `PFN_*` typedefs).
    f.map(|f| unsafe { std::mem::transmute_copy::<F, usize>(&f) })
}

#[test]
fn a_field_requests_exactly_its_spec() {
    let r = Recorder::versioned(found);
    let legacy = Config::custom(r);
    let per_thread = Config::custom(r).per_thread();
    let a: Lazy<Table, 0> = Lazy::new();
    let b: Lazy<Table, 1> = Lazy::new();
    assert!(a.loaded().is_none());
    let f = a.resolve(&legacy).unwrap();
    assert_eq!(address_of(f), Some(fake_ptr().as_ptr() as usize));
    assert_eq!(address_of(a.loaded()), address_of(f));
    b.resolve(&per_thread).unwrap();
    let c: Lazy<Table, 1> = Lazy::new();
    c.address(&legacy).unwrap();
    assert_eq!(
        r.requests(),
        vec![
            (
                "cuCtxSetCurrent".into(),
                Query::ByVersion(4000),
                StreamMode::Legacy
            ),
            (
                "cuLaunchKernel".into(),
                Query::ByVersion(7000),
                StreamMode::PerThread
            ),
            (
                "cuLaunchKernel".into(),
                Query::ByVersion(4000),
                StreamMode::Legacy
            ),
        ]
    );
}

#[test]
fn racing_threads_all_get_the_one_stored_pointer() {
    static FIELD: Lazy<Table, 0> = Lazy::new();
    let r = Recorder::versioned(found);
    let config = Config::custom(r);
    let barrier = Barrier::new(64);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..64)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    // NonNull is not Send: hand the address back.
                    FIELD.address(&config).map(|p| p.as_ptr() as usize)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let stored = FIELD.address(&config).unwrap();
    assert!(results.iter().all(|r| *r == Ok(stored.as_ptr() as usize)));
    assert_eq!(stored, fake_ptr());
    let calls = r.calls.load(Ordering::SeqCst);
    assert!((1..=64).contains(&calls), "{calls} lookups");
    assert_eq!(address_of(FIELD.loaded()), Some(stored.as_ptr() as usize));
    // Once filled, the field no longer asks.
    FIELD.address(&config).unwrap();
    assert_eq!(r.calls.load(Ordering::SeqCst), calls);
}

#[test]
fn failures_are_not_stored_in_the_field() {
    fn not_found(_: &CStr, _: Query, _: StreamMode) -> LookupResult {
        LookupResult::SymbolNotFound
    }
    let r = Recorder::versioned(not_found);
    let config = Config::custom(r);
    let field: Lazy<Table, 0> = Lazy::new();
    assert!(field.resolve(&config).is_err());
    assert!(field.loaded().is_none());
    assert!(field.resolve(&config).is_err());
    assert_eq!(r.calls.load(Ordering::SeqCst), 2);
}

#[test]
fn field_is_send_sync_and_one_pointer() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Lazy<Table, 0>>();
    assert_send_sync::<Config>();
    assert_send_sync::<Error>();
    assert_eq!(size_of::<Lazy<Table, 0>>(), size_of::<usize>());
}

#[test]
fn check_names_the_code_through_the_resolver() {
    fn with_error_fns(symbol: &CStr, query: Query, flag: StreamMode) -> LookupResult {
        assert_eq!((query, flag), (Query::ByVersion(6000), StreamMode::Legacy));
        let p = match symbol.to_bytes() {
            b"cuGetErrorName" => fake_get_error_name as *mut c_void,
            b"cuGetErrorString" => fake_get_error_string as *mut c_void,
            _ => return LookupResult::SymbolNotFound,
        };
        LookupResult::Found(NonNull::new(p).unwrap())
    }
    let r = Recorder::versioned(with_error_fns);
    let config = Config::custom(r);
    assert_eq!(check(&config, "cuMemAlloc", CUresult(0)), Ok(()));
    let e = check(&config, "cuMemAlloc", CUresult(2)).unwrap_err();
    assert_eq!(e.code(), Some(2));
    assert_eq!(
        e.to_string(),
        "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"
    );
    // A code the driver cannot name: named by the bindings, without a description.
    let e = check(&config, "cuMemAlloc", CUresult(999)).unwrap_err();
    assert_eq!(
        *e.kind(),
        ErrorKind::Cuda {
            function: "cuMemAlloc",
            code: 999,
            name: Some("CUDA_ERROR_UNKNOWN".into()),
            description: None
        }
    );
    assert_eq!(e.to_string(), "cuMemAlloc failed: CUDA_ERROR_UNKNOWN (999)");
    // A code neither knows: no name, still an error, no panic.
    let e = check(&config, "cuMemAlloc", CUresult(12345)).unwrap_err();
    assert_eq!(e.to_string(), "cuMemAlloc failed: unknown CUresult (12345)");
}

#[test]
fn check_without_error_functions_still_errs() {
    fn nothing(_: &CStr, _: Query, _: StreamMode) -> LookupResult {
        LookupResult::SymbolNotFound
    }
    let config = Config::custom(Recorder::versioned(nothing));
    let e = check(&config, "cuInit", CUresult(100)).unwrap_err();
    assert_eq!(e.code(), Some(100));
    assert_eq!(e.to_string(), "cuInit failed: CUDA_ERROR_NO_DEVICE (100)");
}

/// The floor is the newest version a field is requested at in that mode, never below what the
/// lookup needs.
#[test]
fn min_driver_version_is_the_newest_request_in_the_mode() {
    let both = [<Table as Field<0>>::SPEC, <Table as Field<1>>::SPEC];
    // Legacy: 4000 and 4000; per-thread: 4000 and cuLaunchKernel's twin at 7000. Both below
    // cuGetProcAddress's 11030.
    assert_eq!(
        min_driver_version(&both, StreamMode::Legacy),
        LOOKUP_DRIVER_FLOOR
    );
    assert_eq!(
        min_driver_version(&both, StreamMode::PerThread),
        LOOKUP_DRIVER_FLOOR
    );
    let newer = |version, per_thread: Option<u32>| FunctionSpec {
        name: "cuX",
        typedef: "PFN_cuX",
        per_thread_typedef: None,
        abi: AbiInfo {
            version,
            export: None,
            per_thread: per_thread.map(|version| PerThreadAbi {
                version,
                export: None,
            }),
        },
    };
    let list = [newer(12050, None), newer(11030, Some(12080)), both[1]];
    assert_eq!(min_driver_version(&list, StreamMode::Legacy), 12050);
    assert_eq!(min_driver_version(&list, StreamMode::PerThread), 12080);
    assert_eq!(
        min_driver_version(&[], StreamMode::Legacy),
        LOOKUP_DRIVER_FLOOR
    );
    const AT_COMPILE_TIME: u32 = min_driver_version(&[], StreamMode::PerThread);
    assert_eq!(AT_COMPILE_TIME, 11030);
}
