//! `fastsum`'s real code on the fake device of `cuda-driver-table`, on a machine without a GPU:
//! the device holds the memory, the kernel is a closure doing what the PTX does, and its leak
//! check says that everything was released. Then one call at a time is made to fail in front of
//! the device (the third `cuMemAlloc`, the launch, the module load) and each test checks that
//! `fastsum` returns its own error and still releases everything. The tests run in parallel,
//! each with its own device.

use cuda_driver_table::fake::{function, Device, Fake, FakeDriver, FindingKind, Launch};
use cuda_driver_table::sys::{CUdeviceptr, CUresult};
use fastsum::{Cuda, Fastsum, FastsumError};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A device whose `weighted_sum(values, weights, out, n)` does what the PTX does: every thread
/// `i < n` of the grid adds `values[i] * weights[i]` to `*out` (an atomic add on the GPU; here
/// the threads run one after the other).
fn device() -> Device {
    let device = Device::new();
    device.kernel(
        "weighted_sum",
        |k: &mut Launch,
         (values, weights, out, n): (CUdeviceptr, CUdeviceptr, CUdeviceptr, u32)| {
            for t in k.threads() {
                let i = t.global_x();
                if i < u64::from(n) {
                    let product = k.read::<f32>(values, i)? * k.read::<f32>(weights, i)?;
                    let sum = k.read::<f32>(out, 0)? + product;
                    k.write(out, 0, sum)?;
                }
            }
            Ok(())
        },
    );
    device
}

/// A driver answering with `device`, recording the calls.
fn driver(device: &Device) -> &'static FakeDriver {
    Fake::new().device(device).build()
}

fn allocated_sizes(driver: &FakeDriver) -> Vec<usize> {
    let allocs = driver.calls_to(function!(Cuda::cuMemAlloc));
    allocs.iter().map(|&(_, bytesize)| bytesize).collect()
}

#[test]
fn the_weighted_sum_is_computed_and_everything_released() {
    let device = device();
    let driver = driver(&device);
    let cu = Cuda::with_config(driver.config());
    let fastsum = Fastsum::new(&cu, 0).expect("the fake device works");
    let values = [1.0, 2.0, 3.0, 4.0, 5.0];
    let weights = [0.5, 0.25, 2.0, 1.0, -1.0];
    let sum = fastsum
        .weighted_sum(&values, &weights)
        .expect("the fake device works");
    assert_eq!(sum, 0.5 + 0.5 + 6.0 + 4.0 - 5.0);
    // Three allocations, with their sizes: the two vectors and the result; all freed.
    assert_eq!(allocated_sizes(driver), [20, 20, 4]);
    assert_eq!(device.used_memory(), 0, "every buffer was freed");
    // A sum over more than one block.
    let values: Vec<f32> = (0..1000).map(|i| (i % 7) as f32 * 0.5).collect();
    let weights: Vec<f32> = (0..1000).map(|i| (i % 3) as f32).collect();
    let expected: f32 = values.iter().zip(&weights).map(|(v, w)| v * w).sum();
    assert_eq!(fastsum.weighted_sum(&values, &weights).unwrap(), expected);
    drop(fastsum);
    device.finish().expect("no leak, no error");
}

#[test]
fn out_of_memory_on_the_third_allocation_frees_the_first_two_and_says_so() {
    let device = device();
    let allocations = AtomicUsize::new(0);
    let driver = Fake::new()
        .device(&device)
        .inject(function!(Cuda::cuMemAlloc), move |_| {
            (allocations.fetch_add(1, Ordering::Relaxed) == 2)
                .then_some(CUresult::CUDA_ERROR_OUT_OF_MEMORY)
        })
        .build();
    let cu = Cuda::with_config(driver.config());
    let fastsum = Fastsum::new(&cu, 0).expect("the fake device works");
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
    // The two that were allocated were freed; nothing copied or launched.
    assert_eq!(driver.calls_to(function!(Cuda::cuMemFree)).len(), 2);
    assert_eq!(device.used_memory(), 0);
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
    drop(fastsum);
    device.finish().expect("no leak, no error");
}

#[test]
fn a_failed_launch_frees_every_buffer_and_returns_the_drivers_error() {
    let device = device();
    let driver = Fake::new()
        .device(&device)
        .inject(function!(Cuda::cuLaunchKernel), |_| {
            Some(CUresult::CUDA_ERROR_LAUNCH_FAILED)
        })
        .build();
    let cu = Cuda::with_config(driver.config());
    let fastsum = Fastsum::new(&cu, 0).expect("the fake device works");
    let error = fastsum
        .weighted_sum(&[1.0; 300], &[1.0; 300])
        .expect_err("the launch fails");
    let FastsumError::Driver(e) = &error else {
        panic!("expected the driver's error, got {error:?}");
    };
    assert_eq!(e.code(), Some(CUresult::CUDA_ERROR_LAUNCH_FAILED.0));
    assert!(
        error.to_string().starts_with(
            "the CUDA driver failed: cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719): An \
             exception occurred on the device while executing a kernel"
        ),
        "{error}"
    );
    // One launch, of two blocks of 256 threads for 300 elements.
    let launches = driver.calls_to(function!(Cuda::cuLaunchKernel));
    assert_eq!((launches.len(), launches[0].1, launches[0].4), (1, 2, 256));
    assert_eq!(device.used_memory(), 0);
    assert!(!driver.calls().contains(&"cuMemcpyDtoH"));
    drop(fastsum);
    device.finish().expect("no leak, no error");
}

#[test]
fn a_module_the_driver_cannot_load_releases_the_context() {
    let device = device();
    let driver = Fake::new()
        .device(&device)
        .inject(function!(Cuda::cuModuleLoadData), |_| {
            Some(CUresult::CUDA_ERROR_INVALID_PTX)
        })
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
    device.finish().expect("the context was released: no leak");
}

#[test]
fn vectors_of_different_lengths_touch_no_device() {
    let device = device();
    let driver = driver(&device);
    let cu = Cuda::with_config(driver.config());
    let fastsum = Fastsum::new(&cu, 0).expect("the fake device works");
    let before = driver.calls().len();
    let error = fastsum
        .weighted_sum(&[1.0], &[1.0, 2.0])
        .expect_err("lengths differ");
    assert_eq!(error.to_string(), "1 values but 2 weights");
    assert_eq!(driver.calls().len(), before);
    assert_eq!(fastsum.weighted_sum(&[], &[]).expect("nothing to sum"), 0.0);
    assert_eq!(driver.calls().len(), before);
    drop(fastsum);
    device.finish().expect("no leak, no error");
}

#[test]
fn no_device_is_the_drivers_error() {
    let device = device();
    let driver = driver(&device);
    let cu = Cuda::with_config(driver.config());
    let error = Fastsum::new(&cu, 1).expect_err("the fake device is the only one");
    let FastsumError::Driver(e) = &error else {
        panic!("expected the driver's error, got {error:?}");
    };
    assert_eq!(e.code(), Some(CUresult::CUDA_ERROR_INVALID_DEVICE.0));
    assert!(
        error.to_string().starts_with(
            "the CUDA driver failed: cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE (101)"
        ),
        "{error}"
    );
    // Nothing was retained, so nothing is released.
    assert!(driver
        .calls_to(function!(Cuda::cuDevicePrimaryCtxRelease))
        .is_empty());
    if let Err(report) = device.finish() {
        assert_eq!(report.count(FindingKind::Leak), 0, "{report}");
    }
}
