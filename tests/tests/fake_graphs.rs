//! CUDA graphs on the fake device (`--features fake`): a stream's work captured into a graph runs
//! when the graph is launched, not before, and computes what the same work issued to the stream
//! computes; a graph built node by node runs its nodes in their order; a graph's launch is work of
//! its stream, so a launch that reads what another stream wrote without an event is a hazard and
//! the same launch after `cuStreamWaitEvent` is clean; a node is checked when its graph runs, as
//! the call it was made from; a graph or graph exec left when its context ends is a leak named by
//! the call that made it; synchronising a capturing stream, or work on the legacy default stream
//! while a blocking stream captures, fails as the driver's error and invalidates the capture.
#![cfg(feature = "fake")]

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};

use cuda_driver_table::fake::{Device, Fault, FindingKind, Launch};
use cuda_driver_table::sys::{
    CUdeviceptr, CUfunction, CUgraph, CUgraphExec, CUgraphNode, CUmodule, CUresult, CUstream,
    CUstreamCaptureMode, CUstreamCaptureStatus, CUDA_KERNEL_NODE_PARAMS, CUDA_MEMSET_NODE_PARAMS,
};
use cuda_driver_table::{driver_table, kernel_args, Error};

#[driver_table(
    cuInit,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyHtoD,
    cuMemcpyHtoDAsync,
    cuMemcpyDtoHAsync,
    cuMemsetD32Async,
    cuStreamCreate,
    cuStreamDestroy,
    cuStreamSynchronize,
    cuStreamWaitEvent,
    cuEventCreate,
    cuEventRecord,
    cuEventDestroy,
    cuModuleLoadData,
    cuModuleGetFunction,
    cuModuleUnload,
    cuLaunchKernel,
    cuLaunchHostFunc,
    cuStreamBeginCapture,
    cuStreamEndCapture,
    cuStreamIsCapturing,
    cuGraphCreate,
    cuGraphAddKernelNode,
    cuGraphAddMemsetNode,
    cuGraphInstantiate,
    cuGraphLaunch,
    cuGraphExecDestroy,
    cuGraphDestroy,
    driver = 12000
)]
struct Cuda;

type Result<T = (), E = Error> = std::result::Result<T, E>;

/// `CU_STREAM_NON_BLOCKING`.
const NON_BLOCKING: u32 = 1;
const N: usize = 64;
const BYTES: usize = N * 4;

/// A device with the kernel `axpy(y, x, a)`: `y[i] += a * x[i]` for `N` values.
fn device() -> Device {
    let device = Device::new();
    device.kernel(
        "axpy",
        |k: &mut Launch, (y, x, a): (CUdeviceptr, CUdeviceptr, u32)| -> Result<(), Fault> {
            let (ys, xs): (Vec<u32>, Vec<u32>) = (k.read_slice(y, N)?, k.read_slice(x, N)?);
            let out: Vec<u32> = ys.iter().zip(&xs).map(|(y, x)| y + a * x).collect();
            k.write_slice(y, &out)
        },
    );
    device
}

/// A test's set-up: the context, the module and `axpy`.
struct Gpu {
    cu: Cuda,
    module: CUmodule,
    axpy: CUfunction,
}

impl Gpu {
    fn new(device: &Device) -> Result<Self> {
        let cu = Cuda::with_config(device.config());
        let (mut ctx, mut module, mut axpy) = (null_mut(), null_mut(), null_mut());
        // SAFETY: valid places; the image is any bytes for the fake.
        unsafe {
            cu.cuInit(0)?;
            cu.cuDevicePrimaryCtxRetain(&mut ctx, 0)?;
            cu.cuCtxSetCurrent(ctx)?;
            cu.cuModuleLoadData(&mut module, c"kernels".as_ptr().cast())?;
            cu.cuModuleGetFunction(&mut axpy, module, c"axpy".as_ptr())?;
        }
        Ok(Self { cu, module, axpy })
    }

    fn stream(&self, flags: u32) -> Result<CUstream> {
        let mut s = null_mut();
        // SAFETY: a valid place.
        unsafe { self.cu.cuStreamCreate(&mut s, flags) }?;
        Ok(s)
    }

    fn alloc(&self) -> Result<CUdeviceptr> {
        let mut d = 0;
        // SAFETY: a valid place.
        unsafe { self.cu.cuMemAlloc(&mut d, BYTES) }?;
        Ok(d)
    }

