//! simpleP2P: NVIDIA's `simpleP2P` sample (`Samples/0_Introduction/simpleP2P`), ported to the
//! driver API.
//!
//! Peer-to-peer access between two GPUs. The sample takes the first pair of GPUs where one can
//! reach the other (`cuDeviceCanAccessPeer`), enables access both ways between their primary
//! contexts (`cuCtxEnablePeerAccess`) and times 100 copies of 64 MiB back and forth
//! (`cuMemcpyPeerAsync`, events). Then it fills GPU 0's buffer from the host, copies it to GPU 1
//! with `cuMemcpyPeerAsync` and checks the copy; runs a kernel on GPU 1 that reads GPU 0's buffer
//! and writes its own, doubled, and one on GPU 0 that reads GPU 1's buffer and writes its own,
//! doubled again; and checks, as the original, that GPU 0's buffer holds four times the input.
//! Then it disables peer access and releases everything.
//!
//! Waived with fewer than two GPUs, or when no GPU can reach another.
//!
//! `cargo run -p cuda-driver-table-samples --bin simpleP2P [-- --driver]`

use crate::Failure;
use cuda_driver_table::{driver_table, kernel_args, sys};
use scopeguard::guard;
use std::ffi::{c_char, c_void, CStr};
use std::ptr;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDeviceGetCount,
    cuDeviceGet,
    cuDeviceGetName,
    cuDeviceCanAccessPeer,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuCtxSynchronize,
    cuCtxEnablePeerAccess,
    cuCtxDisablePeerAccess,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuMemAlloc,
    cuMemFree,
    cuMemHostAlloc,
    cuMemFreeHost,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuMemcpyPeerAsync,
    cuStreamCreate,
    cuStreamDestroy,
    cuStreamSynchronize,
    cuEventCreate,
    cuEventDestroy,
    cuEventRecord,
    cuEventSynchronize,
    cuEventElapsedTime,
    cuLaunchKernel,
    driver = 12000
)]
pub struct Cuda;

/// Floats per buffer (64 MiB).
pub const N: usize = 16 << 20;
/// Threads per block of the kernel's launches.
pub const THREADS: u32 = 512;
/// Copies timed, alternating directions.
pub const COPIES: usize = 100;

/// The input's element `i`.
fn pattern(i: usize) -> f32 {
    (i % 4096) as f32
}

/// One GPU of the pair: its primary context, the kernel loaded into it, its buffer.
#[derive(Clone, Copy)]
struct Gpu {
    ordinal: i32,
    dev: sys::CUdevice,
    ctx: sys::CUcontext,
    module: sys::CUmodule,
    double_it: sys::CUfunction,
    buf: sys::CUdeviceptr,
}

/// Releases what `gpu` holds, each in its context: the buffer and the module (when there), then
/// the primary context.
///
/// # Safety
///
/// `gpu.ctx` is `gpu.dev`'s primary context, retained once; `gpu.buf` is 0 or an allocation of
/// it, `gpu.module` null or a module loaded into it; nothing uses any of them after this.
unsafe fn release(cu: &Cuda, gpu: Gpu) {
    // SAFETY: the caller's contract; each handle is released once, in its own context.
    unsafe {
        if cu.cuCtxSetCurrent(gpu.ctx).is_ok() {
            if gpu.buf != 0 {
                let _ = cu.cuMemFree(gpu.buf);
            }
            if !gpu.module.is_null() {
                let _ = cu.cuModuleUnload(gpu.module);
            }
        }
        let _ = cu.cuCtxSetCurrent(ptr::null_mut());
        let _ = cu.cuDevicePrimaryCtxRelease(gpu.dev);
    }
}

