//! `fastsum`'s real code against the fake driver, on a machine without a GPU: a fake GPU keeps
//! device memory in a map and runs the kernel on the CPU, so the result is computed; then one
//! function at a time is made to fail (the third `cuMemAlloc`, the launch, the module load) and
//! each test checks that `fastsum` returns its own error and frees everything it allocated. The
//! tests run in parallel, each with its own driver.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cuda_driver_table::fake::{function, Fake};
use cuda_driver_table::sys::{CUdeviceptr, CUresult};
use fastsum::{Cuda, Fastsum, FastsumError};

/// Device memory: the bytes of each allocation, by its address.
type Memory = Arc<Mutex<BTreeMap<CUdeviceptr, Vec<u8>>>>;

/// The handles the fake GPU hands out.
const CONTEXT: usize = 0xc0;
const MODULE: usize = 0x30;
const KERNEL: usize = 0xf0;

fn handle<T>(address: usize) -> *mut T {
    std::ptr::without_provenance_mut(address)
}

/// A working fake GPU over `memory`: allocations at 0x1000, 0x2000, ... (one 4 KiB page apart at
/// least), copies and the kernel on the CPU, and `cuMemAlloc` failing its `fail_alloc`th call
/// (from 1) with `CUDA_ERROR_OUT_OF_MEMORY`. Each test changes what it tests with a later fake.
fn gpu(memory: &Memory, fail_alloc: Option<usize>) -> Fake {
    let allocs = AtomicUsize::new(0);
    let next = AtomicU64::new(0x1000);
    let (alloc_mem, free_mem, htod_mem, dtoh_mem, memset_mem, launch_mem) = (
        Arc::clone(memory),
        Arc::clone(memory),
        Arc::clone(memory),
        Arc::clone(memory),
        Arc::clone(memory),
        Arc::clone(memory),
    );
    Fake::new()
        .returns(function!(Cuda::cuInit), CUresult::CUDA_SUCCESS)
        .on(function!(Cuda::cuDeviceGet), |(device, ordinal)| {
            if ordinal != 0 {
                return CUresult::CUDA_ERROR_INVALID_DEVICE;
            }
            // SAFETY: the caller passes a valid place (cuDeviceGet's contract).
            unsafe { *device = 0 };
            CUresult::CUDA_SUCCESS
        })
        .on(function!(Cuda::cuDevicePrimaryCtxRetain), |(context, _)| {
            // SAFETY: as above.
            unsafe { *context = handle(CONTEXT) };
            CUresult::CUDA_SUCCESS
        })
        .returns(
            function!(Cuda::cuDevicePrimaryCtxRelease),
            CUresult::CUDA_SUCCESS,
        )
        .returns(function!(Cuda::cuCtxSetCurrent), CUresult::CUDA_SUCCESS)
        .returns(function!(Cuda::cuStreamSynchronize), CUresult::CUDA_SUCCESS)
        .on(function!(Cuda::cuModuleLoadData), |(module, _)| {
            // SAFETY: as above.
            unsafe { *module = handle(MODULE) };
            CUresult::CUDA_SUCCESS
        })
        .returns(function!(Cuda::cuModuleUnload), CUresult::CUDA_SUCCESS)
        .on(function!(Cuda::cuModuleGetFunction), |(kernel, _, _)| {
            // SAFETY: as above.
            unsafe { *kernel = handle(KERNEL) };
            CUresult::CUDA_SUCCESS
        })
        .on(function!(Cuda::cuMemAlloc), move |(dptr, bytesize)| {
            if Some(allocs.fetch_add(1, Ordering::Relaxed) + 1) == fail_alloc {
                return CUresult::CUDA_ERROR_OUT_OF_MEMORY;
            }
            let address =
                next.fetch_add(bytesize.next_multiple_of(0x1000) as u64, Ordering::Relaxed);
            alloc_mem.lock().unwrap().insert(address, vec![0; bytesize]);
            // SAFETY: as above.
            unsafe { *dptr = address };
            CUresult::CUDA_SUCCESS
        })
        .on(function!(Cuda::cuMemFree), move |(dptr,)| {
            match free_mem.lock().unwrap().remove(&dptr) {
                Some(_) => CUresult::CUDA_SUCCESS,
                // Not allocated, or freed twice.
                None => CUresult::CUDA_ERROR_INVALID_VALUE,
            }
        })
        .on(
            function!(Cuda::cuMemcpyHtoD),
            move |(device, host, bytes)| {
                let mut memory = htod_mem.lock().unwrap();
                let Some(buffer) = memory.get_mut(&device).filter(|b| b.len() >= bytes) else {
                    return CUresult::CUDA_ERROR_INVALID_VALUE;
                };
                // SAFETY: the caller passes `bytes` readable bytes at `host` (cuMemcpyHtoD's contract).
                let host = unsafe { std::slice::from_raw_parts(host.cast::<u8>(), bytes) };
                buffer[..bytes].copy_from_slice(host);
                CUresult::CUDA_SUCCESS
            },
        )
        .on(
            function!(Cuda::cuMemcpyDtoH),
            move |(host, device, bytes)| {
                let memory = dtoh_mem.lock().unwrap();
                let Some(buffer) = memory.get(&device).filter(|b| b.len() >= bytes) else {
                    return CUresult::CUDA_ERROR_INVALID_VALUE;
                };
                // SAFETY: the caller passes `bytes` writable bytes at `host` (cuMemcpyDtoH's contract).
                unsafe { std::ptr::copy_nonoverlapping(buffer.as_ptr(), host.cast::<u8>(), bytes) };
                CUresult::CUDA_SUCCESS
            },
        )
        .on(
            function!(Cuda::cuMemsetD32),
            move |(device, value, count)| {
                let mut memory = memset_mem.lock().unwrap();
                let Some(buffer) = memory.get_mut(&device).filter(|b| b.len() >= count * 4) else {
                    return CUresult::CUDA_ERROR_INVALID_VALUE;
                };
                for word in buffer[..count * 4].chunks_exact_mut(4) {
                    word.copy_from_slice(&value.to_ne_bytes());
                }
                CUresult::CUDA_SUCCESS
            },
        )
        .on(function!(Cuda::cuLaunchKernel), move |launch| {
            let (kernel, grid, block, params) = (launch.0, launch.1, launch.4, launch.9);
            if kernel != handle(KERNEL) {
                return CUresult::CUDA_ERROR_INVALID_HANDLE;
            }
            // SAFETY: a launch of this kernel passes its four parameters, as the PTX entry
            // declares them: three device pointers and a u32, each behind a pointer.
            let (values, weights, out, n) = unsafe {
                let param = |i: usize| *params.add(i);
                (
                    *param(0).cast::<CUdeviceptr>(),
                    *param(1).cast::<CUdeviceptr>(),
                    *param(2).cast::<CUdeviceptr>(),
                    *param(3).cast::<u32>() as usize,
                )
            };
            if (grid as usize) * (block as usize) < n {
                return CUresult::CUDA_ERROR_INVALID_VALUE;
            }
            let mut memory = launch_mem.lock().unwrap();
            let floats = |address| -> Option<Vec<f32>> {
                let bytes = memory.get(&address)?;
                let words = bytes.get(..n * 4)?.chunks_exact(4);
                Some(
                    words
                        .map(|w| f32::from_ne_bytes(w.try_into().unwrap()))
                        .collect(),
                )
            };
            let (Some(values), Some(weights)) = (floats(values), floats(weights)) else {
                return CUresult::CUDA_ERROR_ILLEGAL_ADDRESS;
            };
            let sum: f32 = values.iter().zip(&weights).map(|(v, w)| v * w).sum();
            let Some(out) = memory.get_mut(&out).and_then(|b| b.get_mut(..4)) else {
                return CUresult::CUDA_ERROR_ILLEGAL_ADDRESS;
            };
            let before = f32::from_ne_bytes(out[..].try_into().unwrap());
            out.copy_from_slice(&(before + sum).to_ne_bytes());
            CUresult::CUDA_SUCCESS
        })
}

