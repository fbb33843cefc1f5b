//! The fake driver (`--features fake`): generated tables configured with a `Fake` call its
//! closures with their arguments, each typed by its function's pinned `PFN_*`; what was not faked
//! fails naming the function; raw pointers are refused; each driver is its own, across parallel
//! threads; calls are recorded; `resolve_all`, `MIN_DRIVER_VERSION`, pins and per-thread
//! configurations behave as with a driver. With `--features fake,tracing` too, the events show the
//! fake calls.
#![cfg(feature = "fake")]

use std::ffi::c_uint;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};

use cuda_driver_table::fake::{function, Fake, FakeDriver};
use cuda_driver_table::sys::{self, CUresult};
use cuda_driver_table::{driver_table, ErrorKind};

#[driver_table(cuInit, cuMemAlloc, cuMemFree, cuLaunchKernel, cuCtxSynchronize, driver = newest)]
struct Cuda;

/// A null pointer of any type, for arguments the fakes do not read.
fn null<T>() -> *mut T {
    std::ptr::null_mut()
}

/// A null `const` pointer of any type.
fn cnull<T>() -> *const T {
    std::ptr::null()
}

/// A driver whose `cuMemAlloc` hands out consecutive addresses from 0x1000 and fails the
/// `fail_at`th call (1-based) with `CUDA_ERROR_OUT_OF_MEMORY`; everything else succeeds.
fn allocating(fail_at: Option<usize>) -> Fake {
    let next = AtomicU64::new(0x1000);
    let calls = AtomicUsize::new(0);
    Fake::new()
        .returns(function!(Cuda::cuInit), CUresult::CUDA_SUCCESS)
        .on(function!(Cuda::cuMemAlloc), move |(dptr, bytesize)| {
            if Some(calls.fetch_add(1, Ordering::Relaxed) + 1) == fail_at {
                return CUresult::CUDA_ERROR_OUT_OF_MEMORY;
            }
            // SAFETY: the caller of cuMemAlloc passes a valid place for the pointer.
            unsafe {
                cuda_driver_table::fake::write(
                    dptr,
                    next.fetch_add(bytesize as u64, Ordering::Relaxed),
                )
            };
            CUresult::CUDA_SUCCESS
        })
        .returns(function!(Cuda::cuMemFree), CUresult::CUDA_SUCCESS)
}

fn alloc(cu: &Cuda, bytes: usize) -> Result<sys::CUdeviceptr, cuda_driver_table::Error> {
    let mut p = 0;
    // SAFETY: `p` is a valid place for a device pointer.
    unsafe { cu.cuMemAlloc(&mut p, bytes) }?;
    Ok(p)
}

#[test]
fn a_method_calls_its_fake_with_its_arguments_and_checks_the_result() {
    let driver = allocating(Some(3)).build();
    let cu = Cuda::with_config(driver.config());
    // SAFETY: cuInit takes any flags.
    unsafe { cu.cuInit(0) }.expect("faked to succeed");
    assert_eq!(alloc(&cu, 256).expect("first"), 0x1000);
    assert_eq!(alloc(&cu, 16).expect("second"), 0x1100);
    let error = alloc(&cu, 64).expect_err("the third runs out of memory");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY.0));
    match error.kind() {
        ErrorKind::Cuda {
            function,
            name,
            description,
            ..
        } => {
            assert_eq!(*function, "cuMemAlloc");
            // Named and described from the bindings, as the fake's `cuGetErrorName` and
            // `cuGetErrorString` answer.
            assert_eq!(name.as_deref(), Some("CUDA_ERROR_OUT_OF_MEMORY"));
            assert_eq!(
                description.as_deref(),
                Some(
                    "The API call failed because it was unable to allocate enough memory or \
                     other resources to perform the requested operation"
                )
            );
        }
        other => panic!("expected a Cuda error, got {other:?}"),
    }
    assert!(
        error
            .to_string()
            .starts_with("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): The API call failed"),
        "{error}"
    );
    assert_eq!(alloc(&cu, 8).expect("the fourth"), 0x1110);
}

