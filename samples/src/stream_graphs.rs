//! streamGraphs: NVIDIA's `simpleCudaGraphs` sample (`Samples/3_CUDA_Features/simpleCudaGraphs`),
//! ported to the driver API.
//!
//! The same work, a two-pass sum of 2^24 floats in double precision, built into a CUDA graph
//! twice and checked against the sum on the CPU:
//!
//! - by hand, node by node: `cuGraphCreate`, a copy of the input to the GPU
//!   (`cuGraphAddMemcpyNode`) and the clearing of the partial sums (`cuGraphAddMemsetNode`), both
//!   before the first kernel (`cuGraphAddKernelNode`), whose partial sums and a cleared result
//!   come before the second kernel, then a copy of the result back and a host function
//!   (`cuGraphAddHostNode`) that records it;
//! - by stream capture: the same operations issued on three streams that fork from and join the
//!   first through events, between `cuStreamBeginCapture` and `cuStreamEndCapture`.
//!
//! Each graph is instantiated (`cuGraphInstantiateWithFlags`), cloned (`cuGraphClone`) and
//! instantiated again, and both are launched three times (`cuGraphLaunch`); each launch's host
//! function records the result. The input is made of multiples of 1/256 below 1, so every sum is
//! exact in double precision, whatever the order: each of the twelve results must equal the
//! CPU's.
//!
//! The binary's table is per-thread (`Args::per_thread_config`), and resolved whole before any capture
//! begins, so no lookup happens while a stream is being captured.
//!
//! `cargo run -p cuda-driver-table-samples --bin streamGraphs [-- --driver]`

use crate::Failure;
use cuda_driver_table::{driver_table, kernel_args, sys, Error};
use scopeguard::{guard, ScopeGuard};
use std::ffi::c_void;
use std::ptr;
use std::sync::Mutex;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuMemAlloc,
    cuMemFree,
    cuMemAllocHost,
    cuMemFreeHost,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuStreamCreate,
    cuStreamDestroy,
    cuStreamSynchronize,
    cuStreamWaitEvent,
    cuEventCreate,
    cuEventDestroy,
    cuEventRecord,
    cuStreamBeginCapture,
    cuStreamEndCapture,
    cuMemcpyHtoDAsync,
    cuMemcpyDtoHAsync,
    cuMemsetD32Async,
    cuLaunchKernel,
    cuLaunchHostFunc,
    cuGraphCreate,
    cuGraphAddMemcpyNode,
    cuGraphAddMemsetNode,
    cuGraphAddKernelNode,
    cuGraphAddHostNode,
    cuGraphGetNodes,
    cuGraphInstantiateWithFlags,
    cuGraphClone,
    cuGraphLaunch,
    cuGraphExecDestroy,
    cuGraphDestroy,
    // `cuGraphAddKernelNode` at ABI 12000 (`CUDA_KERNEL_NODE_PARAMS_v2`): a CUDA 12.0 driver.
    driver = 12000
)]
pub struct Cuda;

/// The number of floats summed.
pub const N: usize = 1 << 24;
/// Blocks of the first pass, and so partial sums.
pub const BLOCKS: usize = 512;
/// Threads per block of both kernels (the kernels' shared arrays have as many elements).
pub const THREADS: u32 = 512;
/// Launches of each executable graph.
pub const LAUNCHES: usize = 3;

/// What the host function of a graph records: the result each launch copied back.
struct Record {
    /// The pinned double the graph copies the result to.
    result: *mut f64,
    /// Each launch's result, in order.
    sums: Mutex<Vec<f64>>,
}

/// The graphs' host function: records the result and clears it for the next launch (as the
/// original's callback does). Called by the driver on a thread of its own, after the copy of the
/// result, while the host waits in `cuStreamSynchronize`.
///
/// # Safety
///
/// `user` points at a live [`Record`] whose `result` is a live, pinned `f64` that nothing else
/// touches while the graph runs.
unsafe extern "C" fn record_result(user: *mut c_void) {
    // SAFETY: the caller's contract.
    let record = unsafe { &*user.cast::<Record>() };
    // SAFETY: the caller's contract; the copy into it has completed (the node's dependency).
    let value = unsafe { record.result.replace(0.0) };
    if let Ok(mut sums) = record.sums.lock() {
        sums.push(value);
    }
}

