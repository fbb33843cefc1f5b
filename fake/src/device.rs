//! The fake device: memory, contexts, streams, events, modules and kernels on the CPU, answering
//! the driver functions [`Device`] lists, checked as compute-sanitizer's memcheck and leak check
//! check a GPU.
//!
//! [`Device`] and its state are here; the calls it answers are in rooms by concern, each an
//! `impl Cx` block: `contexts` (initialisation, devices, contexts), `allocations` (device and
//! pinned host memory), `copies` (copies and sets, 1D and pitched 2D), `streams` (streams,
//! events, the fake clock), `modules` (modules, functions, launches), `graphs` (capture, graphs,
//! their launches), `ordering` (what orders the work), and `functions`, the table of every
//! function the device implements. The memory model is `crate::memory`, what the
//! device finds `crate::findings`.

use std::alloc::Layout;
use std::any::Any;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::fmt;
use std::panic::Location;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use cuda_driver_table_core::stand_in::{self as out, OutPlace};
use cuda_driver_table_core::sys::{
    self, CUcontext, CUdeviceptr, CUevent, CUfunction, CUmodule, CUresult, CUstream,
};
use cuda_driver_table_core::StreamMode;

use crate::failure;
use crate::findings::{
    plural, Answer, Bytes, CallRef, Fail, Fault, Finding, FindingKind, Report, Work,
};
use crate::kernel::{self, Dim3, KernelFn, KernelParams, Launch, RawParams};
use crate::memory::{device_of, window_of, Access, Doing, Freed, HostAlloc, Memory};
use crate::order::{Clock, Issued, Uses};
use crate::profile::Profile;
use graphs::{GraphRun, Graphs, Node};
use ordering::{Agents, InHostFunction};

mod allocations;
mod contexts;
mod copies;
mod functions;
mod graphs;
mod modules;
mod ordering;
mod streams;

use functions::FUNCTIONS;

/// Where a device's handles start (contexts, streams, ...): not host addresses either.
const HANDLE_BASE: usize = 0xc000_0000_0000_0000;
/// How many devices' handle windows fit between `HANDLE_BASE` and `MEMORY_BASE`.
const HANDLE_DEVICES: u64 = 1 << 24;