#[test]
fn calls_are_recorded_in_order_with_their_typed_arguments() {
    let driver = allocating(Some(2)).build();
    let cu = Cuda::with_config(driver.config());
    let first = alloc(&cu, 256).expect("first");
    assert!(alloc(&cu, 512).is_err());
    // SAFETY: `first` came from cuMemAlloc.
    unsafe { cu.cuMemFree(first) }.expect("faked to succeed");
    assert_eq!(driver.calls(), ["cuMemAlloc", "cuMemAlloc", "cuMemFree"]);
    let sizes: Vec<usize> = driver
        .calls_to(function!(Cuda::cuMemAlloc))
        .iter()
        .map(|&(_, bytesize)| bytesize)
        .collect();
    assert_eq!(sizes, [256, 512]);
    assert_eq!(driver.calls_to(function!(Cuda::cuMemFree)), [(0x1000,)]);
    assert!(driver.calls_to(function!(Cuda::cuInit)).is_empty());
}

#[test]
fn recording_can_be_turned_off() {
    let driver = allocating(None).record(false).build();
    let cu = Cuda::with_config(driver.config());
    alloc(&cu, 1).expect("faked");
    assert!(driver.calls().is_empty());
    assert!(driver.calls_to(function!(Cuda::cuMemAlloc)).is_empty());
}

#[test]
fn a_function_without_a_fake_is_an_error_naming_it_and_resolve_all_lists_each() {
    let driver = Fake::new()
        .returns(function!(Cuda::cuInit), CUresult::CUDA_SUCCESS)
        .build();
    let cu = Cuda::with_config(driver.config());
    let error = alloc(&cu, 1).expect_err("cuMemAlloc has no fake");
    assert_eq!(error.kind().function(), Some("cuMemAlloc"));
    assert!(
        matches!(error.kind(), ErrorKind::LookupFailed { .. }),
        "{error:#?}"
    );
    assert_eq!(
        error.to_string(),
        "looking up cuMemAlloc through a fake driver (cuda_driver_table::fake; fakes of cuInit) \
         failed: CUDA_ERROR_NOT_FOUND (500): the fake driver has no fake for it (and no \
         device that implements it); give it one with `Fake::on` or `Fake::returns`, or answer \
         the rest with `Fake::succeed_others`"
    );
    // Nothing was called.
    assert!(driver.calls().is_empty());

    let report = cu.resolve_all().expect_err("four functions have no fake");
    let failed: Vec<_> = report
        .as_slice()
        .iter()
        .map(|e| e.kind().function())
        .collect();
    assert_eq!(
        failed,
        [
            Some("cuMemAlloc"),
            Some("cuMemFree"),
            Some("cuLaunchKernel"),
            Some("cuCtxSynchronize")
        ]
    );
    let text = report.to_string();
    assert!(
        text.starts_with("4 driver functions could not be resolved, all for one reason:"),
        "{text}"
    );
}

#[test]
fn resolve_all_succeeds_when_every_function_is_faked() {
    let driver = allocating(None)
        .returns(function!(Cuda::cuLaunchKernel), CUresult::CUDA_SUCCESS)
        .returns(function!(Cuda::cuCtxSynchronize), CUresult::CUDA_SUCCESS)
        .build();
    let cu = Cuda::with_config(driver.config());
    cu.resolve_all().expect("every function has a fake");
    // Resolving calls nothing.
    assert!(driver.calls().is_empty());
}

#[test]
fn raw_pointers_of_a_faked_table_are_refused_naming_the_function() {
    let driver = allocating(None).build();
    let cu = Cuda::with_config(driver.config());
    let error = cu
        .pfn_cuMemAlloc()
        .expect_err("a pointer cannot reach a closure");
    assert_eq!(error.kind().function(), Some("cuMemAlloc"));
    let text = error.to_string();
    assert!(
        text.contains(
            "CUDA_ERROR_NOT_SUPPORTED (801): a raw pointer cannot reach a stand-in driver's \
             answers; call the table's method cuMemAlloc instead"
        ),
        "{text}"
    );
    let raw = cu.raw_pointer("cuMemFree").expect("in the table");
    assert_eq!(
        raw.expect_err("refused").kind().function(),
        Some("cuMemFree")
    );
    // The methods still work.
    assert_eq!(alloc(&cu, 4).expect("faked"), 0x1000);
}

#[test]
fn a_later_fake_replaces_an_earlier_one_of_the_same_function() {
    let driver = allocating(None)
        .returns(
            function!(Cuda::cuMemAlloc),
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        )
        .build();
    let cu = Cuda::with_config(driver.config());
    let error = alloc(&cu, 1).expect_err("the later fake answers");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY.0));
}

