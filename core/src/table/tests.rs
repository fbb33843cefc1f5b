//! Generated-table building blocks against an in-process resolver: the binding (every version
//! read off a typedef), the table's state (exact requests through its own configuration, a single
//! stored pointer under races, failures not stored) and the `CUresult` check. CPU only; no CUDA library is loaded.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};

use crate::backend::GetProc;
use crate::error::ErrorKind;

use super::*;
use crate::backend::Driver;
use crate::manifest::PerThread;
use crate::resolve::{resolve_symbol, LookupResult, Query, Resolver};
use crate::stream::StreamMode;
use crate::sys::CUresult;
use crate::testing::{fake_get_error_name, fake_get_error_string, fake_ptr, found, Recorder};

/// A table of two functions, bound as the macro binds them.
struct Table;

crate::__cdt_bind! {
    Table;
    0 "cuCtxSetCurrent\0" PFN_cuCtxSetCurrent_v4000 ["cuCtxSetCurrent"] [];
    1 "cuLaunchKernel\0" PFN_cuLaunchKernel_v4000 ["cuLaunchKernel"] [PFN_cuLaunchKernel_v7000_ptsz "cuLaunchKernel_ptsz"];
}
crate::__cdt_record! { Table; Default; Legacy; Version(12000) }

type Core = TableCore<Table, 2>;

fn address_of<F: Copy>(f: F) -> usize {
    // SAFETY: `F` is a function pointer type (a table's `Fn`), of pointer size.
    unsafe { std::mem::transmute_copy::<F, usize>(&f) }
}

#[test]
fn the_binding_reads_every_version_off_the_typedefs() {
    assert_eq!(
        <Table as Functions>::FUNCTIONS,
        [
            FunctionSpec {
                name: "cuCtxSetCurrent",
                symbol: c"cuCtxSetCurrent",
                typedef: "PFN_cuCtxSetCurrent_v4000",
                per_thread_typedef: None,
                abi: Abi {
                    version: 4000,
                    export: Some("cuCtxSetCurrent"),
                    per_thread: None,
                },
            },
            FunctionSpec {
                name: "cuLaunchKernel",
                symbol: c"cuLaunchKernel",
                typedef: "PFN_cuLaunchKernel_v4000",
                per_thread_typedef: Some("PFN_cuLaunchKernel_v7000_ptsz"),
                abi: Abi {
                    version: 4000,
                    export: Some("cuLaunchKernel"),
                    per_thread: Some(PerThread {
                        version: 7000,
                        export: Some("cuLaunchKernel_ptsz"),
                    }),
                },
            },
        ]
    );
    // The types are the typedefs' functions.
    let _: fn(&Core) -> crate::sys::PFN_cuCtxSetCurrent_v4000 = |t| t.get::<0>().ok();
    let _: fn(&Core) -> crate::sys::PFN_cuLaunchKernel_v4000 = |t| t.get::<1>().ok();
}

#[test]
fn a_typedef_of_another_function_or_no_version_is_refused() {
    let ok = |name, typedef, per_thread| {
        std::panic::catch_unwind(|| typedef_version(name, typedef, per_thread)).ok()
    };
    assert_eq!(ok("cuMemAlloc", "PFN_cuMemAlloc_v3020", false), Some(3020));
    assert_eq!(
        ok("cuLaunchKernel", "PFN_cuLaunchKernel_v7000_ptds", true),
        Some(7000)
    );
    assert_eq!(ok("cuMemAlloc", "PFN_cuMemAllocHost_v3020", false), None);
    assert_eq!(ok("cuMemAlloc", "PFN_cuMemAlloc_v", false), None);
    assert_eq!(ok("cuMemAlloc", "PFN_cuMemAlloc_v3020_ptsz", false), None);
    assert_eq!(ok("cuLaunchKernel", "PFN_cuLaunchKernel_v7000", true), None);
    assert_eq!(
        ok("cuLaunchKernel", "PFN_cuLaunchKernel_v7000_ptxx", true),
        None
    );
    assert_eq!(ok("cuMemAlloc", "PFN_cuMem", false), None);
    assert_eq!(ok("cuMemAlloc", "PFN_cuMemAlloc_v99999999999", false), None);
}