/// The sample, on the first pair of GPUs where one reaches the other, through `cu` (the binary's
/// table has a per-thread default stream).
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Waived`] without two GPUs with peer
/// access, [`Failure::Check`] when the copy or the kernels' result is wrong. Everything created
/// is released on every path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    let mut count = 0;
    // SAFETY: a valid place for the count.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDeviceGetCount(&mut count)?;
    }
    println!("CUDA-capable device count: {count}");
    if count < 2 {
        return Err(Failure::Waived(format!(
            "two GPUs with peer-to-peer access are needed; this machine has {count}"
        )));
    }
    let mut devices = Vec::with_capacity(count as usize);
    for ordinal in 0..count {
        let mut dev = 0;
        let mut name = [0 as c_char; 256];
        // SAFETY: valid places; `name` holds the length given.
        unsafe {
            cu.cuDeviceGet(&mut dev, ordinal)?;
            cu.cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev)?;
        }
        // SAFETY: cuDeviceGetName wrote a NUL-terminated name into the buffer.
        let name = unsafe { CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        devices.push((ordinal, dev, name));
    }
    let mut pair = None;
    for (i, di, ni) in &devices {
        for (j, dj, nj) in &devices {
            if i == j {
                continue;
            }
            let mut can = 0;
            // SAFETY: a valid place, about two devices the driver handed out.
            unsafe { cu.cuDeviceCanAccessPeer(&mut can, *di, *dj) }?;
            println!(
                "> Peer access from {ni} (GPU{i}) -> {nj} (GPU{j}) : {}",
                if can != 0 { "Yes" } else { "No" }
            );
            if can != 0 && pair.is_none() {
                pair = Some(((*i, *di), (*j, *dj)));
            }
        }
    }
    let Some(((o0, d0), (o1, d1))) = pair else {
        return Err(Failure::Waived(
            "no GPU of this machine can access another's memory".into(),
        ));
    };
    let bytes = N * size_of::<f32>();
    let ptx = ptx!("simpleP2P");
    // Each GPU's buffer, module and context, released by its guard (`release`) when `run`
    // returns, after everything else: the guards are dropped in order, the first GPU's first.
    let mut gpus = Vec::with_capacity(2);
    for (ordinal, dev) in [(o0, d0), (o1, d1)] {
        let mut ctx = ptr::null_mut();
        // SAFETY: a valid place.
        unsafe { cu.cuDevicePrimaryCtxRetain(&mut ctx, dev) }?;
        let mut gpu = guard(
            Gpu {
                ordinal,
                dev,
                ctx,
                module: ptr::null_mut(),
                double_it: ptr::null_mut(),
                buf: 0,
            },
            // SAFETY: the context was retained above, once; the module and the buffer, once
            // there, are its own; nothing uses them after `run`.
            |gpu| unsafe { release(cu, gpu) },
        );
        // SAFETY: valid places; the PTX is NUL-terminated; the module and the buffer belong to
        // the context made current just before.
        unsafe {
            cu.cuCtxSetCurrent(gpu.ctx)?;
            cu.cuModuleLoadData(&mut gpu.module, ptx.as_ptr().cast())?;
            cu.cuModuleGetFunction(&mut gpu.double_it, gpu.module, c"double_it".as_ptr())?;
            cu.cuMemAlloc(&mut gpu.buf, bytes)?;
        }
        gpus.push(gpu);
    }
    let (g0, g1) = (*gpus[0], *gpus[1]);
    println!(
        "Enabling peer access between GPU{} and GPU{}...",
        g0.ordinal, g1.ordinal
    );
    // Access from `from` to `to`'s memory, enabled: its guard disables it, with `from` current.
    let peer_access = |from: Gpu, to: Gpu| {
        // SAFETY: both contexts are live until the GPUs' guards release them, after this one.
        unsafe {
            cu.cuCtxSetCurrent(from.ctx)?;
            cu.cuCtxEnablePeerAccess(to.ctx, 0)?;
        }
        Ok::<_, Failure>(guard((from, to), |(from, to)| {
            // SAFETY: access was enabled above, once; everything using it is idle.
            unsafe {
                let _ = cu.cuCtxSetCurrent(from.ctx);
                let _ = cu.cuCtxDisablePeerAccess(to.ctx);
            }
        }))
    };
    let access01 = peer_access(g0, g1)?;
    let access10 = peer_access(g1, g0)?;

    let mut host: *mut c_void = ptr::null_mut();
    let mut stream: sys::CUstream = ptr::null_mut();
    let (mut start, mut stop): (sys::CUevent, sys::CUevent) = (ptr::null_mut(), ptr::null_mut());
    let mut ms = 0f32;
    // SAFETY: valid places; GPU 0's context is live.
    unsafe {
        cu.cuCtxSetCurrent(g0.ctx)?;
        // Portable: pinned for both contexts.
        cu.cuMemHostAlloc(&mut host, bytes, sys::CU_MEMHOSTALLOC_PORTABLE)?;
    }
    // Each guard below destroys its object once, when `run` returns, after everything using it
    // is idle: the events, the stream, then the host memory.
    let host = guard(host, |host| {
        // SAFETY: allocated above, once; no slice of it outlives `run`.
        let _ = unsafe { cu.cuMemFreeHost(host) };
    });
    // SAFETY: a valid place; GPU 0's context is current.
    unsafe { cu.cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING.0) }?;
    let stream = guard(stream, |stream| {
        // SAFETY: created above, once; synchronised after its last use.
        let _ = unsafe { cu.cuStreamDestroy(stream) };
    });
    let destroy = |event| {
        // SAFETY: each event given was created below, once; synchronised after its last use.
        let _ = unsafe { cu.cuEventDestroy(event) };
    };
    let blocking = sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC.0;
    // SAFETY: a valid place; GPU 0's context is current.
    unsafe { cu.cuEventCreate(&mut start, blocking) }?;
    let start = guard(start, destroy);
    // SAFETY: as above.
    unsafe { cu.cuEventCreate(&mut stop, blocking) }?;
    let stop = guard(stop, destroy);
    // SAFETY: the stream and events belong to GPU 0's context, current; every copy moves
    // `bytes` bytes between the two buffers of that size, each in its own context.
    unsafe {
        cu.cuEventRecord(*start, *stream)?;
        for i in 0..COPIES {
            let (to, from) = if i % 2 == 0 { (g1, g0) } else { (g0, g1) };
            cu.cuMemcpyPeerAsync(to.buf, to.ctx, from.buf, from.ctx, bytes, *stream)?;
        }
        cu.cuEventRecord(*stop, *stream)?;
        cu.cuEventSynchronize(*stop)?;
        cu.cuEventElapsedTime(&mut ms, *start, *stop)?;
    }
    let gib = (COPIES * bytes) as f64 / f64::from(1u32 << 30);
    println!(
        "cuMemcpyPeerAsync between GPU{} and GPU{}: {:.2} GB/s",
        g0.ordinal,
        g1.ordinal,
        gib / (f64::from(ms) / 1e3)
    );

    {
        // SAFETY: `host` holds N floats, pinned, alive until `run` returns; nothing else uses it
        // while this slice lives.
        let input = unsafe { std::slice::from_raw_parts_mut(host.cast::<f32>(), N) };
        for (i, v) in input.iter_mut().enumerate() {
            *v = pattern(i);
        }
    }
    let mut copied = vec![0f32; N];
    let blocks = (N / THREADS as usize) as u32;
    // SAFETY: every copy moves `bytes` bytes between buffers of that size; the kernel
    // `double_it(const float *, float *)` reads and writes one float per thread, the grid
    // covering N exactly; GPU 1's kernel reads GPU 0's buffer and GPU 0's reads GPU 1's, with
    // peer access enabled both ways; each runs in the context its module was loaded into and is
    // waited for before its result is used.
    unsafe {
        // `double_it` over the N floats, one thread each, in the current context.
        let launch = |f: sys::CUfunction, params: *mut *mut c_void| {
            cu.cuLaunchKernel(
                f,
                blocks,
                1,
                1,
                THREADS,
                1,
                1,
                0,
                ptr::null_mut(),
                params,
                ptr::null_mut(),
            )
        };
        cu.cuMemcpyHtoD(g0.buf, host.cast_const(), bytes)?;
        cu.cuMemcpyPeerAsync(g1.buf, g1.ctx, g0.buf, g0.ctx, bytes, *stream)?;
        cu.cuStreamSynchronize(*stream)?;
        cu.cuCtxSetCurrent(g1.ctx)?;
        cu.cuMemcpyDtoH(copied.as_mut_ptr().cast(), g1.buf, bytes)?;
        println!(
            "Run kernel on GPU{}, taking source data from GPU{} and writing to GPU{}...",
            g1.ordinal, g0.ordinal, g1.ordinal
        );
        kernel_args![&g0.buf, &g1.buf].with_params(|params| launch(g1.double_it, params))?;
        cu.cuCtxSynchronize()?;
        println!(
            "Run kernel on GPU{}, taking source data from GPU{} and writing to GPU{}...",
            g0.ordinal, g1.ordinal, g0.ordinal
        );
        cu.cuCtxSetCurrent(g0.ctx)?;
        kernel_args![&g1.buf, &g0.buf].with_params(|params| launch(g0.double_it, params))?;
        cu.cuCtxSynchronize()?;
        cu.cuMemcpyDtoH(*host, g0.buf, bytes)?;
    }
    let copy_wrong = (0..N).find(|&i| copied[i] != pattern(i));
    // (element, value) of the first ten wrong elements of the result.
    let result_wrong: Vec<(usize, f32)> = {
        // SAFETY: the copy into `host` has completed (cuMemcpyDtoH returns once it has); the
        // memory is freed only after this slice is gone.
        let result = unsafe { std::slice::from_raw_parts(host.cast::<f32>(), N) };
        (0..N)
            .filter(|&i| result[i] != pattern(i) * 4.0)
            .map(|i| (i, result[i]))
            .take(10)
            .collect()
    };
    for &(i, v) in &result_wrong {
        println!(
            "Verification error @ element {i}: val = {v}, ref = {}",
            pattern(i) * 4.0
        );
    }

    println!("Disabling peer access...");
    drop(access10);
    // GPU 0's context is current again, for the guards of its stream and events.
    drop(access01);
    if let Some(i) = copy_wrong {
        return Err(Failure::Check(format!(
            "the peer copy to GPU{}: element {i} is {}, expected {}",
            g1.ordinal,
            copied[i],
            pattern(i)
        )));
    }
    match result_wrong.first() {
        None => Ok(()),
        Some(&(i, v)) => Err(Failure::Check(format!(
            "element {i} is {v}, expected {}",
            pattern(i) * 4.0
        ))),
    }
}
