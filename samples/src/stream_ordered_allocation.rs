//! streamOrderedAllocation: NVIDIA's `streamOrderedAllocation` sample
//! (`Samples/2_Concepts_and_Techniques/streamOrderedAllocation`), ported to the driver API.
//!
//! Memory allocated and freed in stream order, around a kernel that adds two vectors:
//!
//! - basic: `cuMemAllocAsync` from the device's default pool, copies in, the kernel,
//!   `cuMemFreeAsync` of the inputs, the copy out, `cuMemFreeAsync` of the output, all on one
//!   stream, synchronised once at the end;
//! - post-sync: a pool of its own (`cuMemPoolCreate`) whose release threshold
//!   (`cuMemPoolSetAttribute`, `CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`) is the largest value, so the
//!   memory freed to it stays in it across synchronisations; 20 rounds of
//!   `cuMemAllocFromPoolAsync`, the same work, `cuMemFreeAsync` and `cuStreamSynchronize`, timed
//!   with events. Besides the sum, the pool is checked to still hold the rounds' memory and to
//!   have none in use (`cuMemPoolGetAttribute`).
//!
//! Each sum is checked as the original does: the relative error norm is below 1e-6. Waived on a
//! GPU without memory pools.
//!
//! `cargo run -p cuda-driver-table-samples --bin streamOrderedAllocation [-- --driver]`

use crate::Failure;
use cuda_driver_table::{driver_table, kernel_args, sys};
use scopeguard::{guard, ScopeGuard};
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
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuStreamCreate,
    cuStreamDestroy,
    cuStreamSynchronize,
    cuEventCreate,
    cuEventDestroy,
    cuEventRecord,
    cuEventSynchronize,
    cuEventElapsedTime,
    cuMemPoolCreate,
    cuMemPoolDestroy,
    cuMemPoolSetAttribute,
    cuMemPoolGetAttribute,
    cuMemAllocAsync,
    cuMemAllocFromPoolAsync,
    cuMemFreeAsync,
    cuMemcpyHtoDAsync,
    cuMemcpyDtoHAsync,
    cuLaunchKernel,
    // Stream-ordered allocation came with CUDA 11.2; every ABI here is one a CUDA 12.0 driver has.
    driver = 12000
)]
pub struct Cuda;

/// Elements per vector.
pub const N: usize = 1 << 20;
/// Rounds of the post-sync part.
pub const ROUNDS: usize = 20;
/// Threads per block of the kernel's launches.
pub const THREADS: u32 = 256;

/// What both parts share.
struct Setup {
    stream: sys::CUstream,
    vector_add: sys::CUfunction,
    a: Vec<f32>,
    b: Vec<f32>,
}

/// An allocation of N floats on `stream`, from the default pool (`pool` null) or from `pool`,
/// freed in stream order on `stream` when its guard is dropped (a round frees its allocations
/// itself, in the order its work needs, after taking them out of their guards).
///
/// # Safety
///
/// `stream` and `pool` (when not null) are live, of the current context, until the guard is
/// dropped.
unsafe fn alloc(
    cu: &Cuda,
    stream: sys::CUstream,
    pool: sys::CUmemoryPool,
) -> Result<ScopeGuard<sys::CUdeviceptr, impl FnOnce(sys::CUdeviceptr) + '_>, Failure> {
    let bytes = N * size_of::<f32>();
    let mut d = 0;
    // SAFETY: `d` is a valid place; the caller's contract for the handles.
    unsafe {
        if pool.is_null() {
            cu.cuMemAllocAsync(&mut d, bytes, stream)?;
        } else {
            cu.cuMemAllocFromPoolAsync(&mut d, bytes, pool, stream)?;
        }
    }
    Ok(guard(d, move |d| {
        // SAFETY: `d` was allocated on `stream` above and is freed once, here, in stream order
        // after the work queued on it (the caller's contract for the stream).
        let _ = unsafe { cu.cuMemFreeAsync(d, stream) };
    }))
}

