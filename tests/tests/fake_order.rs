//! The fake device's order and initialisation checks (`--features fake`), each planted as the
//! bug it catches beside its control, the same code written correctly, which has no finding: a
//! missing join between two streams (a fork/join with the join's wait removed), a host read of
//! an asynchronous copy's destination before the stream synchronises, a stream-ordered free of
//! memory another stream still uses, stream-ordered memory used on another stream before an
//! event orders it, an upload forgotten before a kernel reads, and the default streams: the
//! legacy one synchronises with blocking streams (not with non-blocking ones), the per-thread
//! one with none. Order is kept per byte: two streams on disjoint halves of one allocation
//! need no order, overlapping ranges do.
#![cfg(feature = "fake")]

use std::ffi::c_void;
use std::ptr::null_mut;

use cuda_driver_table::fake::{Device, Fault, FindingKind, Launch};
use cuda_driver_table::sys::{CUdeviceptr, CUevent, CUfunction, CUmodule, CUstream};
use cuda_driver_table::{driver_table, kernel_args, Error};

#[driver_table(
    cuInit,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuMemAlloc,
    cuMemFree,
    cuMemAllocAsync,
    cuMemFreeAsync,
    cuMemAllocHost,
    cuMemFreeHost,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
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
    driver = 12000
)]
struct Cuda;

type Result<T = (), E = Error> = std::result::Result<T, E>;

/// `CU_STREAM_NON_BLOCKING`.
const NON_BLOCKING: u32 = 1;
/// How many `u32`s each buffer holds.
const N: u32 = 64;
const BYTES: usize = N as usize * 4;

/// A device with the kernels `fill(d, v)` (writes `v` to `N` values) and `add(dst, src)`
/// (`dst[i] += src[i]`).
fn device() -> Device {
    let device = Device::new();
    device.kernel("fill", |k: &mut Launch, (d, v): (CUdeviceptr, u32)| {
        k.write_slice(d, &[v; N as usize])
    });
    device.kernel(
        "add",
        |k: &mut Launch, (dst, src): (CUdeviceptr, CUdeviceptr)| -> Result<(), Fault> {
            let (a, b): (Vec<u32>, Vec<u32>) = (
                k.read_slice(dst, N as usize)?,
                k.read_slice(src, N as usize)?,
            );
            let sum: Vec<u32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            k.write_slice(dst, &sum)
        },
    );
    device
}

/// A test's set-up on the device: the context, the module and its two kernels.
struct Gpu {
    cu: Cuda,
    module: CUmodule,
    fill: CUfunction,
    add: CUfunction,
}

impl Gpu {
    fn new(cu: Cuda) -> Result<Self> {
        let (mut ctx, mut module, mut fill, mut add) =
            (null_mut(), null_mut(), null_mut(), null_mut());
        // SAFETY: valid places; the image is any bytes for the fake.
        unsafe {
            cu.cuInit(0)?;
            cu.cuDevicePrimaryCtxRetain(&mut ctx, 0)?;
            cu.cuCtxSetCurrent(ctx)?;
            cu.cuModuleLoadData(&mut module, c"kernels".as_ptr().cast())?;
            cu.cuModuleGetFunction(&mut fill, module, c"fill".as_ptr())?;
            cu.cuModuleGetFunction(&mut add, module, c"add".as_ptr())?;
        }
        Ok(Self {
            cu,
            module,
            fill,
            add,
        })
    }

    fn stream(&self, flags: u32) -> Result<CUstream> {
        let mut s = null_mut();
        // SAFETY: a valid place.
        unsafe { self.cu.cuStreamCreate(&mut s, flags) }?;
        Ok(s)
    }

    fn event(&self) -> Result<CUevent> {
        let mut e = null_mut();
        // SAFETY: a valid place.
        unsafe { self.cu.cuEventCreate(&mut e, 0) }?;
        Ok(e)
    }

    fn alloc(&self) -> Result<CUdeviceptr> {
        let mut d = 0;
        // SAFETY: a valid place.
        unsafe { self.cu.cuMemAlloc(&mut d, BYTES) }?;
        Ok(d)
    }