fn allocated_sizes(driver: &cuda_driver_table::fake::FakeDriver) -> Vec<usize> {
    let allocs = driver.calls_to(function!(Cuda::cuMemAlloc));
    allocs.iter().map(|&(_, bytesize)| bytesize).collect()
}

fn freed(driver: &cuda_driver_table::fake::FakeDriver) -> Vec<CUdeviceptr> {
    let frees = driver.calls_to(function!(Cuda::cuMemFree));
    frees.iter().map(|&(dptr,)| dptr).collect()
}

#[test]
fn the_weighted_sum_is_computed_and_every_buffer_freed() {
    let memory = Memory::default();
    let driver = gpu(&memory, None).build();
    let cu = Cuda::with_config(driver.config());
    let fastsum = Fastsum::new(&cu, 0).expect("the fake GPU works");
    let values = [1.0, 2.0, 3.0, 4.0, 5.0];
    let weights = [0.5, 0.25, 2.0, 1.0, -1.0];
    let sum = fastsum
        .weighted_sum(&values, &weights)
        .expect("the fake GPU works");
    assert_eq!(sum, 0.5 + 0.5 + 6.0 + 4.0 - 5.0);
    // Three allocations, with their sizes: the two vectors and the result.
    assert_eq!(allocated_sizes(driver), [20, 20, 4]);
    assert_eq!(freed(driver), [0x3000, 0x2000, 0x1000]);
    assert!(memory.lock().unwrap().is_empty(), "every buffer was freed");
    drop(fastsum);
    assert_eq!(
        driver.calls_to(function!(Cuda::cuModuleUnload)),
        [(handle(MODULE),)]
    );
    assert_eq!(
        driver.calls_to(function!(Cuda::cuDevicePrimaryCtxRelease)),
        [(0,)]
    );
}

