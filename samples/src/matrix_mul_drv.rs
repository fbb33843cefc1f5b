//! `matrixMulDrv`, after NVIDIA's sample of that name (cuda-samples,
//! `Samples/0_Introduction/matrixMulDrv`): a tiled matrix multiply through the driver API. It
//! picks the largest tile (32, 16 or 8) whose block the occupancy calculator allows, multiplies a
//! (6 × tile) × (4 × tile) matrix by a (4 × tile) × (4 × tile) one, times the kernel with events,
//! prints the time and GFLOP/s, and checks every element against a CPU product (within 1e-5, as
//! the original).
//!
//! `cargo run -p cuda-driver-table-samples --bin matrixMulDrv [-- --driver]`
//!
//! `driver = 13000`: the kernel is PTX of nvcc 13.0 (ISA 9.0), which only a CUDA 13.0 driver
//! compiles.

use crate::Failure;
use cuda_driver_table::{driver_table, kernel_args, sys};
use scopeguard::guard;
use std::ffi::{c_char, CStr};
use std::ptr;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuDeviceGetAttribute,
    cuDeviceGetName,
    cuDeviceTotalMem,
    cuCtxCreate,
    cuCtxDestroy,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuOccupancyMaxPotentialBlockSize,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuEventCreate,
    cuEventRecord,
    cuEventSynchronize,
    cuEventElapsedTime,
    cuEventDestroy,
    cuLaunchKernel,
    driver = 13000
)]
pub struct Cuda;

/// The kernels of `kernels/matrixMul.cu`, largest tile first, as the original tries them.
pub const KERNELS: [(usize, &CStr); 3] = [
    (32, c"matrixMul_bs32_64bit"),
    (16, c"matrixMul_bs16_64bit"),
    (8, c"matrixMul_bs8_64bit"),
];

/// Row-major `rows × cols` matrix whose element `(i, j)` is `f(i, j)`.
fn matrix(rows: usize, cols: usize, f: impl Fn(usize, usize) -> f32) -> Vec<f32> {
    (0..rows * cols).map(|e| f(e / cols, e % cols)).collect()
}

