//! The fake device: memory, contexts, streams, events, modules and kernels on the CPU, answering
//! the driver functions [`Device`] lists, checked as compute-sanitizer's memcheck and leak check
//! check a GPU.

use std::alloc::Layout;
use std::any::Any;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use cuda_driver_table_core::stand_in::{self as out, OutPlace};
use cuda_driver_table_core::sys::{
    self, CUcontext, CUdeviceptr, CUevent, CUfunction, CUmodule, CUresult, CUstream,
};
use cuda_driver_table_core::Config;

use crate::failure;
use crate::kernel::{self, Dim3, Fault, KernelFn, KernelParams, Launch, RawParams};
use crate::Fake;

/// `"s"` for a count other than one: "1 byte", "2 bytes".
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Where a device's memory starts: far above every host address (user space ends below
/// `0x0000_8000_0000_0000` on the 64-bit targets), so a device pointer used as a host pointer is
/// caught, not silently read. Each device gets its own 2^40 bytes.
const MEMORY_BASE: u64 = 0xd000_0000_0000_0000;
/// Allocations start at multiples of this, with at least this much unallocated between two.
const ALIGN: u64 = 0x1000;
/// Where a device's handles start (contexts, streams, ...): not host addresses either.
const HANDLE_BASE: usize = 0xc000_0000_0000_0000;
/// The memory a device has unless told otherwise ([`Device::with_memory`]).
const DEFAULT_MEMORY: usize = 4 << 30;

/// What the fake clock charges: each operation this, plus one nanosecond per this many bytes
/// or threads.
const OP_NS: u64 = 1_000;
const BYTES_PER_NS: u64 = 10;
/// What `cuMemAllocPitch` rounds a row's width up to, as a GPU's driver does.
const PITCH_ALIGN: usize = 512;

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A number of bytes as the findings write it: "1 byte", "64 bytes".
struct Bytes<T>(T);

impl<T: PartialEq + From<u8>> Bytes<T> {
    /// The verb that agrees with it: "1 byte ... was", "64 bytes ... were".
    fn were(&self) -> &'static str {
        if self.0 == T::from(1) {
            "was"
        } else {
            "were"
        }
    }
}

impl<T: fmt::Display + PartialEq + From<u8>> fmt::Display for Bytes<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.0 == T::from(1) {
            "byte"
        } else {
            "bytes"
        };
        write!(f, "{} {unit}", self.0)
    }
}

/// A fake CUDA device for tests: memory the device owns, contexts, streams, events, modules and
/// kernels written as Rust closures, answering the driver functions below for every table made
/// with its configuration ([`config`](Self::config), or [`Fake::device`] to combine it with fakes
/// of your own). Each call is checked as compute-sanitizer checks it on a GPU, and what it finds
/// is a failing call *and* a [`Finding`]; what is still live when the test asks
/// ([`check`](Self::check), [`finish`](Self::finish)) or when the device is dropped is a leak.
///
/// - **Memory**: `cuMemAlloc`, `cuMemFree`, `cuMemAllocAsync`, `cuMemFreeAsync`,
///   `cuMemAllocFromPoolAsync` (any pool), `cuMemAllocHost`, `cuMemHostAlloc`, `cuMemFreeHost`,
///   `cuMemcpy`, `cuMemcpyHtoD`, `cuMemcpyDtoH`, `cuMemcpyDtoD` and their `Async` forms,
///   `cuMemsetD8`/`D16`/`D32` and their `Async` forms, `cuMemGetInfo`, `cuMemGetAddressRange`.
///   Device memory lives in the device (zeroed when allocated); device pointers are high
///   addresses (`0xd000…`) that are never host addresses, with unallocated gaps between
///   allocations, and an address is never handed out twice, so a stale pointer is always caught.
///   Host memory (`cuMemAllocHost`) is real memory of the process.
/// - **Contexts**: `cuInit` (required first, as by the driver), `cuDeviceGet`,
///   `cuDeviceGetCount` (one device), `cuDeviceGetName`, `cuDeviceGetAttribute`,
///   `cuDeviceTotalMem`, `cuDriverGetVersion`, `cuDevicePrimaryCtxRetain`/`Release`/`Reset`,
///   `cuCtxCreate`, `cuCtxDestroy`, `cuCtxSetCurrent`, `cuCtxGetCurrent`, `cuCtxPushCurrent`,
///   `cuCtxPopCurrent`, `cuCtxGetDevice`, `cuCtxSynchronize`. The current context is per thread,
///   as in the driver; memory, streams, events and modules belong to the context current when
///   they were made.
/// - **Streams and events**: `cuStreamCreate`, `cuStreamCreateWithPriority`, `cuStreamDestroy`,
///   `cuStreamSynchronize`, `cuStreamQuery`, `cuStreamWaitEvent`, `cuEventCreate`,
///   `cuEventDestroy`, `cuEventRecord`, `cuEventRecordWithFlags`, `cuEventSynchronize`,
///   `cuEventQuery`, `cuEventElapsedTime`. Work runs when it is issued, in each stream's order
///   ([`work`](Self::work) lists it); a fake clock gives each operation a duration (1 µs plus
///   1 ns per 10 bytes or threads), streams advance by it, the legacy default stream waits for
///   the other blocking streams and they for it, `cuStreamWaitEvent` waits for the event's time,
///   so `cuEventElapsedTime` gives the same answer on every run.
/// - **Modules and kernels**: `cuModuleLoadData`, `cuModuleLoadDataEx` (any image: the code is
///   the closures), `cuModuleUnload`, `cuModuleGetFunction` (finds a kernel registered with
///   [`kernel`](Self::kernel) by name, `CUDA_ERROR_NOT_FOUND` otherwise), `cuLaunchKernel` (runs
///   the closure once, with the launch's [`Launch`] and its decoded parameters),
///   `cuLaunchKernelEx` (its attributes are not read), `cuLaunchHostFunc` (runs the function
///   when issued), `cuOccupancyMaxActiveBlocksPerMultiprocessor` and
///   `cuOccupancyMaxPotentialBlockSize` (plausible numbers, the same every time).
/// - **Pitched 2D memory**: `cuMemAllocPitch` (rows padded to 512 bytes), `cuMemcpy2D`,
///   `cuMemcpy2DUnaligned`, `cuMemcpy2DAsync` (host, device and unified sides; the fake has no
///   CUDA arrays), `cuMemsetD2D8`/`D2D16`/`D2D32` and their `Async` forms. Each side of a 2D
///   copy or set is checked whole, from its first row's start to its last row's end, before a
///   byte moves, and a pitch narrower than a row is refused.
/// - **Peer copies**: `cuMemcpyPeer`, `cuMemcpyPeerAsync`, between contexts of the one device.
///
/// The checks, each naming the call, the pointer, the allocation's size and the call that made
/// it (see [`FindingKind`]): a copy, set or kernel access outside an allocation, use after
/// free, double free, freeing what was never allocated (or not its start), a host pointer that
/// is a device pointer, a destroyed or unknown context, stream, event, module or function
/// (`CUDA_ERROR_INVALID_CONTEXT`, `CUDA_ERROR_INVALID_HANDLE`), a launch whose
/// [`kernel_args!`](crate::kernel_args!) are not its kernel's parameters (another number of
/// values, or a value of another size: a `usize` for a `u32`), and leaks: device memory still
/// allocated when its context is destroyed (as the leak check reports it), and, when checked,
/// every allocation, pinned host allocation, context, stream, event and module still live. The
/// error of a failing call carries its finding as its description.
///
/// **On drop**, a device that was not [`finish`](Self::finish)ed checks itself: what it finds
/// fails the test (a panic with the report), unless the thread is panicking already (then the
/// report is printed to standard error, and the first panic stays the test's failure). So a test
/// needs no line at all for "no leaks"; `device.finish()?` says it explicitly.
///
/// A device lives on in the drivers made with it (a driver lives for the process); kernels run
/// with the device locked, so a kernel's closure must not call a table of its own device.
pub struct Device {
    shared: Shared,
    finished: bool,
}

impl Default for Device {
    fn default() -> Self {
        Self::new()
    }
}

impl Device {
    /// A device with 4 GiB of memory, nothing allocated, no kernels.
    pub fn new() -> Self {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let base = MEMORY_BASE + ((id % 0x1000) << 40);
        Self {
            shared: Shared(Arc::new(Inner {
                id,
                state: Mutex::new(State::new(base)),
                kernels: RwLock::new(HashMap::new()),
                next_handle: AtomicUsize::new(0),
            })),
            finished: false,
        }
    }

    /// The device's memory, in bytes (what `cuMemGetInfo` and `cuDeviceTotalMem` answer): an
    /// allocation beyond what is free fails with `CUDA_ERROR_OUT_OF_MEMORY`.
    #[must_use]
    pub fn with_memory(self, bytes: usize) -> Self {
        self.shared.state().memory.total = bytes;
        self
    }

    /// Registers the kernel `name` (as `cuModuleGetFunction` looks it up, in any module) as
    /// `body`, which is called once per launch with the [`Launch`] (geometry, memory) and the
    /// kernel's parameters, typed: `P` is the kernel's signature as a tuple, decoded from the
    /// launch's `kernelParams` (`|k, (a, b, n): (CUdeviceptr, CUdeviceptr, u32)| ...`). A kernel
    /// registered again under the same name replaces the first.
    ///
    /// The types are the kernel's signature: a launch of this kernel must pass exactly these
    /// parameters, as `cuLaunchKernel`'s contract asks of any kernel. A launch whose
    /// `kernelParams` come from [`kernel_args!`](crate::kernel_args!) is checked against them
    /// (as many values, each of its parameter's size) before the kernel runs, and fails as a
    /// [`FindingKind::ParameterMismatch`] when they differ; an array built by hand is trusted.
    pub fn kernel<P, F>(&self, name: &str, body: F) -> &Self
    where
        P: KernelParams,
        F: Fn(&mut Launch<'_>, P) -> Result<(), Fault> + Send + Sync + 'static,
    {
        let kernel = Kernel {
            body: kernel::erase::<P, F>(body).into(),
            sizes: P::SIZES,
            types: P::type_names,
        };
        self.shared
            .0
            .kernels
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned(), kernel);
        self
    }

    /// The configuration of tables on this device alone: `Cuda::with_config(device.config())`.
    /// It is [`Fake::new().device(&device).build().config()`](Fake::device): functions the
    /// device does not implement fail to resolve, naming themselves. Each call makes a driver
    /// (which lives for the process): call it once per test.
    pub fn config(&self) -> Config {
        Fake::new().device(self).build().config()
    }

    /// What the device found so far (every failing call's [`Finding`]) and, as leaks, everything
    /// still live: `Ok` when there is nothing. The device stays usable.
    ///
    /// # Errors
    ///
    /// The [`Report`] of what was found.
    pub fn check(&self) -> Result<(), Report> {
        let report = self.shared.state().report();
        if report.findings.is_empty() {
            Ok(())
        } else {
            Err(report)
        }
    }

    /// [`check`](Self::check), once, at the end of a test: `device.finish()?` is "no leaks, no
    /// errors". The device then does not check itself again when dropped.
    ///
    /// # Errors
    ///
    /// The [`Report`] of what was found.
    pub fn finish(mut self) -> Result<(), Report> {
        self.finished = true;
        self.check()
    }

    /// The findings of the calls so far, without the leaks.
    pub fn findings(&self) -> Vec<Finding> {
        self.shared.state().findings.clone()
    }

    /// The `len` bytes at device pointer `ptr`, as the device holds them: for a test to look at
    /// device memory directly. `None` when they are not all in one live allocation.
    pub fn read(&self, ptr: CUdeviceptr, len: usize) -> Option<Vec<u8>> {
        let state = self.shared.state();
        state.memory.peek(ptr, len).map(<[u8]>::to_vec)
    }

    /// The work issued to `stream` so far, in order (the null stream: the legacy default stream
    /// of the context current on this thread). Empty for a stream the device does not know.
    pub fn work(&self, stream: CUstream) -> Vec<Work> {
        let state = self.shared.state();
        let id = self.shared.0.id;
        let key = stream as usize;
        if is_default_stream(stream) {
            return current(id)
                .and_then(|ctx| state.contexts.get(&ctx))
                .map(|c| c.default_stream.work.clone())
                .unwrap_or_default();
        }
        state
            .streams
            .get(&key)
            .map(|s| s.timeline.work.clone())
            .unwrap_or_default()
    }

    /// The device's memory in use now, in bytes.
    pub fn used_memory(&self) -> usize {
        self.shared.state().memory.used
    }

