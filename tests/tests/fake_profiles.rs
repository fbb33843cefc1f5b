//! Platform profiles of the fake device (`--features fake`): for each named profile, a table
//! that resolves a function the platform lacks gets the driver's error, and an application's
//! fallback runs (a pool-less device falls back to `cuMemAlloc`, a table pinned to the ABI the
//! Jetson's driver has resolves); a profile built from parts; the exports the named profiles
//! lack checked against the bindings' manifest; pinned memory and host registration on a Grace
//! host's 64 KiB pages. Miri runs this file (pinned memory is real host memory).
#![cfg(feature = "fake")]

use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

use cuda_driver_table::fake::{function, Device, Fake, FindingKind, Profile};
use cuda_driver_table::sys::{
    CUcontext, CUdevice_attribute as A, CUdeviceptr, CUmemoryPool, CUresult, CUstream,
};
use cuda_driver_table::{driver_table, Error, ErrorKind};

#[driver_table(
    cuInit,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuDriverGetVersion,
    cuDeviceGetAttribute,
    cuDeviceGetMemPool,
    cuMemAlloc,
    cuMemAllocAsync,
    cuMemFree,
    cuMemFreeAsync,
    cuMemAllocHost,
    cuMemFreeHost,
    cuMemHostRegister,
    cuMemHostUnregister,
    cuStreamSynchronize,
    driver = newest
)]
struct Cuda;

/// The same code's table with `cuCtxGetDevice` at its newest ABI (13000, `cuCtxGetDevice_v2`),
/// as a program built against CUDA 13's headers asks for it.
#[driver_table(cuInit, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxSetCurrent,
    cuCtxGetDevice_v2, driver = newest)]
struct Cuda13;

/// The fallback: `cuCtxGetDevice` pinned to the ABI every driver has (2000, `cuCtxGetDevice`).
#[driver_table(cuInit, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxSetCurrent,
    cuCtxGetDevice = 2000, driver = newest)]
struct CudaPinned;

/// Checkpointing, which only the Linux driver has.
#[driver_table(cuInit, cuCheckpointProcessLock, driver = newest)]
struct Checkpoint;

type Result<T = (), E = Error> = std::result::Result<T, E>;
/// A test's: a driver's error or the device's report.
type Checked = std::result::Result<(), Box<dyn std::error::Error>>;

/// `cuInit` and the primary context, current on this thread.
fn start(cu: &Cuda) -> Result<CUcontext> {
    let mut ctx = null_mut();
    // SAFETY: `ctx` is a valid place for a context.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDevicePrimaryCtxRetain(&mut ctx, 0)?;
        cu.cuCtxSetCurrent(ctx)?;
    }
    Ok(ctx)
}

fn stop(cu: &Cuda) -> Result {
    // SAFETY: device 0 is the fake's only device.
    unsafe { cu.cuDevicePrimaryCtxRelease(0) }
}

fn attribute(cu: &Cuda, attribute: A) -> Result<c_int> {
    let mut value = -1;
    // SAFETY: `value` is a valid place for an `int`.
    unsafe { cu.cuDeviceGetAttribute(&mut value, attribute, 0)? };
    Ok(value)
}

fn driver_version(cu: &Cuda) -> Result<c_int> {
    let mut version = 0;
    // SAFETY: `version` is a valid place for an `int`.
    unsafe { cu.cuDriverGetVersion(&mut version)? };
    Ok(version)
}