    fn axpy(&self, y: CUdeviceptr, x: CUdeviceptr, a: u32, s: CUstream) -> Result {
        kernel_args![&y, &x, &a].with_params(|params| {
            // SAFETY: the array lives through the launch.
            unsafe {
                self.cu
                    .cuLaunchKernel(self.axpy, 1, 1, 1, 64, 1, 1, 0, s, params, null_mut())
            }
        })
    }

    /// `s` waits for what `from` was given so far.
    fn wait(&self, s: CUstream, from: CUstream) -> Result {
        let mut e = null_mut();
        // SAFETY: both are live streams of this context; the event is destroyed once.
        unsafe {
            self.cu.cuEventCreate(&mut e, 0)?;
            self.cu.cuEventRecord(e, from)?;
            self.cu.cuStreamWaitEvent(s, e, 0)?;
            self.cu.cuEventDestroy(e)?;
        }
        Ok(())
    }

    fn capture_status(&self, s: CUstream) -> Result<CUstreamCaptureStatus> {
        let mut status = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        // SAFETY: a live stream, a valid place.
        unsafe { self.cu.cuStreamIsCapturing(s, &mut status) }?;
        Ok(status)
    }

    fn instantiate(&self, graph: CUgraph) -> Result<CUgraphExec> {
        let mut exec = null_mut();
        // SAFETY: a live graph, a valid place.
        unsafe {
            self.cu
                .cuGraphInstantiate(&mut exec, graph, null_mut(), null_mut(), 0)
        }?;
        Ok(exec)
    }

    fn end(self, streams: &[CUstream], buffers: &[CUdeviceptr]) -> Result {
        // SAFETY: each is live and released once.
        unsafe {
            for &s in streams {
                self.cu.cuStreamDestroy(s)?;
            }
            for &d in buffers {
                self.cu.cuMemFree(d)?;
            }
            self.cu.cuModuleUnload(self.module)?;
            self.cu.cuDevicePrimaryCtxRelease(0)?;
        }
        Ok(())
    }
}

/// Finishes `device`, failing the test with its report if it found anything.
fn clean(device: Device) {
    if let Err(report) = device.finish() {
        panic!("{report}");
    }
}

/// A `cuLaunchHostFunc` function: counts its calls in the `AtomicUsize` at `data`.
unsafe extern "C" fn count(data: *mut c_void) {
    // SAFETY: `data` is the test's counter, alive while its work runs.
    unsafe { &*data.cast::<AtomicUsize>() }.fetch_add(1, Ordering::Relaxed);
}

/// The work of the tests: `x` and `y` uploaded, `y = 1 + 3x` (a set, `axpy`), the result copied
/// back into `back`, and a host function counting into `counter`: all on `s`.
///
/// # Safety
///
/// `back` is valid for writes of `N` values whenever the work runs (until `s` is synchronised
/// after it, or after each launch of a graph it is captured into); so are `input` and `counter`.
unsafe fn work(
    gpu: &Gpu,
    s: CUstream,
    (x, y): (CUdeviceptr, CUdeviceptr),
    input: &[u32],
    back: *mut u32,
    counter: &AtomicUsize,
) -> Result {
    // SAFETY: `input` holds `BYTES` bytes; `back` too (the caller's contract); each is valid
    // whenever the work runs, as `counter` is.
    unsafe {
        gpu.cu
            .cuMemcpyHtoDAsync(x, input.as_ptr().cast(), BYTES, s)?;
        gpu.cu.cuMemsetD32Async(y, 1, N, s)?;
        gpu.axpy(y, x, 3, s)?;
        gpu.cu.cuMemcpyDtoHAsync(back.cast(), y, BYTES, s)?;
        let counter: *const AtomicUsize = counter;
        gpu.cu
            .cuLaunchHostFunc(s, Some(count), counter.cast_mut().cast())?;
    }
    Ok(())
}

