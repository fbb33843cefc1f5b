//! `vectorAddDrv`, after NVIDIA's sample of that name (cuda-samples,
//! `Samples/0_Introduction/vectorAddDrv`): the driver API's module and kernel basics. It creates a
//! context, loads the PTX of `kernels/vectorAdd.cu` as a module, adds two vectors of 50 000 random
//! floats on the GPU and checks every sum against the CPU's (within 1e-7, as the original).
//!
//! `cargo run -p cuda-driver-table-samples --bin vectorAddDrv [-- --driver]`
//!
//! `driver = 13000`: the kernel is PTX of nvcc 13.0 (ISA 9.0), which only a CUDA 13.0 driver
//! compiles; `cuCtxCreate` is then its 12.5 ABI, with `CUctxCreateParams`, as in the original.

use crate::{random_floats, Failure};
use cuda_driver_table::{driver_table, kernel_args};
use scopeguard::guard;
use std::ptr;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuCtxCreate,
    cuCtxDestroy,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuLaunchKernel,
    driver = 13000
)]
pub struct Cuda;

/// The vectors' length, as in the original.
pub const N: usize = 50_000;
/// Threads per block of the launch.
pub const THREADS: usize = 256;

/// The sample, on device 0 through `cu`.
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Check`] when a sum differs from the
/// CPU's. Everything created is released on every path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    println!("Vector Addition (Driver API)");
    let a = random_floats(N, 1);
    let b = random_floats(N, 2);
    let mut c = vec![0f32; N];
    let bytes = N * size_of::<f32>();
    let n = N as i32;
    // SAFETY: a valid place for the device.
    let dev = unsafe {
        cu.cuInit(0)?;
        let mut dev = 0;
        cu.cuDeviceGet(&mut dev, 0)?;
        dev
    };
    // Released when `run` returns, after the buffers below: the module, then the context.
    let _ctx = own_context!(cu, dev)?;
    let (_module, [kernel]) = module!(cu, ptx!("vectorAdd"), [c"VecAdd_kernel"])?;
    // SAFETY: every out-pointer is a live local; the host buffers hold `bytes` bytes and the
    // device buffers were allocated with that size; the kernel's parameters are what
    // `VecAdd_kernel(const float *, const float *, float *, int)` takes, and the launch reads them
    // before it returns; every handle is used in the context current on this thread, between its
    // creation and its guard's release, which runs once, after its last use; the guards are
    // dropped in reverse order, the buffers before the module and the context.
    unsafe {
        let free = |p| {
            let _ = cu.cuMemFree(p);
        };
        let (mut da, mut db, mut dc) = (0, 0, 0);
        cu.cuMemAlloc(&mut da, bytes)?;
        let da = guard(da, free);
        cu.cuMemAlloc(&mut db, bytes)?;
        let db = guard(db, free);
        cu.cuMemAlloc(&mut dc, bytes)?;
        let dc = guard(dc, free);
        cu.cuMemcpyHtoD(*da, a.as_ptr().cast(), bytes)?;
        cu.cuMemcpyHtoD(*db, b.as_ptr().cast(), bytes)?;
        kernel_args![&*da, &*db, &*dc, &n].with_params(|params| {
            cu.cuLaunchKernel(
                kernel,
                N.div_ceil(THREADS) as u32,
                1,
                1,
                THREADS as u32,
                1,
                1,
                0,
                ptr::null_mut(),
                params,
                ptr::null_mut(),
            )
        })?;
        // Synchronous on the legacy default stream: waits for the kernel.
        cu.cuMemcpyDtoH(c.as_mut_ptr().cast(), *dc, bytes)?;
    }
    match (0..N).find(|&i| (c[i] - (a[i] + b[i])).abs() > 1e-7) {
        None => Ok(()),
        Some(i) => Err(Failure::Check(format!(
            "element {i}: {} + {} gave {}",
            a[i], b[i], c[i]
        ))),
    }
}
