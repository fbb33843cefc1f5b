//! The fake driver's parts, against a table bound as the macro binds it: which lookups find a
//! fake (exactly its ABI and flag), the driver version, the stand-in a lookup hands out (called
//! through its `PFN_*` type), core's `invoke` with and without a fake configuration, the refusal
//! of raw pointers, recording, and `function_index`.

use std::ffi::{c_uint, CStr};
use std::ptr::{null_mut, NonNull};
use std::sync::atomic::{AtomicU32, Ordering};

use cuda_driver_table_core::__private::{invoke, Functions, TableCore};
use cuda_driver_table_core::ErrorKind;

use super::*;

struct Table;

cuda_driver_table_core::__cdt_bind! {
    Table;
    0 "cuInit\0" PFN_cuInit_v2000 ["cuInit"] [];
    1 "cuLaunchKernel\0" PFN_cuLaunchKernel_v4000 ["cuLaunchKernel"] [PFN_cuLaunchKernel_v7000_ptsz "cuLaunchKernel_ptsz"];
    2 "cuMemAlloc\0" PFN_cuMemAlloc_v3020 ["cuMemAlloc_v2"] [];
}
cuda_driver_table_core::__cdt_record! { Table; Default; Legacy; Version(12000) }

type Core = TableCore<Table, 3>;

const INIT: Function<Table, 0> = Function::new();
const LAUNCH: Function<Table, 1> = Function::new();
const ALLOC: Function<Table, 2> = Function::new();

/// `cuInit` faked to return `CUDA_SUCCESS` for flags 0 and its flags plus 1000 otherwise, and
/// `cuLaunchKernel` faked to succeed.
fn fake() -> Fake {
    Fake::new()
        .on(INIT, |(flags,)| {
            if flags == 0 {
                CUresult::CUDA_SUCCESS
            } else {
                CUresult(1000 + flags)
            }
        })
        .returns(LAUNCH, CUresult::CUDA_SUCCESS)
}

fn lookup(driver: &FakeDriver, name: &CStr, version: u32, flag: StreamMode) -> LookupResult {
    driver.0.lookup(name, Query::ByVersion(version), flag)
}

fn description(result: LookupResult) -> String {
    match result {
        LookupResult::Failed(status) => status.to_string(),
        other => panic!("expected a failed lookup, got {other:?}"),
    }
}

#[test]
fn function_index_finds_each_name_raw_identifiers_too() {
    let functions = <Table as Functions>::FUNCTIONS;
    assert_eq!(function_index(functions, "cuInit"), 0);
    assert_eq!(function_index(functions, "cuLaunchKernel"), 1);
    assert_eq!(function_index(functions, "r#cuMemAlloc"), 2);
    assert_eq!(
        (INIT.name(), LAUNCH.name(), ALLOC.name()),
        ("cuInit", "cuLaunchKernel", "cuMemAlloc")
    );
    assert_eq!(ALLOC.spec().typedef, "PFN_cuMemAlloc_v3020");
}

#[test]
fn a_lookup_finds_a_fake_at_exactly_its_abi_and_flag() {
    let driver = fake().build();
    let found =
        |name, version, flag| matches!(lookup(driver, name, version, flag), LookupResult::Found(_));
    assert!(found(c"cuInit", 2000, StreamMode::Legacy));
    assert!(found(c"cuLaunchKernel", 4000, StreamMode::Legacy));
    assert!(found(c"cuLaunchKernel", 7000, StreamMode::PerThread));
    // Another ABI, or the twin's version with the other flag: the fake is of another type.
    assert!(!found(c"cuInit", 3000, StreamMode::Legacy));
    assert!(!found(c"cuLaunchKernel", 7000, StreamMode::Legacy));
    assert!(!found(c"cuLaunchKernel", 4000, StreamMode::PerThread));
    assert_eq!(
        description(lookup(driver, c"cuLaunchKernel", 7000, StreamMode::Legacy)),
        "CUDA_ERROR_NOT_FOUND (500): the fake driver fakes it at ABI 4000 (per-thread: 7000), \
         not at ABI 7000 (Legacy stream); give the table's pin a fake with `Fake::on`"
    );
    assert_eq!(
        description(lookup(driver, c"cuMemAlloc", 3020, StreamMode::Legacy)),
        "CUDA_ERROR_NOT_FOUND (500): the fake driver has no fake for it (and no device that \
         implements it); give it one with `Fake::on` or `Fake::returns`, or answer the rest \
         with `Fake::succeed_others`"
    );
    // Only versioned lookups are answered (and only they are asked: `versioning`).
    assert!(matches!(driver.0.versioning(), Versioning::Versioned));
    assert!(matches!(
        driver
            .0
            .lookup(c"cuInit", Query::Unversioned, StreamMode::Legacy),
        LookupResult::Failed(_)
    ));
}