    pub(crate) fn shared(&self) -> Shared {
        self.shared.clone()
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let Err(report) = self.check() else { return };
        // A test that returned an error is not panicking: say what failed last, which that
        // error likely was (the test's own `Err` is printed only after this panic).
        let last = match &self.shared.state().last_failure {
            Some(why) => format!("\nthe last call the device failed: {why}"),
            None => String::new(),
        };
        if std::thread::panicking() {
            eprintln!("{report}{last}");
        } else {
            panic!("{report}{last}");
        }
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.state();
        f.debug_struct("Device")
            .field("allocations", &state.memory.live())
            .field("used_memory", &state.memory.used)
            .field("findings", &state.findings.len())
            .finish_non_exhaustive()
    }
}

/// One operation a stream ran, as [`Device::work`] lists it, with its times on the fake clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Work {
    /// The call that issued it (`cuMemcpyHtoDAsync`, `cuLaunchKernel`).
    pub call: &'static str,
    /// What it did: a kernel's name, a copy's size.
    pub what: String,
    /// When it started, in nanoseconds of the fake clock.
    pub start_ns: u64,
    /// When it ended.
    pub end_ns: u64,
}

/// What kind of problem a [`Finding`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FindingKind {
    /// A copy, set or kernel access reaching outside every live allocation.
    OutOfBounds,
    /// An access to, or a copy of, memory that was freed.
    UseAfterFree,
    /// Freeing memory a second time.
    DoubleFree,
    /// Freeing what was never allocated, or not an allocation's start.
    InvalidFree,
    /// A host pointer that is a device pointer, or a device pointer that is no device's.
    InvalidPointer,
    /// A destroyed or unknown context, stream, event, module or function.
    InvalidHandle,
    /// A kernel that stopped with a [`Fault`] of its own.
    KernelFault,
    /// A launch whose [`kernel_args!`](crate::kernel_args!) are not the kernel's parameters:
    /// another number of values, or a value of another size than its parameter's.
    ParameterMismatch,
    /// Memory or a handle never freed or destroyed.
    Leak,
}

impl FindingKind {
    /// How the report names it: `double free`.
    pub fn name(self) -> &'static str {
        match self {
            Self::OutOfBounds => "out of bounds",
            Self::UseAfterFree => "use after free",
            Self::DoubleFree => "double free",
            Self::InvalidFree => "invalid free",
            Self::InvalidPointer => "invalid pointer",
            Self::InvalidHandle => "invalid handle",
            Self::KernelFault => "kernel fault",
            Self::ParameterMismatch => "parameter mismatch",
            Self::Leak => "leak",
        }
    }
}

/// One problem the device found: its kind and what it says (the call, the pointer or handle,
/// the allocation's size, the call that made it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    kind: FindingKind,
    message: String,
}

impl Finding {
    /// Its kind.
    pub fn kind(&self) -> FindingKind {
        self.kind
    }

    /// What it says, starting with the kind's name: `double free: cuMemFree (call 5) frees ...`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// What [`Device::check`] found: every [`Finding`], one per line.
#[derive(Clone, PartialEq, Eq)]
pub struct Report {
    findings: Vec<Finding>,
}

impl Report {
    /// The findings, in the order they were found (leaks last).
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// How many of them are of `kind`.
    pub fn count(&self, kind: FindingKind) -> usize {
        self.findings.iter().filter(|f| f.kind == kind).count()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.findings.len();
        write!(f, "the fake device found {n} problem{}:", plural(n))?;
        for finding in &self.findings {
            write!(f, "\n  {finding}")?;
        }
        Ok(())
    }
}

/// As `Display`: a test that returns the report as its error shows it whole.
impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Report {}

/// A device as drivers share it.
#[derive(Clone)]
pub(crate) struct Shared(Arc<Inner>);

/// A registered kernel: its closure, its parameters' sizes, and their types' names (for a
/// message).
#[derive(Clone)]
struct Kernel {
    body: Arc<KernelFn>,
    sizes: &'static [usize],
    types: fn() -> Vec<&'static str>,
}

struct Inner {
    id: u64,
    state: Mutex<State>,
    /// Kernels by name.
    kernels: RwLock<HashMap<String, Kernel>>,
    next_handle: AtomicUsize,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A handle no other of this device's handles is.
    pub(crate) fn token(&self) -> usize {
        let n = self.0.next_handle.fetch_add(1, Ordering::Relaxed) + 1;
        HANDLE_BASE + ((self.0.id as usize % 0x1000) << 36) + n * 16
    }

    /// Answers the call of `name` with `args`, if the device implements it: `None` for a
    /// function it does not.
    ///
    /// # Safety
    ///
    /// `args` uphold the C function's contract.
    pub(crate) unsafe fn call(
        &self,
        name: &'static str,
        args: &dyn Any,
        _outs: &[OutPlace],
    ) -> Option<CUresult> {
        let handler = FUNCTIONS.iter().find(|(n, _)| *n == name)?.1;
        let mut state = self.state();
        state.calls += 1;
        let call = CallRef {
            function: name,
            index: state.calls,
        };
        let mut cx = Cx {
            state: &mut state,
            shared: self,
            call,
            host_func: None,
        };
        // SAFETY: the caller's contract.
        let answer = unsafe { handler(&mut cx, args) };
        let host_func = cx.host_func.take();
        let result = match answer {
            Some(result) => result,
            None => Err(Fail::error(
                CUresult::CUDA_ERROR_NOT_SUPPORTED,
                format!(
                    "the fake device implements {name} at other ABIs than the one this table \
                     calls; pin the table to one it implements, or fake it with `Fake::on`"
                ),
            )),
        };
        if let (Ok(()), Some((f, data))) = (&result, host_func) {
            drop(state);
            // SAFETY: `f` is a host function to be called with `data` (the C contract of
            // `cuLaunchHostFunc`); the device is unlocked, so it may call the driver.
            unsafe { f(data) };
            return Some(CUresult::CUDA_SUCCESS);
        }
        Some(match result {
            Ok(()) => CUresult::CUDA_SUCCESS,
            Err(fail) => {
                failure::fail(fail.code.0, fail.why.clone());
                state.last_failure = Some(format!("{} ({}): {}", call, fail.code.0, fail.why));
                if let Some(kind) = fail.finding {
                    state.findings.push(Finding {
                        kind,
                        message: fail.why,
                    });
                }
                fail.code
            }
        })
    }
}

/// Whether the device implements the function `name` (a table's name for it, `cuMemAlloc`).
pub(crate) fn implements(name: &str) -> bool {
    FUNCTIONS.iter().any(|(n, _)| *n == name)
}

/// One call the device answered: its function and its number among the device's calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CallRef {
    function: &'static str,
    index: u64,
}

impl fmt::Display for CallRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (call {})", self.function, self.index)
    }
}

/// A failing call: its code, why, and the finding it is, if it is one.
struct Fail {
    code: CUresult,
    why: String,
    finding: Option<FindingKind>,
}

impl Fail {
    /// A failure that is no bug of the program's (out of memory, a name not found).
    fn error(code: CUresult, why: String) -> Self {
        Self {
            code,
            why,
            finding: None,
        }
    }

    /// A failure that is a finding of `kind`.
    fn found(code: CUresult, kind: FindingKind, what: String) -> Self {
        Self {
            code,
            why: format!("{}: {what}", kind.name()),
            finding: Some(kind),
        }
    }
}

type Answer = Result<(), Fail>;

/// How an allocation ended.
#[derive(Clone, Copy, Debug)]
enum Freed {
    /// Freed by this call.
    By(CallRef),
    /// Freed when this call destroyed (or released) its context.
    WithContext(CallRef),
}

impl fmt::Display for Freed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::By(call) => write!(f, "{call} freed"),
            Self::WithContext(call) => write!(f, "{call} freed with its context"),
        }
    }
}

struct Alloc {
    size: usize,
    bytes: Vec<u8>,
    made_by: CallRef,
    context: usize,
    freed: Option<Freed>,
}

/// Device memory: every allocation ever made (freed ones keep their place, with no bytes), by
/// address.
pub(crate) struct Memory {
    base: u64,
    next: u64,
    allocs: BTreeMap<u64, Alloc>,
    used: usize,
    total: usize,
    /// What kernels' accesses found during the launch in progress.
    faults: RefCell<Vec<Finding>>,
}

/// What accesses memory during a call, for its messages: the call, and the kernel if any.
#[derive(Clone, Copy)]
pub(crate) struct Access {
    call: CallRef,
}

/// One access: who, and whether it writes.
pub(crate) struct Doing<'a> {
    call: CallRef,
    kernel: Option<&'a str>,
    write: bool,
}

impl Access {
    pub(crate) fn reading<'a>(&self, kernel: &'a str) -> Doing<'a> {
        Doing {
            call: self.call,
            kernel: Some(kernel),
            write: false,
        }
    }

    pub(crate) fn writing<'a>(&self, kernel: &'a str) -> Doing<'a> {
        Doing {
            call: self.call,
            kernel: Some(kernel),
            write: true,
        }
    }
}

impl fmt::Display for Doing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kernel {
            Some(kernel) => write!(f, "kernel {kernel} launched by {}", self.call)?,
            None => write!(f, "{}", self.call)?,
        }
        f.write_str(if self.write { " writes" } else { " reads" })
    }
}

impl Memory {
    fn new(base: u64) -> Self {
        Self {
            base,
            next: base + ALIGN,
            allocs: BTreeMap::new(),
            used: 0,
            total: DEFAULT_MEMORY,
            faults: RefCell::new(Vec::new()),
        }
    }

    fn live(&self) -> usize {
        self.allocs.values().filter(|a| a.freed.is_none()).count()
    }

    /// Whether `addr` is in this device's range of addresses.
    fn holds(&self, addr: u64) -> bool {
        (self.base..self.base + (1 << 40)).contains(&addr)
    }