/// The code under test: allocates `bytes` for work on `stream`, stream-ordered where the
/// device has memory pools, with `cuMemAlloc` where it has none (as cuda.core does for TCC
/// devices). Returns the pointer and whether it came from the pool.
fn alloc_for_stream(cu: &Cuda, stream: CUstream, bytes: usize) -> Result<(CUdeviceptr, bool)> {
    let pools = attribute(cu, A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? != 0;
    let mut d = 0;
    // SAFETY: `d` is a valid place for a device pointer; the stream is the legacy default one.
    unsafe {
        if pools {
            cu.cuMemAllocAsync(&mut d, bytes, stream)?;
        } else {
            cu.cuMemAlloc(&mut d, bytes)?;
        }
    }
    Ok((d, pools))
}

/// Frees what [`alloc_for_stream`] allocated, the way it was allocated.
fn free_for_stream(cu: &Cuda, stream: CUstream, (d, pooled): (CUdeviceptr, bool)) -> Result {
    // SAFETY: `d` came from the allocation `pooled` says; the stream is the legacy default one.
    unsafe {
        if pooled {
            cu.cuMemFreeAsync(d, stream)?;
            cu.cuStreamSynchronize(stream)
        } else {
            cu.cuMemFree(d)
        }
    }
}

#[test]
fn the_fallback_to_cu_mem_alloc_runs_on_devices_without_memory_pools() -> Checked {
    let stream: CUstream = null_mut();
    for (profile, pooled) in [
        (None, true),
        (Some(Profile::windows_tcc()), false),
        (Some(Profile::vgpu_without_pools()), false),
    ] {
        let mut device = Device::new();
        if let Some(profile) = profile.clone() {
            device = device.with_profile(profile);
        }
        let cu = Cuda::with_config(device.config());
        start(&cu)?;
        let allocation = alloc_for_stream(&cu, stream, 256)?;
        assert_eq!(allocation.1, pooled, "{profile:?}");
        assert_eq!(device.used_memory(), 256);
        free_for_stream(&cu, stream, allocation)?;
        stop(&cu)?;
        device.finish()?;
    }
    Ok(())
}

#[test]
fn without_memory_pools_the_stream_ordered_allocator_is_not_supported() -> Checked {
    for profile in [Profile::windows_tcc(), Profile::vgpu_without_pools()] {
        let device = Device::new().with_profile(profile.clone());
        let cu = Cuda::with_config(device.config());
        start(&cu)?;
        assert_eq!(
            attribute(&cu, A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)?,
            0
        );
        let (mut pool, mut d): (CUmemoryPool, CUdeviceptr) = (null_mut(), 0);
        // SAFETY: each out-value is a valid place; the stream is the legacy default one.
        let (get_pool, alloc) = unsafe {
            (
                cu.cuDeviceGetMemPool(&mut pool, 0).unwrap_err(),
                cu.cuMemAllocAsync(&mut d, 64, null_mut()).unwrap_err(),
            )
        };
        for error in [&get_pool, &alloc] {
            assert_eq!(
                error.code(),
                Some(CUresult::CUDA_ERROR_NOT_SUPPORTED.0),
                "{error}"
            );
        }
        let text = alloc.to_string();
        let said = format!(
            "cuMemAllocAsync (call 6) needs stream-ordered memory pools, and the device ({}) \
             has none (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED is 0): where it is 0, \
             allocate with cuMemAlloc",
            profile.name()
        );
        assert!(text.contains(&said), "{text}");
        assert!(pool.is_null() && d == 0, "nothing was written");
        assert_eq!(device.used_memory(), 0);
        stop(&cu)?;
        // A call that failed is not a finding: the code asked, the device said no.
        device.finish()?;
    }
    // The TCC profile says it is one.
    let device = Device::new().with_profile(Profile::windows_tcc());
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    assert_eq!(attribute(&cu, A::CU_DEVICE_ATTRIBUTE_TCC_DRIVER)?, 1);
    stop(&cu)?;
    device.finish()?;
    Ok(())
}

#[test]
fn a_device_with_pools_hands_out_its_one_pool() -> Checked {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (mut first, mut second): (CUmemoryPool, CUmemoryPool) = (null_mut(), null_mut());
    // SAFETY: each is a valid place for a pool handle.
    unsafe {
        cu.cuDeviceGetMemPool(&mut first, 0)?;
        cu.cuDeviceGetMemPool(&mut second, 0)?;
    }
    assert!(!first.is_null());
    assert_eq!(first, second);
    stop(&cu)?;
    device.finish()?;
    Ok(())
}

#[test]
fn on_the_jetson_cu_ctx_get_device_v2_is_too_new_and_the_abi_2000_pin_runs() -> Checked {
    let device = Device::new().with_profile(Profile::jetson_orin_jetpack6());
    let config = device.config();

    // Built against CUDA 13: the driver is 12.6, so `resolve_all` names the function.
    let cu13 = Cuda13::with_config(config);
    let report = cu13
        .resolve_all()
        .expect_err("the driver is older than ABI 13000");
    let [error] = report.as_slice() else {
        panic!("one function fails: {report}");
    };
    assert_eq!(
        error.kind(),
        &ErrorKind::DriverTooOld {
            function: "cuCtxGetDevice",
            requested: 13000,
            driver: Some(12060),
        }
    );
    assert!(
        error
            .to_string()
            .contains("pin an older ABI of cuCtxGetDevice"),
        "{error}"
    );

    // The fallback: pinned to ABI 2000, the same code runs.
    let cu = CudaPinned::with_config(config);
    cu.resolve_all()?;
    let (mut ctx, mut dev) = (null_mut(), -1);
    // SAFETY: each out-value is a valid place.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDevicePrimaryCtxRetain(&mut ctx, 0)?;
        cu.cuCtxSetCurrent(ctx)?;
        cu.cuCtxGetDevice(&mut dev)?;
        cu.cuDevicePrimaryCtxRelease(0)?;
    }
    assert_eq!(dev, 0);
    device.finish()?;
    Ok(())
}