#[test]
fn out_of_memory_on_the_third_allocation_frees_the_first_two_and_says_so() {
    let memory = Memory::default();
    let driver = gpu(&memory, Some(3)).build();
    let cu = Cuda::with_config(driver.config());
    let fastsum = Fastsum::new(&cu, 0).expect("the fake GPU works");
    let error = fastsum
        .weighted_sum(&[1.0; 1000], &[2.0; 1000])
        .expect_err("the third allocation fails");
    assert!(
        matches!(error, FastsumError::OutOfMemory { bytes: 4 }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the GPU is out of memory (allocating 4 bytes)"
    );
    assert_eq!(allocated_sizes(driver), [4000, 4000, 4]);
    // The two that were allocated, freed once each; nothing copied or launched.
    assert_eq!(freed(driver), [0x2000, 0x1000]);
    assert!(memory.lock().unwrap().is_empty());
    let calls = driver.calls();
    assert!(
        !calls.contains(&"cuMemcpyHtoD") && !calls.contains(&"cuLaunchKernel"),
        "{calls:?}"
    );
    // The next call finds memory again.
    assert_eq!(
        fastsum.weighted_sum(&[3.0], &[2.0]).expect("memory again"),
        6.0
    );
}

#[test]
fn a_failed_launch_frees_every_buffer_and_returns_the_drivers_error() {
    let memory = Memory::default();
    let driver = gpu(&memory, None)
        .returns(
            function!(Cuda::cuLaunchKernel),
            CUresult::CUDA_ERROR_LAUNCH_FAILED,
        )
        .build();
    let cu = Cuda::with_config(driver.config());
    let fastsum = Fastsum::new(&cu, 0).expect("the fake GPU works");
    let error = fastsum
        .weighted_sum(&[1.0; 300], &[1.0; 300])
        .expect_err("the launch fails");
    let FastsumError::Driver(e) = &error else {
        panic!("expected the driver's error, got {error:?}");
    };
    assert_eq!(e.code(), Some(CUresult::CUDA_ERROR_LAUNCH_FAILED.0));
    assert_eq!(
        error.to_string(),
        "the CUDA driver failed: cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719)"
    );
    // One launch, of two blocks of 256 threads for 300 elements.
    let launches = driver.calls_to(function!(Cuda::cuLaunchKernel));
    assert_eq!((launches.len(), launches[0].1, launches[0].4), (1, 2, 256));
    assert_eq!(freed(driver).len(), 3);
    assert!(memory.lock().unwrap().is_empty());
    assert!(!driver.calls().contains(&"cuMemcpyDtoH"));
}

#[test]
fn a_module_the_driver_cannot_load_releases_the_context() {
    let memory = Memory::default();
    let driver = gpu(&memory, None)
        .returns(
            function!(Cuda::cuModuleLoadData),
            CUresult::CUDA_ERROR_INVALID_PTX,
        )
        .build();
    let cu = Cuda::with_config(driver.config());
    let error = Fastsum::new(&cu, 0).expect_err("the module does not load");
    assert!(
        matches!(&error, FastsumError::Driver(e) if e.code() == Some(CUresult::CUDA_ERROR_INVALID_PTX.0)),
        "{error:?}"
    );
    assert_eq!(
        driver.calls_to(function!(Cuda::cuDevicePrimaryCtxRelease)),
        [(0,)]
    );
    assert!(driver.calls_to(function!(Cuda::cuModuleUnload)).is_empty());
}

#[test]
fn vectors_of_different_lengths_touch_no_device() {
    let memory = Memory::default();
    let driver = gpu(&memory, None).build();
    let cu = Cuda::with_config(driver.config());
    let fastsum = Fastsum::new(&cu, 0).expect("the fake GPU works");
    let before = driver.calls().len();
    let error = fastsum
        .weighted_sum(&[1.0], &[1.0, 2.0])
        .expect_err("lengths differ");
    assert_eq!(error.to_string(), "1 values but 2 weights");
    assert_eq!(driver.calls().len(), before);
    assert_eq!(fastsum.weighted_sum(&[], &[]).expect("nothing to sum"), 0.0);
    assert_eq!(driver.calls().len(), before);
}

#[test]
fn no_device_is_the_drivers_error() {
    let memory = Memory::default();
    let driver = gpu(&memory, None).build();
    let cu = Cuda::with_config(driver.config());
    let error = Fastsum::new(&cu, 1).expect_err("the fake GPU has one device");
    assert_eq!(
        error.to_string(),
        "the CUDA driver failed: cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE (101)"
    );
    // Nothing was retained, so nothing is released.
    assert!(driver
        .calls_to(function!(Cuda::cuDevicePrimaryCtxRelease))
        .is_empty());
}