#[test]
fn parallel_tests_with_different_fakes_do_not_see_each_other() {
    // Both threads are inside their test at once; each table sees only its own driver.
    let both = Arc::new(Barrier::new(2));
    let threads: Vec<_> = [1u64, 2]
        .into_iter()
        .map(|n| {
            let both = Arc::clone(&both);
            std::thread::spawn(move || {
                let driver: &'static FakeDriver = Fake::new()
                    .on(function!(Cuda::cuMemAlloc), move |(dptr, _)| {
                        // SAFETY: the caller passes a valid place for the pointer.
                        unsafe { *dptr = n * 0x10_000 };
                        CUresult::CUDA_SUCCESS
                    })
                    .build();
                let cu = Cuda::with_config(driver.config());
                both.wait();
                let p = alloc(&cu, n as usize).expect("faked");
                both.wait();
                let p2 = alloc(&cu, n as usize).expect("faked");
                (n, p, p2, driver.calls_to(function!(Cuda::cuMemAlloc)).len())
            })
        })
        .collect();
    for thread in threads {
        let (n, p, p2, calls) = thread.join().expect("no panic");
        assert_eq!((p, p2), (n * 0x10_000, n * 0x10_000));
        assert_eq!(calls, 2, "driver {n} saw only its own calls");
    }
}

#[test]
fn one_driver_shared_by_threads_sees_every_call() {
    let driver = allocating(None).build();
    let cu = Arc::new(Cuda::with_config(driver.config()));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let cu = Arc::clone(&cu);
            std::thread::spawn(move || alloc(&cu, 16).expect("faked"))
        })
        .collect();
    let mut got: Vec<_> = threads
        .into_iter()
        .map(|t| t.join().expect("no panic"))
        .collect();
    got.sort_unstable();
    assert_eq!(got, [0x1000, 0x1010, 0x1020, 0x1030]);
    assert_eq!(driver.calls().len(), 4);
}

#[test]
fn a_fake_may_keep_state_behind_a_mutex() {
    // Device memory as a map from address to bytes: what a test of copies would keep.
    let freed = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&freed);
    let driver = allocating(None)
        .on(function!(Cuda::cuMemFree), move |(dptr,)| {
            seen.lock().unwrap().push(dptr);
            CUresult::CUDA_SUCCESS
        })
        .build();
    let cu = Cuda::with_config(driver.config());
    let p = alloc(&cu, 8).expect("faked");
    // SAFETY: `p` came from cuMemAlloc.
    unsafe { cu.cuMemFree(p) }.expect("faked");
    assert_eq!(*freed.lock().unwrap(), [0x1000]);
}

#[test]
fn a_launch_can_be_made_to_fail() {
    let driver = Fake::new()
        .returns(
            function!(Cuda::cuLaunchKernel),
            CUresult::CUDA_ERROR_LAUNCH_FAILED,
        )
        .build();
    let cu = Cuda::with_config(driver.config());
    let error = unsafe {
        // SAFETY: the fake reads none of the arguments.
        cu.cuLaunchKernel(null(), 1, 1, 1, 32, 1, 1, 0, null(), null(), null())
    }
    .expect_err("faked to fail");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_LAUNCH_FAILED.0));
    let launches = driver.calls_to(function!(Cuda::cuLaunchKernel));
    assert_eq!(launches.len(), 1);
    // The block size, as the C function has it: the fifth argument.
    assert_eq!(launches[0].4, 32);
}

#[driver_table(cuInit, cuMemAlloc, cuCtxGetId, driver = newest)]
struct Newer;

#[driver_table(cuInit, cuMemAlloc, driver = newest)]
struct Older;

/// Every function of `T` faked through `fake`, the driver at `version`.
fn resolves_at(version: u32, fake: Fake) -> Result<(), cuda_driver_table::Errors> {
    let driver = fake.driver_version(version).build();
    let newer = Newer::with_config(driver.config());
    newer.resolve_all()
}

fn newer_fakes() -> Fake {
    Fake::new()
        .returns(function!(Newer::cuInit), CUresult::CUDA_SUCCESS)
        .returns(function!(Newer::cuMemAlloc), CUresult::CUDA_SUCCESS)
        .returns(function!(Newer::cuCtxGetId), CUresult::CUDA_SUCCESS)
}