#[test]
fn a_driver_version_refuses_newer_abis_and_below_11_3_every_lookup() {
    let driver = fake().driver_version(3000).build();
    assert_eq!(driver.0.driver_version(), Some(3000));
    assert!(matches!(
        lookup(driver, c"cuInit", 2000, StreamMode::Legacy),
        LookupResult::Found(_)
    ));
    // Checked before the name, as a driver would: it knows no such version at all.
    assert_eq!(
        lookup(driver, c"cuLaunchKernel", 4000, StreamMode::Legacy),
        LookupResult::VersionTooNew
    );
    assert_eq!(
        lookup(driver, c"cuMemAlloc", 3020, StreamMode::Legacy),
        LookupResult::VersionTooNew
    );
    match fake().driver_version(11020).build().0.versioning() {
        Versioning::Unavailable(status) => assert_eq!(
            status.to_string(),
            "CUDA_ERROR_NOT_FOUND (500): the fake driver is CUDA 11.2, older than CUDA 11.3, \
             whose cuGetProcAddress every lookup needs"
        ),
        other => panic!("expected no lookups, got {other:?}"),
    }
    assert!(matches!(
        fake().driver_version(11030).build().0.versioning(),
        Versioning::Versioned
    ));
}

#[test]
fn describe_names_each_faked_function_once_and_the_version() {
    let driver = fake().returns(INIT, CUresult::CUDA_SUCCESS).build();
    assert_eq!(
        driver.0.describe(),
        "a fake driver (cuda_driver_table::fake; fakes of cuInit, cuLaunchKernel)"
    );
    assert_eq!(
        Fake::new().driver_version(12080).build().0.describe(),
        "a fake driver (cuda_driver_table::fake; CUDA 12.8)"
    );
    assert_eq!(
        Fake::new()
            .device(&Device::new())
            .succeed_others()
            .build()
            .0
            .describe(),
        "a fake driver (cuda_driver_table::fake; a fake device; success for the rest)"
    );
    assert_eq!(
        driver.0.error_strings(2),
        (
            Some("CUDA_ERROR_OUT_OF_MEMORY".to_owned()),
            Some(
                "The API call failed because it was unable to allocate enough memory or other \
                 resources to perform the requested operation"
                    .to_owned()
            )
        )
    );
    assert_eq!(driver.0.error_strings(99_999), (None, None));
    let builder = format!("{:?}", fake().driver_version(12080).record(false));
    assert_eq!(
        builder,
        r#"Fake { fakes: ["cuInit", "cuLaunchKernel"], device: false, succeed_others: false, driver_version: Some(12080), record: false }"#
    );
}

#[test]
fn the_stand_in_a_lookup_hands_out_calls_nothing_and_returns_not_supported() {
    let driver = fake().build();
    let core = Core::new(driver.config());
    let init = core.get::<0>().expect("faked");
    // SAFETY: `init` is the stand-in of type `PFN_cuInit_v2000`; it reads no argument.
    assert_eq!(unsafe { init(0) }, CUresult::CUDA_ERROR_NOT_SUPPORTED);
    let launch = core.get::<1>().expect("faked");
    let (f, stream, params) = (null_mut(), null_mut(), null_mut());
    // SAFETY: as above, `PFN_cuLaunchKernel_v4000`: the stand-in reads no argument.
    let result = unsafe { launch(f, 1, 1, 1, 1, 1, 1, 0, stream, params, params) };
    assert_eq!(result, CUresult::CUDA_ERROR_NOT_SUPPORTED);
    // Nothing was recorded: no fake was called.
    assert!(driver.calls().is_empty());
}

#[test]
fn invoke_calls_the_fake_of_a_fake_configuration_and_the_function_otherwise() {
    let driver = fake().build();
    let core = Core::new(driver.config());
    let init = core.get::<0>().expect("faked");
    // SAFETY: cuInit takes any flags; `init` was resolved through this configuration.
    let result = unsafe { invoke(core.config(), "cuInit", init, (7,), &[]) };
    assert_eq!(result, CUresult(1007));
    assert_eq!(driver.calls(), ["cuInit"]);
    assert_eq!(driver.calls_to(INIT), [(7,)]);

    static CALLED_WITH: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn real_init(flags: c_uint) -> CUresult {
        CALLED_WITH.store(flags, Ordering::Relaxed);
        CUresult::CUDA_ERROR_NO_DEVICE
    }
    let real: <Table as Field<0>>::Fn = real_init;
    // SAFETY: `real_init` takes any flags.
    let result = unsafe { invoke(&Config::runtime(), "cuInit", real, (5,), &[]) };
    assert_eq!(result, CUresult::CUDA_ERROR_NO_DEVICE);
    assert_eq!(CALLED_WITH.load(Ordering::Relaxed), 5);
    // A fake driver whose fakes lack this function and type answers as the stand-in does,
    // calling nothing.
    let other = Fake::new().build();
    // SAFETY: as above.
    let result = unsafe { invoke(&other.config(), "cuInit", init, (0,), &[]) };
    assert_eq!(result, CUresult::CUDA_ERROR_NOT_SUPPORTED);
}