#[test]
fn the_jetson_answers_its_driver_version_and_attributes() -> Checked {
    let device = Device::new().with_profile(Profile::jetson_orin_jetpack6());
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    assert_eq!(driver_version(&cu)?, 12060);
    assert_eq!(attribute(&cu, A::CU_DEVICE_ATTRIBUTE_INTEGRATED)?, 1);
    assert_eq!(
        attribute(&cu, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        8
    );
    assert_eq!(
        attribute(&cu, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        7
    );
    assert_eq!(
        attribute(&cu, A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        16
    );
    // What the profile does not set is the fake's own.
    assert_eq!(attribute(&cu, A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?, 32);
    stop(&cu)?;
    device.finish()?;

    // The default device is a driver of the bindings' release, and a discrete GPU.
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    assert_eq!(
        u32::try_from(driver_version(&cu)?).ok(),
        Some(cuda_driver_table::sys::RELEASE)
    );
    assert_eq!(attribute(&cu, A::CU_DEVICE_ATTRIBUTE_INTEGRATED)?, 0);
    stop(&cu)?;
    device.finish()?;
    Ok(())
}

/// A Windows driver: a table with the checkpoint API gets symbol not found, even where a test
/// fakes the function; the code's fallback (checkpointing off) runs.
#[test]
fn the_windows_driver_has_no_checkpoint_api() -> Checked {
    /// The code under test: locks the process for a checkpoint where the driver can.
    fn checkpointing(cu: &Checkpoint) -> Result<bool> {
        // SAFETY: no arguments to uphold.
        unsafe { cu.cuInit(0)? };
        match cu.resolve_all() {
            Ok(()) => {
                // SAFETY: a process id and a null argument block (the C contract allows it).
                unsafe { cu.cuCheckpointProcessLock(std::process::id() as c_int, null_mut())? };
                Ok(true)
            }
            Err(report) => {
                let missing = report.as_slice().iter().all(|e| {
                    matches!(e.kind(), ErrorKind::SymbolNotFound { function, .. }
                        if function.starts_with("cuCheckpoint"))
                });
                assert!(missing, "only the checkpoint API is missing: {report}");
                Ok(false)
            }
        }
    }
    let fake = |device: &Device| {
        Fake::new()
            .device(device)
            .returns(
                function!(Checkpoint::cuCheckpointProcessLock),
                CUresult::CUDA_SUCCESS,
            )
            .build()
    };

    // On Linux (the default device), with the function faked, the code checkpoints.
    let linux = Device::new();
    assert!(checkpointing(&Checkpoint::with_config(
        fake(&linux).config()
    ))?);
    linux.finish()?;

    // On Windows, the same fake is never reached: the driver has no such symbol.
    let windows = Device::new().with_profile(Profile::windows_driver_13_1());
    let cu = Checkpoint::with_config(fake(&windows).config());
    assert!(!checkpointing(&cu)?);
    // SAFETY: as above.
    let error = unsafe { cu.cuCheckpointProcessLock(1, null_mut()) }.unwrap_err();
    assert_eq!(
        error.kind(),
        &ErrorKind::SymbolNotFound {
            function: "cuCheckpointProcessLock",
            version: 12080,
        }
    );
    windows.finish()?;
    Ok(())
}

#[test]
fn a_test_builds_its_own_profile_from_parts() -> Checked {
    let profile = Profile::new("an old pool-less driver without per-thread async allocation")
        .driver_version(12020)
        .lacks("cuMemAllocAsync_ptsz")
        .memory_pools(false)
        .virtual_memory(true)
        .compute_capability(7, 5)
        .multiprocessors(40)
        .attribute(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE, 64);
    let device = Device::new().with_profile(profile);
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    assert_eq!(driver_version(&cu)?, 12020);
    for (attr, value) in [
        (A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0),
        (
            A::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
            1,
        ),
        (A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 7),
        (A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 5),
        (A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 40),
        (A::CU_DEVICE_ATTRIBUTE_WARP_SIZE, 64),
    ] {
        assert_eq!(attribute(&cu, attr)?, value, "{attr:?}");
    }
    stop(&cu)?;

    // The lacked export is exact: the per-thread twin fails to resolve, the legacy ABI
    // resolves (and answers as a pool-less device does).
    let per_thread = Cuda::with_config(device.config().per_thread());
    let mut d = 0;
    // SAFETY: `d` is a valid place for a device pointer.
    let error = unsafe { per_thread.cuMemAllocAsync(&mut d, 64, null_mut()) }.unwrap_err();
    assert_eq!(
        error.kind(),
        &ErrorKind::SymbolNotFound {
            function: "cuMemAllocAsync",
            version: 11020,
        }
    );
    start(&cu)?;
    // SAFETY: as above.
    let error = unsafe { cu.cuMemAllocAsync(&mut d, 64, null_mut()) }.unwrap_err();
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_NOT_SUPPORTED.0));
    stop(&cu)?;
    device.finish()?;
    Ok(())
}

/// Whether the releases a line of the ABI list names (`11070-13050`, `12080,13000-13050`)
/// include `release`.
fn has(releases: &str, release: u32) -> bool {
    releases.split(',').any(|run| {
        let (from, to) = run.split_once('-').unwrap_or((run, run));
        matches!((from.parse::<u32>(), to.parse::<u32>()), (Ok(f), Ok(t)) if f <= release && release <= t)
    })
}

/// The exports the named profiles lack are exports of `cuda.h`: each is the export of some
/// ABI of the newest release in the ABI list (a misspelt one would lack nothing).
#[test]
fn the_named_profiles_lack_exports_that_exist() {
    let list = include_str!("../../core/src/generated/abis.rs");
    let exports: Vec<&str> = list
        .lines()
        .filter(|line| {
            line.split(' ')
                .next()
                .is_some_and(|releases| has(releases, 13050))
        })
        .flat_map(|line| line.split(' ').skip(3))
        .flat_map(|field| field.split('/'))
        .filter_map(|abi| abi.split_once(':').map(|(_, export)| export))
        .collect();
    assert!(exports.contains(&"cuCtxGetDevice_v2"), "the manifest reads");
    for profile in [
        Profile::jetson_orin_jetpack6(),
        Profile::windows_driver_13_1(),
        Profile::windows_tcc(),
        Profile::vgpu_without_pools(),
        Profile::grace(),
    ] {
        for symbol in profile.lacking() {
            assert!(exports.contains(&symbol), "{profile}: {symbol}");
        }
    }
    let windows = Profile::windows_driver_13_1();
    let windows: Vec<&str> = windows.lacking().collect();
    assert!(windows.contains(&"cuDevSmResourceSplit"));
    assert_eq!(
        windows
            .iter()
            .filter(|s| s.starts_with("cuCheckpoint"))
            .count(),
        6
    );
}

#[test]
fn a_grace_host_pins_whole_64_kib_pages_and_registers_host_memory_as_the_driver_does() -> Checked {
    let device = Device::new().with_profile(Profile::grace());
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let mut pinned: *mut c_void = null_mut();
    // SAFETY: `pinned` is a valid place for a host pointer.
    unsafe { cu.cuMemAllocHost(&mut pinned, 100)? };
    assert_eq!(pinned as usize % (64 << 10), 0, "{pinned:p}");

    // Pinned memory is registered already.
    // SAFETY: `pinned` is 100 bytes of host memory.
    let error = unsafe { cu.cuMemHostRegister(pinned, 100, 0) }.unwrap_err();
    assert_eq!(
        error.code(),
        Some(CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED.0)
    );

    // A buffer of the program's at 4 KiB past a 64 KiB boundary: the driver asks no alignment
    // of a registration, so it registers; a range overlapping it does not, and only its start
    // unregisters it.
    let mut buffer = vec![0u8; 80 << 10];
    let base = buffer.as_ptr() as usize;
    let offset = base.next_multiple_of(64 << 10) - base + (4 << 10);
    // SAFETY: `offset + 12 KiB` is at most `64 KiB + 16 KiB`, inside `buffer`.
    let p = unsafe { buffer.as_mut_ptr().add(offset) }.cast::<c_void>();
    assert_eq!(p as usize % (4 << 10), 0);
    assert_ne!(p as usize % (64 << 10), 0);
    // SAFETY: each range is inside `buffer`, which outlives the registrations.
    unsafe {
        cu.cuMemHostRegister(p, 4096, 0)?;
        let error = cu.cuMemHostRegister(p.byte_add(100), 100, 0).unwrap_err();
        assert_eq!(
            error.code(),
            Some(CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED.0)
        );
        // The next bytes, on the same 64 KiB page, register on their own.
        cu.cuMemHostRegister(p.byte_add(4096), 4096, 0)?;
        let error = cu.cuMemHostUnregister(p.byte_add(8)).unwrap_err();
        assert_eq!(
            error.code(),
            Some(CUresult::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED.0)
        );
        cu.cuMemHostUnregister(p)?;
        cu.cuMemHostUnregister(p.byte_add(4096))?;
        cu.cuMemFreeHost(pinned)?;
    }
    stop(&cu)?;
    device.finish()?;
    Ok(())
}

#[test]
fn a_device_pointer_registered_as_host_memory_and_a_page_size_that_is_none_are_findings() -> Checked
{
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let mut d = 0;
    // SAFETY: `d` is a valid place; the registration names device memory, which the device
    // refuses before touching it.
    let error = unsafe {
        cu.cuMemAlloc(&mut d, 64)?;
        cu.cuMemHostRegister(d as *mut c_void, 64, 0).unwrap_err()
    };
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    assert!(
        error.to_string().contains("which is a device pointer"),
        "{error}"
    );
    // SAFETY: `d` was allocated above.
    unsafe { cu.cuMemFree(d)? };
    stop(&cu)?;
    let report = device.finish().unwrap_err();
    assert_eq!(report.findings().len(), 1, "{report}");
    assert_eq!(report.findings()[0].kind(), FindingKind::InvalidPointer);

    let device =
        Device::new().with_profile(Profile::new("a host of 3-byte pages").host_page_size(3));
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let mut p = null_mut();
    // SAFETY: `p` is a valid place for a host pointer.
    let error = unsafe { cu.cuMemAllocHost(&mut p, 64) }.unwrap_err();
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    let text = error.to_string();
    assert!(
        text.contains(
            "the device's profile (a host of 3-byte pages) gives 3 bytes, which is no page size"
        ),
        "{text}"
    );
    assert!(p.is_null());
    stop(&cu)?;
    let report = device.finish().unwrap_err();
    assert_eq!(report.findings().len(), 1, "{report}");
    assert_eq!(report.findings()[0].kind(), FindingKind::Misuse);
    Ok(())
}