    fn allocate(&mut self, size: usize, call: CallRef, context: usize) -> Result<u64, Fail> {
        if size == 0 {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!("{call} asks for 0 bytes"),
            ));
        }
        if size > self.total - self.used {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                format!(
                    "{call} asks for {}; the fake device has {} of its {} free \
                     (`Device::with_memory` sets its size)",
                    Bytes(size),
                    Bytes(self.total - self.used),
                    Bytes(self.total)
                ),
            ));
        }
        let addr = self.next;
        self.next = (addr + size as u64).div_ceil(ALIGN) * ALIGN + ALIGN;
        self.used += size;
        self.allocs.insert(
            addr,
            Alloc {
                size,
                bytes: vec![0; size],
                made_by: call,
                context,
                freed: None,
            },
        );
        Ok(addr)
    }

    fn free(&mut self, addr: u64, call: CallRef) -> Answer {
        let invalid = CUresult::CUDA_ERROR_INVALID_VALUE;
        match self.allocs.range_mut(..=addr).next_back() {
            Some((&base, a)) if base == addr => match a.freed {
                None => {
                    a.freed = Some(Freed::By(call));
                    a.bytes = Vec::new();
                    self.used -= a.size;
                    Ok(())
                }
                Some(freed) => Err(Fail::found(
                    invalid,
                    FindingKind::DoubleFree,
                    format!(
                        "{call} frees {addr:#x}, the {}-byte allocation that {} made and {freed} \
                         already",
                        a.size, a.made_by
                    ),
                )),
            },
            Some((&base, a)) if addr < base + a.size as u64 => Err(Fail::found(
                invalid,
                FindingKind::InvalidFree,
                format!(
                    "{call} frees {addr:#x}, {} into the {}-byte allocation at {base:#x} \
                     that {} made, not its start",
                    Bytes(addr - base),
                    a.size,
                    a.made_by
                ),
            )),
            _ => Err(Fail::found(
                invalid,
                FindingKind::InvalidFree,
                format!("{call} frees {addr:#x}, which this device never allocated"),
            )),
        }
    }

    /// The allocation holding `[addr, addr + len)`, and the offset of `addr` in it; the finding
    /// where there is none.
    fn locate(&self, addr: u64, len: usize, doing: &Doing<'_>) -> Result<(u64, usize), Finding> {
        let found = |kind: FindingKind, what: String| Finding {
            kind,
            message: format!("{}: {doing} {} at {addr:#x}{what}", kind.name(), Bytes(len)),
        };
        if !self.holds(addr) {
            return Err(found(
                FindingKind::InvalidPointer,
                ", which is no device pointer of this device (its memory is at \
                 0xd000000000000000 and above)"
                    .to_owned(),
            ));
        }
        let before = self.allocs.range(..=addr).next_back();
        if let Some((&base, a)) = before {
            let end = base + a.size as u64;
            if addr < end {
                if let Some(freed) = a.freed {
                    return Err(found(
                        FindingKind::UseAfterFree,
                        format!(
                            ", in the {}-byte allocation at {base:#x} that {} made and {freed}",
                            a.size, a.made_by
                        ),
                    ));
                }
                let offset = usize::try_from(addr - base).unwrap_or(usize::MAX);
                if len <= a.size - offset {
                    return Ok((base, offset));
                }
                return Err(found(
                    FindingKind::OutOfBounds,
                    format!(
                        ", {} past the end of the {}-byte allocation at {base:#x} that {} made",
                        Bytes(len - (a.size - offset)),
                        a.size,
                        a.made_by
                    ),
                ));
            }
        }
        // In a gap: name the nearest allocation.
        let after_end = |b: u64, a: &Alloc| {
            let gap = addr - (b + a.size as u64);
            if gap == 0 {
                format!(
                    ", right after the end of the {}-byte allocation at {b:#x} that {} made",
                    a.size, a.made_by
                )
            } else {
                format!(
                    ", {} after the end of the nearest allocation, {} at {b:#x} that {} made",
                    Bytes(gap),
                    Bytes(a.size),
                    a.made_by
                )
            }
        };
        let after = self.allocs.range(addr..).next();
        let nearest = match (before, after) {
            (Some((&b, a)), Some((&n, _))) if addr - (b + a.size as u64) <= n - addr => {
                after_end(b, a)
            }
            (_, Some((&n, a))) => format!(
                ", {} before the nearest allocation, {} at {n:#x} that {} made",
                Bytes(n - addr),
                Bytes(a.size),
                a.made_by
            ),
            (Some((&b, a)), None) => after_end(b, a),
            (None, None) => ", where nothing was ever allocated".to_owned(),
        };
        Err(found(FindingKind::OutOfBounds, nearest))
    }

    /// The bytes `[addr, addr + len)` for reading, or the fault (recorded for the launch).
    pub(crate) fn bytes(&self, addr: u64, len: usize, doing: &Doing<'_>) -> Result<&[u8], Fault> {
        match self.locate(addr, len, doing) {
            Ok((base, offset)) => Ok(&self.allocs[&base].bytes[offset..offset + len]),
            Err(finding) => Err(self.fault(finding)),
        }
    }

    /// The bytes `[addr, addr + len)` for writing, or the fault (recorded for the launch).
    pub(crate) fn bytes_mut(
        &mut self,
        addr: u64,
        len: usize,
        doing: &Doing<'_>,
    ) -> Result<&mut [u8], Fault> {
        match self.locate(addr, len, doing) {
            Ok((base, offset)) => Ok(&mut self
                .allocs
                .get_mut(&base)
                .map(|a| &mut a.bytes[..])
                .unwrap_or_default()[offset..offset + len]),
            Err(finding) => Err(self.fault(finding)),
        }
    }

    fn fault(&self, finding: Finding) -> Fault {
        let message = finding.message.clone();
        self.faults.borrow_mut().push(finding);
        Fault {
            message,
            illegal_address: true,
        }
    }

    /// The bytes at `[addr, addr + len)` if they are in one live allocation.
    fn peek(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let (&base, a) = self.allocs.range(..=addr).next_back()?;
        let offset = usize::try_from(addr - base).ok()?;
        (a.freed.is_none() && offset <= a.size && len <= a.size - offset)
            .then(|| &a.bytes[offset..offset + len])
    }

    /// The bytes of a copy's or set's device side, or the failure (a finding).
    fn range(
        &self,
        addr: u64,
        len: usize,
        call: CallRef,
        write: bool,
    ) -> Result<(u64, usize), Fail> {
        let doing = Doing {
            call,
            kernel: None,
            write,
        };
        self.locate(addr, len, &doing).map_err(|f| Fail {
            code: CUresult::CUDA_ERROR_INVALID_VALUE,
            why: f.message,
            finding: Some(f.kind),
        })
    }

    fn slice(&self, (base, offset): (u64, usize), len: usize) -> &[u8] {
        &self.allocs[&base].bytes[offset..offset + len]
    }

    fn slice_mut(&mut self, (base, offset): (u64, usize), len: usize) -> &mut [u8] {
        match self.allocs.get_mut(&base) {
            Some(a) => &mut a.bytes[offset..offset + len],
            None => &mut [],
        }
    }
}

/// A pinned host allocation (`cuMemAllocHost`).
struct HostAlloc {
    ptr: HostPtr,
    layout: Layout,
    made_by: CallRef,
}

/// Host memory the device allocated.
struct HostPtr(NonNull<u8>);

// SAFETY: the allocation is plain bytes owned by the device; the pointer is only freed by it
// (under its lock) and compared with.
unsafe impl Send for HostPtr {}

#[derive(Default)]
struct Timeline {
    time_ns: u64,
    work: Vec<Work>,
}

struct Context {
    made_by: CallRef,
    destroyed: Option<CallRef>,
    /// For the primary context: how many retains are not released yet.
    primary_refs: Option<u32>,
    default_stream: Timeline,
}

struct Stream {
    context: usize,
    made_by: CallRef,
    destroyed: Option<CallRef>,
    non_blocking: bool,
    timeline: Timeline,
}

struct Event {
    context: usize,
    made_by: CallRef,
    destroyed: Option<CallRef>,
    timing: bool,
    recorded: Option<u64>,
}

struct Module {
    context: usize,
    made_by: CallRef,
    destroyed: Option<CallRef>,
}

struct Function {
    module: usize,
    name: String,
}

struct State {
    calls: u64,
    initialized: bool,
    memory: Memory,
    host: BTreeMap<usize, HostAlloc>,
    /// Freed host allocations: address, size, who made it, who freed it (the latest per address).
    host_freed: BTreeMap<usize, (usize, CallRef, CallRef)>,
    contexts: BTreeMap<usize, Context>,
    primary: Option<usize>,
    streams: BTreeMap<usize, Stream>,
    events: BTreeMap<usize, Event>,
    modules: BTreeMap<usize, Module>,
    functions: BTreeMap<usize, Function>,
    findings: Vec<Finding>,
    /// The description of the last call the device failed.
    last_failure: Option<String>,
}

impl State {
    fn new(base: u64) -> Self {
        Self {
            calls: 0,
            initialized: false,
            memory: Memory::new(base),
            host: BTreeMap::new(),
            host_freed: BTreeMap::new(),
            contexts: BTreeMap::new(),
            primary: None,
            streams: BTreeMap::new(),
            events: BTreeMap::new(),
            modules: BTreeMap::new(),
            functions: BTreeMap::new(),
            findings: Vec::new(),
            last_failure: None,
        }
    }

    fn context_live(&self, ctx: usize) -> bool {
        self.contexts
            .get(&ctx)
            .is_some_and(|c| c.destroyed.is_none())
    }

    /// The findings so far, and what is live now as leaks.
    fn report(&self) -> Report {
        let mut findings = self.findings.clone();
        let leak = |message: String| Finding {
            kind: FindingKind::Leak,
            message: format!("leak: {message}"),
        };
        for (addr, a) in &self.memory.allocs {
            if a.freed.is_none() {
                let size = Bytes(a.size);
                findings.push(leak(format!(
                    "{size} at {addr:#x} that {} allocated {} never freed",
                    a.made_by,
                    size.were()
                )));
            }
        }
        for (addr, h) in &self.host {
            let size = Bytes(h.layout.size());
            findings.push(leak(format!(
                "{size} of host memory at {addr:#x} that {} allocated {} never freed \
                 (cuMemFreeHost)",
                h.made_by,
                size.were()
            )));
        }
        for (handle, c) in &self.contexts {
            match (c.destroyed, c.primary_refs) {
                (None, Some(refs)) if refs > 0 => findings.push(leak(format!(
                    "the primary context {handle:#x} that {} retained is retained {refs} more \
                     time{} than released (cuDevicePrimaryCtxRelease)",
                    c.made_by,
                    plural(refs as usize)
                ))),
                (None, None) => findings.push(leak(format!(
                    "context {handle:#x} that {} created was never destroyed (cuCtxDestroy)",
                    c.made_by
                ))),
                _ => {}
            }
        }
        let mut handles = |kind: &str, destroy: &str, live: Vec<(usize, CallRef)>| {
            for (handle, made_by) in live {
                findings.push(leak(format!(
                    "{kind} {handle:#x} that {made_by} created was never destroyed ({destroy})"
                )));
            }
        };
        let live = |context: usize, destroyed: Option<CallRef>| {
            destroyed.is_none() && self.context_live(context)
        };
        handles(
            "stream",
            "cuStreamDestroy",
            self.streams
                .iter()
                .filter(|(_, s)| live(s.context, s.destroyed))
                .map(|(h, s)| (*h, s.made_by))
                .collect(),
        );
        handles(
            "event",
            "cuEventDestroy",
            self.events
                .iter()
                .filter(|(_, e)| live(e.context, e.destroyed))
                .map(|(h, e)| (*h, e.made_by))
                .collect(),
        );
        handles(
            "module",
            "cuModuleUnload",
            self.modules
                .iter()
                .filter(|(_, m)| live(m.context, m.destroyed))
                .map(|(h, m)| (*h, m.made_by))
                .collect(),
        );
        Report { findings }
    }
}

thread_local! {
    /// Each device's context stack on this thread (the current context on top).
    static STACKS: RefCell<HashMap<u64, Vec<usize>>> = RefCell::new(HashMap::new());
}

/// The context current on this thread for device `id`.
fn current(id: u64) -> Option<usize> {
    STACKS
        .try_with(|s| s.borrow().get(&id).and_then(|v| v.last().copied()))
        .ok()
        .flatten()
}

/// Runs `f` on device `id`'s context stack of this thread (during thread teardown, on an empty
/// one).
fn with_stack<R>(id: u64, f: impl FnOnce(&mut Vec<usize>) -> R) -> R {
    let mut f = Some(f);
    let mut run = |stack: &mut Vec<usize>| f.take().map(|f| f(stack));
    STACKS
        .try_with(|s| run(s.borrow_mut().entry(id).or_default()))
        .ok()
        .flatten()
        .or_else(|| run(&mut Vec::new()))
        .expect("`f` runs once")
}

/// The legacy and per-thread default streams' handles (null, `CU_STREAM_LEGACY`,
/// `CU_STREAM_PER_THREAD`).
fn is_default_stream(stream: CUstream) -> bool {
    (stream as usize) <= 2
}

/// One call in progress.
struct Cx<'a> {
    state: &'a mut State,
    shared: &'a Shared,
    call: CallRef,
    /// A host function to run once the device is unlocked (`cuLaunchHostFunc`).
    host_func: Option<(unsafe extern "C" fn(Ptr), Ptr)>,
}