#[test]
fn raw_pointers_are_refused_with_a_fake_driver_only() {
    let core = Core::new(fake().build().config());
    let error = core.pointer::<0>().expect_err("a fake's table");
    assert!(matches!(
        error.kind(),
        ErrorKind::LookupFailed { function: "cuInit", status, .. } if status.code == 801
    ));
    assert!(core.raw_pointer("cuLaunchKernel").expect("listed").is_err());
    assert!(core.raw_pointer("cuCtxCreate").is_none());
    // The methods' path still resolves.
    assert!(core.get::<0>().is_ok());
    assert!(core.resolve_all().is_err(), "cuMemAlloc has no fake");

    /// A resolver that finds every function (its pointers are never called here).
    struct Finds;
    // SAFETY: the pointers are never called: the test only checks that they are handed out.
    unsafe impl Resolver for Finds {
        fn describe(&self) -> String {
            "finds everything".to_owned()
        }
        fn versioning(&self) -> Versioning {
            Versioning::Versioned
        }
        fn lookup(&self, _: &CStr, _: Query, _: StreamMode) -> LookupResult {
            LookupResult::Found(NonNull::dangling())
        }
    }
    static FINDS: Finds = Finds;
    let other = Core::new(Config::custom(&FINDS));
    assert!(other.pointer::<0>().is_ok());
    assert!(other.raw_pointer("cuInit").expect("listed").is_ok());
}

#[test]
fn recording_keeps_each_functions_arguments_apart() {
    let driver = fake().returns(ALLOC, CUresult::CUDA_SUCCESS).build();
    let core = Core::new(driver.config());
    let (init, alloc) = (
        core.get::<0>().expect("faked"),
        core.get::<2>().expect("faked"),
    );
    let mut p = 0;
    // SAFETY: `p` is a valid place; the fakes read nothing.
    unsafe {
        invoke(core.config(), "cuInit", init, (0,), &[]);
        invoke(core.config(), "cuMemAlloc", alloc, (&raw mut p, 64), &[]);
        invoke(core.config(), "cuInit", init, (3,), &[]);
    }
    assert_eq!(driver.calls(), ["cuInit", "cuMemAlloc", "cuInit"]);
    assert_eq!(driver.calls_to(INIT), [(0,), (3,)]);
    assert_eq!(driver.calls_to(ALLOC), [(&raw mut p, 64)]);
    assert!(format!("{driver:?}").contains("calls: 3"), "{driver:?}");
}

/// A profile's lacked export fails a lookup as symbol not found, also for a function the
/// selected release's manifest does not know (`cuDevSmResourceSplit` is new in CUDA 13.1: the
/// name is the export), and only the export named (`cuDevSmResourceSplitByCount` is not it).
/// Its driver version answers lookups of newer ABIs with "too new".
#[test]
fn a_profile_fails_the_lookups_of_what_its_platform_lacks() {
    let windows = Device::new().with_profile(Profile::windows_driver_13_1());
    let driver = Fake::new().device(&windows).build();
    let found = |name: &CStr, version| lookup(driver, name, version, StreamMode::Legacy);
    assert!(matches!(
        found(c"cuDevSmResourceSplit", 13010),
        LookupResult::SymbolNotFound
    ));
    assert!(matches!(
        found(c"cuDevSmResourceSplitByCount", 12040),
        LookupResult::Failed(_)
    ));
    assert!(matches!(
        found(c"cuCheckpointProcessLock", 12080),
        LookupResult::SymbolNotFound
    ));
    assert!(matches!(found(c"cuMemAlloc", 3020), LookupResult::Found(_)));
    assert!(matches!(
        found(c"cuMemAlloc", 13020),
        LookupResult::VersionTooNew
    ));
    assert_eq!(driver.0.driver_version(), Some(13010));
    assert!(
        driver.0.describe().contains("CUDA 13.1"),
        "{}",
        driver.0.describe()
    );

    // The same device without the profile: the name is no missing export.
    let linux = Device::new();
    let driver = Fake::new().device(&linux).build();
    assert!(matches!(
        lookup(driver, c"cuDevSmResourceSplit", 13010, StreamMode::Legacy),
        LookupResult::Failed(_)
    ));
    assert_eq!(driver.0.driver_version(), None);
    // A version given to the `Fake` counts over the profile's.
    let driver = Fake::new().device(&windows).driver_version(12080).build();
    assert_eq!(driver.0.driver_version(), Some(12080));
    drop((windows, linux));
}