/// The sample, on device 0 through `cu`.
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Waived`] when no tile fits the device,
/// [`Failure::Check`] when an element differs from the CPU's. Everything created is released on
/// every path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    println!("[ matrixMulDrv (Driver API) ]");
    // SAFETY: the out-pointers are live locals and the name buffer's length is passed with it;
    // the driver writes the name NUL-terminated.
    let dev = unsafe {
        cu.cuInit(0)?;
        let mut dev = 0;
        cu.cuDeviceGet(&mut dev, 0)?;
        let (mut major, mut minor) = (0, 0);
        let attribute = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
        cu.cuDeviceGetAttribute(&mut major, attribute, dev)?;
        let attribute = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
        cu.cuDeviceGetAttribute(&mut minor, attribute, dev)?;
        let mut name = [0 as c_char; 100];
        cu.cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev)?;
        let mut total_mem = 0;
        cu.cuDeviceTotalMem(&mut total_mem, dev)?;
        println!(
            "> GPU Device {} has SM {major}.{minor} compute capability",
            CStr::from_ptr(name.as_ptr()).to_string_lossy()
        );
        println!("  Total amount of global memory:     {total_mem} bytes");
        dev
    };
    let _ctx = own_context!(cu, dev)?;
    let module = module!(cu, ptx!("matrixMul"))?;
    // SAFETY: every out-pointer is a live local;
    // host buffers hold the byte counts copied and device buffers were allocated with them; the
    // kernel's parameters are what `matrixMul_bs*_64bit(float *, const float *, const float *,
    // size_t, size_t)` takes, read by the launch before it returns; every handle is used between
    // its creation and its guard's release, in the context current on this thread; each guard
    // releases once, after the last use of its handle, and they are dropped in reverse order:
    // the events, buffers and module before the context.
    let (a, b, c, wa, wb) = unsafe {
        let mut chosen = None;
        for (tile, kernel_name) in KERNELS {
            let mut kernel = ptr::null_mut();
            cu.cuModuleGetFunction(&mut kernel, *module, kernel_name.as_ptr())?;
            let (mut min_grid, mut max_block) = (0, 0);
            cu.cuOccupancyMaxPotentialBlockSize(&mut min_grid, &mut max_block, kernel, None, 0, 0)?;
            if tile * tile <= max_block as usize {
                chosen = Some((tile, kernel));
                break;
            }
        }
        let Some((tile, kernel)) = chosen else {
            return Err(Failure::Waived(
                "the device runs no block of 8 × 8 threads of this kernel".into(),
            ));
        };
        println!("> {tile} block size selected");

        // The original's sizes: A is HA × WA, B is WA × WB, C is HA × WB.
        let (wa, ha, wb) = (4 * tile, 6 * tile, 4 * tile);
        // Small integers and quarters: every product and partial sum is exact in f32, so the GPU's
        // sums equal the CPU's in any order, and a misplaced element shows (the original's
        // constant matrices would hide a swapped index).
        let a = matrix(ha, wa, |i, k| ((i + 2 * k) % 8) as f32);
        let b = matrix(wa, wb, |k, j| ((3 * k + j) % 16) as f32 * 0.25);
        let mut c = vec![0f32; ha * wb];
        let (a_bytes, b_bytes, c_bytes) = (4 * a.len(), 4 * b.len(), 4 * c.len());
        let free = |p| {
            let _ = cu.cuMemFree(p);
        };
        let (mut da, mut db, mut dc) = (0, 0, 0);
        cu.cuMemAlloc(&mut da, a_bytes)?;
        let da = guard(da, free);
        cu.cuMemAlloc(&mut db, b_bytes)?;
        let db = guard(db, free);
        cu.cuMemAlloc(&mut dc, c_bytes)?;
        let dc = guard(dc, free);
        cu.cuMemcpyHtoD(*da, a.as_ptr().cast(), a_bytes)?;
        cu.cuMemcpyHtoD(*db, b.as_ptr().cast(), b_bytes)?;

        let flags = sys::CUevent_flags::CU_EVENT_DEFAULT.0;
        let destroy = |event| {
            let _ = cu.cuEventDestroy(event);
        };
        let (mut start, mut stop) = (ptr::null_mut(), ptr::null_mut());
        cu.cuEventCreate(&mut start, flags)?;
        let start = guard(start, destroy);
        cu.cuEventCreate(&mut stop, flags)?;
        let stop = guard(stop, destroy);
        let stream = ptr::null_mut();
        cu.cuEventRecord(*start, stream)?;
        kernel_args![&*dc, &*da, &*db, &wa, &wb].with_params(|params| {
            cu.cuLaunchKernel(
                kernel,
                (wb / tile) as u32,
                (ha / tile) as u32,
                1,
                tile as u32,
                tile as u32,
                1,
                0,
                stream,
                params,
                ptr::null_mut(),
            )
        })?;
        cu.cuEventRecord(*stop, stream)?;
        cu.cuEventSynchronize(*stop)?;
        let mut ms = 0f32;
        cu.cuEventElapsedTime(&mut ms, *start, *stop)?;
        let flop = 2.0 * (wa * ha * wb) as f64;
        println!(
            "Performance= {:.2} GFlop/s, Time= {ms:.3} msec, Size= {flop} Ops, WorkgroupSize= {} threads/block",
            flop / (f64::from(ms) * 1e-3) / 1e9,
            tile * tile
        );
        cu.cuMemcpyDtoH(c.as_mut_ptr().cast(), *dc, c_bytes)?;
        (a, b, c, wa, wb)
    };
    check(&a, &b, &c, wa, wb)
}

/// Every element of `c` against the CPU's product of `a` (`rows × wa`) and `b` (`wa × wb`),
/// summed in `f64`, within the original's 1e-5.
fn check(a: &[f32], b: &[f32], c: &[f32], wa: usize, wb: usize) -> Result<(), Failure> {
    let mut wrong = Vec::new();
    for (e, &got) in c.iter().enumerate() {
        let (i, j) = (e / wb, e % wb);
        let want: f64 = (0..wa)
            .map(|k| f64::from(a[i * wa + k]) * f64::from(b[k * wb + j]))
            .sum();
        if (f64::from(got) - want).abs() > 1e-5 {
            wrong.push(format!("C[{i}][{j}] = {got}, expected {want}"));
        }
    }
    match wrong.first() {
        None => Ok(()),
        Some(first) => Err(Failure::Check(format!(
            "{} of {} elements differ by more than 1e-5 (first: {first})",
            wrong.len(),
            c.len()
        ))),
    }
}