/// What a handler of the device is: the call's arguments, downcast to one of the ABIs it
/// implements (`None` for another).
type Handler = unsafe fn(&mut Cx<'_>, &dyn Any) -> Option<Answer>;

/// Matches `$args` against each ABI's argument tuple and answers with the first that fits.
macro_rules! abis {
    ($args:expr, $($ty:ty => |$pat:pat_param| $body:expr),+ $(,)?) => {{
        $(
            if let Some(&$pat) = $args.downcast_ref::<$ty>() {
                return Some($body);
            }
        )+
        None
    }};
}

type Ptr = *mut c_void;
type CPtr = *const c_void;

/// Every function the device implements, by a table's name for it, with its handler: the one
/// list [`Device`]'s docs and the fake driver's lookups follow.
static FUNCTIONS: &[(&str, Handler)] = &[
    (
        "cuInit",
        |cx, a| abis!(a, (c_uint,) => |(flags,)| cx.init(flags)),
    ),
    ("cuDriverGetVersion", |cx, a| {
        // SAFETY (all handlers): the arguments uphold the function's C contract (the caller of
        // `Shared::call`): each out-value is null or valid for writes of its type, each host
        // pointer valid for its byte count.
        abis!(a, (*mut c_int,) => |(v,)| cx.driver_version(v))
    }),
    (
        "cuDeviceGet",
        |cx, a| abis!(a, (*mut c_int, c_int) => |(d, ordinal)| cx.device_get(d, ordinal)),
    ),
    (
        "cuDeviceGetCount",
        |cx, a| abis!(a, (*mut c_int,) => |(n,)| cx.device_count(n)),
    ),
    (
        "cuDeviceGetName",
        |cx, a| abis!(a, (*mut c_char, c_int, c_int) => |(name, len, dev)| cx.device_name(name, len, dev)),
    ),
    (
        "cuDeviceGetAttribute",
        |cx, a| abis!(a, (*mut c_int, sys::CUdevice_attribute, c_int) => |(pi, attr, dev)| cx.attribute(pi, attr, dev)),
    ),
    (
        "cuDeviceTotalMem",
        |cx, a| abis!(a, (*mut usize, c_int) => |(bytes, dev)| cx.total_mem(bytes, dev)),
    ),
    (
        "cuDevicePrimaryCtxRetain",
        |cx, a| abis!(a, (*mut CUcontext, c_int) => |(pctx, dev)| cx.primary_retain(pctx, dev)),
    ),
    (
        "cuDevicePrimaryCtxRelease",
        |cx, a| abis!(a, (c_int,) => |(dev,)| cx.primary_release(dev, false)),
    ),
    (
        "cuDevicePrimaryCtxReset",
        |cx, a| abis!(a, (c_int,) => |(dev,)| cx.primary_release(dev, true)),
    ),
    ("cuCtxCreate", |cx, a| {
        abis!(a,
            (*mut CUcontext, c_uint, c_int) => |(pctx, _, dev)| cx.ctx_create(pctx, dev),
            (*mut CUcontext, *mut sys::CUctxCreateParams, c_uint, c_int) => |(pctx, _, _, dev)| cx.ctx_create(pctx, dev),
            (*mut CUcontext, *mut sys::CUexecAffinityParam, c_int, c_uint, c_int) => |(pctx, _, _, _, dev)| cx.ctx_create(pctx, dev),
        )
    }),
    (
        "cuCtxDestroy",
        |cx, a| abis!(a, (CUcontext,) => |(ctx,)| cx.ctx_destroy(ctx)),
    ),
    (
        "cuCtxSetCurrent",
        |cx, a| abis!(a, (CUcontext,) => |(ctx,)| cx.ctx_set_current(ctx)),
    ),
    (
        "cuCtxGetCurrent",
        |cx, a| abis!(a, (*mut CUcontext,) => |(pctx,)| cx.ctx_get_current(pctx)),
    ),
    (
        "cuCtxPushCurrent",
        |cx, a| abis!(a, (CUcontext,) => |(ctx,)| cx.ctx_push(ctx)),
    ),
    (
        "cuCtxPopCurrent",
        |cx, a| abis!(a, (*mut CUcontext,) => |(pctx,)| cx.ctx_pop(pctx)),
    ),
    ("cuCtxGetDevice", |cx, a| {
        abis!(a,
            (*mut c_int,) => |(d,)| cx.ctx_get_device(d, None),
            (*mut c_int, CUcontext) => |(d, ctx)| cx.ctx_get_device(d, Some(ctx)),
        )
    }),
    ("cuCtxSynchronize", |cx, a| {
        abis!(a,
            () => |()| cx.current().map(drop),
            (CUcontext,) => |(ctx,)| cx.ctx_or_current(ctx).map(drop),
        )
    }),
    (
        "cuMemGetInfo",
        |cx, a| abis!(a, (*mut usize, *mut usize) => |(free, total)| cx.mem_get_info(free, total)),
    ),
    (
        "cuMemAlloc",
        |cx, a| abis!(a, (*mut CUdeviceptr, usize) => |(dptr, size)| cx.mem_alloc(dptr, size, None)),
    ),
    (
        "cuMemAllocAsync",
        |cx, a| abis!(a, (*mut CUdeviceptr, usize, CUstream) => |(dptr, size, s)| cx.mem_alloc(dptr, size, Some(s))),
    ),
    (
        "cuMemAllocFromPoolAsync",
        |cx, a| abis!(a, (*mut CUdeviceptr, usize, sys::CUmemoryPool, CUstream) => |(dptr, size, _, s)| cx.mem_alloc(dptr, size, Some(s))),
    ),
    (
        "cuMemFree",
        |cx, a| abis!(a, (CUdeviceptr,) => |(dptr,)| cx.mem_free(dptr, None)),
    ),
    (
        "cuMemFreeAsync",
        |cx, a| abis!(a, (CUdeviceptr, CUstream) => |(dptr, s)| cx.mem_free(dptr, Some(s))),
    ),
    (
        "cuMemGetAddressRange",
        |cx, a| abis!(a, (*mut CUdeviceptr, *mut usize, CUdeviceptr) => |(base, size, dptr)| cx.address_range(base, size, dptr)),
    ),
    (
        "cuMemAllocHost",
        |cx, a| abis!(a, (*mut Ptr, usize) => |(pp, size)| cx.host_alloc(pp, size)),
    ),
    (
        "cuMemHostAlloc",
        |cx, a| abis!(a, (*mut Ptr, usize, c_uint) => |(pp, size, _)| cx.host_alloc(pp, size)),
    ),
    (
        "cuMemFreeHost",
        |cx, a| abis!(a, (Ptr,) => |(p,)| cx.host_free(p)),
    ),
    (
        "cuMemcpyHtoD",
        |cx, a| abis!(a, (CUdeviceptr, CPtr, usize) => |(d, h, n)| cx.copy(Place::Device(d), Place::Host(h.cast_mut()), n, None)),
    ),
    (
        "cuMemcpyHtoDAsync",
        |cx, a| abis!(a, (CUdeviceptr, CPtr, usize, CUstream) => |(d, h, n, s)| cx.copy(Place::Device(d), Place::Host(h.cast_mut()), n, Some(s))),
    ),
    (
        "cuMemcpyDtoH",
        |cx, a| abis!(a, (Ptr, CUdeviceptr, usize) => |(h, d, n)| cx.copy(Place::Host(h), Place::Device(d), n, None)),
    ),
    (
        "cuMemcpyDtoHAsync",
        |cx, a| abis!(a, (Ptr, CUdeviceptr, usize, CUstream) => |(h, d, n, s)| cx.copy(Place::Host(h), Place::Device(d), n, Some(s))),
    ),
    (
        "cuMemcpyDtoD",
        |cx, a| abis!(a, (CUdeviceptr, CUdeviceptr, usize) => |(d, s, n)| cx.copy(Place::Device(d), Place::Device(s), n, None)),
    ),
    (
        "cuMemcpyDtoDAsync",
        |cx, a| abis!(a, (CUdeviceptr, CUdeviceptr, usize, CUstream) => |(d, s, n, st)| cx.copy(Place::Device(d), Place::Device(s), n, Some(st))),
    ),
    ("cuMemcpy", |cx, a| {
        abis!(a, (CUdeviceptr, CUdeviceptr, usize) => |(d, s, n)| {
            let (d, s) = (cx.unified(d), cx.unified(s));
            cx.copy(d, s, n, None)
        })
    }),
    ("cuMemcpyAsync", |cx, a| {
        abis!(a, (CUdeviceptr, CUdeviceptr, usize, CUstream) => |(d, s, n, st)| {
            let (d, s) = (cx.unified(d), cx.unified(s));
            cx.copy(d, s, n, Some(st))
        })
    }),
    (
        "cuMemsetD8",
        |cx, a| abis!(a, (CUdeviceptr, u8, usize) => |(d, v, n)| cx.set(d, &[v], n, None)),
    ),
    (
        "cuMemsetD8Async",
        |cx, a| abis!(a, (CUdeviceptr, u8, usize, CUstream) => |(d, v, n, s)| cx.set(d, &[v], n, Some(s))),
    ),
    (
        "cuMemsetD16",
        |cx, a| abis!(a, (CUdeviceptr, u16, usize) => |(d, v, n)| cx.set(d, &v.to_ne_bytes(), n, None)),
    ),
    (
        "cuMemsetD16Async",
        |cx, a| abis!(a, (CUdeviceptr, u16, usize, CUstream) => |(d, v, n, s)| cx.set(d, &v.to_ne_bytes(), n, Some(s))),
    ),
    (
        "cuMemsetD32",
        |cx, a| abis!(a, (CUdeviceptr, u32, usize) => |(d, v, n)| cx.set(d, &v.to_ne_bytes(), n, None)),
    ),
    (
        "cuMemsetD32Async",
        |cx, a| abis!(a, (CUdeviceptr, u32, usize, CUstream) => |(d, v, n, s)| cx.set(d, &v.to_ne_bytes(), n, Some(s))),
    ),
    ("cuMemAllocPitch", |cx, a| {
        abis!(a, (*mut CUdeviceptr, *mut usize, usize, usize, c_uint)
            => |(dptr, pitch, width, height, element)| cx.mem_alloc_pitch(dptr, pitch, width, height, element))
    }),
    (
        "cuMemcpy2D",
        |cx, a| abis!(a, (*const sys::CUDA_MEMCPY2D,) => |(p,)| cx.copy_2d(p, None)),
    ),
    (
        "cuMemcpy2DUnaligned",
        |cx, a| abis!(a, (*const sys::CUDA_MEMCPY2D,) => |(p,)| cx.copy_2d(p, None)),
    ),
    (
        "cuMemcpy2DAsync",
        |cx, a| abis!(a, (*const sys::CUDA_MEMCPY2D, CUstream) => |(p, s)| cx.copy_2d(p, Some(s))),
    ),
    ("cuMemsetD2D8", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u8, usize, usize)
            => |(d, pitch, v, w, h)| cx.set_2d(d, pitch, &[v], (w, h), None))
    }),
    ("cuMemsetD2D8Async", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u8, usize, usize, CUstream)
            => |(d, pitch, v, w, h, s)| cx.set_2d(d, pitch, &[v], (w, h), Some(s)))
    }),
    ("cuMemsetD2D16", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u16, usize, usize)
            => |(d, pitch, v, w, h)| cx.set_2d(d, pitch, &v.to_ne_bytes(), (w, h), None))
    }),
    ("cuMemsetD2D16Async", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u16, usize, usize, CUstream)
            => |(d, pitch, v, w, h, s)| cx.set_2d(d, pitch, &v.to_ne_bytes(), (w, h), Some(s)))
    }),
    ("cuMemsetD2D32", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u32, usize, usize)
            => |(d, pitch, v, w, h)| cx.set_2d(d, pitch, &v.to_ne_bytes(), (w, h), None))
    }),
    ("cuMemsetD2D32Async", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u32, usize, usize, CUstream)
            => |(d, pitch, v, w, h, s)| cx.set_2d(d, pitch, &v.to_ne_bytes(), (w, h), Some(s)))
    }),
    (
        "cuStreamCreate",
        |cx, a| abis!(a, (*mut CUstream, c_uint) => |(ph, flags)| cx.stream_create(ph, flags)),
    ),
    (
        "cuStreamCreateWithPriority",
        |cx, a| abis!(a, (*mut CUstream, c_uint, c_int) => |(ph, flags, _)| cx.stream_create(ph, flags)),
    ),
    (
        "cuStreamDestroy",
        |cx, a| abis!(a, (CUstream,) => |(s,)| cx.stream_destroy(s)),
    ),
    (
        "cuStreamSynchronize",
        |cx, a| abis!(a, (CUstream,) => |(s,)| cx.stream(s).map(drop)),
    ),
    (
        "cuStreamQuery",
        |cx, a| abis!(a, (CUstream,) => |(s,)| cx.stream(s).map(drop)),
    ),
    (
        "cuStreamWaitEvent",
        |cx, a| abis!(a, (CUstream, CUevent, c_uint) => |(s, e, _)| cx.stream_wait_event(s, e)),
    ),
    (
        "cuEventCreate",
        |cx, a| abis!(a, (*mut CUevent, c_uint) => |(ph, flags)| cx.event_create(ph, flags)),
    ),
    (
        "cuEventDestroy",
        |cx, a| abis!(a, (CUevent,) => |(e,)| cx.event_destroy(e)),
    ),
    (
        "cuEventRecord",
        |cx, a| abis!(a, (CUevent, CUstream) => |(e, s)| cx.event_record(e, s)),
    ),
    (
        "cuEventRecordWithFlags",
        |cx, a| abis!(a, (CUevent, CUstream, c_uint) => |(e, s, _)| cx.event_record(e, s)),
    ),
    (
        "cuEventSynchronize",
        |cx, a| abis!(a, (CUevent,) => |(e,)| cx.event(e).map(drop)),
    ),
    (
        "cuEventQuery",
        |cx, a| abis!(a, (CUevent,) => |(e,)| cx.event(e).map(drop)),
    ),
    (
        "cuEventElapsedTime",
        |cx, a| abis!(a, (*mut f32, CUevent, CUevent) => |(ms, start, end)| cx.elapsed(ms, start, end)),
    ),
    (
        "cuModuleLoadData",
        |cx, a| abis!(a, (*mut CUmodule, CPtr) => |(m, image)| cx.module_load(m, image)),
    ),
    (
        "cuModuleLoadDataEx",
        |cx, a| abis!(a, (*mut CUmodule, CPtr, c_uint, *mut sys::CUjit_option, *mut Ptr) => |(m, image, _, _, _)| cx.module_load(m, image)),
    ),
    (
        "cuModuleUnload",
        |cx, a| abis!(a, (CUmodule,) => |(m,)| cx.module_unload(m)),
    ),
    (
        "cuModuleGetFunction",
        |cx, a| abis!(a, (*mut CUfunction, CUmodule, *const c_char) => |(f, m, name)| cx.get_function(f, m, name)),
    ),
    ("cuLaunchKernel", |cx, a| {
        abis!(a, (CUfunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CUstream, *mut Ptr, *mut Ptr)
        => |(f, gx, gy, gz, bx, by, bz, shared, s, params, extra)| cx.launch(
            f,
            Dim3 { x: gx, y: gy, z: gz },
            Dim3 { x: bx, y: by, z: bz },
            shared,
            s,
            params,
            extra,
        ))
    }),
    ("cuLaunchKernelEx", |cx, a| {
        abis!(a, (*const sys::CUlaunchConfig, CUfunction, *mut Ptr, *mut Ptr)
            => |(config, f, params, extra)| cx.launch_ex(config, f, params, extra))
    }),
    ("cuLaunchHostFunc", |cx, a| {
        abis!(a,
            (CUstream, sys::CUhostFn, Ptr) => |(s, f, data)| cx.host_func(s, f, data),
            (CUstream, sys::CUhostFn, Ptr, c_uint) => |(s, f, data, _)| cx.host_func(s, f, data),
        )
    }),
    (
        "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        |cx, a| abis!(a, (*mut c_int, CUfunction, c_int, usize) => |(n, f, block, _)| cx.occupancy_blocks(n, f, block)),
    ),
    ("cuOccupancyMaxPotentialBlockSize", |cx, a| {
        abis!(a, (*mut c_int, *mut c_int, CUfunction, sys::CUoccupancyB2DSize, usize, c_int)
            => |(grid, block, f, _, _, limit)| cx.occupancy_size(grid, block, f, limit))
    }),
    ("cuMemcpyPeer", |cx, a| {
        abis!(a, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, usize) => |(d, dc, s, sc, n)| {
            cx.peer(dc, sc).and_then(|()| cx.copy(Place::Device(d), Place::Device(s), n, None))
        })
    }),
    ("cuMemcpyPeerAsync", |cx, a| {
        abis!(a, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, usize, CUstream) => |(d, dc, s, sc, n, st)| {
            cx.peer(dc, sc)
                .and_then(|()| cx.copy(Place::Device(d), Place::Device(s), n, Some(st)))
        })
    }),
];