/// What the fake clock charges: each operation this, plus one nanosecond per this many bytes
/// or threads.
const OP_NS: u64 = 1_000;
const BYTES_PER_NS: u64 = 10;
/// What `cuMemAllocPitch` rounds a row's width up to, as a GPU's driver does.
const PITCH_ALIGN: usize = 512;

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A number of bytes as the findings write it: "1 byte", "64 bytes".
/// A fake CUDA device for tests: memory the device owns, contexts, streams, events, modules and
/// kernels written as Rust closures, answering the driver functions below for every table made
/// with its configuration ([`config`](Self::config), or [`Fake::device`](crate::Fake::device) to combine it with fakes
/// of your own). Each call is checked as compute-sanitizer checks it on a GPU, and what it finds
/// is a failing call *and* a [`Finding`]; what is still live when the test asks
/// ([`check`](Self::check), [`finish`](Self::finish)) or when the device is dropped is a leak.
///
/// - **Memory**: `cuMemAlloc`, `cuMemFree`, `cuMemAllocAsync`, `cuMemFreeAsync`,
///   `cuMemAllocFromPoolAsync` (any pool), `cuMemAllocHost`, `cuMemHostAlloc`, `cuMemFreeHost`,
///   `cuMemcpy`, `cuMemcpyHtoD`, `cuMemcpyDtoH`, `cuMemcpyDtoD` and their `Async` forms,
///   `cuMemsetD8`/`D16`/`D32` and their `Async` forms, `cuMemGetInfo`, `cuMemGetAddressRange`,
///   `cuDeviceGetMemPool` and `cuDeviceGetDefaultMemPool` (the device's one pool),
///   `cuMemHostRegister` and `cuMemHostUnregister` (a range overlapping a registered one or
///   pinned memory is `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`; only a range's start
///   unregisters it).
///   Device memory lives in the device (zeroed when allocated, and backed by the host only where
///   it is touched; an allocation the host cannot back fails with `CUDA_ERROR_OUT_OF_MEMORY`);
///   device pointers are high addresses (`0xd000…`) that are never host addresses, each device's
///   in a window of 2^40 bytes of its own (over three million devices before one repeats), with
///   unallocated gaps between allocations, and an address is never handed out twice, so a stale
///   pointer of any device is always caught. A pointer of another fake device is a finding
///   naming both devices (a copy between two devices' memory too: each device answers for its
///   own memory only). Host memory (`cuMemAllocHost`) is real memory of the process, kept after
///   `cuMemFreeHost` so that a later copy into it is a use after free. A 0-byte access touches
///   nothing and is never a finding.
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
///   so `cuEventElapsedTime` gives the same answer on every run. What orders the work is also
///   kept as on a GPU, where streams run at once (the checks below).
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
/// - **Graphs**: `cuStreamBeginCapture` (both ABIs), `cuStreamEndCapture`, `cuStreamIsCapturing`
///   (a capture records the kernels, copies, sets and host functions issued to the stream, and
///   runs none), `cuGraphCreate`, `cuGraphAddKernelNode` (both ABIs), `cuGraphAddMemsetNode`,
///   `cuGraphInstantiate` (both ABIs), `cuGraphInstantiateWithFlags`, `cuGraphLaunch` (each node
///   made again as its call, on the launching stream, in the graph's order: checked as the
///   stream's work), `cuGraphExecDestroy`, `cuGraphDestroy`. Synchronising a capturing stream or
///   its context, or the legacy default stream's work while a blocking stream captures, is the
///   driver's error and invalidates the capture. Not modelled: captures joined across streams,
///   events or stream-ordered allocation in a capture (`CUDA_ERROR_NOT_SUPPORTED`), other node
///   kinds added by hand, graph updates; a node's arguments are checked when it runs.
///
/// The checks, each naming the call, the pointer, the allocation's size and the call that made it
/// (see [`FindingKind`]): a copy, set or kernel access outside an allocation, use after free,
/// double free, freeing what was never allocated (or not its start), a host pointer that is a
/// device pointer, a destroyed or unknown context, stream, event, module or function
/// (`CUDA_ERROR_INVALID_CONTEXT`, `CUDA_ERROR_INVALID_HANDLE`), a launch whose
/// [`kernel_args!`](cuda_driver_table_core::kernel_args!) are not its kernel's parameters (another
/// number of values, or a value of another type: a `usize` for a `u32`, a `u8` for a `bool`), and
/// leaks: device memory, streams, events, modules, graphs and graph execs still live when their
/// context is destroyed (as the leak check reports memory), and, when checked, every allocation,
/// pinned host allocation, context, stream, event, module, graph and graph exec still live. Two
/// findings fail no call (a GPU would run it, on what happens to be there): a
/// [`FindingKind::Hazard`], a use of an allocation (device or pinned host memory) by one stream, or
/// the host, that an earlier use by another, one of them a write, is not ordered before (on the
/// same bytes; no event waited for, no synchronisation; the legacy default stream's implicit
/// synchronisation with blocking streams counts; a host read of pinned memory is stated with
/// [`host_reads`](Self::host_reads)); and a [`FindingKind::UninitializedRead`], a copy or kernel
/// reading bytes never written since they were allocated (unless the test asks for
/// [`with_zeroed_memory`](Self::with_zeroed_memory)). The guide's "Testing without a GPU" says what
/// the device does not check. The error of a failing call carries its finding as its description.
///
/// **Profiles**: [`with_profile`](Self::with_profile) makes the device imitate a machine users
/// deploy to, a [`Profile`]: its driver's version (`cuDriverGetVersion`, and lookups of newer
/// ABIs fail with `DriverTooOld`), the exports its driver lacks (a lookup of one fails as symbol
/// not found), its attributes (without memory pools, the stream-ordered allocator answers
/// `CUDA_ERROR_NOT_SUPPORTED`), and its host page size. Named ones imitate a Jetson Orin on
/// JetPack 6, a Windows driver, a TCC-mode GPU, a vGPU without pools and a Grace host, each
/// built from the reports its docs cite; a test builds its own from parts.
///
/// **On drop**, a device that was not [`finish`](Self::finish)ed checks itself: what it finds
/// fails the test (a panic with the report), unless the thread is panicking already (then the
/// report is printed to standard error, and the first panic stays the test's failure). So a test
/// needs no line at all for "no leaks"; `device.finish()?` says it explicitly.
///
/// A device lives on in the drivers made with it (a driver lives for the process); once it is
/// finished or dropped, their calls fail with `CUDA_ERROR_DEINITIALIZED` (what they did could
/// no longer be reported). Kernels run with the device locked: what a kernel's closure asks of
/// its own device (a table's call, [`read`](Self::read), [`check`](Self::check), ...) is
/// answered with a [`FindingKind::Misuse`], never waited for; [`used_memory`](Self::used_memory)
/// is answered.
pub struct Device {
    shared: Shared,
    finished: bool,
}

