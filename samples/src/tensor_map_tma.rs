//! tensorMapTma: a tensor map (`cuTensorMapEncodeTiled`) and the Tensor Memory Accelerator
//! (Hopper and newer).
//!
//! NVIDIA's samples repository has no driver-API sample of tensor maps; this one follows the CUDA
//! programming guide's "Using the Tensor Memory Accelerator to copy multi-dimensional arrays", in
//! the manner of the samples here. The host describes a 256 x 128 matrix of floats in device
//! memory with a `CUtensorMap` (`cuTensorMapEncodeTiled`: rank 2, 32 x 16 tiles, no swizzle) and
//! passes it to the kernel by value, as a `const __grid_constant__ CUtensorMap` parameter. Each
//! block loads its tile into shared memory with one `cp.async.bulk.tensor` that completes on an
//! mbarrier, then writes the tile, doubled, to the same place of an output matrix. Every element
//! of the input is distinct, so a tile loaded from the wrong place is seen: the output must be
//! exactly twice the input.
//!
//! Waived on GPUs below compute capability 9.0.
//!
//! `cargo run -p cuda-driver-table-samples --bin tensorMapTma [-- --driver]`

use crate::Failure;
use cuda_driver_table::{driver_table, kernel_args, sys, KernelParam};
use scopeguard::guard;
use std::ffi::c_void;
use std::ptr;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuDeviceGetAttribute,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuCtxSynchronize,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuMemAlloc,
    cuMemFree,
    cuMemsetD32,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuTensorMapEncodeTiled,
    cuLaunchKernel,
    // cuTensorMapEncodeTiled came with CUDA 12.0.
    driver = 12000
)]
pub struct Cuda;

/// The matrix: `WIDTH` floats a row, `HEIGHT` rows (multiples of the tile's sides).
pub const WIDTH: usize = 256;
/// The matrix's rows.
pub const HEIGHT: usize = 128;
/// The tile (the tensor map's box): as the kernel's `TILE_W` and `TILE_H`.
pub const TILE_W: u32 = 32;
/// The tile's rows.
pub const TILE_H: u32 = 16;

/// A tensor map passed to a kernel by value (its 128 bytes, as the kernel's
/// `const __grid_constant__ CUtensorMap` parameter expects).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct TensorMap(sys::CUtensorMap);

impl KernelParam for TensorMap {}

/// The sample, on device 0 through `cu`.
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Waived`] below compute capability 9.0,
/// [`Failure::Check`] when an element is wrong. Everything created is released on every path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    let mut dev = 0;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid places for the answers.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDeviceGet(&mut dev, 0)?;
        cu.cuDeviceGetAttribute(
            &mut major,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            dev,
        )?;
        cu.cuDeviceGetAttribute(
            &mut minor,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            dev,
        )?;
    }
    if major < 9 {
        return Err(Failure::Waived(format!(
            "the Tensor Memory Accelerator needs compute capability 9.0 or newer; device 0 is {major}.{minor}"
        )));
    }

    let n = WIDTH * HEIGHT;
    let bytes = n * size_of::<f32>();
    let input: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut output = vec![0f32; n];
    let (mut input_d, mut output_d): (sys::CUdeviceptr, sys::CUdeviceptr) = (0, 0);
    let mut map = sys::CUtensorMap::default();
    // The tensor: sizes innermost first, the stride of each dimension but the first in bytes
    // (a multiple of 16), the box (its first side times 4 bytes a multiple of 16), every
    // element of the box (element strides of 1).
    let dims: [sys::cuuint64_t; 2] = [WIDTH as u64, HEIGHT as u64];
    let strides: [sys::cuuint64_t; 1] = [(WIDTH * size_of::<f32>()) as u64];
    let tile: [sys::cuuint32_t; 2] = [TILE_W, TILE_H];
    let element_strides: [sys::cuuint32_t; 2] = [1, 1];
    // Each guard releases its handle once, when `run` returns, after the device is idle, in
    // reverse order: the memory and the module before the context is made not current and
    // released.
    let _primary = primary_context!(cu, dev)?;
    let (_module, [func]) = module!(cu, ptx!("tensorMapTma"), [c"tile_copy"])?;
    let free = |p| {
        // SAFETY: each pointer given is an allocation of the current context, freed once, after
        // the device is idle.
        let _ = unsafe { cu.cuMemFree(p) };
    };
    // SAFETY: valid places; the module is loaded in the current context.
    unsafe {
        cu.cuMemAlloc(&mut input_d, bytes)?;
    }
    let input_d = guard(input_d, free);
    // SAFETY: a valid place.
    unsafe { cu.cuMemAlloc(&mut output_d, bytes) }?;
    let output_d = guard(output_d, free);
    // SAFETY: the copies stay inside the allocations of `bytes` bytes; the encoding reads rank
    // (2) sizes, element strides and box sides and rank - 1 strides, each array holding that
    // many, and the address (never dereferenced on the host) is that of the input allocation,
    // 256-byte aligned.
    unsafe {
        cu.cuMemcpyHtoD(*input_d, input.as_ptr().cast(), bytes)?;
        // A NaN pattern: an element no block wrote fails the check.
        cu.cuMemsetD32(*output_d, u32::MAX, n)?;
        cu.cuTensorMapEncodeTiled(
            &mut map,
            sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            2,
            ptr::without_provenance_mut::<c_void>(*input_d as usize),
            dims.as_ptr(),
            strides.as_ptr(),
            tile.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )?;
    }
    println!(
        "{WIDTH} x {HEIGHT} floats in {} tiles of {TILE_W} x {TILE_H}",
        n / (TILE_W * TILE_H) as usize
    );

    let (map, width) = (TensorMap(map), WIDTH as i32);
    // SAFETY: `tile_copy(const __grid_constant__ CUtensorMap, float *, int)` gets its parameters
    // in order; the grid covers the matrix exactly with one block of TILE_W x TILE_H threads per
    // tile, each writing its element of `output_d`, which holds the whole matrix; the map
    // describes `input_d`, alive until the kernel has finished (the guards release it when `run`
    // returns).
    unsafe {
        kernel_args![&map, &*output_d, &width].with_params(|params| {
            cu.cuLaunchKernel(
                func,
                (WIDTH as u32) / TILE_W,
                (HEIGHT as u32) / TILE_H,
                1,
                TILE_W,
                TILE_H,
                1,
                0,
                ptr::null_mut(),
                params,
                ptr::null_mut(),
            )
        })?;
        cu.cuCtxSynchronize()?;
        cu.cuMemcpyDtoH(output.as_mut_ptr().cast(), *output_d, bytes)?;
    }

    let wrong: Vec<usize> = (0..n).filter(|&i| output[i] != 2.0 * input[i]).collect();
    println!("{} of {n} elements wrong", wrong.len());
    match wrong.first() {
        None => Ok(()),
        Some(&i) => Err(Failure::Check(format!(
            "{} elements differ; the first, ({}, {}), is {}, expected {}",
            wrong.len(),
            i % WIDTH,
            i / WIDTH,
            output[i],
            2.0 * input[i]
        ))),
    }
}