#[test]
fn a_table_requests_exactly_each_spec_through_its_own_configuration() {
    let r = Recorder::versioned(found);
    let legacy = Core::new(Config::custom(r));
    let per_thread = Core::new(Config::custom(r).per_thread());
    assert!(legacy.loaded::<0>().is_none());
    let f = legacy.get::<0>().unwrap();
    assert_eq!(address_of(f), fake_ptr().as_ptr() as usize);
    assert_eq!(legacy.loaded::<0>().map(address_of), Some(address_of(f)));
    per_thread.get::<1>().unwrap();
    legacy.raw_pointer("cuLaunchKernel").unwrap().unwrap();
    assert!(legacy.raw_pointer("cuInit").is_none());
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
    // Everything resolved: `resolve_all` asks nothing more.
    legacy.resolve_all().unwrap();
    assert_eq!(r.requests().len(), 3);
    assert_eq!(
        format!("{legacy:?}"),
        format!(
            "TableCore {{ config: {:?}, resolved: [\"cuCtxSetCurrent\", \"cuLaunchKernel\"] }}",
            legacy.config()
        )
    );
}

#[test]
fn racing_threads_all_get_the_one_stored_pointer() {
    let r = Recorder::versioned(found);
    let table = Core::new(Config::custom(r));
    let barrier = Barrier::new(64);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..64)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    table.get::<0>().map(address_of)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let stored = table.raw_pointer("cuCtxSetCurrent").unwrap().unwrap();
    assert!(results.iter().all(|r| *r == Ok(stored.as_ptr() as usize)));
    assert_eq!(stored, fake_ptr());
    let calls = r.calls.load(Ordering::SeqCst);
    assert!((1..=64).contains(&calls), "{calls} lookups");
    assert_eq!(
        table.loaded::<0>().map(address_of),
        Some(stored.as_ptr() as usize)
    );
    // Once filled, the slot no longer asks.
    table.get::<0>().unwrap();
    assert_eq!(r.calls.load(Ordering::SeqCst), calls);
}

#[test]
fn failures_are_not_stored_in_the_slot() {
    fn not_found(_: &CStr, _: Query, _: StreamMode) -> LookupResult {
        LookupResult::SymbolNotFound
    }
    let r = Recorder::versioned(not_found);
    let table = Core::new(Config::custom(r));
    assert!(table.get::<0>().is_err());
    assert!(table.loaded::<0>().is_none());
    assert!(table.get::<0>().is_err());
    assert_eq!(r.calls.load(Ordering::SeqCst), 2);
    // `resolve_all` reports both, in order.
    let errors = table.resolve_all().unwrap_err();
    let names: Vec<_> = errors
        .as_slice()
        .iter()
        .map(|e| e.kind().function())
        .collect();
    assert_eq!(names, [Some("cuCtxSetCurrent"), Some("cuLaunchKernel")]);
}