/// The memory and functions both graphs use.
struct Work {
    ctx: sys::CUcontext,
    partial_sums: sys::CUfunction,
    final_sum: sys::CUfunction,
    input_h: *mut f32,
    input_d: sys::CUdeviceptr,
    partial_d: sys::CUdeviceptr,
    result_d: sys::CUdeviceptr,
    /// Pinned: the copy back and the host function use it.
    result_h: *mut f64,
}

/// The sample, on device 0 through `cu`.
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Check`] when a result differs from the
/// CPU's. Everything created is released on every path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    // Every lookup now: none may happen while a stream is being captured.
    if let Err(errors) = cu.resolve_all() {
        return Err(errors.into_vec().into_iter().next().map_or_else(
            || Failure::Check("resolve_all failed".into()),
            Failure::Cuda,
        ));
    }
    let mut dev = 0;
    // SAFETY: a valid place.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDeviceGet(&mut dev, 0)?;
    }
    // Each guard releases its object once, when `run` returns, after every stream was
    // synchronised, in reverse order: the memory and the module before the context is made not
    // current and released.
    let primary = primary_context!(cu, dev)?;
    let (_module, [partial_sums, final_sum]) =
        module!(cu, ptx!("streamGraphs"), [c"partial_sums", c"final_sum"])?;
    let pinned = |bytes| {
        let mut p: *mut c_void = ptr::null_mut();
        // SAFETY: a valid place; the context is current.
        unsafe { cu.cuMemAllocHost(&mut p, bytes) }?;
        Ok::<_, Failure>(guard(p, |p| {
            // SAFETY: allocated above, once; no slice of it outlives `run`.
            let _ = unsafe { cu.cuMemFreeHost(p) };
        }))
    };
    let device = |bytes| {
        let mut p = 0;
        // SAFETY: a valid place; the context is current.
        unsafe { cu.cuMemAlloc(&mut p, bytes) }?;
        Ok::<_, Failure>(guard(p, |p| {
            // SAFETY: allocated above, once; every stream using it was synchronised.
            let _ = unsafe { cu.cuMemFree(p) };
        }))
    };
    let input_h = pinned(N * size_of::<f32>())?;
    let result_h = pinned(size_of::<f64>())?;
    let input_d = device(N * size_of::<f32>())?;
    let partial_d = device(BLOCKS * size_of::<f64>())?;
    let result_d = device(size_of::<f64>())?;
    // SAFETY: the pinned buffers are written within the sizes allocated.
    unsafe {
        // Multiples of 1/256 in [0, 1), from a fixed linear congruential sequence.
        let input = std::slice::from_raw_parts_mut(input_h.cast::<f32>(), N);
        let mut x: u32 = 1;
        for v in input.iter_mut() {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            *v = ((x >> 16) & 0xFF) as f32 / 256.0;
        }
        result_h.cast::<f64>().write(0.0);
    }
    // SAFETY: `input_h` holds N floats, written above.
    let input = unsafe { std::slice::from_raw_parts(input_h.cast::<f32>(), N) };
    let reference: f64 = input.iter().map(|&v| f64::from(v)).sum();
    println!("{N} elements, {THREADS} threads per block, {LAUNCHES} launches of each graph");
    println!("CPU sum = {reference}");

    let work = Work {
        ctx: *primary,
        partial_sums,
        final_sum,
        input_h: input_h.cast(),
        input_d: *input_d,
        partial_d: *partial_d,
        result_d: *result_d,
        result_h: result_h.cast(),
    };
    let mut wrong = Vec::new();
    for (label, build) in [
        (
            "manual",
            manual_graph as fn(&Cuda, &Work, &Record) -> Result<sys::CUgraph, Error>,
        ),
        ("stream capture", captured_graph),
    ] {
        let sums = launch_twice(cu, &work, label, build)?;
        println!("[{label}] results: {sums:?}");
        if sums.len() != 2 * LAUNCHES {
            wrong.push(format!(
                "{label}: {} results recorded, expected {}",
                sums.len(),
                2 * LAUNCHES
            ));
        }
        for (i, s) in sums.iter().enumerate() {
            if *s != reference {
                wrong.push(format!("{label} launch {i}: {s}, expected {reference}"));
            }
        }
    }

    if wrong.is_empty() {
        Ok(())
    } else {
        Err(Failure::Check(wrong.join("; ")))
    }
}

/// Builds a graph with `build`, instantiates it and a clone of it, launches each `LAUNCHES`
/// times on a stream of its own and returns the results the host function recorded.
fn launch_twice(
    cu: &Cuda,
    work: &Work,
    label: &str,
    build: fn(&Cuda, &Work, &Record) -> Result<sys::CUgraph, Error>,
) -> Result<Vec<f64>, Failure> {
    let record = Record {
        result: work.result_h,
        sums: Mutex::new(Vec::new()),
    };
    // Each guard destroys its object once, when this returns: the stream (synchronised first,
    // so that no launch still uses `record`), then the executable graphs before the graphs they
    // came from.
    let graph = guard(build(cu, work, &record)?, |graph| {
        // SAFETY: built above, once; its executable graphs are destroyed before.
        let _ = unsafe { cu.cuGraphDestroy(graph) };
    });
    let destroy_exec = |exec| {
        // SAFETY: each executable graph given was instantiated below, once.
        let _ = unsafe { cu.cuGraphExecDestroy(exec) };
    };
    let mut nodes = 0;
    let mut stream: sys::CUstream = ptr::null_mut();
    let (mut exec, mut clone_exec): (sys::CUgraphExec, sys::CUgraphExec) =
        (ptr::null_mut(), ptr::null_mut());
    let mut clone: sys::CUgraph = ptr::null_mut();
    // SAFETY: valid places; the graph was built.
    unsafe {
        cu.cuGraphGetNodes(*graph, ptr::null_mut(), &mut nodes)?;
        println!("[{label}] {nodes} nodes in the graph");
        cu.cuGraphInstantiateWithFlags(&mut exec, *graph, 0)?;
    }
    let exec = guard(exec, destroy_exec);
    // SAFETY: a valid place; the graph was built.
    unsafe { cu.cuGraphClone(&mut clone, *graph) }?;
    let clone = guard(clone, |clone| {
        // SAFETY: cloned above, once; its executable graph is destroyed before.
        let _ = unsafe { cu.cuGraphDestroy(clone) };
    });
    // SAFETY: a valid place; the clone was made.
    unsafe { cu.cuGraphInstantiateWithFlags(&mut clone_exec, *clone, 0) }?;
    let clone_exec = guard(clone_exec, destroy_exec);
    // SAFETY: a valid place.
    unsafe { cu.cuStreamCreate(&mut stream, 0) }?;
    let stream = guard(stream, |stream| {
        // SAFETY: created above, once; waited for before it goes.
        unsafe {
            let _ = cu.cuStreamSynchronize(stream);
            let _ = cu.cuStreamDestroy(stream);
        }
    });
    // SAFETY: `record` and the memory the graphs use outlive every launch (the stream is
    // synchronised before this returns, by its guard on an error).
    unsafe {
        for _ in 0..LAUNCHES {
            cu.cuGraphLaunch(*exec, *stream)?;
        }
        cu.cuStreamSynchronize(*stream)?;
        for _ in 0..LAUNCHES {
            cu.cuGraphLaunch(*clone_exec, *stream)?;
        }
        cu.cuStreamSynchronize(*stream)?;
    }
    drop((stream, clone_exec, clone, exec, graph));
    Ok(record.sums.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// A copy of `bytes` bytes from host memory to device memory, or back (`to_device` false), as a
/// one-row 3D copy. Every field the driver reads is set: the C sample clears the struct first,
/// so do we.
fn copy_params(
    host: *mut c_void,
    device: sys::CUdeviceptr,
    bytes: usize,
    to_device: bool,
) -> sys::CUDA_MEMCPY3D {
    // SAFETY: the struct is plain data (integers, enums whose zero is a value, pointers).
    let mut p: sys::CUDA_MEMCPY3D = unsafe { std::mem::zeroed() };
    let (host_type, device_type) = (
        sys::CUmemorytype::CU_MEMORYTYPE_HOST,
        sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
    );
    if to_device {
        p.srcMemoryType = host_type;
        p.srcHost = host;
        p.dstMemoryType = device_type;
        p.dstDevice = device;
    } else {
        p.srcMemoryType = device_type;
        p.srcDevice = device;
        p.dstMemoryType = host_type;
        p.dstHost = host;
    }
    p.srcPitch = bytes;
    p.srcHeight = 1;
    p.dstPitch = bytes;
    p.dstHeight = 1;
    p.WidthInBytes = bytes;
    p.Height = 1;
    p.Depth = 1;
    p
}

/// Clearing `bytes` bytes (a multiple of 4) at `dst`, as 4-byte elements in one row.
fn clear_params(dst: sys::CUdeviceptr, bytes: usize) -> sys::CUDA_MEMSET_NODE_PARAMS {
    sys::CUDA_MEMSET_NODE_PARAMS {
        dst,
        pitch: 0,
        value: 0,
        elementSize: 4,
        width: bytes / 4,
        height: 1,
    }
}

/// A launch of `func` on `grid` blocks of `THREADS` threads with the parameters `params` (read
/// when the node is added), in the current context.
fn kernel_params(
    func: sys::CUfunction,
    grid: u32,
    params: *mut *mut c_void,
) -> sys::CUDA_KERNEL_NODE_PARAMS {
    sys::CUDA_KERNEL_NODE_PARAMS {
        func,
        gridDimX: grid,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: THREADS,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: 0,
        kernelParams: params,
        extra: ptr::null_mut(),
        // Read only when `func` is null.
        kern: ptr::null_mut(),
        // Ignored when `func` is set.
        ctx: ptr::null_mut(),
    }
}

/// The graph built node by node.
fn manual_graph(cu: &Cuda, w: &Work, record: &Record) -> Result<sys::CUgraph, Error> {
    let mut graph: sys::CUgraph = ptr::null_mut();
    let mut copy_in: sys::CUgraphNode = ptr::null_mut();
    let mut clear_partial: sys::CUgraphNode = ptr::null_mut();
    let mut first: sys::CUgraphNode = ptr::null_mut();
    let mut clear_result: sys::CUgraphNode = ptr::null_mut();
    let mut second: sys::CUgraphNode = ptr::null_mut();
    let mut copy_out: sys::CUgraphNode = ptr::null_mut();
    let mut host: sys::CUgraphNode = ptr::null_mut();
    let (n, blocks) = (N as u64, BLOCKS as u64);
    let first_args = kernel_args![&w.input_d, &w.partial_d, &n, &blocks];
    let second_args = kernel_args![&w.partial_d, &w.result_d, &blocks];
    let host_params = sys::CUDA_HOST_NODE_PARAMS {
        fn_: Some(record_result),
        userData: ptr::from_ref(record).cast_mut().cast(),
    };
    // SAFETY: every out-parameter is a valid place; the parameter structs are fully set and
    // alive during each call (the driver copies them, the kernel arguments included: each kernel
    // node's `kernelParams` is the pointer `with_params` lends while its array lives, and the
    // node is added inside that closure); the dependency arrays hold the number of nodes given,
    // each a node of this graph; the copies and clears stay inside the buffers allocated for
    // them; `partial_sums(const float *, double *, unsigned long long, unsigned long long)` and
    // `final_sum(const double *, double *, unsigned long long)` get their parameters in order;
    // the caller keeps `record` alive while the graph may run.
    unsafe {
        cu.cuGraphCreate(&mut graph, 0)?;
        cu.cuGraphAddMemcpyNode(
            &mut copy_in,
            graph,
            ptr::null(),
            0,
            &copy_params(w.input_h.cast(), w.input_d, N * size_of::<f32>(), true),
            w.ctx,
        )?;
        cu.cuGraphAddMemsetNode(
            &mut clear_partial,
            graph,
            ptr::null(),
            0,
            &clear_params(w.partial_d, BLOCKS * size_of::<f64>()),
            w.ctx,
        )?;
        let deps = [clear_partial, copy_in];
        first_args.with_params(|params| {
            cu.cuGraphAddKernelNode(
                &mut first,
                graph,
                deps.as_ptr(),
                deps.len(),
                &kernel_params(w.partial_sums, BLOCKS as u32, params),
            )
        })?;
        cu.cuGraphAddMemsetNode(
            &mut clear_result,
            graph,
            ptr::null(),
            0,
            &clear_params(w.result_d, size_of::<f64>()),
            w.ctx,
        )?;
        let deps = [first, clear_result];
        second_args.with_params(|params| {
            cu.cuGraphAddKernelNode(
                &mut second,
                graph,
                deps.as_ptr(),
                deps.len(),
                &kernel_params(w.final_sum, 1, params),
            )
        })?;
        cu.cuGraphAddMemcpyNode(
            &mut copy_out,
            graph,
            &second,
            1,
            &copy_params(w.result_h.cast(), w.result_d, size_of::<f64>(), false),
            w.ctx,
        )?;
        cu.cuGraphAddHostNode(&mut host, graph, &copy_out, 1, &host_params)?;
    }
    Ok(graph)
}

/// The graph captured from three streams.
fn captured_graph(cu: &Cuda, w: &Work, record: &Record) -> Result<sys::CUgraph, Error> {
    let mut graph: sys::CUgraph = ptr::null_mut();
    let (n, blocks) = (N as u64, BLOCKS as u64);
    let user: *mut c_void = ptr::from_ref(record).cast_mut().cast();
    // Each guard destroys its object once, when this returns, after the capture ended: the
    // events, then the streams.
    let stream = || {
        let mut s = ptr::null_mut();
        // SAFETY: a valid place.
        unsafe { cu.cuStreamCreate(&mut s, 0) }?;
        Ok::<_, Error>(guard(s, |s| {
            // SAFETY: created above, once; nothing was executed on it.
            let _ = unsafe { cu.cuStreamDestroy(s) };
        }))
    };
    let event = || {
        let mut e = ptr::null_mut();
        // SAFETY: a valid place.
        unsafe { cu.cuEventCreate(&mut e, 0) }?;
        Ok::<_, Error>(guard(e, |e| {
            // SAFETY: created above, once.
            let _ = unsafe { cu.cuEventDestroy(e) };
        }))
    };
    let streams = [stream()?, stream()?, stream()?];
    let events = [event()?, event()?, event()?];
    let [s1, s2, s3] = [*streams[0], *streams[1], *streams[2]];
    let [fork, cleared_partial, cleared_result] = [*events[0], *events[1], *events[2]];
    // SAFETY: the stream is live and not being captured.
    unsafe {
        cu.cuStreamBeginCapture(s1, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)
    }?;
    // A capture that fails half-way is ended, and what it made destroyed, before the streams go.
    let capturing = guard(s1, |s1| {
        let mut partial = ptr::null_mut();
        // SAFETY: the capture began above and is ended once, here or below.
        unsafe {
            if cu.cuStreamEndCapture(s1, &mut partial).is_ok() && !partial.is_null() {
                let _ = cu.cuGraphDestroy(partial);
            }
        }
    });
    // SAFETY: every out-parameter is a valid place; the copies and clears stay inside the
    // buffers allocated for them (the pinned host buffers included); the kernels get their
    // parameters in order (see `manual_graph`); nothing is executed during the capture, and the
    // caller keeps `record` alive while the graph may run.
    unsafe {
        // s2 and s3 join the capture by waiting for an event of s1.
        cu.cuEventRecord(fork, s1)?;
        cu.cuStreamWaitEvent(s2, fork, 0)?;
        cu.cuStreamWaitEvent(s3, fork, 0)?;
        cu.cuMemcpyHtoDAsync(w.input_d, w.input_h.cast(), N * size_of::<f32>(), s1)?;
        cu.cuMemsetD32Async(w.partial_d, 0, BLOCKS * 2, s2)?;
        cu.cuEventRecord(cleared_partial, s2)?;
        cu.cuMemsetD32Async(w.result_d, 0, 2, s3)?;
        cu.cuEventRecord(cleared_result, s3)?;
        cu.cuStreamWaitEvent(s1, cleared_partial, 0)?;
        kernel_args![&w.input_d, &w.partial_d, &n, &blocks].with_params(|params| {
            cu.cuLaunchKernel(
                w.partial_sums,
                BLOCKS as u32,
                1,
                1,
                THREADS,
                1,
                1,
                0,
                s1,
                params,
                ptr::null_mut(),
            )
        })?;
        cu.cuStreamWaitEvent(s1, cleared_result, 0)?;
        kernel_args![&w.partial_d, &w.result_d, &blocks].with_params(|params| {
            cu.cuLaunchKernel(
                w.final_sum,
                1,
                1,
                1,
                THREADS,
                1,
                1,
                0,
                s1,
                params,
                ptr::null_mut(),
            )
        })?;
        cu.cuMemcpyDtoHAsync(w.result_h.cast(), w.result_d, size_of::<f64>(), s1)?;
        cu.cuLaunchHostFunc(s1, Some(record_result), user)?;
        cu.cuStreamEndCapture(ScopeGuard::into_inner(capturing), &mut graph)?;
    }
    drop((events, streams));
    Ok(graph)
}
