//! Generated tables end to end on the CPU: an in-process resolver stands in for the driver and
//! hands out Rust functions of the right C signatures, so the generated methods, the raw
//! accessors, `resolve_all` and the `CUresult` errors run for real, and every request is recorded.

use cuda_driver_table::{
    driver_table, sys, Config, ErrorKind, LookupResult, Query, Resolver, StreamMode, Versioning,
};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr::NonNull;
use std::sync::Mutex;

extern "C" fn fake_driver_get_version(v: *mut c_int) -> sys::CUresult {
    // SAFETY: the caller passes a valid place for the version (the generated method forwards it).
    unsafe { *v = 13_000 };
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_init(flags: c_uint) -> sys::CUresult {
    if flags == 0 {
        sys::CUresult::CUDA_SUCCESS
    } else {
        sys::CUresult::CUDA_ERROR_INVALID_VALUE
    }
}

extern "C" fn fake_error_name(e: sys::CUresult, out: *mut *const c_char) -> sys::CUresult {
    let name: &CStr = if e == sys::CUresult::CUDA_ERROR_INVALID_VALUE {
        c"CUDA_ERROR_INVALID_VALUE"
    } else {
        c"CUDA_ERROR_UNKNOWN"
    };
    // SAFETY: the caller passes a valid place for the string pointer.
    unsafe { *out = name.as_ptr() };
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_error_string(_: sys::CUresult, out: *mut *const c_char) -> sys::CUresult {
    // SAFETY: as above.
    unsafe { *out = c"invalid argument".as_ptr() };
    sys::CUresult::CUDA_SUCCESS
}

/// Knows four functions at fixed ABIs, and records every request.
struct FakeDriver {
    requests: Mutex<Vec<(String, Query, StreamMode)>>,
}

// SAFETY: every pointer handed out is a function of exactly the C signature of the ABI it is
// returned for (`cuInit` 2000, `cuDriverGetVersion` 2020, `cuGetErrorName`/`String` 6000), and
// any other request is answered `VersionNotSufficient` or `SymbolNotFound`.
unsafe impl Resolver for FakeDriver {
    fn describe(&self) -> String {
        "a fake driver".to_string()
    }
    fn versioning(&self) -> Versioning {
        Versioning::Versioned
    }
    fn lookup(&self, symbol: &CStr, query: Query, mode: StreamMode) -> LookupResult {
        let name = symbol.to_str().unwrap_or_default();
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((name.to_string(), query, mode));
        let Query::ByVersion(version) = query else {
            return LookupResult::SymbolNotFound;
        };
        let (at, f): (u32, *mut c_void) = match name {
            "cuInit" => (2000, fake_init as *mut c_void),
            "cuDriverGetVersion" => (2020, fake_driver_get_version as *mut c_void),
            "cuGetErrorName" => (6000, fake_error_name as *mut c_void),
            "cuGetErrorString" => (6000, fake_error_string as *mut c_void),
            _ => return LookupResult::SymbolNotFound,
        };
        if version < at {
            return LookupResult::VersionNotSufficient;
        }
        NonNull::new(f).map_or(LookupResult::SymbolNotFound, LookupResult::Found)
    }
}

impl FakeDriver {
    const fn new() -> Self {
        FakeDriver {
            requests: Mutex::new(Vec::new()),
        }
    }
}

// One fake per test: the tests run in parallel and count requests.
static FAKE: FakeDriver = FakeDriver::new();
static FAKE_PARTLY: FakeDriver = FakeDriver::new();
static FAKE_PER_THREAD: FakeDriver = FakeDriver::new();

fn requests_of(fake: &FakeDriver, name: &str) -> Vec<(Query, StreamMode)> {
    fake.requests
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter(|(n, _, _)| n == name)
        .map(|(_, q, f)| (*q, *f))
        .collect()
}

#[driver_table(cuInit, cuDriverGetVersion, driver = newest)]
struct Known;

#[driver_table(cuInit, cuDeviceGet, cuDriverGetVersion, cuMemAlloc, driver = newest)]
struct PartlyKnown;

static KNOWN: Known = Known::with_config(Config::custom(&FAKE));

#[test]
fn a_generated_method_calls_the_resolved_function_with_the_arguments() {
    let mut v = 0;
    // SAFETY: `v` is a valid place for the version.
    unsafe { KNOWN.cuDriverGetVersion(&mut v) }.expect("resolves and succeeds");
    assert_eq!(v, 13_000);
    // Requested once, at exactly its pinned ABI, with the legacy flag.
    assert_eq!(
        requests_of(&FAKE, "cuDriverGetVersion"),
        [(Query::ByVersion(2020), StreamMode::Legacy)]
    );
    // Later calls do not ask again.
    // SAFETY: as above.
    unsafe { KNOWN.cuDriverGetVersion(&mut v) }.expect("still fine");
    assert_eq!(requests_of(&FAKE, "cuDriverGetVersion").len(), 1);
    // The raw accessor hands out the same function: the stored pointer, which calls the fake.
    // (Compared with the table's own pointer, not with `fake_driver_get_version as usize`: under
    // Miri two casts of one function may give two addresses.)
    let f = KNOWN.pfn_cuDriverGetVersion().expect("resolved");
    let stored = KNOWN
        .raw_pointer("cuDriverGetVersion")
        .expect("in the table");
    assert_eq!(f as usize, stored.expect("resolved").as_ptr() as usize);
    v = 0;
    // SAFETY: as above.
    assert_eq!(unsafe { f(&mut v) }, sys::CUresult::CUDA_SUCCESS);
    assert_eq!(v, 13_000);
}

#[test]
fn a_failing_cuda_result_is_an_error_with_its_name_and_description() {
    // SAFETY: cuInit takes a plain integer.
    let err = unsafe { KNOWN.cuInit(7) }.expect_err("the fake fails non-zero flags");
    assert_eq!(err.code(), Some(1));
    match err.kind() {
        ErrorKind::Cuda {
            function,
            code,
            name,
            description,
            ptx,
        } => {
            assert_eq!(*ptx, None);
            assert_eq!(*function, "cuInit");
            assert_eq!(*code, 1);
            assert_eq!(name.as_deref(), Some("CUDA_ERROR_INVALID_VALUE"));
            assert_eq!(description.as_deref(), Some("invalid argument"));
        }
        other => panic!("expected a Cuda error, got {other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("cuInit") && text.contains("CUDA_ERROR_INVALID_VALUE"),
        "{text}"
    );
}

#[test]
fn resolve_all_returns_every_failure_not_only_the_first() {
    let table = PartlyKnown::with_config(Config::custom(&FAKE_PARTLY));
    let errors = table.resolve_all().expect_err("two functions are unknown");
    let failed: Vec<String> = errors.as_slice().iter().map(|e| e.to_string()).collect();
    assert_eq!(failed.len(), 2, "{failed:#?}");
    assert!(failed[0].contains("cuDeviceGet"), "{failed:#?}");
    assert!(failed[1].contains("cuMemAlloc"), "{failed:#?}");
    // Each function's own failure on its line.
    assert_eq!(
        errors.to_string(),
        format!(
            "2 driver functions could not be resolved:\n  - {}\n  - {}",
            failed[0], failed[1]
        )
    );
    // What could be resolved was, and is usable.
    assert!(table.raw_pointer("cuInit").expect("in the table").is_ok());
    assert!(table.raw_pointer("cuLaunchKernel").is_none());
}

#[test]
fn per_thread_mode_asks_for_the_per_thread_abi_only_where_there_is_one() {
    #[driver_table(per_thread, cuInit, cuLaunchKernel, driver = newest)]
    struct PerThread;
    let table = PerThread::with_config(Config::custom(&FAKE_PER_THREAD).per_thread());
    let _ = table.resolve_all();
    assert_eq!(
        requests_of(&FAKE_PER_THREAD, "cuInit"),
        [(Query::ByVersion(2000), StreamMode::Legacy)]
    );
    assert_eq!(
        requests_of(&FAKE_PER_THREAD, "cuLaunchKernel"),
        [(Query::ByVersion(7000), StreamMode::PerThread)]
    );
}

static FAKE_RACED: FakeDriver = FakeDriver::new();

#[test]
fn threads_racing_the_first_calls_all_get_the_one_function_and_each_its_error() {
    static RACED: PartlyKnown = PartlyKnown::with_config(Config::custom(&FAKE_RACED));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                let mut v = 0;
                // SAFETY: `v` is a valid place for the version.
                unsafe { RACED.cuDriverGetVersion(&mut v) }.expect("resolves and succeeds");
                // SAFETY: cuInit takes a plain integer.
                let failed = unsafe { RACED.cuInit(7) }.expect_err("the fake fails non-zero flags");
                let mut device = 0;
                // SAFETY: `device` is a valid place for the device.
                let unresolved = unsafe { RACED.cuDeviceGet(&mut device, 0) }
                    .expect_err("the fake does not know cuDeviceGet");
                let f = RACED.pfn_cuDriverGetVersion().expect("resolved");
                (v, f as usize, failed.code(), unresolved.to_string())
            })
        })
        .collect();
    let results: Vec<_> = threads
        .into_iter()
        .map(|thread| thread.join().expect("no panic"))
        .collect();
    // Read after the threads are done: read while they race, it would be a fifth first call.
    let stored = RACED
        .raw_pointer("cuDriverGetVersion")
        .expect("in the table")
        .expect("resolved")
        .as_ptr() as usize;
    for (v, f, code, unresolved) in results {
        assert_eq!(v, 13_000);
        // Every thread got the one pointer stored first.
        assert_eq!(f, stored);
        assert_eq!(code, Some(1));
        assert!(unresolved.contains("cuDeviceGet"), "{unresolved}");
    }
    // A function that failed to resolve is asked again on its next call; one that resolved is
    // asked at most once per racing thread, and never after.
    assert_eq!(requests_of(&FAKE_RACED, "cuDeviceGet").len(), 4);
    let asked = requests_of(&FAKE_RACED, "cuDriverGetVersion").len();
    assert!((1..=4).contains(&asked), "{asked}");
}