/// A driver that says which driver is really there (its kernel module of another version, a
/// forward-compatibility libcuda on a GPU without support for it, a toolkit's stub) fails with an
/// error that says the cause and the fix, each on its own line.
#[test]
fn which_driver_is_there_is_explained_with_its_fix() {
    for (code, cause, fix) in [
        (
            CUresult::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
            "kernel module are of different versions",
            "To fix: reboot",
        ),
        (
            CUresult::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
            "forward-compatibility driver (the cuda-compat package's",
            "To fix: remove the cuda-compat folder from LD_LIBRARY_PATH",
        ),
        (
            CUresult::CUDA_ERROR_STUB_LIBRARY,
            "is a stub (a CUDA toolkit's lib64/stubs/libcuda.so",
            "To fix: install the NVIDIA driver",
        ),
    ] {
        let driver = Fake::new().returns(function!(Cuda::cuInit), code).build();
        let cu = Cuda::with_config(driver.config());
        // SAFETY: cuInit takes any flags.
        let error = unsafe { cu.cuInit(0) }.expect_err("faked to fail");
        assert_eq!(error.code(), Some(code.0));
        let text = error.to_string();
        let lines: Vec<&str> = text.lines().collect();
        let [first, because, to_fix] = lines.as_slice() else {
            panic!("three lines expected: {text}");
        };
        assert!(first.starts_with("cuInit failed: CUDA_ERROR_"), "{text}");
        assert!(because.contains(cause), "{text}");
        assert!(to_fix.starts_with(fix), "{text}");
    }
}

#[test]
fn a_driver_version_resolves_a_table_exactly_from_its_min_driver_version() {
    // cuCtxGetId is pinned at 12000, the newest ABI of the table.
    assert_eq!(Newer::MIN_DRIVER_VERSION, 12000);
    resolves_at(Newer::MIN_DRIVER_VERSION, newer_fakes()).expect("a new enough driver");
    let report =
        resolves_at(Newer::MIN_DRIVER_VERSION - 10, newer_fakes()).expect_err("one ABI is too new");
    assert_eq!(report.as_slice().len(), 1, "{report}");
    let report = resolves_at(11080, newer_fakes()).expect_err("one ABI is too new");
    let [too_old] = report.as_slice() else {
        panic!("one failure expected: {report}");
    };
    assert_eq!(
        too_old.to_string(),
        "cuCtxGetId: requested at version 12000 (CUDA 12.0), but the driver is older (CUDA \
         11.8); update the NVIDIA driver"
    );

    // A table of old functions needs the lookup itself: CUDA 11.3.
    let older = |version| {
        let driver = Fake::new()
            .returns(function!(Older::cuInit), CUresult::CUDA_SUCCESS)
            .returns(function!(Older::cuMemAlloc), CUresult::CUDA_SUCCESS)
            .driver_version(version)
            .build();
        Older::with_config(driver.config()).resolve_all()
    };
    assert_eq!(Older::MIN_DRIVER_VERSION, 11030);
    older(Older::MIN_DRIVER_VERSION).expect("a new enough driver");
    let report = older(Older::MIN_DRIVER_VERSION - 10).expect_err("no lookup before 11.3");
    let text = report.to_string();
    assert!(
        text.contains("the fake driver is CUDA 11.2, older than CUDA 11.3, whose cuGetProcAddress every lookup needs"),
        "{text}"
    );
}

#[driver_table(per_thread, cuLaunchKernel, cuMemAlloc, driver = newest)]
struct PerThread;

#[test]
fn a_per_thread_configuration_resolves_the_twin_and_calls_the_same_fake() {
    let launches = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&launches);
    // The fake is given through the legacy table's function: one fake serves both tables, which
    // have the same function at the same pin.
    let driver = Fake::new()
        .on(function!(Cuda::cuLaunchKernel), move |_| {
            counted.fetch_add(1, Ordering::Relaxed);
            CUresult::CUDA_SUCCESS
        })
        .build();
    let launch = |f: &dyn Fn() -> Result<(), cuda_driver_table::Error>| f().expect("faked");
    let per_thread = PerThread::with_config(driver.config().per_thread());
    let legacy = Cuda::with_config(driver.config());
    // SAFETY: the fake reads none of the arguments.
    launch(&|| unsafe {
        per_thread.cuLaunchKernel(null(), 1, 1, 1, 1, 1, 1, 0, null(), null(), null())
    });
    // SAFETY: as above.
    launch(&|| unsafe {
        legacy.cuLaunchKernel(null(), 1, 1, 1, 1, 1, 1, 0, null(), null(), null())
    });
    assert_eq!(launches.load(Ordering::Relaxed), 2);
    // cuMemAlloc has no per-thread twin and no fake here.
    let error = per_thread
        .resolve_all()
        .expect_err("cuMemAlloc is not faked");
    assert_eq!(error.as_slice()[0].kind().function(), Some("cuMemAlloc"));
}