    fn fill(&self, d: CUdeviceptr, v: u32, s: CUstream) -> Result {
        kernel_args![&d, &v].with_params(|params| {
            // SAFETY: the array lives through the launch.
            unsafe { self.launch(self.fill, s, params) }
        })
    }

    fn add(&self, dst: CUdeviceptr, src: CUdeviceptr, s: CUstream) -> Result {
        kernel_args![&dst, &src].with_params(|params| {
            // SAFETY: the array lives through the launch.
            unsafe { self.launch(self.add, s, params) }
        })
    }

    /// # Safety
    ///
    /// `params` is a `kernelParams` array alive through the call.
    unsafe fn launch(&self, f: CUfunction, s: CUstream, params: *mut *mut c_void) -> Result {
        // SAFETY: the caller's contract.
        unsafe {
            self.cu
                .cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, null_mut())
        }
    }

    /// `s` waits for what `from` was given so far (an event recorded on `from`).
    fn wait(&self, s: CUstream, from: CUstream) -> Result {
        let e = self.event()?;
        // SAFETY: both are live streams of this context; the event is destroyed once.
        unsafe {
            self.cu.cuEventRecord(e, from)?;
            self.cu.cuStreamWaitEvent(s, e, 0)?;
            self.cu.cuEventDestroy(e)?;
        }
        Ok(())
    }

    fn download(&self, d: CUdeviceptr) -> Result<Vec<u32>> {
        let mut v = vec![0_u32; N as usize];
        // SAFETY: `v` holds `BYTES` bytes.
        unsafe { self.cu.cuMemcpyDtoH(v.as_mut_ptr().cast(), d, BYTES) }?;
        Ok(v)
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

/// The messages of the findings of `kind` that `device` reports, which it then finishes.
fn found(device: Device, kind: FindingKind) -> Vec<String> {
    let report = match device.finish() {
        Ok(()) => return Vec::new(),
        Err(report) => report,
    };
    let all = report.findings().len();
    let found: Vec<String> = report
        .findings()
        .iter()
        .filter(|f| f.kind() == kind)
        .map(|f| f.message().to_owned())
        .collect();
    assert_eq!(found.len(), all, "only findings of that kind: {report}");
    found
}

/// A cudarc-style fork and join: `child` waits for `parent` (the fork), works, and `parent`
/// waits for `child` (the join) before reading what it wrote; `join` false leaves that wait out.
fn fork_join(join: bool) -> Result<Vec<String>> {
    let device = device();
    let gpu = Gpu::new(Cuda::with_config(device.config()))?;
    let (parent, child) = (gpu.stream(NON_BLOCKING)?, gpu.stream(NON_BLOCKING)?);
    let (x, y) = (gpu.alloc()?, gpu.alloc()?);
    gpu.fill(x, 1, parent)?;
    gpu.wait(child, parent)?; // the fork
    gpu.fill(y, 2, child)?;
    if join {
        gpu.wait(parent, child)?;
    }
    gpu.add(x, y, parent)?; // reads y, which the child wrote
                            // SAFETY: a live stream.
    unsafe { gpu.cu.cuStreamSynchronize(parent) }?;
    // The data is always there on the fake, which runs work when it is issued.
    assert_eq!(gpu.download(x)?, vec![3; N as usize]);
    gpu.end(&[parent, child], &[x, y])?;
    Ok(found(device, FindingKind::Hazard))
}

#[test]
fn a_missing_join_between_two_streams_is_a_hazard() -> Result {
    assert_eq!(fork_join(true)?, Vec::<String>::new(), "the control");
    let hazards = fork_join(false)?;
    assert_eq!(hazards.len(), 1, "{hazards:#?}");
    let hazard = &hazards[0];
    assert!(
        hazard.starts_with("hazard: kernel add launched by cuLaunchKernel (call "),
        "{hazard}"
    );
    assert!(
        hazard.contains(" reads the 256-byte allocation at "),
        "{hazard}"
    );
    assert!(hazard.contains("which cuLaunchKernel (call "), "{hazard}");
    assert!(
        hazard.contains("writes, and nothing orders the two: record an event on stream "),
        "{hazard}"
    );
    Ok(())
}

/// A result copied back asynchronously into pinned memory, read by the host with (`sync`) or
/// without the stream's synchronisation.
fn read_back(sync: bool) -> Result<Vec<String>> {
    let device = device();
    let gpu = Gpu::new(Cuda::with_config(device.config()))?;
    let s = gpu.stream(0)?;
    let d = gpu.alloc()?;
    let mut pinned = null_mut();
    gpu.fill(d, 7, s)?;
    // SAFETY: `pinned` is a valid place, and then `BYTES` of pinned memory.
    unsafe {
        gpu.cu.cuMemAllocHost(&mut pinned, BYTES)?;
        gpu.cu.cuMemcpyDtoHAsync(pinned, d, BYTES, s)?;
        if sync {
            gpu.cu.cuStreamSynchronize(s)?;
        }
    }
    // The code under test reads its result here: the test says so.
    let read = device.host_reads(pinned, BYTES);
    assert_eq!(read.is_ok(), sync, "{read:?}");
    // SAFETY: allocated above, freed once.
    unsafe { gpu.cu.cuMemFreeHost(pinned) }?;
    gpu.end(&[s], &[d])?;
    Ok(found(device, FindingKind::Hazard))
}

#[test]
fn a_host_read_before_the_stream_synchronises_is_a_hazard() -> Result {
    assert_eq!(read_back(true)?, Vec::<String>::new(), "the control");
    let hazards = read_back(false)?;
    assert_eq!(hazards.len(), 1, "{hazards:#?}");
    assert!(
        hazards[0].starts_with(
            "hazard: Device::host_reads on the host reads the 256-byte pinned host allocation at "
        ),
        "{}",
        hazards[0]
    );
    assert!(
        hazards[0].contains("which cuMemcpyDtoHAsync (call ")
            && hazards[0].contains("writes, and nothing orders the two: synchronize stream "),
        "{}",
        hazards[0]
    );
    Ok(())
}

/// Stream-ordered memory: allocated on `a`, used on `b` with (`ordered`) or without an event
/// after the allocation, then freed on `a` with or without an event after `b`'s use.
fn stream_ordered(ordered: bool) -> Result<Vec<String>> {
    let device = device();
    let gpu = Gpu::new(Cuda::with_config(device.config()))?;
    let (a, b) = (gpu.stream(NON_BLOCKING)?, gpu.stream(NON_BLOCKING)?);
    let mut d = 0;
    // SAFETY: a valid place.
    unsafe { gpu.cu.cuMemAllocAsync(&mut d, BYTES, a) }?;
    if ordered {
        gpu.wait(b, a)?;
    }
    gpu.fill(d, 1, b)?;
    if ordered {
        gpu.wait(a, b)?;
    }
    // SAFETY: allocated above, freed once.
    unsafe { gpu.cu.cuMemFreeAsync(d, a) }?;
    gpu.end(&[a, b], &[])?;
    Ok(found(device, FindingKind::Hazard))
}

#[test]
fn stream_ordered_memory_used_or_freed_out_of_order_is_a_hazard() -> Result {
    assert_eq!(stream_ordered(true)?, Vec::<String>::new(), "the control");
    let hazards = stream_ordered(false)?;
    assert_eq!(hazards.len(), 2, "{hazards:#?}");
    assert!(
        hazards[0].contains("writes the 256-byte allocation")
            && hazards[0].contains("which cuMemAllocAsync (call ")
            && hazards[0].contains(" allocates, and nothing orders the two"),
        "use before the allocation is ordered: {}",
        hazards[0]
    );
    assert!(
        hazards[1].starts_with("hazard: cuMemFreeAsync (call ")
            && hazards[1].contains(" frees the 256-byte allocation"),
        "a free of memory another stream still uses: {}",
        hazards[1]
    );
    Ok(())
}

/// A kernel that reads its input, uploaded (`upload`) or not.
fn forgotten_upload(upload: bool, zeroed: bool) -> Result<Vec<String>> {
    let device = if zeroed {
        device().with_zeroed_memory()
    } else {
        device()
    };
    let gpu = Gpu::new(Cuda::with_config(device.config()))?;
    let (x, y) = (gpu.alloc()?, gpu.alloc()?);
    let input = [5_u32; N as usize];
    gpu.fill(x, 1, null_mut())?;
    if upload {
        // SAFETY: `input` holds `BYTES` bytes.
        unsafe { gpu.cu.cuMemcpyHtoD(y, input.as_ptr().cast(), BYTES) }?;
    }
    gpu.add(x, y, null_mut())?;
    gpu.download(x)?;
    gpu.end(&[], &[x, y])?;
    Ok(found(device, FindingKind::UninitializedRead))
}

#[test]
fn an_upload_forgotten_before_a_kernel_reads_is_an_uninitialised_read() -> Result {
    assert_eq!(
        forgotten_upload(true, false)?,
        Vec::<String>::new(),
        "the control"
    );
    assert_eq!(
        forgotten_upload(false, true)?,
        Vec::<String>::new(),
        "zeroed memory, asked for"
    );
    let reads = forgotten_upload(false, false)?;
    assert_eq!(reads.len(), 1, "one per allocation and launch: {reads:#?}");
    assert!(
        reads[0].starts_with("uninitialised read: kernel add launched by cuLaunchKernel (call ")
            && reads[0].contains("reads 256 bytes at ")
            && reads[0].contains("that cuMemAlloc (call ")
            && reads[0].contains("its byte 0 was never written"),
        "{}",
        reads[0]
    );
    Ok(())
}

/// A kernel on a stream of `flags` writes; a synchronous copy on the default stream of the
/// table's mode reads it back, with no synchronisation in between.
fn default_stream(flags: u32, per_thread: bool) -> Result<Vec<String>> {
    let device = device();
    let config = device.config();
    let config = if per_thread {
        config.per_thread()
    } else {
        config
    };
    let gpu = Gpu::new(Cuda::with_config(config))?;
    let s = gpu.stream(flags)?;
    let d = gpu.alloc()?;
    gpu.fill(d, 3, s)?;
    assert_eq!(gpu.download(d)?, vec![3; N as usize]);
    gpu.end(&[s], &[d])?;
    Ok(found(device, FindingKind::Hazard))
}

#[test]
fn the_legacy_default_stream_waits_for_blocking_streams_only_and_the_per_thread_one_for_none(
) -> Result {
    assert_eq!(
        default_stream(0, false)?,
        Vec::<String>::new(),
        "legacy: a blocking stream's work comes first"
    );
    let non_blocking = default_stream(NON_BLOCKING, false)?;
    assert_eq!(non_blocking.len(), 1, "{non_blocking:#?}");
    assert!(
        non_blocking[0].contains("on the legacy default stream reads"),
        "{}",
        non_blocking[0]
    );
    let per_thread = default_stream(0, true)?;
    assert_eq!(per_thread.len(), 1, "{per_thread:#?}");
    assert!(
        per_thread[0].contains("on the per-thread default stream reads"),
        "{}",
        per_thread[0]
    );
    Ok(())
}

#[test]
fn the_checks_can_be_turned_off_per_device() -> Result {
    let device = device().check_order(false).check_initialization(false);
    let gpu = Gpu::new(Cuda::with_config(device.config()))?;
    let s = gpu.stream(NON_BLOCKING)?;
    let (x, y) = (gpu.alloc()?, gpu.alloc()?);
    gpu.add(x, y, s)?; // reads never-written memory
    gpu.download(x)?; // without synchronising with `s`
    gpu.end(&[s], &[x, y])?;
    device.finish().map_err(|r| panic!("{r}"))
}

/// What a host function reads: the device, and the pinned result it reads.
struct Reader<'a> {
    device: &'a Device,
    pinned: *mut c_void,
    read: Option<bool>,
}

