//! The resolution rule, tested against an in-process resolver that records every request.
//! CPU only; no CUDA library is loaded.

use std::ffi::{c_int, CStr};
use std::ptr::null_mut;

use super::*;
use crate::config::Config;
use crate::library::resolve;
use crate::testing::{abi, fake_ptr, found, Recorder};

fn err(config: &Config, name: &'static str, version: u32, pt: Option<u32>) -> Error {
    resolve(config, name, &abi(version, pt)).expect_err("resolution should fail")
}

#[test]
fn requests_exactly_the_pinned_version_with_the_legacy_flag() {
    let r = Recorder::versioned(found);
    let legacy = Config::custom(r);
    assert_eq!(
        resolve(&legacy, "cuCtxCreate", &abi(3020, None)),
        Ok(fake_ptr())
    );
    // Legacy mode ignores the per-thread ABI.
    assert_eq!(
        resolve(&legacy, "cuLaunchKernel", &abi(4000, Some(7000))),
        Ok(fake_ptr())
    );
    assert_eq!(
        r.requests(),
        vec![
            (
                "cuCtxCreate".into(),
                Query::ByVersion(3020),
                StreamMode::Legacy
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
fn per_thread_mode_uses_the_per_thread_abi_only_where_there_is_one() {
    let r = Recorder::versioned(found);
    let pt = Config::custom(r).per_thread();
    resolve(&pt, "cuLaunchKernel", &abi(4000, Some(7000))).unwrap();
    resolve(&pt, "cuCtxCreate", &abi(12050, None)).unwrap();
    assert_eq!(
        r.requests(),
        vec![
            (
                "cuLaunchKernel".into(),
                Query::ByVersion(7000),
                StreamMode::PerThread
            ),
            (
                "cuCtxCreate".into(),
                Query::ByVersion(12050),
                StreamMode::Legacy
            ),
        ]
    );
}

#[test]
fn flags_are_never_default() {
    assert_eq!(StreamMode::Legacy.flag(), 1);
    assert_eq!(StreamMode::PerThread.flag(), 2);
    for mode in [StreamMode::Legacy, StreamMode::PerThread] {
        for pt in [None, Some(7000)] {
            let (_, flag) = abi(4000, pt).request(mode);
            assert_ne!(flag.flag(), 0);
        }
    }
}

#[test]
fn unversioned_lookup_is_used_when_the_history_proves_the_abi() {
    // libcudart 11.8: newest cuCtxCreate ABI <= 11080 is 11040; cuMemAlloc's is 3020.
    let r = Recorder::unversioned(11080, found);
    let c = Config::custom(r);
    resolve(&c, "cuCtxCreate", &abi(11040, None)).unwrap();
    resolve(&c, "cuMemAlloc", &abi(3020, None)).unwrap();
    resolve(&c, "cuStreamGetCaptureInfo", &abi(11030, Some(11030))).unwrap();
    assert_eq!(
        r.requests(),
        vec![
            ("cuCtxCreate".into(), Query::Unversioned, StreamMode::Legacy),
            ("cuMemAlloc".into(), Query::Unversioned, StreamMode::Legacy),
            (
                "cuStreamGetCaptureInfo".into(),
                Query::Unversioned,
                StreamMode::Legacy
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
    assert!(
        msg.contains("To fix: update the NVIDIA driver to CUDA 11.3 or newer"),
        "{msg}"
    );

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
        &abi(4000, Some(7000)),
    )
    .unwrap();
    resolve(&Config::custom(r), "cuLaunchKernel", &abi(4000, Some(7000))).unwrap();
    assert_eq!(
        r.requests(),
        vec![
            (
                "cuLaunchKernel".into(),
                Query::Unversioned,
                StreamMode::PerThread
            ),
            (
                "cuLaunchKernel".into(),
                Query::Unversioned,
                StreamMode::Legacy
            ),
        ]
    );
    // The lists are not mixed up: 7000 is only a per-thread ABI, 4000 only a legacy one.
    assert!(check_unversioned("cuLaunchKernel", 7000, StreamMode::Legacy, 11080).is_err());
    assert!(check_unversioned("cuLaunchKernel", 4000, StreamMode::PerThread, 11080).is_err());
    assert!(check_unversioned("cuLaunchKernel", 7000, StreamMode::PerThread, 11080).is_ok());
}

#[test]
fn each_lookup_outcome_maps_to_its_error() {
    fn not_found(_: &CStr, _: Query, _: StreamMode) -> LookupResult {
        LookupResult::SymbolNotFound
    }
    fn not_sufficient(_: &CStr, _: Query, _: StreamMode) -> LookupResult {
        LookupResult::VersionNotSufficient
    }
    fn too_new(_: &CStr, _: Query, _: StreamMode) -> LookupResult {
        LookupResult::VersionTooNew
    }
    fn failed(_: &CStr, _: Query, _: StreamMode) -> LookupResult {
        LookupResult::Failed(Status::new(
            35,
            "cudaErrorInsufficientDriver",
            "CUDA driver version is insufficient for CUDA runtime version",
        ))
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
            status: Status::new(
                35,
                "cudaErrorInsufficientDriver",
                "CUDA driver version is insufficient for CUDA runtime version",
            ),
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
    let p = fake_ptr().as_ptr();
    let no_driver = || None;
    let driver_13 = || Some(13000);
    let name = |rc: c_int| Status::new(rc, format!("E{rc}"), "desc");
    assert_eq!(
        classify(0, Some(0), p, 2000, &no_driver, &name),
        LookupResult::Found(fake_ptr())
    );
    // Success with a null pointer is "not found", whatever the status says.
    assert_eq!(
        classify(0, Some(0), null_mut(), 2000, &no_driver, &name),
        LookupResult::SymbolNotFound
    );
    assert_eq!(
        classify(0, None, null_mut(), 2000, &no_driver, &name),
        LookupResult::SymbolNotFound
    );
    // The status wins over a pointer.
    assert_eq!(
        classify(0, Some(1), p, 2000, &no_driver, &name),
        LookupResult::SymbolNotFound
    );
    assert_eq!(
        classify(0, Some(2), p, 2000, &no_driver, &name),
        LookupResult::VersionNotSufficient
    );
    // An unknown status is reported as that status, not as the call's result.
    assert_eq!(
        classify(0, Some(7), p, 2000, &no_driver, &name),
        LookupResult::Failed(Status::new(
            7,
            "unexpected status",
            "the lookup succeeded but reported status 7"
        ))
    );
    // INVALID_VALUE is "too new" only when the version is above the driver's.
    assert_eq!(
        classify(1, Some(-1), null_mut(), 13010, &driver_13, &name),
        LookupResult::VersionTooNew
    );
    assert!(matches!(
        classify(1, Some(-1), null_mut(), 12000, &driver_13, &name),
        LookupResult::Failed(Status { code: 1, .. })
    ));
    assert!(matches!(
        classify(1, Some(-1), null_mut(), 13010, &no_driver, &name),
        LookupResult::Failed(Status { code: 1, .. })
    ));
    // Status-less variants report an unknown symbol as 500.
    assert_eq!(
        classify(500, None, null_mut(), 2000, &no_driver, &name),
        LookupResult::SymbolNotFound
    );
    assert_eq!(
        classify(35, Some(-1), null_mut(), 2000, &no_driver, &name),
        LookupResult::Failed(Status::new(35, "E35", "desc"))
    );
}

/// `found` (what `resolve_all` checks after calling a built-in backend's lookup directly) finds a
/// pointer exactly where `classify` says `Found`, and the same pointer.
#[test]
fn found_is_classify_s_found() {
    let p = fake_ptr().as_ptr();
    for rc in [0, 1, 2, 34, 35, 500, -1] {
        for status in [None, Some(-1), Some(0), Some(1), Some(2), Some(7)] {
            for ptr in [p, null_mut()] {
                let classified = classify(rc, status, ptr, 2000, &|| Some(13000), &|rc| {
                    Status::new(rc, "E", "desc")
                });
                let expected = match classified {
                    LookupResult::Found(p) => Some(p),
                    _ => None,
                };
                assert_eq!(
                    super::found(rc, status, ptr),
                    expected,
                    "rc {rc}, status {status:?}, pointer {ptr:?}"
                );
            }
        }
    }
}