#[test]
fn a_captured_graph_runs_when_launched_and_computes_what_the_stream_work_does() -> Result {
    let device = device();
    let gpu = Gpu::new(&device)?;
    let s = gpu.stream(NON_BLOCKING)?;
    let (x, y) = (gpu.alloc()?, gpu.alloc()?);
    let input: Vec<u32> = (0..N as u32).collect();
    let expected: Vec<u32> = input.iter().map(|v| 1 + 3 * v).collect();
    let counter = AtomicUsize::new(0);

    // The work issued to the stream.
    let mut direct = vec![0_u32; N];
    // SAFETY: `direct` is live until the synchronisation below, and not touched before it.
    unsafe { work(&gpu, s, (x, y), &input, direct.as_mut_ptr(), &counter) }?;
    // SAFETY: a live stream.
    unsafe { gpu.cu.cuStreamSynchronize(s) }?;
    assert_eq!(direct, expected);
    assert_eq!(counter.load(Ordering::Relaxed), 1);

    // The same work captured: recorded, not run.
    let mut graph: CUgraph = null_mut();
    // What a graph writes into is reached only through the pointer it was given (the host's own
    // accesses reborrow it), as the graph may write it at each launch.
    let captured: *mut [u32] = Box::into_raw(vec![0_u32; N].into_boxed_slice());
    // SAFETY: a live stream; a valid place.
    unsafe {
        gpu.cu
            .cuStreamBeginCapture(s, CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    }
    assert_eq!(
        gpu.capture_status(s)?,
        CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE
    );
    // SAFETY: `captured` lives until the graph is destroyed, and each launch is synchronised.
    unsafe { work(&gpu, s, (x, y), &input, captured.cast(), &counter) }?;
    // SAFETY: as above.
    unsafe { gpu.cu.cuStreamEndCapture(s, &mut graph) }?;
    assert!(!graph.is_null());
    assert_eq!(
        gpu.capture_status(s)?,
        CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
    );
    // SAFETY: `captured` is live, and nothing writes it now.
    let before = unsafe { &*captured };
    assert_eq!(before, [0; N], "nothing ran during the capture");
    assert_eq!(counter.load(Ordering::Relaxed), 1);

    // Launched twice: the work runs each time, in its order.
    let exec = gpu.instantiate(graph)?;
    for launches in 2..4 {
        // SAFETY: as above.
        unsafe { &mut *captured }.fill(0);
        // SAFETY: live handles; what the graph names outlives the launch (synchronised).
        unsafe {
            gpu.cu.cuGraphLaunch(exec, s)?;
            gpu.cu.cuStreamSynchronize(s)?;
        }
        // SAFETY: as above.
        assert_eq!(unsafe { &*captured }, &direct[..]);
        assert_eq!(counter.load(Ordering::Relaxed), launches);
    }
    // SAFETY: each destroyed once; `captured` freed once, the graph gone.
    unsafe {
        gpu.cu.cuGraphExecDestroy(exec)?;
        gpu.cu.cuGraphDestroy(graph)?;
        drop(Box::from_raw(captured));
    }
    gpu.end(&[s], &[x, y])?;
    clean(device);
    Ok(())
}

#[test]
fn a_graph_built_node_by_node_runs_its_nodes_in_their_order() -> Result {
    let device = device();
    let gpu = Gpu::new(&device)?;
    let s = gpu.stream(NON_BLOCKING)?;
    let (x, y) = (gpu.alloc()?, gpu.alloc()?);
    let input: Vec<u32> = (0..N as u32).collect();
    // SAFETY: `input` holds `BYTES` bytes.
    unsafe { gpu.cu.cuMemcpyHtoD(x, input.as_ptr().cast(), BYTES) }?;
    let mut graph: CUgraph = null_mut();
    let (mut set, mut first, mut second): (CUgraphNode, CUgraphNode, CUgraphNode) =
        (null_mut(), null_mut(), null_mut());
    let memset = CUDA_MEMSET_NODE_PARAMS {
        dst: y,
        pitch: 0,
        value: 5,
        elementSize: 4,
        width: N,
        height: 1,
    };
    // Two launches of `axpy`, `y += 2x` then `y += 10x`, each with its own parameters.
    let (mut yp, mut xp, mut a, mut b) = (y, x, 2_u32, 10_u32);
    let mut params = [
        [
            (&raw mut yp).cast(),
            (&raw mut xp).cast(),
            (&raw mut a).cast(),
        ],
        [
            (&raw mut yp).cast(),
            (&raw mut xp).cast(),
            (&raw mut b).cast(),
        ],
    ];
    let kernel = |params: &mut [*mut c_void; 3]| CUDA_KERNEL_NODE_PARAMS {
        func: gpu.axpy,
        gridDimX: 1,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: 64,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: 0,
        kernelParams: params.as_mut_ptr(),
        ..Default::default()
    };
    let (k1, k2) = {
        let [p1, p2] = &mut params;
        (kernel(p1), kernel(p2))
    };
    // SAFETY: valid places and parameters; each node's dependencies are nodes of the graph.
    unsafe {
        gpu.cu.cuGraphCreate(&mut graph, 0)?;
        gpu.cu
            .cuGraphAddMemsetNode(&mut set, graph, null_mut(), 0, &memset, null_mut())?;
        gpu.cu
            .cuGraphAddKernelNode(&mut first, graph, &set, 1, &k1)?;
        gpu.cu
            .cuGraphAddKernelNode(&mut second, graph, &first, 1, &k2)?;
    }
    // The parameters were copied when the nodes were made: what their places hold later is not
    // what runs.
    for p in &params {
        // SAFETY: `p[2]` points to `a` or `b`, live `u32`s.
        unsafe { p[2].cast::<u32>().write(0) };
    }
    let exec = gpu.instantiate(graph)?;
    let mut back = vec![0_u32; N];
    // SAFETY: live handles; `back` outlives the copy (synchronised).
    unsafe {
        gpu.cu.cuGraphLaunch(exec, s)?;
        gpu.cu
            .cuMemcpyDtoHAsync(back.as_mut_ptr().cast(), y, BYTES, s)?;
        gpu.cu.cuStreamSynchronize(s)?;
    }
    let expected: Vec<u32> = input.iter().map(|v| 5 + 2 * v + 10 * v).collect();
    assert_eq!(back, expected);
    // SAFETY: each destroyed once.
    unsafe {
        gpu.cu.cuGraphExecDestroy(exec)?;
        gpu.cu.cuGraphDestroy(graph)?;
    }
    gpu.end(&[s], &[x, y])?;
    clean(device);
    Ok(())
}

/// Stream `a` sets `x`; a graph that reads `x` (captured on a third stream) is launched on
/// stream `b`, after an event that orders it (`ordered`) or not; the messages of the hazards.
fn launch_after_another_stream(ordered: bool) -> Result<Vec<String>> {
    let device = device();
    let gpu = Gpu::new(&device)?;
    let (a, b, c) = (
        gpu.stream(NON_BLOCKING)?,
        gpu.stream(NON_BLOCKING)?,
        gpu.stream(NON_BLOCKING)?,
    );
    let (x, y) = (gpu.alloc()?, gpu.alloc()?);
    let mut graph: CUgraph = null_mut();
    // SAFETY: live streams, valid places.
    unsafe {
        gpu.cu
            .cuStreamBeginCapture(c, CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        gpu.cu.cuMemsetD32Async(y, 0, N, c)?;
        gpu.axpy(y, x, 1, c)?;
        gpu.cu.cuStreamEndCapture(c, &mut graph)?;
    }
    let exec = gpu.instantiate(graph)?;
    // SAFETY: live handles.
    unsafe { gpu.cu.cuMemsetD32Async(x, 4, N, a) }?;
    if ordered {
        gpu.wait(b, a)?;
    }
    // SAFETY: live handles; each destroyed once.
    unsafe {
        gpu.cu.cuGraphLaunch(exec, b)?;
        gpu.cu.cuStreamSynchronize(b)?;
        gpu.cu.cuStreamSynchronize(a)?;
        gpu.cu.cuGraphExecDestroy(exec)?;
        gpu.cu.cuGraphDestroy(graph)?;
    }
    gpu.end(&[a, b, c], &[x, y])?;
    let report = match device.finish() {
        Ok(()) => return Ok(Vec::new()),
        Err(report) => report,
    };
    assert!(
        report
            .findings()
            .iter()
            .all(|f| f.kind() == FindingKind::Hazard),
        "{report}"
    );
    Ok(report
        .findings()
        .iter()
        .map(|f| f.message().to_owned())
        .collect())
}

#[test]
fn a_graph_launch_is_work_of_its_stream_for_the_order_check() -> Result {
    assert_eq!(
        launch_after_another_stream(true)?,
        Vec::<String>::new(),
        "ordered by an event"
    );
    let hazards = launch_after_another_stream(false)?;
    assert_eq!(hazards.len(), 1, "{hazards:#?}");
    let hazard = &hazards[0];
    assert!(
        hazard.starts_with("hazard: kernel axpy launched by cuGraphLaunch (call "),
        "{hazard}"
    );
    assert!(
        hazard.contains(" reads the 256-byte allocation at "),
        "{hazard}"
    );
    assert!(hazard.contains("which cuMemsetD32Async (call "), "{hazard}");
    assert!(hazard.contains("record an event on stream "), "{hazard}");
    Ok(())
}

#[test]
fn graphs_left_when_their_context_ends_are_leaks_named_by_their_calls() -> Result {
    let device = device();
    let gpu = Gpu::new(&device)?;
    let mut graph: CUgraph = null_mut();
    // SAFETY: a valid place.
    unsafe { gpu.cu.cuGraphCreate(&mut graph, 0) }?;
    let _exec = gpu.instantiate(graph)?;
    let live = device.check().expect_err("two live handles");
    let messages: Vec<&str> = live.findings().iter().map(|f| f.message()).collect();
    assert!(
        messages.iter().any(|m| m.starts_with("leak: graph ")
            && m.contains(" that cuGraphCreate (call ")
            && m.ends_with("was never destroyed (cuGraphDestroy)")),
        "{live}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("leak: graph exec ")
                && m.contains(" that cuGraphInstantiate (call ")),
        "{live}"
    );
    gpu.end(&[], &[])?;
    let report = device.finish().expect_err("leaks");
    let leaks: Vec<&str> = report.findings().iter().map(|f| f.message()).collect();
    assert_eq!(leaks.len(), 2, "{report}");
    assert!(
        leaks[0].starts_with("leak: graph ")
            && leaks[0].contains("was still live when cuDevicePrimaryCtxRelease (call ")
            && leaks[0].ends_with("destroyed its context (cuGraphDestroy)"),
        "{report}"
    );
    assert!(
        leaks[1].starts_with("leak: graph exec ") && leaks[1].ends_with("(cuGraphExecDestroy)"),
        "{report}"
    );
    Ok(())
}

#[test]
fn synchronising_during_a_capture_is_the_drivers_error_and_invalidates_it() -> Result {
    let device = device();
    let gpu = Gpu::new(&device)?;
    let s = gpu.stream(NON_BLOCKING)?;
    let code = |r: Result| r.err().and_then(|e| e.code());
    let mut graph: CUgraph = null_mut();
    let mode = CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL;
    // SAFETY: a live stream.
    unsafe { gpu.cu.cuStreamBeginCapture(s, mode) }?;
    // SAFETY: as above.
    let sync = code(unsafe { gpu.cu.cuStreamSynchronize(s) });
    assert_eq!(
        sync,
        Some(CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED.0)
    );
    assert_eq!(
        gpu.capture_status(s)?,
        CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_INVALIDATED
    );
    // SAFETY: as above, and a valid place.
    let end = code(unsafe { gpu.cu.cuStreamEndCapture(s, &mut graph) });
    assert_eq!(end, Some(CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.0));
    assert!(graph.is_null());

    // A blocking stream's capture forbids the legacy default stream's work (it would wait).
    let blocking = gpu.stream(0)?;
    let x = gpu.alloc()?;
    let input = [0_u32; N];
    // SAFETY: live handles; `input` holds `BYTES` bytes.
    unsafe { gpu.cu.cuStreamBeginCapture(blocking, mode) }?;
    // SAFETY: as above.
    let upload = code(unsafe { gpu.cu.cuMemcpyHtoD(x, input.as_ptr().cast(), BYTES) });
    assert_eq!(upload, Some(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT.0));
    // SAFETY: as above.
    let end = code(unsafe { gpu.cu.cuStreamEndCapture(blocking, &mut graph) });
    assert_eq!(end, Some(CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.0));
    // With no capture, the same upload runs.
    // SAFETY: as above.
    unsafe { gpu.cu.cuMemcpyHtoD(x, input.as_ptr().cast(), BYTES) }?;
    gpu.end(&[s, blocking], &[x])?;
    clean(device);
    Ok(())
}

#[test]
fn a_node_is_checked_when_its_graph_runs() -> Result {
    let device = device();
    let gpu = Gpu::new(&device)?;
    let s = gpu.stream(NON_BLOCKING)?;
    let y = gpu.alloc()?;
    let mut graph: CUgraph = null_mut();
    let mode = CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL;
    // SAFETY: a live stream, a valid place.
    unsafe {
        gpu.cu.cuStreamBeginCapture(s, mode)?;
        gpu.cu.cuMemsetD32Async(y, 1, N, s)?;
        gpu.cu.cuStreamEndCapture(s, &mut graph)?;
    }
    let exec = gpu.instantiate(graph)?;
    // The memory the set node names is freed before the graph runs.
    // SAFETY: freed once.
    unsafe { gpu.cu.cuMemFree(y) }?;
    // SAFETY: live handles.
    let error = unsafe { gpu.cu.cuGraphLaunch(exec, s) }.unwrap_err();
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    let message = error.to_string();
    assert!(message.contains("cuGraphLaunch (call "), "{message}");
    assert!(message.contains("the graph's set node 1"), "{message}");
    // SAFETY: each destroyed once.
    unsafe {
        gpu.cu.cuGraphExecDestroy(exec)?;
        gpu.cu.cuGraphDestroy(graph)?;
    }
    gpu.end(&[s], &[])?;
    let report = device.finish().unwrap_err();
    assert_eq!(report.findings().len(), 1, "{report}");
    assert_eq!(report.findings()[0].kind(), FindingKind::UseAfterFree);
    Ok(())
}