/// One round of work on `[a, b, c]`, allocated in stream order before it: copies in, the
/// kernel, frees of the inputs, the copy of `c` into `out`, the free of `c`; then waits for the
/// stream.
///
/// # Safety
///
/// `d` are three live stream-ordered allocations of N floats each, made on `s.stream`, each
/// freed once: by the round (when its work is queued) or by its guard (when it fails before).
unsafe fn round(
    cu: &Cuda,
    s: &Setup,
    d: [ScopeGuard<sys::CUdeviceptr, impl FnOnce(sys::CUdeviceptr)>; 3],
    out: &mut [f32],
) -> Result<(), Failure> {
    let bytes = N * size_of::<f32>();
    let [da, db, dc] = d;
    let n = N as i32;
    // SAFETY: the host vectors hold N floats each and live until the stream is synchronised
    // below; `vector_add(const float *, const float *, float *, int)` gets its parameters in
    // order and reads and writes N floats of allocations made on this stream before it; each
    // allocation is freed once, after its last use in stream order: taken out of its guard
    // just before the round frees it.
    unsafe {
        cu.cuMemcpyHtoDAsync(*da, s.a.as_ptr().cast(), bytes, s.stream)?;
        cu.cuMemcpyHtoDAsync(*db, s.b.as_ptr().cast(), bytes, s.stream)?;
        kernel_args![&*da, &*db, &*dc, &n].with_params(|params| {
            cu.cuLaunchKernel(
                s.vector_add,
                N.div_ceil(THREADS as usize) as u32,
                1,
                1,
                THREADS,
                1,
                1,
                0,
                s.stream,
                params,
                ptr::null_mut(),
            )
        })?;
        cu.cuMemFreeAsync(ScopeGuard::into_inner(da), s.stream)?;
        cu.cuMemFreeAsync(ScopeGuard::into_inner(db), s.stream)?;
        cu.cuMemcpyDtoHAsync(out.as_mut_ptr().cast(), *dc, bytes, s.stream)?;
        cu.cuMemFreeAsync(ScopeGuard::into_inner(dc), s.stream)?;
        cu.cuStreamSynchronize(s.stream)?;
    }
    Ok(())
}

/// The original's check: the error norm relative to the reference's norm is below 1e-6.
fn check(part: &str, s: &Setup, c: &[f32]) -> Result<(), Failure> {
    let (mut error, mut norm) = (0f32, 0f32);
    for ((&a, &b), &c) in s.a.iter().zip(&s.b).zip(c) {
        let reference = a + b;
        let diff = c - reference;
        error += diff * diff;
        norm += reference * reference;
    }
    let relative = error.sqrt() / norm.sqrt();
    if relative < 1e-6 {
        println!("{part}: relative error {relative:e}, PASSED");
        Ok(())
    } else {
        Err(Failure::Check(format!(
            "{part}: relative error norm {relative:e}, at least 1e-6"
        )))
    }
}