/// One side of a `CUDA_MEMCPY2D`, as its fields give it.
struct Side2d {
    kind: sys::CUmemorytype,
    host: Ptr,
    device: CUdeviceptr,
    x: usize,
    y: usize,
    pitch: usize,
}

/// A side of a 2D copy or set, checked: where its first row starts.
#[derive(Clone, Copy)]
enum RowsAt {
    /// In the device allocation at this base, at this offset.
    Device((u64, usize)),
    Host(*mut u8),
}

/// The rows of one side of a 2D copy or set: `height` rows of `width` bytes (both not 0), each
/// starting `pitch` bytes after the one before.
#[derive(Clone, Copy)]
struct Rows {
    width: usize,
    height: usize,
    pitch: usize,
}

impl Rows {
    /// The bytes from the first row's start to the last row's end; `None` when no address
    /// holds them.
    fn span_checked(self) -> Option<usize> {
        (self.height - 1)
            .checked_mul(self.pitch)?
            .checked_add(self.width)
    }

    /// [`span_checked`](Self::span_checked) of rows whose pitch was checked.
    fn span(self) -> usize {
        self.span_checked().unwrap_or(usize::MAX)
    }
}

impl fmt::Display for Rows {
    /// "64 rows of 60 bytes, 64 bytes apart".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.height == 1 {
            write!(f, "1 row of {}", Bytes(self.width))
        } else {
            write!(
                f,
                "{} rows of {}, {} apart",
                self.height,
                Bytes(self.width),
                Bytes(self.pitch)
            )
        }
    }
}

/// One side of a copy.
#[derive(Clone, Copy)]
enum Place {
    Device(CUdeviceptr),
    Host(Ptr),
}

/// The failure of a null out-value.
fn null_out(call: CallRef, what: &str) -> Fail {
    Fail::error(
        CUresult::CUDA_ERROR_INVALID_VALUE,
        format!("{call} was given a null {what}"),
    )
}

/// Writes an out-value, failing for a null one.
///
/// # Safety
///
/// `place` is null or valid for writes of a `T`.
unsafe fn put<T: Copy + fmt::Debug + 'static>(call: CallRef, place: *mut T, value: T) -> Answer {
    if place.is_null() {
        return Err(null_out(call, "pointer to write the answer to"));
    }
    // SAFETY: the caller's contract.
    unsafe { out::write(place, value) };
    Ok(())
}

fn handle<T>(h: usize) -> *mut T {
    std::ptr::without_provenance_mut(h)
}