impl Default for Device {
    #[track_caller]
    fn default() -> Self {
        Self::new()
    }
}

impl Device {
    /// A device with 4 GiB of memory, nothing allocated, no kernels. Its report names the
    /// place it was made (the test's line).
    #[track_caller]
    pub fn new() -> Self {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let base = window_of(id);
        Self {
            shared: Shared(Arc::new(Inner {
                id,
                made_at: Location::caller(),
                state: Mutex::new(State::new(base)),
                kernels: RwLock::new(HashMap::new()),
                next_handle: AtomicUsize::new(0),
                late: Mutex::new(Vec::new()),
                used: AtomicUsize::new(0),
                gone: AtomicBool::new(false),
                profile: RwLock::new(Arc::new(Profile::default())),
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

    /// The machine the device imitates ([`Profile`]): its driver's version and the exports it
    /// lacks (which the drivers made with the device look functions up by), its attributes,
    /// and the host's page size. Without one, the device is the fake's default (a driver of
    /// the bindings' release, memory pools, 4 KiB pages). Give it before the test's first
    /// call: `Device::new().with_profile(Profile::jetson_orin_jetpack6())`.
    #[must_use]
    pub fn with_profile(self, profile: Profile) -> Self {
        *self
            .shared
            .0
            .profile
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(profile);
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
    /// `kernelParams` come from [`kernel_args!`](cuda_driver_table_core::kernel_args!) (on any thread, nested
    /// or not) is checked against them before the kernel runs: as many values, each of its
    /// parameter's type (or, where both are integers, floats or raw pointers, of its size), and
    /// fails as a [`FindingKind::ParameterMismatch`] when they differ. An array built by hand
    /// says nothing of its values: it is read as the launch's contract promises where every
    /// parameter is an integer, a float or a raw pointer, and refused for a parameter whose
    /// bytes have rules (a `bool`, an enum, a struct), which a value of another type could break.
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

    /// What the device found so far (every failing call's [`Finding`]) and, as leaks, everything
    /// still live: `Ok` when there is nothing. The device stays usable.
    ///
    /// # Errors
    ///
    /// The [`Report`] of what was found.
    pub fn check(&self) -> Result<(), Report> {
        let report = match self.shared.inside_kernel("Device::check") {
            Some(finding) => self.shared.report_of(vec![finding]),
            None => self.shared.report(),
        };
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
        if let Some(finding) = self.shared.inside_kernel("Device::findings") {
            return vec![finding];
        }
        let mut findings = self.shared.state().findings.clone();
        findings.extend(self.shared.late());
        findings
    }

    /// The `len` bytes at device pointer `ptr`, as the device holds them: for a test to look at
    /// device memory directly. `None` when they are not all in one live allocation.
    pub fn read(&self, ptr: CUdeviceptr, len: usize) -> Option<Vec<u8>> {
        self.shared
            .inside_kernel("Device::read")
            .is_none()
            .then_some(())?;
        let state = self.shared.state();
        state.memory.peek(ptr, len).map(<[u8]>::to_vec)
    }

    /// The work issued to `stream` so far, in order (the null stream: the legacy default stream
    /// of the context current on this thread). Empty for a stream the device does not know.
    pub fn work(&self, stream: CUstream) -> Vec<Work> {
        if self.shared.inside_kernel("Device::work").is_some() {
            return Vec::new();
        }
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

    /// The host reads the `len` bytes of pinned host memory at `ptr` now (the test's code does,
    /// after the calls so far): a [`FindingKind::Hazard`] when the device's work that writes
    /// them is not ordered before, as a read of an asynchronous copy's destination before
    /// `cuStreamSynchronize` would be. A host read of memory is no call the device sees: say it
    /// where the code under test reads its results. Memory the device did not allocate
    /// (`cuMemAllocHost`, `cuMemHostAlloc`) is not tracked.
    ///
    /// # Errors
    ///
    /// The hazard's finding (which the device's report holds too).
    pub fn host_reads(&self, ptr: *const c_void, len: usize) -> Result<(), Finding> {
        self.host_access(ptr.cast_mut(), len, false, "Device::host_reads")
    }

    /// The host writes the `len` bytes of pinned host memory at `ptr` now: a
    /// [`FindingKind::Hazard`] when the device's work that reads or writes them is not ordered
    /// before ([`host_reads`](Self::host_reads) says more).
    ///
    /// # Errors
    ///
    /// The hazard's finding (which the device's report holds too).
    pub fn host_writes(&self, ptr: *mut c_void, len: usize) -> Result<(), Finding> {
        self.host_access(ptr, len, true, "Device::host_writes")
    }

    fn host_access(&self, ptr: Ptr, len: usize, write: bool, what: &str) -> Result<(), Finding> {
        if let Some(finding) = self.shared.inside_kernel(what) {
            return Err(finding);
        }
        let in_stream = InHostFunction::running(self.shared.0.id);
        match self
            .shared
            .state()
            .host_access(ptr, len, write, what, in_stream.as_deref())
        {
            Some(finding) => Err(finding),
            None => Ok(()),
        }
    }

    /// Allocations count as written with zeros, as this device hands them out zeroed: for code
    /// that relies on zeroed memory, which a GPU does not give (`cuMemAlloc`'s memory holds
    /// whatever was there; `cuMemsetD8` zeroes it), so that the device does not report its reads
    /// as uninitialised.
    #[must_use]
    pub fn with_zeroed_memory(self) -> Self {
        self.shared.state().memory.checks.zeroed = true;
        self
    }

    /// Whether the device checks the order of work ([`FindingKind::Hazard`]: two uses of an
    /// allocation by different streams, or a stream and the host, that nothing orders). On
    /// unless turned off, for a test that must stay fast.
    #[must_use]
    pub fn check_order(self, on: bool) -> Self {
        self.shared.state().memory.checks.order = on;
        self
    }

    /// Whether the device checks reads of memory never written
    /// ([`FindingKind::UninitializedRead`]). On unless turned off.
    #[must_use]
    pub fn check_initialization(self, on: bool) -> Self {
        self.shared.state().memory.checks.initialization = on;
        self
    }

    /// The device's memory in use now, in bytes.
    pub fn used_memory(&self) -> usize {
        // Kept beside the state after every call, so that a kernel's closure (which runs while
        // the device is locked) can ask too.
        self.shared.0.used.load(Ordering::Relaxed)
    }

    pub(crate) fn shared(&self) -> Shared {
        self.shared.clone()
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // The device's drivers live on; what they call now fails (`Shared::call`).
        self.shared.0.gone.store(true, Ordering::Relaxed);
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
    /// Where the test made the device, for its report.
    made_at: &'static Location<'static>,
    state: Mutex<State>,
    /// Kernels by name.
    kernels: RwLock<HashMap<String, Kernel>>,
    next_handle: AtomicUsize,
    /// Findings made without the state's lock: calls from a kernel's closure while the device
    /// runs it, and a device replaced in a `Fake`.
    late: Mutex<Vec<Finding>>,
    /// The memory in use, as of the last call.
    used: AtomicUsize,
    /// Whether the `Device` was finished or dropped: its drivers live on, and refuse calls.
    gone: AtomicBool,
    /// The machine it imitates: outside the state's lock, so that a lookup made while a
    /// kernel's closure runs (the device locked) reads it.
    profile: RwLock<Arc<Profile>>,
}

thread_local! {
    /// The kernels running on this thread: each device's id and the kernel's name.
    static RUNNING: RefCell<Vec<(u64, String)>> = const { RefCell::new(Vec::new()) };
}

/// Marks kernel `name` of device `id` as running on this thread until dropped.
pub(crate) struct Running(u64);

impl Running {
    pub(crate) fn start(id: u64, name: &str) -> Self {
        let _ = RUNNING.try_with(|r| r.borrow_mut().push((id, name.to_owned())));
        Self(id)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = RUNNING.try_with(|r| {
            let mut running = r.borrow_mut();
            if let Some(i) = running.iter().rposition(|(id, _)| *id == self.0) {
                running.remove(i);
            }
        });
    }
}

impl Shared {
    /// The machine the device imitates.
    pub(crate) fn profile(&self) -> Arc<Profile> {
        Arc::clone(
            &self
                .0
                .profile
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn late(&self) -> Vec<Finding> {
        self.0
            .late
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn note(&self, finding: Finding) {
        self.0
            .late
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(finding);
    }

    /// The report of everything found, with the leaks.
    fn report(&self) -> Report {
        let findings = self.state().report().findings;
        self.report_of(findings.into_iter().chain(self.late()).collect())
    }

    /// A report of `findings`, naming where the device was made.
    fn report_of(&self, findings: Vec<Finding>) -> Report {
        Report {
            findings,
            made_at: Some(self.0.made_at),
        }
    }

    /// When `what` is asked from the closure of a kernel of this device that runs on this
    /// thread (the device is locked while it runs): the finding that says so, noted for the
    /// report. The device answers nothing else then, rather than wait for itself.
    pub(crate) fn inside_kernel(&self, what: &str) -> Option<Finding> {
        let id = self.0.id;
        let kernel = RUNNING
            .try_with(|r| {
                r.borrow()
                    .iter()
                    .rev()
                    .find(|(running, _)| *running == id)
                    .map(|(_, name)| name.clone())
            })
            .ok()
            .flatten()?;
        let finding = Finding {
            kind: FindingKind::Misuse,
            message: format!(
                "misuse: {what} was called from the closure of kernel {kernel}, while the fake \
                 device runs it; a kernel reaches memory through its `Launch` (`k.read`, \
                 `k.write`), and a test asks the device once the launch has returned"
            ),
        };
        self.note(finding.clone());
        Some(finding)
    }

    /// This device was replaced by `other` in a `Fake` (`Fake::device` twice): noted for its
    /// report.
    pub(crate) fn replaced_by(&self, other: &Shared) {
        if Arc::ptr_eq(&self.0, &other.0) {
            return;
        }
        self.note(Finding {
            kind: FindingKind::Misuse,
            message: format!(
                "misuse: this device was given to `Fake::device`, then fake device {} (made at \
                 {}) was given to the same `Fake`, which answers for one device: the driver it \
                 built calls the second only",
                other.0.id, other.0.made_at
            ),
        });
    }

    /// A handle no other of this device's handles is.
    pub(crate) fn token(&self) -> usize {
        let n = self.0.next_handle.fetch_add(1, Ordering::Relaxed) + 1;
        // Each device's handles in a window of their own, as its memory: 2^36 bytes of 16-byte
        // handles for each of the first 2^24 devices between HANDLE_BASE and MEMORY_BASE.
        let device = (self.0.id % HANDLE_DEVICES) as usize;
        HANDLE_BASE + (device << 36) + (n % (1 << 32)) * 16
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
        mode: StreamMode,
    ) -> Option<CUresult> {
        let handler = FUNCTIONS.iter().find(|(n, _)| *n == name)?.1;
        if let Some(finding) = self.inside_kernel(name) {
            failure::fail(CUresult::CUDA_ERROR_NOT_PERMITTED.0, finding.message);
            return Some(CUresult::CUDA_ERROR_NOT_PERMITTED);
        }
        if self.0.gone.load(Ordering::Relaxed) {
            failure::fail(
                CUresult::CUDA_ERROR_DEINITIALIZED.0,
                format!(
                    "{name} was called on the fake device made at {} after the test finished \
                     or dropped it: nothing it does now could be reported; make one device per \
                     test and finish it last",
                    self.0.made_at
                ),
            );
            return Some(CUresult::CUDA_ERROR_DEINITIALIZED);
        }
        let call = {
            let mut state = self.state();
            state.calls += 1;
            CallRef {
                function: name,
                index: state.calls,
            }
        };
        let per_thread = mode == StreamMode::PerThread;
        let mut graph = None;
        let result = self.step(call, per_thread, |cx| {
            // SAFETY: the caller's contract.
            let answer = unsafe { handler(cx, args) };
            graph = cx.graph_run.take();
            answer.unwrap_or_else(|| {
                Err(Fail::error(
                    CUresult::CUDA_ERROR_NOT_SUPPORTED,
                    format!(
                        "the fake device implements {name} at other ABIs than the one this \
                         table calls; pin the table to one it implements, or fake it with \
                         `Fake::on`"
                    ),
                ))
            })
        });
        Some(match graph {
            Some(run) if result == CUresult::CUDA_SUCCESS => self.run_graph(call, per_thread, run),
            _ => result,
        })
    }

    /// One step of the call `call`: `f` with the device locked, what it found noted and its
    /// failure reported, then, unlocked, the host function it issued.
    fn step(&self, call: CallRef, per_thread: bool, f: impl FnOnce(&mut Cx) -> Answer) -> CUresult {
        let mut state = self.state();
        state.memory.seen.get_mut().clear();
        let mut cx = Cx {
            state: &mut state,
            shared: self,
            call,
            host_func: None,
            graph_run: None,
            per_thread,
        };
        let result = f(&mut cx);
        let host_func = cx.host_func.take();
        self.0.used.store(state.memory.used, Ordering::Relaxed);
        let notes = state.memory.notes.take();
        state.findings.extend(notes);
        match result {
            Ok(()) => {
                if let Some((f, data, issued)) = host_func {
                    drop(state);
                    // What the function's host code does is work of its stream (`host_reads`
                    // in it).
                    let _in_stream = InHostFunction::start(self.0.id, issued);
                    // SAFETY: `f` is a host function to be called with `data` (the C contract
                    // of `cuLaunchHostFunc`, or of the graph's launch that holds it); the device
                    // is unlocked, so it may call the driver.
                    unsafe { f(data) };
                }
                CUresult::CUDA_SUCCESS
            }
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
        }
    }
}

/// Whether the device implements the function `name` (a table's name for it, `cuMemAlloc`).
pub(crate) fn implements(name: &str) -> bool {
    FUNCTIONS.iter().any(|(n, _)| *n == name)
}

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
    /// Freed pinned host allocations, by address, with the call that freed each. Their memory
    /// is kept (never given back to the allocator) for as long as the device lives, so that an
    /// access to one is always a use after free.
    host_freed: BTreeMap<usize, (HostAlloc, CallRef)>,
    contexts: BTreeMap<usize, Context>,
    primary: Option<usize>,
    streams: BTreeMap<usize, Stream>,
    events: BTreeMap<usize, Event>,
    modules: BTreeMap<usize, Module>,
    functions: BTreeMap<usize, Function>,
    findings: Vec<Finding>,
    /// The description of the last call the device failed.
    last_failure: Option<String>,
    /// Host memory registered with `cuMemHostRegister`, by start: its length and the call.
    registered: BTreeMap<usize, (usize, CallRef)>,
    /// The host and the streams, with what each has been ordered after (`order`).
    agents: Agents,
    /// What each recorded event's work was ordered after, when it was recorded.
    event_clocks: HashMap<usize, Clock>,
    /// Graphs, their instances, and the streams capturing.
    graphs: Graphs,
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
            registered: BTreeMap::new(),
            agents: Agents::new(),
            event_clocks: HashMap::new(),
            graphs: Graphs::default(),
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
        for (kind, destroy, handle, made_by) in self.graphs.live(|c| self.context_live(c)) {
            findings.push(leak(format!(
                "{kind} {handle:#x} that {made_by} created was never destroyed ({destroy})"
            )));
        }
        Report {
            findings,
            made_at: None,
        }
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
    host_func: Option<(unsafe extern "C" fn(Ptr), Ptr, Arc<Issued>)>,
    /// A graph launched, to run once the call has its answer (`cuGraphLaunch`).
    graph_run: Option<GraphRun>,
    /// Whether the calling table's default stream is the per-thread one.
    per_thread: bool,
}

type Ptr = *mut c_void;
type CPtr = *const c_void;

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