#[test]
fn table_is_send_sync_and_its_slots_one_pointer_each() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Core>();
    assert_send_sync::<Config>();
    assert_send_sync::<Error>();
    // And, where the linker drops a record nothing refers to, one that keeps the table's record.
    let record = if cfg!(any(
        all(windows, target_env = "gnu"),
        all(unix, not(target_vendor = "apple"))
    )) {
        size_of::<usize>()
    } else {
        0
    };
    assert_eq!(
        size_of::<Core>(),
        size_of::<Config>() + 2 * size_of::<usize>() + record
    );
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
            description: None,
            ptx: None,
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
    let both = [
        <Table as Functions>::FUNCTIONS[0],
        <Table as Functions>::FUNCTIONS[1],
    ];
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
        symbol: c"cuX",
        typedef: "PFN_cuX",
        per_thread_typedef: None,
        abi: Abi {
            version,
            export: None,
            per_thread: per_thread.map(|version| PerThread {
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

/// Records the address of every symbol a lookup is given.
struct SymbolAddresses(std::sync::Mutex<Vec<usize>>);

// SAFETY: every pointer handed out is `fake_ptr()`, which the test never calls.
unsafe impl Resolver for SymbolAddresses {
    fn describe(&self) -> String {
        "symbol recorder".to_owned()
    }
    fn versioning(&self) -> crate::resolve::Versioning {
        crate::resolve::Versioning::Versioned
    }
    fn lookup(&self, symbol: &CStr, _: Query, _: StreamMode) -> LookupResult {
        self.0.lock().unwrap().push(symbol.as_ptr() as usize);
        LookupResult::Found(fake_ptr())
    }
}

#[test]
fn a_table_hands_the_lookup_its_static_names_without_a_copy() {
    let recorder: &'static SymbolAddresses =
        Box::leak(Box::new(SymbolAddresses(std::sync::Mutex::new(Vec::new()))));
    let core = Core::new(Config::custom(recorder));
    core.resolve_all().unwrap();
    let statics: Vec<usize> = <Table as Functions>::FUNCTIONS
        .iter()
        .map(|f| f.symbol.as_ptr() as usize)
        .collect();
    // The very statics of the table's specs. Where the linker keeps one copy of a constant's data
    // (ELF); on Windows, and under Miri, two uses of one constant may have two copies, so there
    // only the count is checked.
    if cfg!(any(windows, miri)) {
        assert_eq!(recorder.0.lock().unwrap().len(), statics.len());
    } else {
        assert_eq!(*recorder.0.lock().unwrap(), statics);
    }
    // Each static is the C name and its NUL.
    let names: Vec<&str> = <Table as Functions>::FUNCTIONS
        .iter()
        .map(|f| f.symbol.to_str().unwrap())
        .collect();
    assert_eq!(names, ["cuCtxSetCurrent", "cuLaunchKernel"]);
}

/// Counts how often it is asked its versioning; finds every function.
struct CountsVersioning(AtomicUsize);

// SAFETY: every pointer handed out is `fake_ptr()`, which the test never calls.
unsafe impl Resolver for CountsVersioning {
    fn describe(&self) -> String {
        "versioning counter".to_owned()
    }
    fn versioning(&self) -> crate::resolve::Versioning {
        self.0.fetch_add(1, Ordering::SeqCst);
        crate::resolve::Versioning::Versioned
    }
    fn lookup(&self, _: &CStr, _: Query, _: StreamMode) -> LookupResult {
        LookupResult::Found(fake_ptr())
    }
}

#[test]
fn resolve_all_asks_a_resolver_its_versioning_once_for_the_table() {
    let r: &'static CountsVersioning = Box::leak(Box::new(CountsVersioning(AtomicUsize::new(0))));
    Core::new(Config::custom(r)).resolve_all().unwrap();
    assert_eq!(r.0.load(Ordering::SeqCst), 1);
    // A field's first call asks it for its own resolution.
    Core::new(Config::custom(r)).get::<1>().unwrap();
    assert_eq!(r.0.load(Ordering::SeqCst), 2);
}

/// What the stand-in `cuGetProcAddress_v2` below was asked: the symbol's address, its text, the
/// version and the flag.
static DIRECT_REQUESTS: Mutex<Vec<(usize, String, c_int, u64)>> = Mutex::new(Vec::new());

/// What the stand-in hands out for `cuLaunchKernel`: never called.
static LAUNCH_KERNEL: u8 = 0;

/// A stand-in `cuGetProcAddress_v2` that records every request: it finds `cuCtxSetCurrent` and
/// the per-thread `cuLaunchKernel`; the legacy `cuLaunchKernel` is not found (status 1).
unsafe extern "C" fn direct_get_proc(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: crate::sys::cuuint64_t,
    status: *mut c_int,
) -> CUresult {
    // SAFETY: the caller passes a NUL-terminated name.
    let name = unsafe { CStr::from_ptr(symbol) };
    DIRECT_REQUESTS.lock().unwrap().push((
        symbol as usize,
        name.to_str().unwrap().to_owned(),
        version,
        flags,
    ));
    let (p, s): (*mut c_void, c_int) = match (name.to_bytes(), flags) {
        (b"cuCtxSetCurrent", _) => (fake_ptr().as_ptr(), 0),
        (b"cuLaunchKernel", 2) => (std::ptr::from_ref(&LAUNCH_KERNEL).cast_mut().cast(), 0),
        _ => (std::ptr::null_mut(), 1),
    };
    // SAFETY: the caller passes valid out-parameters.
    unsafe {
        *pfn = p;
        *status = s;
    }
    CUresult::CUDA_SUCCESS
}

#[test]
fn resolve_all_calls_a_built_in_backend_s_lookup_directly_and_asks_again_for_a_failure() {
    let driver: &'static Driver = Box::leak(Box::new(Driver::around(
        "/stand-in/libcuda.so.1",
        GetProc::V2(direct_get_proc),
    )));
    let statics: Vec<usize> = <Table as Functions>::FUNCTIONS
        .iter()
        .map(|f| f.symbol.as_ptr() as usize)
        .collect();
    let requests = || std::mem::take(&mut *DIRECT_REQUESTS.lock().unwrap());
    let resolve_all = |table: &Core| {
        resolve_every_through(
            &table.slots,
            <Table as Functions>::FUNCTIONS,
            &table.config,
            Ok(Source::BuiltIn(driver)),
        )
    };

    // Per-thread: each function at exactly its request (the twin's version and flag for
    // `cuLaunchKernel`), with the table's static names, both found and stored.
    let table = Core::new(Config::driver().per_thread());
    resolve_all(&table).unwrap();
    let asked = requests();
    let what: Vec<(&str, c_int, u64)> = asked
        .iter()
        .map(|(_, name, version, flags)| (name.as_str(), *version, *flags))
        .collect();
    assert_eq!(
        what,
        [("cuCtxSetCurrent", 4000, 1), ("cuLaunchKernel", 7000, 2)]
    );
    // The very statics of the specs, where the linker keeps one copy (see above).
    if !cfg!(any(windows, miri)) {
        let addresses: Vec<usize> = asked.iter().map(|(a, ..)| *a).collect();
        assert_eq!(addresses, statics);
    }
    assert_eq!(
        table.loaded::<0>().map(address_of),
        Some(fake_ptr().as_ptr() as usize)
    );
    assert_eq!(
        table.loaded::<1>().map(address_of),
        Some(std::ptr::from_ref(&LAUNCH_KERNEL) as usize)
    );
    // Everything resolved: nothing more is asked.
    resolve_all(&table).unwrap();
    assert!(requests().is_empty());

    // Legacy: `cuLaunchKernel` is not found. It is asked once more, through the resolver, whose
    // error is the one a single resolution gives; its slot stays empty.
    let table = Core::new(Config::driver());
    let errors = resolve_all(&table).unwrap_err();
    let asked: Vec<String> = requests().into_iter().map(|(_, name, ..)| name).collect();
    assert_eq!(
        asked,
        ["cuCtxSetCurrent", "cuLaunchKernel", "cuLaunchKernel"]
    );
    let spec = &<Table as Functions>::FUNCTIONS[1];
    let alone = resolve_symbol(
        driver,
        StreamMode::Legacy,
        spec.name,
        spec.symbol,
        &spec.abi,
    )
    .unwrap_err();
    requests();
    assert_eq!(errors.as_slice().len(), 1);
    assert_eq!(errors.as_slice()[0].to_string(), alone.to_string());
    assert!(matches!(
        errors.as_slice()[0].kind(),
        ErrorKind::SymbolNotFound {
            function: "cuLaunchKernel",
            version: 4000
        }
    ));
    assert!(table.loaded::<0>().is_some() && table.loaded::<1>().is_none());
}