#[driver_table(cuMemAlloc = 2000, driver = newest)]
struct Pinned;

#[test]
fn a_pinned_table_fakes_the_signature_of_its_pin() {
    // ABI 2000 of cuMemAlloc takes a 32-bit device pointer and size: the closure's types say so.
    let driver = Fake::new()
        .on(
            function!(Pinned::cuMemAlloc),
            |(dptr, bytesize): (*mut sys::CUdeviceptr_v1, c_uint)| {
                // SAFETY: the caller passes a valid place for the pointer.
                unsafe { *dptr = 0x20 + bytesize };
                CUresult::CUDA_SUCCESS
            },
        )
        .build();
    let pinned = Pinned::with_config(driver.config());
    let mut p = 0;
    // SAFETY: `p` is a valid place for a 32-bit device pointer.
    unsafe { pinned.cuMemAlloc(&mut p, 4) }.expect("faked");
    assert_eq!(p, 0x24);
    // A table pinned elsewhere finds no fake of its ABI, and says which there is.
    let cu = Cuda::with_config(driver.config());
    let error = alloc(&cu, 1).expect_err("no fake at ABI 3020");
    assert!(
        error
            .to_string()
            .ends_with("the fake driver fakes it at ABI 2000, not at ABI 3020 (Legacy stream); give the table's pin a fake with `Fake::on`"),
        "{error}"
    );
    // One driver may fake both pins: each table calls its own.
    let both = Fake::new()
        .returns(
            function!(Pinned::cuMemAlloc),
            CUresult::CUDA_ERROR_INVALID_VALUE,
        )
        .returns(
            function!(Cuda::cuMemAlloc),
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        )
        .build();
    let error = alloc(&Cuda::with_config(both.config()), 1).expect_err("faked to fail");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY.0));
    // SAFETY: as above.
    let error = unsafe { Pinned::with_config(both.config()).cuMemAlloc(&mut p, 4) }
        .expect_err("faked to fail");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
}

mod gpu {
    use cuda_driver_table::driver_table;

    #[driver_table(cuInit, driver = newest)]
    pub struct InModule;
}

