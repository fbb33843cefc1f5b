//! The resolution rule, tested against an in-process resolver that records every request.
//! CPU only; no CUDA library is loaded.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::{null_mut, NonNull};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};

use super::*;
use crate::error::cuda_result;
use crate::slot::Slot;

type Respond = fn(&CStr, Query, StreamFlag) -> Lookup;

/// Records `(symbol, query, flag)` of every lookup and answers with `respond`.
struct Recorder {
    unversioned: Option<u32>,
    driver: Option<u32>,
    respond: Respond,
    requests: Mutex<Vec<(String, Query, StreamFlag)>>,
    calls: AtomicUsize,
}

impl Recorder {
    fn versioned(respond: Respond) -> &'static Self {
        Box::leak(Box::new(Self {
            unversioned: None,
            driver: Some(13000),
            respond,
            requests: Mutex::new(Vec::new()),
            calls: AtomicUsize::new(0),
        }))
    }

    /// Like an old libcudart: only the unversioned lookup, answering for `runtime`.
    fn unversioned(runtime: u32, respond: Respond) -> &'static Self {
        Box::leak(Box::new(Self {
            unversioned: Some(runtime),
            driver: Some(13000),
            respond,
            requests: Mutex::new(Vec::new()),
            calls: AtomicUsize::new(0),
        }))
    }

    fn requests(&self) -> Vec<(String, Query, StreamFlag)> {
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
    fn lookup(&self, symbol: &CStr, query: Query, flag: StreamFlag) -> Lookup {
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

extern "C" fn fake_function() {}

fn fake_ptr() -> NonNull<c_void> {
    NonNull::new(fake_function as *mut c_void).unwrap()
}

fn found(_: &CStr, _: Query, _: StreamFlag) -> Lookup {
    Lookup::Found(fake_ptr())
}

fn err(config: &Config, name: &'static str, version: u32, pt: Option<u32>) -> Error {
    resolve(config, name, version, pt).expect_err("resolution should fail")
}

#[test]
fn requests_exactly_the_pinned_version_with_the_legacy_flag() {
    let r = Recorder::versioned(found);
    let legacy = Config::custom(r);
    assert_eq!(resolve(&legacy, "cuCtxCreate", 3020, None), Ok(fake_ptr()));
    // Legacy mode ignores the per-thread ABI.
    assert_eq!(
        resolve(&legacy, "cuLaunchKernel", 4000, Some(7000)),
        Ok(fake_ptr())
    );
    assert_eq!(
        r.requests(),
        vec![
            (
                "cuCtxCreate".into(),
                Query::ByVersion(3020),
                StreamFlag::Legacy
            ),
            (
                "cuLaunchKernel".into(),
                Query::ByVersion(4000),
                StreamFlag::Legacy
            ),
        ]
    );
}

#[test]
fn per_thread_mode_uses_the_per_thread_abi_only_where_there_is_one() {
    let r = Recorder::versioned(found);
    let pt = Config::custom(r).per_thread();
    resolve(&pt, "cuLaunchKernel", 4000, Some(7000)).unwrap();
    resolve(&pt, "cuCtxCreate", 12050, None).unwrap();
    assert_eq!(
        r.requests(),
        vec![
            (
                "cuLaunchKernel".into(),
                Query::ByVersion(7000),
                StreamFlag::PerThread
            ),
            (
                "cuCtxCreate".into(),
                Query::ByVersion(12050),
                StreamFlag::Legacy
            ),
        ]
    );
}

#[test]
fn flags_are_never_default() {
    assert_eq!(StreamFlag::Legacy.bits(), 1);
    assert_eq!(StreamFlag::PerThread.bits(), 2);
    for mode in [StreamMode::Legacy, StreamMode::PerThread] {
        for pt in [None, Some(7000)] {
            let (_, flag) = request(mode, 4000, pt);
            assert_ne!(flag.bits(), 0);
        }
    }
}

#[test]
fn unversioned_lookup_is_used_when_the_history_proves_the_abi() {
    // libcudart 11.8: newest cuCtxCreate ABI <= 11080 is 11040; cuMemAlloc's is 3020.
    let r = Recorder::unversioned(11080, found);
    let c = Config::custom(r);
    resolve(&c, "cuCtxCreate", 11040, None).unwrap();
    resolve(&c, "cuMemAlloc", 3020, None).unwrap();
    resolve(&c, "cuStreamGetCaptureInfo", 11030, Some(11030)).unwrap();
    assert_eq!(
        r.requests(),
        vec![
            ("cuCtxCreate".into(), Query::Unversioned, StreamFlag::Legacy),
            ("cuMemAlloc".into(), Query::Unversioned, StreamFlag::Legacy),
            (
                "cuStreamGetCaptureInfo".into(),
                Query::Unversioned,
                StreamFlag::Legacy
            ),
        ]
    );
}

#[test]
fn unversioned_lookup_is_refused_when_it_would_return_another_abi() {
    let r = Recorder::unversioned(12040, found);
    let c = Config::custom(r);
    let e = err(&c, "cuCtxCreate", 3020, None);
    assert_eq!(
        *e.kind(),
        ErrorKind::UnversionedLookupUnsafe {
            function: "cuCtxCreate",
            requested: 3020,
            runtime_version: 12040,
            would_get: Some(11040),
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("cuCtxCreate is pinned to ABI 3020 but libcudart 12.4 would return ABI 11040"),
        "{msg}"
    );
    assert!(msg.contains("libcudart 12.5 or newer"), "{msg}");
    assert!(msg.contains("Config::driver()"), "{msg}");

    // Pinned newer than the runtime: it would get an older ABI.
    let old = Config::custom(Recorder::unversioned(11080, found));
    assert!(matches!(
        err(&old, "cuCtxCreate", 12050, None).kind(),
        ErrorKind::UnversionedLookupUnsafe {
            would_get: Some(11040),
            ..
        }
    ));
    // The capture-info ABI changed in 12.3: a 12.4 runtime would return it.
    let e = err(&c, "cuStreamGetCaptureInfo", 11030, Some(11030));
    assert!(matches!(
        e.kind(),
        ErrorKind::UnversionedLookupUnsafe {
            would_get: Some(12030),
            ..
        }
    ));
    // A function the history does not know cannot be proven.
    let e = err(&c, "cuNotInTheHistory", 2000, None);
    assert!(matches!(
        e.kind(),
        ErrorKind::UnversionedLookupUnsafe {
            would_get: None,
            ..
        }
    ));
    assert!(
        e.to_string().contains("ABI history does not know it"),
        "{e}"
    );
    // Nothing unsafe was ever asked.
    assert!(r.requests().is_empty());
}

#[test]
fn unversioned_check_uses_the_per_thread_list_in_per_thread_mode() {
    let r = Recorder::unversioned(11080, found);
    resolve(
        &Config::custom(r).per_thread(),
        "cuLaunchKernel",
        4000,
        Some(7000),
    )
    .unwrap();
    resolve(&Config::custom(r), "cuLaunchKernel", 4000, Some(7000)).unwrap();
    assert_eq!(
        r.requests(),
        vec![
            (
                "cuLaunchKernel".into(),
                Query::Unversioned,
                StreamFlag::PerThread
            ),
            (
                "cuLaunchKernel".into(),
                Query::Unversioned,
                StreamFlag::Legacy
            ),
        ]
    );
    // The lists are not mixed up: 7000 is only a per-thread ABI, 4000 only a legacy one.
    assert!(check_unversioned("cuLaunchKernel", 7000, StreamFlag::Legacy, 11080).is_err());
    assert!(check_unversioned("cuLaunchKernel", 4000, StreamFlag::PerThread, 11080).is_err());
    assert!(check_unversioned("cuLaunchKernel", 7000, StreamFlag::PerThread, 11080).is_ok());
}

#[test]
fn each_lookup_outcome_maps_to_its_error() {
    fn not_found(_: &CStr, _: Query, _: StreamFlag) -> Lookup {
        Lookup::SymbolNotFound
    }
    fn not_sufficient(_: &CStr, _: Query, _: StreamFlag) -> Lookup {
        Lookup::VersionNotSufficient
    }
    fn too_new(_: &CStr, _: Query, _: StreamFlag) -> Lookup {
        Lookup::VersionTooNew
    }
    fn failed(_: &CStr, _: Query, _: StreamFlag) -> Lookup {
        Lookup::Failed {
            code: 35,
            name: "cudaErrorInsufficientDriver".into(),
            description: "CUDA driver version is insufficient for CUDA runtime version".into(),
        }
    }

    let e = err(
        &Config::custom(Recorder::versioned(not_found)),
        "cuFoo",
        2000,
        None,
    );
    assert_eq!(
        *e.kind(),
        ErrorKind::SymbolNotFound {
            function: "cuFoo",
            version: 2000
        }
    );

    let e = err(
        &Config::custom(Recorder::versioned(not_sufficient)),
        "cuStreamGetCaptureInfo",
        10000,
        None,
    );
    assert_eq!(
        *e.kind(),
        ErrorKind::VersionNotSufficient {
            function: "cuStreamGetCaptureInfo",
            version: 10000
        }
    );
    assert!(
        e.to_string().contains("newer than the pinned ABI 10000"),
        "{e}"
    );

    let e = err(
        &Config::custom(Recorder::versioned(too_new)),
        "cuCtxCreate",
        13010,
        None,
    );
    assert_eq!(
        *e.kind(),
        ErrorKind::DriverTooOld {
            function: "cuCtxCreate",
            requested: 13010,
            driver: Some(13000)
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("13010 (CUDA 13.1)") && msg.contains("older (CUDA 13.0)"),
        "{msg}"
    );

    // The unversioned lookup reports the version it really asked for: the runtime's.
    let e = err(
        &Config::custom(Recorder::unversioned(11080, too_new)),
        "cuInit",
        2000,
        None,
    );
    assert!(matches!(
        e.kind(),
        ErrorKind::DriverTooOld {
            requested: 11080,
            ..
        }
    ));

    let e = err(
        &Config::custom(Recorder::versioned(failed)),
        "cuInit",
        2000,
        None,
    );
    assert_eq!(
        *e.kind(),
        ErrorKind::LookupFailed {
            function: "cuInit",
            code: 35,
            name: "cudaErrorInsufficientDriver".into(),
            description: "CUDA driver version is insufficient for CUDA runtime version".into(),
            backend: "recording resolver".into(),
        }
    );
    assert!(
        e.to_string().contains("cudaErrorInsufficientDriver (35)"),
        "{e}"
    );
}

#[test]
fn classify_checks_result_status_and_pointer() {
    let p = fake_function as *mut c_void;
    let no_driver = || None;
    let driver_13 = || Some(13000);
    let name = |rc: c_int| (format!("E{rc}"), "desc".to_owned());
    assert_eq!(
        classify(0, Some(0), p, 2000, no_driver, name),
        Lookup::Found(fake_ptr())
    );
    // Success with a null pointer is "not found", whatever the status says.
    assert_eq!(
        classify(0, Some(0), null_mut(), 2000, no_driver, name),
        Lookup::SymbolNotFound
    );
    assert_eq!(
        classify(0, None, null_mut(), 2000, no_driver, name),
        Lookup::SymbolNotFound
    );
    // The status wins over a pointer.
    assert_eq!(
        classify(0, Some(1), p, 2000, no_driver, name),
        Lookup::SymbolNotFound
    );
    assert_eq!(
        classify(0, Some(2), p, 2000, no_driver, name),
        Lookup::VersionNotSufficient
    );
    assert!(matches!(
        classify(0, Some(7), p, 2000, no_driver, name),
        Lookup::Failed { .. }
    ));
    // INVALID_VALUE is "too new" only when the version is above the driver's.
    assert_eq!(
        classify(1, Some(-1), null_mut(), 13010, driver_13, name),
        Lookup::VersionTooNew
    );
    assert!(matches!(
        classify(1, Some(-1), null_mut(), 12000, driver_13, name),
        Lookup::Failed { code: 1, .. }
    ));
    assert!(matches!(
        classify(1, Some(-1), null_mut(), 13010, no_driver, name),
        Lookup::Failed { code: 1, .. }
    ));
    // Status-less variants report an unknown symbol as 500.
    assert_eq!(
        classify(500, None, null_mut(), 2000, no_driver, name),
        Lookup::SymbolNotFound
    );
    assert_eq!(
        classify(35, Some(-1), null_mut(), 2000, no_driver, name),
        Lookup::Failed {
            code: 35,
            name: "E35".into(),
            description: "desc".into()
        }
    );
}

#[test]
fn racing_threads_all_get_the_one_stored_pointer() {
    static SLOT: Slot = Slot::new();
    let r = Recorder::versioned(found);
    let config = Config::custom(r);
    let barrier = Barrier::new(64);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..64)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    // NonNull is not Send: hand the address back.
                    SLOT.get(&config, "cuCtxCreate", 12050, None)
                        .map(|p| p.as_ptr() as usize)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let stored = SLOT.get(&config, "cuCtxCreate", 12050, None).unwrap();
    assert!(results.iter().all(|r| *r == Ok(stored.as_ptr() as usize)));
    assert_eq!(stored, fake_ptr());
    let calls = r.calls.load(Ordering::SeqCst);
    assert!((1..=64).contains(&calls), "{calls} lookups");
    // Once filled, the slot no longer asks.
    SLOT.get(&config, "cuCtxCreate", 12050, None).unwrap();
    assert_eq!(r.calls.load(Ordering::SeqCst), calls);
}

#[test]
fn failures_are_not_cached_in_the_slot() {
    fn not_found(_: &CStr, _: Query, _: StreamFlag) -> Lookup {
        Lookup::SymbolNotFound
    }
    let r = Recorder::versioned(not_found);
    let config = Config::custom(r);
    let slot = Slot::new();
    assert!(slot.get(&config, "cuFoo", 2000, None).is_err());
    assert!(slot.get(&config, "cuFoo", 2000, None).is_err());
    assert_eq!(r.calls.load(Ordering::SeqCst), 2);
}

#[test]
fn slot_is_send_sync_and_small() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Slot>();
    assert_send_sync::<Config>();
    assert_send_sync::<Error>();
    assert_eq!(std::mem::size_of::<Slot>(), std::mem::size_of::<usize>());
}

/// `CUresult cuGetErrorName(CUresult, const char**)` knowing one code.
unsafe extern "C" fn fake_get_error_name(code: c_int, out: *mut *const c_char) -> c_int {
    if code != 2 {
        return 1;
    }
    // SAFETY: the caller passes a valid out-parameter.
    unsafe { *out = c"CUDA_ERROR_OUT_OF_MEMORY".as_ptr() };
    0
}

/// Likewise `cuGetErrorString`.
unsafe extern "C" fn fake_get_error_string(code: c_int, out: *mut *const c_char) -> c_int {
    if code != 2 {
        return 1;
    }
    // SAFETY: the caller passes a valid out-parameter.
    unsafe { *out = c"out of memory".as_ptr() };
    0
}

#[test]
fn cuda_result_names_the_code_through_the_resolver() {
    fn with_error_fns(symbol: &CStr, query: Query, flag: StreamFlag) -> Lookup {
        assert_eq!((query, flag), (Query::ByVersion(6000), StreamFlag::Legacy));
        let p = match symbol.to_bytes() {
            b"cuGetErrorName" => fake_get_error_name as *mut c_void,
            b"cuGetErrorString" => fake_get_error_string as *mut c_void,
            _ => return Lookup::SymbolNotFound,
        };
        Lookup::Found(NonNull::new(p).unwrap())
    }
    let r = Recorder::versioned(with_error_fns);
    let config = Config::custom(r);
    assert_eq!(cuda_result(&config, "cuMemAlloc", 0), Ok(()));
    let e = cuda_result(&config, "cuMemAlloc", 2).unwrap_err();
    assert_eq!(e.code(), Some(2));
    assert_eq!(
        e.to_string(),
        "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"
    );
    // A code the driver does not know: no name, still an error, no panic.
    let e = cuda_result(&config, "cuMemAlloc", 999).unwrap_err();
    assert_eq!(
        *e.kind(),
        ErrorKind::Cuda {
            function: "cuMemAlloc",
            code: 999,
            name: None,
            description: None
        }
    );
    assert_eq!(e.to_string(), "cuMemAlloc failed: unknown CUresult (999)");
}

#[test]
fn cuda_result_without_error_functions_still_errs() {
    fn nothing(_: &CStr, _: Query, _: StreamFlag) -> Lookup {
        Lookup::SymbolNotFound
    }
    let config = Config::custom(Recorder::versioned(nothing));
    let e = cuda_result(&config, "cuInit", 100).unwrap_err();
    assert_eq!(e.code(), Some(100));
    assert_eq!(e.to_string(), "cuInit failed: unknown CUresult (100)");
}