/// The sample, on device 0 through `cu` (the binary's table has a per-thread default stream).
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Waived`] without memory pools,
/// [`Failure::Check`] when a sum or the pool's state is wrong. Everything created is released
/// on every path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    let mut dev = 0;
    let mut pools_supported = 0;
    // SAFETY: valid places for the answers.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDeviceGet(&mut dev, 0)?;
        cu.cuDeviceGetAttribute(
            &mut pools_supported,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
            dev,
        )?;
    }
    if pools_supported == 0 {
        return Err(Failure::Waived(
            "device 0 does not support memory pools".into(),
        ));
    }

    // rand() / RAND_MAX in the original: any values in [0, 1].
    let mut x: u32 = 7;
    let mut next = move || {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (x >> 8) as f32 / (1u32 << 24) as f32
    };
    let a: Vec<f32> = (0..N).map(|_| next()).collect();
    let b: Vec<f32> = (0..N).map(|_| next()).collect();
    let mut c = vec![0f32; N];

    let mut stream: sys::CUstream = ptr::null_mut();
    // Each guard releases its handle once, when `run` returns, after its last use, in reverse
    // order: the stream and the module before the context is made not current and released.
    let _primary = primary_context!(cu, dev)?;
    let (_module, [vector_add]) = module!(cu, ptx!("streamOrderedAllocation"), [c"vector_add"])?;
    // SAFETY: valid places; the module is loaded in the current context.
    unsafe {
        cu.cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING.0)?;
    }
    let stream = guard(stream, |stream| {
        // SAFETY: the stream was created above, once; every round ends synchronised with it.
        let _ = unsafe { cu.cuStreamDestroy(stream) };
    });
    let setup = Setup {
        stream: *stream,
        vector_add,
        a,
        b,
    };

    println!("Starting basicStreamOrderedAllocation()");
    // SAFETY: the stream is live in the current context; the allocations are made on it.
    unsafe {
        let pool = ptr::null_mut();
        let d = [
            alloc(cu, *stream, pool)?,
            alloc(cu, *stream, pool)?,
            alloc(cu, *stream, pool)?,
        ];
        round(cu, &setup, d, &mut c)?;
    }
    let basic = check("basicStreamOrderedAllocation", &setup, &c);

    println!("Starting streamOrderedAllocationPostSync()");
    c.fill(0.0);
    // As the C API's `CUmemPoolProps props = {}`: the fields not set below are meant to be zero
    // (no Windows security attributes, no maximum size, the reserved bytes).
    // SAFETY: the struct is plain data (integers, enums whose zero is a value, a pointer).
    let mut props: sys::CUmemPoolProps = unsafe { std::mem::zeroed() };
    props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE;
    props.location = sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: dev,
    };
    let mut pool: sys::CUmemoryPool = ptr::null_mut();
    let (mut start, mut end): (sys::CUevent, sys::CUevent) = (ptr::null_mut(), ptr::null_mut());
    let mut ms = 0f32;
    let (mut reserved, mut used): (sys::cuuint64_t, sys::cuuint64_t) = (0, 0);
    // SAFETY: valid places; `props` is fully set; the attribute values are `cuuint64_t`s, as
    // these attributes take; the pool and events are used only in the current context; their
    // guards destroy each once, at the end of this block, after the stream is idle (every round
    // ends with a synchronisation, a failing one with its allocations freed in stream order
    // first), the events before the pool.
    unsafe {
        cu.cuMemPoolCreate(&mut pool, &props)?;
        let pool = guard(pool, |pool| {
            let _ = cu.cuMemPoolDestroy(pool);
        });
        // Never release the pool's memory on synchronisation (the default threshold, 0, lets
        // the driver return it at each one).
        let mut threshold: sys::cuuint64_t = u64::MAX;
        cu.cuMemPoolSetAttribute(
            *pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&raw mut threshold).cast::<c_void>(),
        )?;
        let destroy = |event| {
            let _ = cu.cuEventDestroy(event);
        };
        cu.cuEventCreate(&mut start, 0)?;
        let start = guard(start, destroy);
        cu.cuEventCreate(&mut end, 0)?;
        let end = guard(end, destroy);
        cu.cuEventRecord(*start, *stream)?;
        for _ in 0..ROUNDS {
            let d = [
                alloc(cu, *stream, *pool)?,
                alloc(cu, *stream, *pool)?,
                alloc(cu, *stream, *pool)?,
            ];
            round(cu, &setup, d, &mut c)?;
        }
        cu.cuEventRecord(*end, *stream)?;
        cu.cuEventSynchronize(*end)?;
        cu.cuEventElapsedTime(&mut ms, *start, *end)?;
        cu.cuMemPoolGetAttribute(
            *pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
            (&raw mut reserved).cast(),
        )?;
        cu.cuMemPoolGetAttribute(
            *pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
            (&raw mut used).cast(),
        )?;
    }
    println!("Total elapsed time = {ms} ms over {ROUNDS} rounds");
    println!("The pool holds {reserved} bytes, {used} of them in use");
    let post_sync = check("streamOrderedAllocationPostSync", &setup, &c);
    basic?;
    post_sync?;
    let rounds_need = (3 * N * size_of::<f32>()) as u64;
    if reserved < rounds_need || used != 0 {
        return Err(Failure::Check(format!(
            "after the last synchronisation the pool holds {reserved} bytes ({used} in use); with the release threshold at its largest it should keep at least the {rounds_need} bytes a round uses, none in use"
        )));
    }
    Ok(())
}