#[test]
fn function_names_a_table_behind_a_path() {
    let path = function!(gpu::InModule::cuInit);
    let qualified = function!(<self::gpu::InModule>::cuInit);
    let raw = function!(gpu::InModule::r#cuInit);
    assert_eq!(
        (path.name(), qualified.name(), raw.name()),
        ("cuInit", "cuInit", "cuInit")
    );
    assert_eq!(format!("{path:?}"), "function!(cuInit)");
    let driver = Fake::new().returns(path, CUresult::CUDA_SUCCESS).build();
    // SAFETY: cuInit takes any flags.
    unsafe { gpu::InModule::with_config(driver.config()).cuInit(0) }.expect("faked");
}

/// Every function of the release can be faked: this table compiles with the feature (each method
/// goes through `FakeFn`), and the function with the most arguments (16) takes a closure.
#[driver_table(all, driver = newest)]
struct All;

#[test]
fn every_function_of_the_release_can_be_faked() {
    let driver = Fake::new()
        .on(function!(All::cuTensorMapEncodeIm2colWide), |args| {
            assert!(args.0.is_null());
            assert_eq!(
                args.15,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
            );
            CUresult::CUDA_SUCCESS
        })
        .build();
    let all = All::with_config(driver.config());
    // SAFETY: the fake reads no pointer.
    unsafe {
        all.cuTensorMapEncodeIm2colWide(
            null(),
            sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8,
            3,
            null(),
            cnull(),
            cnull(),
            0,
            0,
            0,
            0,
            cnull(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapIm2ColWideMode::CU_TENSOR_MAP_IM2COL_WIDE_MODE_W,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    }
    .expect("faked");
    assert_eq!(driver.calls(), ["cuTensorMapEncodeIm2colWide"]);
}

#[cfg(feature = "tracing")]
mod tracing_events {
    //! With `tracing` too: the events show the fake calls and the fake driver's resolutions.
    use cuda_driver_table_tests::events::{first_call, record};

    use super::*;

    #[test]
    fn events_show_the_fake_calls_and_resolutions() {
        let driver = allocating(Some(2)).build();
        let cu = Cuda::with_config(driver.config());
        let events = record(|| {
            alloc(&cu, 256).expect("faked");
            alloc(&cu, 512).expect_err("faked to run out of memory");
        });
        assert_eq!(events.len(), 3, "{events:#?}");
        let fields: Vec<_> = events.iter().map(|e| &e.fields).collect();
        assert_eq!(fields[0]["resolved"], "cuMemAlloc");
        assert_eq!(
            fields[0]["backend"],
            "a fake driver (cuda_driver_table::fake; fakes of cuInit, cuMemAlloc, cuMemFree)"
        );
        assert_eq!(fields[1]["function"], "cuMemAlloc");
        assert_eq!(fields[1]["bytesize"], "256");
        assert_eq!(fields[1]["result"], "CUDA_SUCCESS");
        assert_eq!(fields[2]["bytesize"], "512");
        assert_eq!(fields[2]["result"], "CUDA_ERROR_OUT_OF_MEMORY");
        assert_eq!(fields[2]["code"], "2");
    }

    #[test]
    fn an_out_value_a_fake_did_not_write_is_not_read() {
        // Under Miri: reading `dptr` here would read uninitialised memory.
        let driver = Fake::new()
            .returns(function!(Cuda::cuMemAlloc), CUresult::CUDA_SUCCESS)
            .build();
        let cu = Cuda::with_config(driver.config());
        let mut dptr = std::mem::MaybeUninit::<sys::CUdeviceptr>::uninit();
        let events = record(|| {
            // SAFETY: `dptr` is a valid place for a device pointer, uninitialised as the
            // method allows.
            unsafe { cu.cuMemAlloc(dptr.as_mut_ptr(), 256) }.expect("faked");
        });
        let call = first_call(&events, "cuMemAlloc");
        assert_eq!(call.fields["result"], "CUDA_SUCCESS");
        assert!(call.out_values().is_empty(), "{call:?}");
        assert!(driver.written_by(function!(Cuda::cuMemAlloc))[0].is_empty());
    }

    #[test]
    fn an_out_value_a_fake_wrote_is_shown() {
        let driver = allocating(None).build();
        let cu = Cuda::with_config(driver.config());
        let events = record(|| {
            alloc(&cu, 256).expect("faked");
        });
        assert_eq!(
            first_call(&events, "cuMemAlloc").fields["out.dptr"],
            "0x1000"
        );
        let written = driver.written_by(function!(Cuda::cuMemAlloc));
        assert_eq!(written[0][0].get::<u64>(), Some(0x1000));
    }

    #[driver_table(
        cuInit,
        cuCtxCreate,
        cuCtxDestroy,
        cuMemAlloc,
        cuMemFree,
        driver = 12000
    )]
    struct OnDevice;

    #[test]
    fn what_the_device_wrote_is_shown() {
        let device = cuda_driver_table::fake::Device::new();
        let cu = OnDevice::with_config(device.config());
        let (mut ctx, mut d) = (null(), 0);
        let events = record(|| {
            // SAFETY: valid places; `d` is freed once, `ctx` destroyed once.
            unsafe {
                cu.cuInit(0).expect("the device answers");
                cu.cuCtxCreate(&mut ctx, null(), 0, 0, 0)
                    .expect("the device answers");
                cu.cuMemAlloc(&mut d, 256).expect("the device answers");
                cu.cuMemFree(d).expect("freed");
                cu.cuCtxDestroy(ctx).expect("destroyed");
            }
        });
        assert_eq!(
            first_call(&events, "cuMemAlloc").fields["out.dptr"],
            format!("{d:#x}")
        );
        device.finish().expect("clean");
    }

    #[test]
    fn a_per_thread_table_resolves_the_twin_from_the_fake() {
        let driver = Fake::new()
            .returns(function!(PerThread::cuLaunchKernel), CUresult::CUDA_SUCCESS)
            .build();
        let table = PerThread::with_config(driver.config().per_thread());
        let events = record(|| {
            // SAFETY: the fake reads none of the arguments.
            unsafe { table.cuLaunchKernel(null(), 1, 1, 1, 1, 1, 1, 0, null(), null(), null()) }
                .expect("faked");
        });
        assert_eq!(events[0].fields["resolved"], "cuLaunchKernel");
        assert_eq!(events[0].fields["abi"], "7000");
        assert_eq!(events[0].fields["flag"], "PerThread");
        assert_eq!(events[1].function(), Some("cuLaunchKernel"));
        assert_eq!(events[1].fields["result"], "CUDA_SUCCESS");
    }
}