/// A `cuLaunchHostFunc` function: reads the result, as a stream's work.
unsafe extern "C" fn read_result(data: *mut c_void) {
    // SAFETY: `data` is the `Reader` the launch passed, alive until the stream's work is done
    // (the test synchronises before it ends).
    let reader = unsafe { &mut *data.cast::<Reader<'_>>() };
    reader.read = Some(reader.device.host_reads(reader.pinned, BYTES).is_ok());
}

#[test]
fn a_host_function_is_work_of_its_stream() -> Result {
    let device = device();
    let gpu = Gpu::new(Cuda::with_config(device.config()))?;
    let s = gpu.stream(NON_BLOCKING)?;
    let d = gpu.alloc()?;
    gpu.fill(d, 9, s)?;
    let mut pinned = null_mut();
    // SAFETY: valid places; `BYTES` of pinned memory.
    unsafe {
        gpu.cu.cuMemAllocHost(&mut pinned, BYTES)?;
        gpu.cu.cuMemcpyDtoHAsync(pinned, d, BYTES, s)?;
    }
    let mut reader = Reader {
        device: &device,
        pinned,
        read: None,
    };
    // SAFETY: `reader` outlives the stream's work (synchronised below).
    unsafe {
        gpu.cu
            .cuLaunchHostFunc(s, Some(read_result), (&raw mut reader).cast())?;
    }
    // In the stream, after the copy: ordered.
    assert_eq!(reader.read, Some(true));
    // On the host, before synchronising: not.
    assert!(device.host_reads(pinned, BYTES).is_err());
    // SAFETY: a live stream; `pinned` freed once.
    unsafe {
        gpu.cu.cuStreamSynchronize(s)?;
        gpu.cu.cuMemFreeHost(pinned)?;
    }
    gpu.end(&[s], &[d])?;
    assert_eq!(found(device, FindingKind::Hazard).len(), 1);
    Ok(())
}

/// Two streams each set one half of one allocation (`overlap`: the second's half starts one
/// value early, on the first's last value, and leaves the last unset), then the first joins the
/// second and copies back what they set.
fn halves(overlap: bool) -> Result<Vec<String>> {
    let device = device();
    let gpu = Gpu::new(Cuda::with_config(device.config()))?;
    let (s1, s2) = (gpu.stream(NON_BLOCKING)?, gpu.stream(NON_BLOCKING)?);
    let d = gpu.alloc()?;
    let half = N as usize / 2;
    let second = d + (BYTES / 2) as u64 - if overlap { 4 } else { 0 };
    let set = BYTES - if overlap { 4 } else { 0 };
    let mut back = vec![0_u32; N as usize];
    // SAFETY: both ranges lie in the allocation; `back` holds `BYTES` bytes and outlives the
    // copy, which the synchronisation ends.
    unsafe {
        gpu.cu.cuMemsetD32Async(d, 1, half, s1)?;
        gpu.cu.cuMemsetD32Async(second, 2, half, s2)?;
    }
    gpu.wait(s1, s2)?; // the join
                       // SAFETY: as above.
    unsafe {
        gpu.cu
            .cuMemcpyDtoHAsync(back.as_mut_ptr().cast(), d, set, s1)?;
        gpu.cu.cuStreamSynchronize(s1)?;
    }
    assert_eq!(back[..half - 1], vec![1; half - 1]);
    assert_eq!(back[half..set / 4], vec![2; set / 4 - half]);
    gpu.end(&[s1, s2], &[d])?;
    Ok(found(device, FindingKind::Hazard))
}

#[test]
fn streams_on_disjoint_ranges_of_one_allocation_need_no_order_and_overlapping_ones_do() -> Result {
    assert_eq!(halves(false)?, Vec::<String>::new(), "disjoint halves");
    let hazards = halves(true)?;
    assert_eq!(hazards.len(), 1, "{hazards:#?}");
    let hazard = &hazards[0];
    assert!(
        hazard.starts_with("hazard: cuMemsetD32Async (call "),
        "{hazard}"
    );
    assert!(
        hazard.contains(" writes the 256-byte allocation at "),
        "{hazard}"
    );
    assert!(
        hazard.contains("(its bytes 124 to 252), which cuMemsetD32Async (call "),
        "{hazard}"
    );
    assert_eq!(
        hazard.matches("cuMemsetD32Async (call ").count(),
        2,
        "{hazard}"
    );
    Ok(())
}