impl Cx<'_> {
    fn id(&self) -> u64 {
        self.shared.0.id
    }

    fn invalid_handle(&self, what: String) -> Fail {
        Fail::found(
            CUresult::CUDA_ERROR_INVALID_HANDLE,
            FindingKind::InvalidHandle,
            format!("{} uses {what}", self.call),
        )
    }

    fn invalid_context(&self, what: String) -> Fail {
        Fail::found(
            CUresult::CUDA_ERROR_INVALID_CONTEXT,
            FindingKind::InvalidHandle,
            format!("{} uses {what}", self.call),
        )
    }

    fn initialized(&self) -> Answer {
        if self.state.initialized {
            Ok(())
        } else {
            Err(Fail::error(
                CUresult::CUDA_ERROR_NOT_INITIALIZED,
                format!("{} was called before cuInit", self.call),
            ))
        }
    }

    /// The context `ctx`, live, or the failure naming it.
    fn context(&self, ctx: usize) -> Result<usize, Fail> {
        match self.state.contexts.get(&ctx) {
            Some(c) => match c.destroyed {
                None => Ok(ctx),
                Some(by) => Err(self.invalid_context(format!(
                    "context {ctx:#x} that {} made and {by} destroyed",
                    c.made_by
                ))),
            },
            None => {
                Err(self.invalid_context(format!("{ctx:#x}, which is no context of this device")))
            }
        }
    }

    /// The context current on this thread.
    fn current(&self) -> Result<usize, Fail> {
        self.initialized()?;
        match current(self.id()) {
            Some(ctx) => self.context(ctx),
            None => Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_CONTEXT,
                format!(
                    "{} needs a current context and this thread has none: make one current \
                     (cuCtxSetCurrent of cuDevicePrimaryCtxRetain's, or cuCtxCreate)",
                    self.call
                ),
            )),
        }
    }

    fn ctx_or_current(&self, ctx: CUcontext) -> Result<usize, Fail> {
        if ctx.is_null() {
            self.current()
        } else {
            self.initialized()?;
            self.context(ctx as usize)
        }
    }

    fn device(&self, dev: c_int) -> Answer {
        self.initialized()?;
        if dev == 0 {
            Ok(())
        } else {
            Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_DEVICE,
                format!(
                    "{} names device {dev}; the fake device is device 0, the only one",
                    self.call
                ),
            ))
        }
    }

    fn init(&mut self, flags: c_uint) -> Answer {
        if flags != 0 {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!("{} was given flags {flags}; they must be 0", self.call),
            ));
        }
        self.state.initialized = true;
        Ok(())
    }

    fn driver_version(&self, v: *mut c_int) -> Answer {
        // SAFETY: the handler's contract: `v` is null or valid for writes.
        unsafe { put(self.call, v, sys::RELEASE as c_int) }
    }

    fn device_get(&self, d: *mut c_int, ordinal: c_int) -> Answer {
        self.device(ordinal)?;
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, d, 0) }
    }

    fn device_count(&self, n: *mut c_int) -> Answer {
        self.initialized()?;
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, n, 1) }
    }

    fn device_name(&self, name: *mut c_char, len: c_int, dev: c_int) -> Answer {
        self.device(dev)?;
        let text = b"cuda-driver-table fake device";
        let Ok(len) = usize::try_from(len) else {
            return Err(null_out(self.call, "name buffer (its length is negative)"));
        };
        if name.is_null() || len == 0 {
            return Err(null_out(self.call, "name buffer"));
        }
        let n = text.len().min(len - 1);
        // SAFETY: `name` is valid for writes of `len` bytes (the C contract); `n + 1 <= len`.
        unsafe {
            name.cast::<u8>().copy_from_nonoverlapping(text.as_ptr(), n);
            name.add(n).write(0);
        }
        Ok(())
    }

    fn attribute(&self, pi: *mut c_int, attr: sys::CUdevice_attribute, dev: c_int) -> Answer {
        use sys::CUdevice_attribute as A;
        self.device(dev)?;
        let value = match attr {
            A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
            | A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X
            | A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y => 1024,
            A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z => 64,
            A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X => i32::MAX,
            A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y | A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z => 65535,
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK => 48 << 10,
            A::CU_DEVICE_ATTRIBUTE_WARP_SIZE => 32,
            A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT => 8,
            A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR => 9,
            A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR => 0,
            A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING
            | A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS
            | A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED => 1,
            A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT => 2,
            _ => 0,
        };
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, pi, value) }
    }

    fn total_mem(&self, bytes: *mut usize, dev: c_int) -> Answer {
        self.device(dev)?;
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, bytes, self.state.memory.total) }
    }

    fn new_context(&mut self, primary: bool) -> usize {
        let handle = self.shared.token();
        self.state.contexts.insert(
            handle,
            Context {
                made_by: self.call,
                destroyed: None,
                primary_refs: primary.then_some(0),
                default_stream: Timeline::default(),
            },
        );
        handle
    }

    fn primary_retain(&mut self, pctx: *mut CUcontext, dev: c_int) -> Answer {
        self.device(dev)?;
        if pctx.is_null() {
            return Err(null_out(self.call, "pointer to write the context to"));
        }
        let ctx = match self.state.primary {
            Some(ctx) => ctx,
            None => {
                let ctx = self.new_context(true);
                self.state.primary = Some(ctx);
                ctx
            }
        };
        let call = self.call;
        if let Some(c) = self.state.contexts.get_mut(&ctx) {
            let refs = c.primary_refs.get_or_insert(0);
            if *refs == 0 {
                // Active again: its record is this retain's.
                c.made_by = call;
                c.destroyed = None;
            }
            *refs += 1;
        }
        // SAFETY: `pctx` is valid for writes (the C contract; not null, checked above).
        unsafe { put(self.call, pctx, handle(ctx)) }
    }

    fn primary_release(&mut self, dev: c_int, reset: bool) -> Answer {
        self.device(dev)?;
        let Some(ctx) = self.state.primary else {
            return Err(self.invalid_context(
                "the primary context, which was never retained (cuDevicePrimaryCtxRetain)"
                    .to_owned(),
            ));
        };
        let refs = self
            .state
            .contexts
            .get(&ctx)
            .and_then(|c| c.primary_refs)
            .unwrap_or(0);
        if refs == 0 && !reset {
            return Err(self.invalid_context(format!(
                "the primary context {ctx:#x}, released already as often as it was retained"
            )));
        }
        let left = if reset { 0 } else { refs - 1 };
        if let Some(c) = self.state.contexts.get_mut(&ctx) {
            c.primary_refs = Some(left);
        }
        if left == 0 {
            self.end_context(ctx);
        }
        Ok(())
    }

    /// Ends context `ctx`: its memory is freed, and what was still allocated is a leak (as the
    /// leak check reports it when a context is destroyed).
    fn end_context(&mut self, ctx: usize) {
        let call = self.call;
        if let Some(c) = self.state.contexts.get_mut(&ctx) {
            c.destroyed = Some(call);
        }
        let memory = &mut self.state.memory;
        let mut leaks = Vec::new();
        for (addr, a) in &mut memory.allocs {
            if a.context == ctx && a.freed.is_none() {
                let size = Bytes(a.size);
                leaks.push(Finding {
                    kind: FindingKind::Leak,
                    message: format!(
                        "leak: {size} at {addr:#x} that {} allocated {} still allocated when \
                         {call} destroyed {} context",
                        a.made_by,
                        size.were(),
                        if a.size == 1 { "its" } else { "their" }
                    ),
                });
                a.freed = Some(Freed::WithContext(call));
                a.bytes = Vec::new();
                memory.used -= a.size;
            }
        }
        self.state.findings.extend(leaks);
        let id = self.id();
        with_stack(id, |stack| stack.retain(|&c| c != ctx));
    }

    fn ctx_create(&mut self, pctx: *mut CUcontext, dev: c_int) -> Answer {
        self.device(dev)?;
        if pctx.is_null() {
            return Err(null_out(self.call, "pointer to write the context to"));
        }
        let ctx = self.new_context(false);
        let id = self.id();
        with_stack(id, |stack| stack.push(ctx));
        // SAFETY: as in `primary_retain`.
        unsafe { put(self.call, pctx, handle(ctx)) }
    }

    fn ctx_destroy(&mut self, ctx: CUcontext) -> Answer {
        self.initialized()?;
        let ctx = self.context(ctx as usize)?;
        if self.state.contexts[&ctx].primary_refs.is_some() {
            return Err(self.invalid_context(format!(
                "the primary context {ctx:#x} (release it with cuDevicePrimaryCtxRelease, not \
                 cuCtxDestroy)"
            )));
        }
        self.end_context(ctx);
        Ok(())
    }

    fn ctx_set_current(&mut self, ctx: CUcontext) -> Answer {
        self.initialized()?;
        let id = self.id();
        if ctx.is_null() {
            with_stack(id, |stack| stack.pop());
            return Ok(());
        }
        let ctx = self.context(ctx as usize)?;
        with_stack(id, |stack| match stack.last_mut() {
            Some(top) => *top = ctx,
            None => stack.push(ctx),
        });
        Ok(())
    }

    fn ctx_get_current(&self, pctx: *mut CUcontext) -> Answer {
        self.initialized()?;
        let ctx = current(self.id()).unwrap_or(0);
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, pctx, handle(ctx)) }
    }

    fn ctx_push(&mut self, ctx: CUcontext) -> Answer {
        self.initialized()?;
        let ctx = self.context(ctx as usize)?;
        with_stack(self.id(), |stack| stack.push(ctx));
        Ok(())
    }

    fn ctx_pop(&mut self, pctx: *mut CUcontext) -> Answer {
        let ctx = self.current()?;
        with_stack(self.id(), |stack| stack.pop());
        if pctx.is_null() {
            return Ok(());
        }
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, pctx, handle(ctx)) }
    }

    fn ctx_get_device(&self, d: *mut c_int, ctx: Option<CUcontext>) -> Answer {
        match ctx {
            Some(ctx) => self.ctx_or_current(ctx)?,
            None => self.current()?,
        };
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, d, 0) }
    }

    fn mem_get_info(&self, free: *mut usize, total: *mut usize) -> Answer {
        self.current()?;
        let m = &self.state.memory;
        // SAFETY: as in `driver_version`.
        unsafe {
            put(self.call, free, m.total - m.used)?;
            put(self.call, total, m.total)
        }
    }

    /// The stream `stream` (a default stream too), live, or the failure naming it.
    fn stream(&self, stream: CUstream) -> Result<Option<usize>, Fail> {
        let ctx = self.current()?;
        if is_default_stream(stream) {
            return Ok(None);
        }
        let key = stream as usize;
        match self.state.streams.get(&key) {
            None => Err(self.invalid_handle(format!(
                "stream {key:#x}, which is no stream of this device"
            ))),
            Some(s) => match s.destroyed {
                Some(by) => Err(self.invalid_handle(format!(
                    "stream {key:#x} that {} created and {by} destroyed",
                    s.made_by
                ))),
                None if !self.state.context_live(s.context) => Err(self.invalid_handle(format!(
                    "stream {key:#x} that {} created, whose context was destroyed",
                    s.made_by
                ))),
                None => {
                    let _ = ctx;
                    Ok(Some(key))
                }
            },
        }
    }

    /// Runs an operation of `cost` on `stream` (`None`: the call is synchronous, on the legacy
    /// default stream), advancing the fake clock; returns when it ended.
    fn issue(&mut self, stream: Option<CUstream>, what: String, cost_ns: u64) -> Result<u64, Fail> {
        let ctx = self.current()?;
        let key = self.stream(stream.unwrap_or(std::ptr::null_mut()))?;
        let call = self.call.function;
        let state = &mut *self.state;
        let default_time = state.contexts[&ctx].default_stream.time_ns;
        let blocking = |s: &Stream| s.context == ctx && !s.non_blocking && s.destroyed.is_none();
        let end = match key {
            Some(key) => {
                let s = state
                    .streams
                    .get_mut(&key)
                    .map(|s| (s.non_blocking, &mut s.timeline));
                let Some((non_blocking, timeline)) = s else {
                    return Ok(0);
                };
                let start = if non_blocking {
                    timeline.time_ns
                } else {
                    timeline.time_ns.max(default_time)
                };
                let end = start + cost_ns;
                timeline.time_ns = end;
                timeline.work.push(Work {
                    call,
                    what,
                    start_ns: start,
                    end_ns: end,
                });
                end
            }
            None => {
                // The legacy default stream waits for every blocking stream, and they for it.
                let start = state
                    .streams
                    .values()
                    .filter(|s| blocking(s))
                    .map(|s| s.timeline.time_ns)
                    .fold(default_time, u64::max);
                let end = start + cost_ns;
                for s in state.streams.values_mut().filter(|s| blocking(s)) {
                    s.timeline.time_ns = s.timeline.time_ns.max(end);
                }
                let timeline = &mut state.contexts.get_mut(&ctx).map(|c| &mut c.default_stream);
                if let Some(timeline) = timeline {
                    timeline.time_ns = end;
                    timeline.work.push(Work {
                        call,
                        what,
                        start_ns: start,
                        end_ns: end,
                    });
                }
                end
            }
        };
        Ok(end)
    }

    fn mem_alloc(
        &mut self,
        dptr: *mut CUdeviceptr,
        size: usize,
        stream: Option<CUstream>,
    ) -> Answer {
        let ctx = self.current()?;
        if dptr.is_null() {
            return Err(null_out(
                self.call,
                "pointer to write the device pointer to",
            ));
        }
        if let Some(s) = stream {
            self.stream(s)?;
        }
        let addr = self.state.memory.allocate(size, self.call, ctx)?;
        if stream.is_some() {
            self.issue(stream, format!("allocates {}", Bytes(size)), OP_NS)?;
        }
        // SAFETY: `dptr` is valid for writes (the C contract; not null, checked above).
        unsafe { out::write_hex(dptr, addr) };
        Ok(())
    }

    fn mem_free(&mut self, dptr: CUdeviceptr, stream: Option<CUstream>) -> Answer {
        self.current()?;
        if let Some(s) = stream {
            self.stream(s)?;
        }
        if dptr == 0 {
            return Ok(());
        }
        self.state.memory.free(dptr, self.call)?;
        if stream.is_some() {
            self.issue(stream, format!("frees {dptr:#x}"), OP_NS)?;
        }
        Ok(())
    }

    fn address_range(
        &self,
        pbase: *mut CUdeviceptr,
        psize: *mut usize,
        dptr: CUdeviceptr,
    ) -> Answer {
        self.current()?;
        let (base, offset) = self.state.memory.range(dptr, 1, self.call, false)?;
        let size = self.state.memory.allocs[&base].size;
        let _ = offset;
        // SAFETY: each is null or valid for writes (the C contract: null ones are ignored).
        unsafe {
            out::write_hex(pbase, base);
            out::write(psize, size);
        }
        Ok(())
    }

    fn host_alloc(&mut self, pp: *mut Ptr, size: usize) -> Answer {
        self.current()?;
        if pp.is_null() {
            return Err(null_out(self.call, "pointer to write the host pointer to"));
        }
        let layout = Layout::from_size_align(size.max(1), 4096).map_err(|_| {
            Fail::error(
                CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                format!("{} asks for {} of host memory", self.call, Bytes(size)),
            )
        })?;
        // SAFETY: `layout` has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(p) = NonNull::new(p) else {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                format!(
                    "{} asks for {} of host memory, which the host does not have",
                    self.call,
                    Bytes(size)
                ),
            ));
        };
        self.state.host.insert(
            p.as_ptr() as usize,
            HostAlloc {
                ptr: HostPtr(p),
                layout,
                made_by: self.call,
            },
        );
        // SAFETY: `pp` is valid for writes (the C contract; not null, checked above).
        unsafe { out::write(pp, p.as_ptr().cast::<c_void>()) };
        Ok(())
    }

    fn host_free(&mut self, p: Ptr) -> Answer {
        self.current()?;
        let addr = p as usize;
        let Some(h) = self.state.host.remove(&addr) else {
            let invalid = CUresult::CUDA_ERROR_INVALID_VALUE;
            return Err(match self.state.host_freed.get(&addr) {
                Some((size, made_by, freed_by)) => Fail::found(
                    invalid,
                    FindingKind::DoubleFree,
                    format!(
                        "{} frees host memory at {addr:#x}, the {} that {made_by} \
                         allocated and {freed_by} freed already",
                        self.call,
                        Bytes(*size)
                    ),
                ),
                None => Fail::found(
                    invalid,
                    FindingKind::InvalidFree,
                    format!(
                        "{} frees host memory at {addr:#x}, which cuMemAllocHost or \
                         cuMemHostAlloc of this device did not allocate",
                        self.call
                    ),
                ),
            });
        };
        self.state
            .host_freed
            .insert(addr, (h.layout.size(), h.made_by, self.call));
        // SAFETY: `h.ptr` was allocated with `h.layout` by this device and is freed once (it
        // left the map).
        unsafe { std::alloc::dealloc(h.ptr.0.as_ptr(), h.layout) };
        Ok(())
    }

    /// `addr` of `cuMemcpy` as the side it is: device memory of this device, else host memory
    /// (unified addressing).
    fn unified(&self, addr: CUdeviceptr) -> Place {
        if self.state.memory.holds(addr) {
            Place::Device(addr)
        } else {
            Place::Host(std::ptr::with_exposed_provenance_mut(addr as usize))
        }
    }

    /// Checks a host side of a copy: not null, not a device pointer, and within a pinned
    /// allocation it starts in.
    fn host_side(&self, p: Ptr, n: usize, write: bool) -> Answer {
        let verb = if write { "writes" } else { "reads" };
        if p.is_null() {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{} {verb} {} of host memory at a null pointer",
                    self.call,
                    Bytes(n)
                ),
            ));
        }
        let addr = p as usize;
        if self.state.memory.holds(addr as u64) {
            return Err(Fail::found(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                FindingKind::InvalidPointer,
                format!(
                    "{} {verb} {} of host memory at {addr:#x}, which is a device pointer \
                     of this device (copy device memory with the DtoD or HtoD/DtoH form that \
                     names it as device memory)",
                    self.call,
                    Bytes(n)
                ),
            ));
        }
        if let Some((&base, h)) = self.state.host.range(..=addr).next_back() {
            let size = h.layout.size();
            if addr < base + size && n > base + size - addr {
                return Err(Fail::found(
                    CUresult::CUDA_ERROR_INVALID_VALUE,
                    FindingKind::OutOfBounds,
                    format!(
                        "{} {verb} {} of host memory at {addr:#x}, {} past the end \
                         of the {size}-byte host allocation at {base:#x} that {} made",
                        self.call,
                        Bytes(n),
                        Bytes(n - (base + size - addr)),
                        h.made_by
                    ),
                ));
            }
        }
        Ok(())
    }

    fn copy(&mut self, dst: Place, src: Place, n: usize, stream: Option<CUstream>) -> Answer {
        self.current()?;
        if let Some(s) = stream {
            self.stream(s)?;
        }
        if n == 0 {
            return Ok(());
        }
        let call = self.call;
        // Check both sides before moving a byte.
        let src_range = match src {
            Place::Device(d) => Some(self.state.memory.range(d, n, call, false)?),
            Place::Host(h) => {
                self.host_side(h, n, false)?;
                None
            }
        };
        let dst_range = match dst {
            Place::Device(d) => Some(self.state.memory.range(d, n, call, true)?),
            Place::Host(h) => {
                self.host_side(h, n, true)?;
                None
            }
        };
        let memory = &mut self.state.memory;
        match (dst, src, dst_range, src_range) {
            (_, _, Some(d), Some(s)) => {
                let bytes = memory.slice(s, n).to_vec();
                memory.slice_mut(d, n).copy_from_slice(&bytes);
            }
            (_, Place::Host(h), Some(d), None) => {
                // SAFETY: `h` is valid for reads of `n` bytes (the C contract of the copy); it
                // is host memory, not the device's bytes (checked: not a device pointer).
                let from = unsafe { std::slice::from_raw_parts(h.cast::<u8>(), n) };
                memory.slice_mut(d, n).copy_from_slice(from);
            }
            (Place::Host(h), _, None, Some(s)) => {
                let from = memory.slice(s, n);
                // SAFETY: `h` is valid for writes of `n` bytes (the C contract of the copy),
                // and does not overlap the device's bytes.
                unsafe { h.cast::<u8>().copy_from_nonoverlapping(from.as_ptr(), n) };
            }
            (Place::Host(d), Place::Host(s), None, None) => {
                // SAFETY: both are valid for `n` bytes (the C contract); `copy` allows overlap.
                unsafe { d.cast::<u8>().copy_from(s.cast::<u8>(), n) };
            }
            _ => {}
        }
        let what = format!("copies {}", Bytes(n));
        self.issue(stream, what, OP_NS + n as u64 / BYTES_PER_NS)?;
        Ok(())
    }

    fn set(
        &mut self,
        dst: CUdeviceptr,
        value: &[u8],
        count: usize,
        stream: Option<CUstream>,
    ) -> Answer {
        self.current()?;
        if let Some(s) = stream {
            self.stream(s)?;
        }
        let size = value.len();
        if !dst.is_multiple_of(size as u64) {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{} sets {dst:#x}, which is not aligned to {size} bytes",
                    self.call
                ),
            ));
        }
        let n = count.saturating_mul(size);
        if n == 0 {
            return Ok(());
        }
        let range = self.state.memory.range(dst, n, self.call, true)?;
        for chunk in self.state.memory.slice_mut(range, n).chunks_exact_mut(size) {
            chunk.copy_from_slice(value);
        }
        self.issue(
            stream,
            format!("sets {}", Bytes(n)),
            OP_NS + n as u64 / BYTES_PER_NS,
        )?;
        Ok(())
    }

    fn mem_alloc_pitch(
        &mut self,
        dptr: *mut CUdeviceptr,
        ppitch: *mut usize,
        width: usize,
        height: usize,
        element: c_uint,
    ) -> Answer {
        let ctx = self.current()?;
        if dptr.is_null() {
            return Err(null_out(
                self.call,
                "pointer to write the device pointer to",
            ));
        }
        if ppitch.is_null() {
            return Err(null_out(self.call, "pointer to write the pitch to"));
        }
        if ![4, 8, 16].contains(&element) {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{} was given an element size of {element} bytes; it takes 4, 8 or 16",
                    self.call
                ),
            ));
        }
        let pitch = width.div_ceil(PITCH_ALIGN) * PITCH_ALIGN;
        let size = pitch.checked_mul(height).ok_or_else(|| {
            Fail::error(
                CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                format!(
                    "{} asks for {height} rows of {}, more bytes than an address has",
                    self.call,
                    Bytes(pitch)
                ),
            )
        })?;
        let addr = self.state.memory.allocate(size, self.call, ctx)?;
        // SAFETY: both are valid for writes (the C contract; not null, checked above).
        unsafe {
            out::write_hex(dptr, addr);
            out::write(ppitch, pitch);
        }
        Ok(())
    }

    /// One side of a 2D copy at its first byte: the memory its `CUmemorytype` names, `x` bytes
    /// and `y` rows of `pitch` bytes in.
    fn side_2d(&self, side: Side2d, which: &str) -> Result<Place, Fail> {
        use sys::CUmemorytype as M;
        let place = match side.kind {
            M::CU_MEMORYTYPE_HOST => Place::Host(side.host),
            M::CU_MEMORYTYPE_DEVICE => Place::Device(side.device),
            M::CU_MEMORYTYPE_UNIFIED => self.unified(side.device),
            M::CU_MEMORYTYPE_ARRAY => {
                return Err(Fail::error(
                    CUresult::CUDA_ERROR_NOT_SUPPORTED,
                    format!(
                        "{}'s {which} is a CUDA array, which the fake device does not have \
                         (copy from and to pitched memory: cuMemAllocPitch)",
                        self.call
                    ),
                ))
            }
            M(other) => {
                return Err(Fail::error(
                    CUresult::CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "{}'s {which} memory type is {other}, which is no CUmemorytype \
                         (CU_MEMORYTYPE_HOST, _DEVICE, _ARRAY or _UNIFIED)",
                        self.call
                    ),
                ))
            }
        };
        let offset = side
            .y
            .checked_mul(side.pitch)
            .and_then(|o| o.checked_add(side.x))
            .ok_or_else(|| {
                Fail::error(
                    CUresult::CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "{}'s {which} starts {} rows of {} and {} in, more bytes than an \
                         address has",
                        self.call,
                        side.y,
                        Bytes(side.pitch),
                        Bytes(side.x)
                    ),
                )
            })?;
        Ok(match place {
            Place::Device(d) => Place::Device(d.wrapping_add(offset as u64)),
            Place::Host(h) => Place::Host(h.cast::<u8>().wrapping_add(offset).cast()),
        })
    }

    /// Checks the rows of one side of a 2D copy or set, from the first byte of its first row to
    /// the last of its last, as the single copy of those bytes would be checked: the device
    /// allocation they are in, or the pinned host allocation they start in.
    fn rows_side(&self, place: Place, rows: Rows, write: bool) -> Result<RowsAt, Fail> {
        let with_rows = |mut fail: Fail| {
            fail.why.push_str(&format!(
                " ({rows}, from the first row's start to the last row's end)"
            ));
            fail
        };
        let span = rows.span();
        match place {
            Place::Device(d) => self
                .state
                .memory
                .range(d, span, self.call, write)
                .map(RowsAt::Device)
                .map_err(with_rows),
            Place::Host(h) => self
                .host_side(h, span, write)
                .map(|()| RowsAt::Host(h.cast()))
                .map_err(with_rows),
        }
    }

    /// Checks a pitch of a 2D copy or set: for more than one row, at least a row's width.
    fn pitch(&self, rows: Rows, which: &str) -> Answer {
        if rows.height > 1 && rows.pitch < rows.width {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{} {which} rows of {} with a pitch of {}: the pitch is the distance from \
                     a row's start to the next row's, at least a row's width",
                    self.call,
                    Bytes(rows.width),
                    Bytes(rows.pitch)
                ),
            ));
        }
        if rows.span_checked().is_none() {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{} {which} {rows}, more bytes than an address has",
                    self.call
                ),
            ));
        }
        Ok(())
    }

    fn copy_2d(&mut self, p: *const sys::CUDA_MEMCPY2D, stream: Option<CUstream>) -> Answer {
        self.current()?;
        if let Some(s) = stream {
            self.stream(s)?;
        }
        if p.is_null() {
            return Err(null_out(self.call, "pointer to its CUDA_MEMCPY2D"));
        }
        // SAFETY: `p` is valid for reads of a `CUDA_MEMCPY2D` (the C contract; not null, checked
        // above).
        let c = unsafe { p.read() };
        let (width, height) = (c.WidthInBytes, c.Height);
        if width == 0 || height == 0 {
            return Ok(());
        }
        let src_rows = Rows {
            width,
            height,
            pitch: c.srcPitch,
        };
        let dst_rows = Rows {
            pitch: c.dstPitch,
            ..src_rows
        };
        self.pitch(src_rows, "reads")?;
        self.pitch(dst_rows, "writes")?;
        let src = self.side_2d(
            Side2d {
                kind: c.srcMemoryType,
                host: c.srcHost.cast_mut(),
                device: c.srcDevice,
                x: c.srcXInBytes,
                y: c.srcY,
                pitch: c.srcPitch,
            },
            "source",
        )?;
        let dst = self.side_2d(
            Side2d {
                kind: c.dstMemoryType,
                host: c.dstHost,
                device: c.dstDevice,
                x: c.dstXInBytes,
                y: c.dstY,
                pitch: c.dstPitch,
            },
            "destination",
        )?;
        // Check both sides, every row, before moving a byte.
        let src = self.rows_side(src, src_rows, false)?;
        let dst = self.rows_side(dst, dst_rows, true)?;
        // The rows read first, then written: the same bytes whether or not the sides overlap.
        let mut bytes = Vec::with_capacity(width * height);
        for row in 0..height {
            let at = row * c.srcPitch;
            match src {
                RowsAt::Device((base, offset)) => {
                    bytes.extend_from_slice(self.state.memory.slice((base, offset + at), width));
                }
                RowsAt::Host(h) => {
                    // SAFETY: the row is within the checked span at `h`, which is valid for
                    // reads (the C contract of the copy), host memory and not the device's
                    // bytes (checked: not a device pointer).
                    let row = unsafe { std::slice::from_raw_parts(h.add(at), width) };
                    bytes.extend_from_slice(row);
                }
            }
        }
        for (row, from) in bytes.chunks_exact(width).enumerate() {
            let at = row * c.dstPitch;
            match dst {
                RowsAt::Device((base, offset)) => self
                    .state
                    .memory
                    .slice_mut((base, offset + at), width)
                    .copy_from_slice(from),
                // SAFETY: the row is within the checked span at `h`, which is valid for writes
                // (the C contract of the copy) and does not overlap `bytes`.
                RowsAt::Host(h) => unsafe {
                    h.add(at).copy_from_nonoverlapping(from.as_ptr(), width);
                },
            }
        }
        let n = width * height;
        self.issue(
            stream,
            format!("copies {src_rows}"),
            OP_NS + n as u64 / BYTES_PER_NS,
        )?;
        Ok(())
    }

    fn set_2d(
        &mut self,
        dst: CUdeviceptr,
        pitch: usize,
        value: &[u8],
        (width, height): (usize, usize),
        stream: Option<CUstream>,
    ) -> Answer {
        self.current()?;
        if let Some(s) = stream {
            self.stream(s)?;
        }
        let size = value.len();
        let rows = Rows {
            width: width.saturating_mul(size),
            height,
            pitch,
        };
        if !dst.is_multiple_of(size as u64) || (height > 1 && !pitch.is_multiple_of(size)) {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{} sets {rows} at {dst:#x}: the address and the pitch must be multiples \
                     of {}",
                    self.call,
                    Bytes(size)
                ),
            ));
        }
        if rows.width == 0 || height == 0 {
            return Ok(());
        }
        self.pitch(rows, "sets")?;
        let RowsAt::Device((base, offset)) = self.rows_side(Place::Device(dst), rows, true)? else {
            return Ok(());
        };
        for row in 0..height {
            let at = offset + row * pitch;
            let bytes = self.state.memory.slice_mut((base, at), rows.width);
            for chunk in bytes.chunks_exact_mut(size) {
                chunk.copy_from_slice(value);
            }
        }
        let n = rows.width * height;
        self.issue(
            stream,
            format!("sets {rows}"),
            OP_NS + n as u64 / BYTES_PER_NS,
        )?;
        Ok(())
    }

    fn stream_create(&mut self, ph: *mut CUstream, flags: c_uint) -> Answer {
        let ctx = self.current()?;
        if ph.is_null() {
            return Err(null_out(self.call, "pointer to write the stream to"));
        }
        let h = self.shared.token();
        let default_time = self.state.contexts[&ctx].default_stream.time_ns;
        self.state.streams.insert(
            h,
            Stream {
                context: ctx,
                made_by: self.call,
                destroyed: None,
                non_blocking: flags & 1 != 0,
                timeline: Timeline {
                    time_ns: default_time,
                    work: Vec::new(),
                },
            },
        );
        // SAFETY: `ph` is valid for writes (the C contract; not null, checked above).
        unsafe { put(self.call, ph, handle(h)) }
    }

    fn stream_destroy(&mut self, s: CUstream) -> Answer {
        if is_default_stream(s) {
            return Err(self.invalid_handle(format!(
                "the default stream {:#x}, which cannot be destroyed",
                s as usize
            )));
        }
        let key = self.stream(s)?.unwrap_or_default();
        let call = self.call;
        if let Some(s) = self.state.streams.get_mut(&key) {
            s.destroyed = Some(call);
        }
        Ok(())
    }

    fn event(&self, e: CUevent) -> Result<usize, Fail> {
        self.current()?;
        let key = e as usize;
        match self.state.events.get(&key) {
            None => {
                Err(self
                    .invalid_handle(format!("event {key:#x}, which is no event of this device")))
            }
            Some(ev) => match ev.destroyed {
                Some(by) => Err(self.invalid_handle(format!(
                    "event {key:#x} that {} created and {by} destroyed",
                    ev.made_by
                ))),
                None if !self.state.context_live(ev.context) => Err(self.invalid_handle(format!(
                    "event {key:#x} that {} created, whose context was destroyed",
                    ev.made_by
                ))),
                None => Ok(key),
            },
        }
    }

    fn event_create(&mut self, ph: *mut CUevent, flags: c_uint) -> Answer {
        let ctx = self.current()?;
        if ph.is_null() {
            return Err(null_out(self.call, "pointer to write the event to"));
        }
        let h = self.shared.token();
        self.state.events.insert(
            h,
            Event {
                context: ctx,
                made_by: self.call,
                destroyed: None,
                timing: flags & sys::CUevent_flags::CU_EVENT_DISABLE_TIMING.0 == 0,
                recorded: None,
            },
        );
        // SAFETY: `ph` is valid for writes (the C contract; not null, checked above).
        unsafe { put(self.call, ph, handle(h)) }
    }

    fn event_destroy(&mut self, e: CUevent) -> Answer {
        let key = self.event(e)?;
        let call = self.call;
        if let Some(ev) = self.state.events.get_mut(&key) {
            ev.destroyed = Some(call);
        }
        Ok(())
    }

    fn event_record(&mut self, e: CUevent, s: CUstream) -> Answer {
        let key = self.event(e)?;
        let at = self.issue(Some(s), format!("records event {key:#x}"), 0)?;
        if let Some(ev) = self.state.events.get_mut(&key) {
            ev.recorded = Some(at);
        }
        Ok(())
    }

    fn stream_wait_event(&mut self, s: CUstream, e: CUevent) -> Answer {
        let key = self.event(e)?;
        let stream = self.stream(s)?;
        let Some(at) = self.state.events[&key].recorded else {
            return Ok(());
        };
        let ctx = self.current()?;
        let timeline = match stream {
            Some(k) => self.state.streams.get_mut(&k).map(|s| &mut s.timeline),
            None => self
                .state
                .contexts
                .get_mut(&ctx)
                .map(|c| &mut c.default_stream),
        };
        if let Some(t) = timeline {
            t.time_ns = t.time_ns.max(at);
            t.work.push(Work {
                call: self.call.function,
                what: format!("waits for event {key:#x}"),
                start_ns: t.time_ns,
                end_ns: t.time_ns,
            });
        }
        Ok(())
    }

    fn elapsed(&self, ms: *mut f32, start: CUevent, end: CUevent) -> Answer {
        let times = [self.event(start)?, self.event(end)?].map(|k| {
            let ev = &self.state.events[&k];
            (k, ev.timing, ev.recorded)
        });
        let mut at = [0_u64; 2];
        for (i, (k, timing, recorded)) in times.into_iter().enumerate() {
            if !timing {
                return Err(Fail::error(
                    CUresult::CUDA_ERROR_INVALID_HANDLE,
                    format!(
                        "{} times event {k:#x}, made with CU_EVENT_DISABLE_TIMING",
                        self.call
                    ),
                ));
            }
            let Some(t) = recorded else {
                return Err(Fail::error(
                    CUresult::CUDA_ERROR_INVALID_HANDLE,
                    format!("{} times event {k:#x}, which was never recorded", self.call),
                ));
            };
            at[i] = t;
        }
        #[allow(clippy::cast_precision_loss)]
        let millis = (at[1] as f64 - at[0] as f64) / 1e6;
        #[allow(clippy::cast_possible_truncation)]
        // SAFETY: as in `driver_version`.
        unsafe {
            put(self.call, ms, millis as f32)
        }
    }

    fn module_load(&mut self, m: *mut CUmodule, image: CPtr) -> Answer {
        let ctx = self.current()?;
        if m.is_null() || image.is_null() {
            return Err(null_out(self.call, "module or image pointer"));
        }
        let h = self.shared.token();
        self.state.modules.insert(
            h,
            Module {
                context: ctx,
                made_by: self.call,
                destroyed: None,
            },
        );
        // SAFETY: `m` is valid for writes (the C contract; not null, checked above).
        unsafe { put(self.call, m, handle(h)) }
    }

    fn module(&self, m: usize) -> Result<usize, Fail> {
        self.current()?;
        match self.state.modules.get(&m) {
            None => {
                Err(self
                    .invalid_handle(format!("module {m:#x}, which is no module of this device")))
            }
            Some(module) => match module.destroyed {
                Some(by) => Err(self.invalid_handle(format!(
                    "module {m:#x} that {} loaded and {by} unloaded",
                    module.made_by
                ))),
                None if !self.state.context_live(module.context) => {
                    Err(self.invalid_handle(format!(
                        "module {m:#x} that {} loaded, whose context was destroyed",
                        module.made_by
                    )))
                }
                None => Ok(m),
            },
        }
    }

    fn module_unload(&mut self, m: CUmodule) -> Answer {
        let key = self.module(m as usize)?;
        let call = self.call;
        if let Some(module) = self.state.modules.get_mut(&key) {
            module.destroyed = Some(call);
        }
        Ok(())
    }

    fn get_function(&mut self, f: *mut CUfunction, m: CUmodule, name: *const c_char) -> Answer {
        let module = self.module(m as usize)?;
        if f.is_null() || name.is_null() {
            return Err(null_out(self.call, "function or name pointer"));
        }
        // SAFETY: `name` is a NUL-terminated string (the C contract).
        let name = unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        let known = self
            .shared
            .0
            .kernels
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(&name);
        if !known {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_NOT_FOUND,
                format!(
                    "{} looks up kernel `{name}`, which is not registered with the fake device: \
                     register it with `device.kernel(\"{name}\", |launch, (..): (..)| ...)`",
                    self.call
                ),
            ));
        }
        let existing = self
            .state
            .functions
            .iter()
            .find(|(_, func)| func.module == module && func.name == name)
            .map(|(h, _)| *h);
        let h = match existing {
            Some(h) => h,
            None => {
                let h = self.shared.token();
                self.state.functions.insert(h, Function { module, name });
                h
            }
        };
        // SAFETY: `f` is valid for writes (the C contract; not null, checked above).
        unsafe { put(self.call, f, handle(h)) }
    }

    /// The kernel's name of the function handle `f`, live, or the failure naming it.
    fn function(&self, f: CUfunction) -> Result<String, Fail> {
        let key = f as usize;
        let Some(func) = self.state.functions.get(&key) else {
            return Err(self.invalid_handle(format!(
                "function {key:#x}, which is no function of this device"
            )));
        };
        self.module(func.module)?;
        Ok(func.name.clone())
    }

    /// Whether the values a `kernel_args!` passed (`passed`, their sizes) are the parameters of
    /// the kernel `name` (`sizes`, of the types `types` names): as many, each of its parameter's
    /// size.
    fn parameters_match(
        &self,
        name: &str,
        sizes: &[usize],
        types: fn() -> Vec<&'static str>,
        passed: &[usize],
    ) -> Answer {
        let mismatch = |what: String| {
            let takes = match types() {
                none if none.is_empty() => "no parameters".to_owned(),
                some => format!("({})", some.join(", ")),
            };
            Fail::found(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                FindingKind::ParameterMismatch,
                format!("{} launches {name}, which takes {takes}, {what}", self.call),
            )
        };
        if passed.len() != sizes.len() {
            return Err(mismatch(format!(
                "with a `kernel_args!` of {} value{}: pass one per parameter, in order",
                passed.len(),
                plural(passed.len())
            )));
        }
        match sizes
            .iter()
            .zip(passed)
            .position(|(size, passed)| size != passed)
        {
            None => Ok(()),
            Some(i) => {
                let ty = types()[i];
                Err(mismatch(format!(
                    "with a value of {} as parameter {} (a `{ty}` of {}): `kernel_args!` passes \
                     each value as it is typed, so give it a `{ty}`",
                    Bytes(passed[i]),
                    i + 1,
                    Bytes(sizes[i]),
                )))
            }
        }
    }

    fn launch_ex(
        &mut self,
        config: *const sys::CUlaunchConfig,
        f: CUfunction,
        params: *mut Ptr,
        extra: *mut Ptr,
    ) -> Answer {
        if config.is_null() {
            return Err(null_out(self.call, "launch configuration"));
        }
        // SAFETY: `config` is valid for reads (the C contract; not null, checked above). Its
        // attributes are not read: the fake runs every launch the same way.
        let c = unsafe { config.read_unaligned() };
        self.launch(
            f,
            Dim3 {
                x: c.gridDimX,
                y: c.gridDimY,
                z: c.gridDimZ,
            },
            Dim3 {
                x: c.blockDimX,
                y: c.blockDimY,
                z: c.blockDimZ,
            },
            c.sharedMemBytes,
            c.hStream,
            params,
            extra,
        )
    }

    fn host_func(&mut self, stream: CUstream, f: sys::CUhostFn, data: Ptr) -> Answer {
        let Some(f) = f else {
            return Err(null_out(self.call, "host function"));
        };
        self.issue(Some(stream), "runs a host function".to_owned(), OP_NS)?;
        self.host_func = Some((f, data));
        Ok(())
    }

    fn occupancy_blocks(&self, n: *mut c_int, f: CUfunction, block: c_int) -> Answer {
        self.current()?;
        self.function(f)?;
        let blocks = 2048 / block.clamp(1, 1024);
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, n, blocks) }
    }

    fn occupancy_size(
        &self,
        grid: *mut c_int,
        block: *mut c_int,
        f: CUfunction,
        limit: c_int,
    ) -> Answer {
        self.current()?;
        self.function(f)?;
        let size = if limit > 0 { limit.min(1024) } else { 1024 };
        // SAFETY: as in `driver_version`.
        unsafe {
            put(self.call, grid, 8 * (2048 / size))?;
            put(self.call, block, size)
        }
    }

    /// Checks the two contexts of a peer copy (on the fake's one device, a copy within it).
    fn peer(&self, dst: CUcontext, src: CUcontext) -> Answer {
        self.initialized()?;
        self.context(dst as usize)?;
        self.context(src as usize)?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn launch(
        &mut self,
        f: CUfunction,
        grid: Dim3,
        block: Dim3,
        shared_mem_bytes: c_uint,
        stream: CUstream,
        params: *mut Ptr,
        extra: *mut Ptr,
    ) -> Answer {
        self.current()?;
        let name = self.function(f)?;
        self.stream(stream)?;
        let invalid = |why: String| Fail::error(CUresult::CUDA_ERROR_INVALID_VALUE, why);
        if grid.count() == 0 || block.count() == 0 {
            return Err(invalid(format!(
                "{} launches {name} with an empty grid or block",
                self.call
            )));
        }
        if block.count() > 1024 || block.z > 64 {
            return Err(invalid(format!(
                "{} launches {name} with blocks of {}x{}x{} threads; a block has at most 1024 \
                 (and z at most 64)",
                self.call, block.x, block.y, block.z
            )));
        }
        if !extra.is_null() {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_NOT_SUPPORTED,
                format!(
                    "{} passes `extra`; the fake device takes parameters through kernelParams",
                    self.call
                ),
            ));
        }
        let kernel = self
            .shared
            .0
            .kernels
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&name)
            .cloned();
        let Some(Kernel { body, sizes, types }) = kernel else {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_NOT_FOUND,
                format!(
                    "{} launches {name}, which is no longer registered",
                    self.call
                ),
            ));
        };
        let len = sizes.len();
        if len > 0 && params.is_null() {
            return Err(invalid(format!(
                "{} launches {name}, which takes {len} parameter{}, with null kernelParams",
                self.call,
                plural(len)
            )));
        }
        if let Some(passed) = cuda_driver_table_core::__private::lent::types(params) {
            let passed: Vec<usize> = passed.iter().map(|t| t.size).collect();
            self.parameters_match(&name, sizes, types, &passed)?;
        }
        let call = self.call;
        let result = {
            let mut launch = Launch {
                kernel: &name,
                grid,
                block,
                shared_mem_bytes,
                memory: &mut self.state.memory,
                access: Access { call },
            };
            // SAFETY: `params` holds one pointer per parameter of the kernel `f` is (the C
            // contract of the launch), and the kernel is this closure, whose parameters `P`
            // are the kernel's signature.
            body(&mut launch, unsafe { RawParams::new(params) })
        };
        let faults: Vec<Finding> = self.state.memory.faults.borrow_mut().drain(..).collect();
        let had_faults = !faults.is_empty();
        self.state.findings.extend(faults.iter().cloned());
        let threads = grid.count() * block.count();
        self.issue(
            Some(stream),
            format!("runs {name}"),
            2 * OP_NS + threads / BYTES_PER_NS,
        )?;
        match result {
            Ok(()) if !had_faults => Ok(()),
            Err(fault) if !fault.illegal_address && !had_faults => Err(Fail::found(
                CUresult::CUDA_ERROR_LAUNCH_FAILED,
                FindingKind::KernelFault,
                format!("kernel {name} launched by {call} stopped: {fault}"),
            )),
            _ => Err(Fail {
                code: CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
                why: faults
                    .first()
                    .map_or_else(String::new, |f| f.message.clone()),
                // Recorded above, once per access.
                finding: None,
            }),
        }
    }
}
