//! CUDA graphs: stream capture, graphs built node by node, their instances, and launches, which
//! run a graph's nodes as work of the launching stream, in the graph's order.
//!
//! A node is the call it was made from, kept with its arguments (a kernel's parameters copied,
//! as the driver copies them), and a launch replays each node as that call on the launching
//! stream: the memory checks, the order and initialisation checks and the fake clock see a
//! graph's work as they see the stream's own. Capture records one stream's kernels, copies, sets
//! and host functions; what the fake does not capture (events, stream-ordered allocation, a
//! default stream) is refused with `CUDA_ERROR_NOT_SUPPORTED`, and what the driver forbids
//! during a capture (synchronising the stream or its context, the legacy default stream's
//! implicit synchronisation with it) fails as the driver's error and invalidates the capture.

use std::mem::MaybeUninit;

use super::*;

/// A node of a graph: a call, kept to be made again on the stream that launches the graph.
#[derive(Clone)]
pub(super) enum Node {
    /// A kernel's launch: its function, its kernel's closure (as registered when the node was
    /// made, whose signature the parameters were checked against), and a copy of each
    /// parameter's bytes (padding included, as bytes that may be uninitialised).
    Kernel {
        f: usize,
        name: String,
        body: Arc<KernelFn>,
        grid: Dim3,
        block: Dim3,
        shared: c_uint,
        params: Vec<Box<[MaybeUninit<u8>]>>,
    },
    Copy {
        dst: Place,
        src: Place,
        n: usize,
    },
    Copy2d(sys::CUDA_MEMCPY2D),
    Set {
        dst: CUdeviceptr,
        value: Vec<u8>,
        count: usize,
    },
    Set2d {
        dst: CUdeviceptr,
        pitch: usize,
        value: Vec<u8>,
        size: (usize, usize),
    },
    Host {
        f: unsafe extern "C" fn(Ptr),
        data: Ptr,
    },
}

// SAFETY: a node's pointers (host memory of a copy, a host function's data, a kernel node's
// `CUDA_MEMCPY2D` sides) are only dereferenced by the device's calls when the graph runs, under
// the C contract of the call that made the node: the memory it names is valid whenever the
// graph is launched, from whichever thread launches it, as on the driver.
unsafe impl Send for Node {}

// SAFETY: a node is never changed once made; sharing one shares its pointers' values only, which
// are dereferenced as said above.
unsafe impl Sync for Node {}

impl Node {
    /// What kind of node it is, for a failure.
    fn kind(&self) -> &'static str {
        match self {
            Node::Kernel { .. } => "kernel",
            Node::Copy { .. } | Node::Copy2d(_) => "copy",
            Node::Set { .. } | Node::Set2d { .. } => "set",
            Node::Host { .. } => "host function",
        }
    }
}

struct Graph {
    context: usize,
    made_by: CallRef,
    destroyed: Option<CallRef>,
    /// Its nodes, each after the nodes it depends on (a node is added after those it depends
    /// on, so the order they were added in is an order the graph may run in).
    nodes: Vec<Arc<Node>>,
}

struct Exec {
    context: usize,
    made_by: CallRef,
    destroyed: Option<CallRef>,
    /// The graph's nodes in an order that runs each after those it depends on.
    order: Arc<[Arc<Node>]>,
}

/// A stream's capture in progress.
struct Capture {
    began: CallRef,
    nodes: Vec<Arc<Node>>,
    /// Why the capture was invalidated, if it was.
    invalid: Option<String>,
}

/// The device's graphs, their instances, their nodes' handles, and the streams capturing.
#[derive(Default)]
pub(super) struct Graphs {
    graphs: BTreeMap<usize, Graph>,
    execs: BTreeMap<usize, Exec>,
    /// The graph of each node handle.
    nodes: HashMap<usize, usize>,
    /// The streams capturing, by handle.
    capturing: HashMap<usize, Capture>,
}

/// A graph's launch, to run once the call that launched it has its answer: its nodes and the
/// stream.
pub(super) type GraphRun = (Arc<[Arc<Node>]>, CUstream);

impl Graphs {
    /// Ends the graphs and instances of context `ctx`, each still live a leak (`leak` makes the
    /// finding from its kind, destroying call, handle and creating call).
    pub(super) fn end_context(
        &mut self,
        ctx: usize,
        call: CallRef,
        leak: impl Fn(&str, &str, usize, CallRef) -> Finding,
    ) -> Vec<Finding> {
        let mut leaks = Vec::new();
        for (&h, g) in &mut self.graphs {
            if g.context == ctx && g.destroyed.is_none() {
                g.destroyed = Some(call);
                leaks.push(leak("graph", "cuGraphDestroy", h, g.made_by));
            }
        }
        for (&h, e) in &mut self.execs {
            if e.context == ctx && e.destroyed.is_none() {
                e.destroyed = Some(call);
                leaks.push(leak("graph exec", "cuGraphExecDestroy", h, e.made_by));
            }
        }
        leaks
    }

    /// The graphs and instances still live (of a live context, `live` says), as (kind, how it
    /// is destroyed, handle, creating call).
    pub(super) fn live(
        &self,
        live: impl Fn(usize) -> bool,
    ) -> Vec<(&'static str, &'static str, usize, CallRef)> {
        let graphs = self
            .graphs
            .iter()
            .filter(|(_, g)| g.destroyed.is_none() && live(g.context))
            .map(|(&h, g)| ("graph", "cuGraphDestroy", h, g.made_by));
        let execs = self
            .execs
            .iter()
            .filter(|(_, e)| e.destroyed.is_none() && live(e.context))
            .map(|(&h, e)| ("graph exec", "cuGraphExecDestroy", h, e.made_by));
        graphs.chain(execs).collect()
    }

    /// Whether a stream of `streams` (handles) is capturing.
    fn any_capturing(&self, mut streams: impl Iterator<Item = usize>) -> Option<usize> {
        streams.find(|s| self.capturing.contains_key(s))
    }
}

impl Cx<'_> {
    /// Whether `stream` (a call's stream) is capturing: its work is then recorded, not run.
    pub(super) fn captures(&self, stream: Option<CUstream>) -> bool {
        stream.is_some_and(|s| self.state.graphs.capturing.contains_key(&(s as usize)))
    }

    /// Records `node` into the capture of `stream`.
    pub(super) fn capture(&mut self, stream: CUstream, node: Node) -> Answer {
        let call = self.call;
        let Some(capture) = self.state.graphs.capturing.get_mut(&(stream as usize)) else {
            return Ok(());
        };
        if let Some(why) = &capture.invalid {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                format!(
                    "{call} is issued to stream {:#x}, whose capture (begun by {}) was \
                     invalidated: {why}; end the capture and begin again",
                    stream as usize, capture.began
                ),
            ));
        }
        capture.nodes.push(Arc::new(node));
        Ok(())
    }

    /// Fails work on `stream` the fake does not capture, and work on the legacy default stream
    /// while a blocking stream of its context captures (which the driver refuses, invalidating
    /// that capture).
    pub(super) fn capture_conflict(&mut self, stream: Option<CUstream>) -> Answer {
        if self.state.graphs.capturing.is_empty() {
            return Ok(());
        }
        let call = self.call;
        if let Some(s) = stream.filter(|_| self.captures(stream)) {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_NOT_SUPPORTED,
                format!(
                    "{call} is issued to stream {:#x}, which is capturing: the fake device \
                     captures kernels, copies, sets and host functions only (not events, \
                     stream-ordered allocation or graph launches); issue it outside the capture",
                    s as usize
                ),
            ));
        }
        let raw = stream.unwrap_or(std::ptr::null_mut()) as usize;
        let legacy = raw == 1 || (raw == 0 && !self.per_thread);
        if !legacy {
            return Ok(());
        }
        let ctx = self.current()?;
        let blocking = self
            .state
            .streams
            .iter()
            .filter(|(_, s)| s.context == ctx && !s.non_blocking && s.destroyed.is_none())
            .map(|(&h, _)| h);
        let Some(capturing) = self.state.graphs.any_capturing(blocking) else {
            return Ok(());
        };
        let why = format!(
            "{call} was issued to the legacy default stream, which synchronises with stream \
             {capturing:#x}"
        );
        self.invalidate(capturing, &why);
        Err(Fail::error(
            CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
            format!(
                "{why} while it captures: a capture of a blocking stream forbids work on the \
                 legacy default stream (make the stream with CU_STREAM_NON_BLOCKING, or issue \
                 the work to a stream of its own)"
            ),
        ))
    }

    /// Marks the capture of `stream` invalidated, for `why`.
    fn invalidate(&mut self, stream: usize, why: &str) {
        if let Some(c) = self.state.graphs.capturing.get_mut(&stream) {
            c.invalid.get_or_insert_with(|| why.to_owned());
        }
    }

    /// A synchronisation of `streams` (handles): the driver's error when one captures, which
    /// invalidates its capture.
    pub(super) fn sync_during_capture(&mut self, streams: &[usize]) -> Answer {
        let Some(s) = self.state.graphs.any_capturing(streams.iter().copied()) else {
            return Ok(());
        };
        let why = format!("{} asked to synchronise it", self.call);
        self.invalidate(s, &why);
        Err(Fail::error(
            CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            format!(
                "{} synchronises stream {s:#x}, which is capturing: work captured is not run \
                 until its graph is launched, so there is nothing to wait for (end the capture \
                 first)",
                self.call
            ),
        ))
    }

    pub(super) fn begin_capture(&mut self, s: CUstream) -> Answer {
        let call = self.call;
        let Some(key) = self.stream(s)? else {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                format!(
                    "{call} captures the default stream {:#x}; capture a stream made with \
                     cuStreamCreate",
                    s as usize
                ),
            ));
        };
        if let Some(c) = self.state.graphs.capturing.get(&key) {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_ILLEGAL_STATE,
                format!(
                    "{call} captures stream {key:#x}, which {} began capturing already",
                    c.began
                ),
            ));
        }
        self.state.graphs.capturing.insert(
            key,
            Capture {
                began: call,
                nodes: Vec::new(),
                invalid: None,
            },
        );
        Ok(())
    }

    pub(super) fn end_capture(&mut self, s: CUstream, graph: *mut sys::CUgraph) -> Answer {
        let call = self.call;
        let key = self.stream(s)?.unwrap_or_default();
        if graph.is_null() {
            return Err(null_out(call, "pointer to write the graph to"));
        }
        let Some(capture) = self.state.graphs.capturing.remove(&key) else {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_ILLEGAL_STATE,
                format!("{call} ends a capture of stream {key:#x}, which is not capturing"),
            ));
        };
        if let Some(why) = capture.invalid {
            // SAFETY: `graph` is valid for writes (the C contract; not null, checked above).
            unsafe { put(call, graph, handle(0)) }?;
            return Err(Fail::error(
                CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                format!(
                    "{call} ends the capture of stream {key:#x} that {} began, which was \
                     invalidated: {why}",
                    capture.began
                ),
            ));
        }
        // Captured on one stream, each node depends on the one before it.
        let h = self.new_graph(capture.nodes)?;
        // SAFETY: as above.
        unsafe { put(call, graph, handle(h)) }
    }

    pub(super) fn is_capturing(
        &mut self,
        s: CUstream,
        status: *mut sys::CUstreamCaptureStatus,
    ) -> Answer {
        let key = self.stream(s)?;
        let answer = match key.and_then(|k| self.state.graphs.capturing.get(&k)) {
            None => sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE,
            Some(c) if c.invalid.is_some() => {
                sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_INVALIDATED
            }
            Some(_) => sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE,
        };
        // SAFETY: `status` is null or valid for writes (the C contract).
        unsafe { put(self.call, status, answer) }
    }

    fn new_graph(&mut self, nodes: Vec<Arc<Node>>) -> Result<usize, Fail> {
        let context = self.current()?;
        let h = self.shared.token();
        self.state.graphs.graphs.insert(
            h,
            Graph {
                context,
                made_by: self.call,
                destroyed: None,
                nodes,
            },
        );
        Ok(h)
    }

    pub(super) fn graph_create(&mut self, graph: *mut sys::CUgraph) -> Answer {
        if graph.is_null() {
            return Err(null_out(self.call, "pointer to write the graph to"));
        }
        let h = self.new_graph(Vec::new())?;
        // SAFETY: `graph` is valid for writes (the C contract; not null, checked above).
        unsafe { put(self.call, graph, handle(h)) }
    }

    /// The live graph `g`, or the failure naming it.
    fn graph(&self, g: sys::CUgraph) -> Result<usize, Fail> {
        self.current()?;
        let key = g as usize;
        match self.state.graphs.graphs.get(&key) {
            None => {
                Err(self
                    .invalid_handle(format!("graph {key:#x}, which is no graph of this device")))
            }
            Some(graph) => match graph.destroyed {
                Some(by) => Err(self.invalid_handle(format!(
                    "graph {key:#x} that {} created and {by} destroyed",
                    graph.made_by
                ))),
                None => Ok(key),
            },
        }
    }

    /// The live graph exec `e`, or the failure naming it.
    fn exec(&self, e: sys::CUgraphExec) -> Result<usize, Fail> {
        self.current()?;
        let key = e as usize;
        match self.state.graphs.execs.get(&key) {
            None => Err(self.invalid_handle(format!(
                "graph exec {key:#x}, which is no graph exec of this device"
            ))),
            Some(exec) => match exec.destroyed {
                Some(by) => Err(self.invalid_handle(format!(
                    "graph exec {key:#x} that {} instantiated and {by} destroyed",
                    exec.made_by
                ))),
                None if !self.state.context_live(exec.context) => {
                    Err(self.invalid_handle(format!(
                        "graph exec {key:#x} that {} instantiated, whose context was destroyed",
                        exec.made_by
                    )))
                }
                None => Ok(key),
            },
        }
    }

    /// Adds `node` to graph `g` after the `n` nodes at `deps`, and writes its handle to `out`.
    ///
    /// # Safety
    ///
    /// `deps` is valid for reads of `n` node handles (or null with `n` 0), `out` null or valid
    /// for writes.
    pub(super) unsafe fn add_node(
        &mut self,
        out: *mut sys::CUgraphNode,
        g: sys::CUgraph,
        deps: *const sys::CUgraphNode,
        n: usize,
        node: Node,
    ) -> Answer {
        let key = self.graph(g)?;
        if out.is_null() || (deps.is_null() && n > 0) {
            return Err(null_out(self.call, "node or dependencies pointer"));
        }
        let deps: &[sys::CUgraphNode] = if n == 0 {
            &[]
        } else {
            // SAFETY: the caller's contract (not null, checked above).
            unsafe { std::slice::from_raw_parts(deps, n) }
        };
        // Each dependency is a node of this graph, added before: the graph runs its nodes in
        // the order they were added.
        for &d in deps {
            if self.state.graphs.nodes.get(&(d as usize)) != Some(&key) {
                return Err(Fail::error(
                    CUresult::CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "{} adds a node after {:#x}, which is no node of graph {key:#x}",
                        self.call, d as usize
                    ),
                ));
            }
        }
        let h = self.shared.token();
        let Some(graph) = self.state.graphs.graphs.get_mut(&key) else {
            return Ok(());
        };
        self.state.graphs.nodes.insert(h, key);
        graph.nodes.push(Arc::new(node));
        // SAFETY: `out` is valid for writes (the caller's contract; not null, checked above).
        unsafe { put(self.call, out, handle(h)) }
    }

    /// A kernel node of `f` with the parameters `params` points to (checked against the
    /// kernel's, and copied).
    pub(super) fn kernel_node(
        &self,
        f: CUfunction,
        (grid, block): (Dim3, Dim3),
        shared: c_uint,
        params: *mut Ptr,
        extra: *mut Ptr,
    ) -> Result<Node, Fail> {
        let (name, kernel) = self.launchable(f, grid, block, params, extra)?;
        let params = kernel
            .sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                let mut bytes = vec![MaybeUninit::<u8>::uninit(); size].into_boxed_slice();
                // SAFETY: `params` holds a pointer to each parameter, valid for reads of its
                // size (the C contract of the launch, checked against the kernel's signature
                // by `launchable`); bytes are copied as they are, padding included.
                unsafe {
                    let from = (*params.add(i)).cast::<MaybeUninit<u8>>();
                    bytes.as_mut_ptr().copy_from_nonoverlapping(from, size);
                }
                bytes
            })
            .collect();
        Ok(Node::Kernel {
            f: f as usize,
            name,
            body: kernel.body,
            grid,
            block,
            shared,
            params,
        })
    }

    /// `cuGraphAddKernelNode`'s parameters (either ABI's fields): a kernel node.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn kernel_params(
        &self,
        f: CUfunction,
        grid: [c_uint; 3],
        block: [c_uint; 3],
        shared: c_uint,
        params: *mut Ptr,
        extra: *mut Ptr,
    ) -> Result<Node, Fail> {
        if f.is_null() {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_NOT_SUPPORTED,
                format!(
                    "{} adds a kernel node without a function: the fake device has no library \
                     kernels (`kern`), so give it the CUfunction of cuModuleGetFunction",
                    self.call
                ),
            ));
        }
        let dim = |[x, y, z]: [c_uint; 3]| Dim3 { x, y, z };
        self.kernel_node(f, (dim(grid), dim(block)), shared, params, extra)
    }

    /// `cuGraphAddKernelNode`'s parameters at its first ABI.
    pub(super) fn kernel_node_v1(
        &self,
        p: *const sys::CUDA_KERNEL_NODE_PARAMS_v1,
    ) -> Result<Node, Fail> {
        if p.is_null() {
            return Err(null_out(self.call, "CUDA_KERNEL_NODE_PARAMS"));
        }
        // SAFETY: `p` is valid for reads (the C contract; not null, checked above).
        let k = unsafe { p.read_unaligned() };
        self.kernel_params(
            k.func,
            [k.gridDimX, k.gridDimY, k.gridDimZ],
            [k.blockDimX, k.blockDimY, k.blockDimZ],
            k.sharedMemBytes,
            k.kernelParams,
            k.extra,
        )
    }

    /// `cuGraphAddKernelNode`'s parameters at its second ABI (CUDA 12), which may name a
    /// library kernel instead of a function.
    pub(super) fn kernel_node_v2(
        &self,
        p: *const sys::CUDA_KERNEL_NODE_PARAMS_v2,
    ) -> Result<Node, Fail> {
        if p.is_null() {
            return Err(null_out(self.call, "CUDA_KERNEL_NODE_PARAMS"));
        }
        // SAFETY: `p` is valid for reads (the C contract; not null, checked above).
        let k = unsafe { p.read_unaligned() };
        self.kernel_params(
            k.func,
            [k.gridDimX, k.gridDimY, k.gridDimZ],
            [k.blockDimX, k.blockDimY, k.blockDimZ],
            k.sharedMemBytes,
            k.kernelParams,
            k.extra,
        )
    }

    /// `cuGraphAddMemsetNode`'s parameters: a set node.
    pub(super) fn memset_params(
        &self,
        p: *const sys::CUDA_MEMSET_NODE_PARAMS,
    ) -> Result<Node, Fail> {
        if p.is_null() {
            return Err(null_out(self.call, "CUDA_MEMSET_NODE_PARAMS"));
        }
        // SAFETY: `p` is valid for reads (the C contract; not null, checked above).
        let m = unsafe { p.read_unaligned() };
        let value = match m.elementSize {
            1 => vec![m.value as u8],
            2 => (m.value as u16).to_ne_bytes().to_vec(),
            4 => m.value.to_ne_bytes().to_vec(),
            size => {
                return Err(Fail::error(
                    CUresult::CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "{} adds a set of {size}-byte elements; an element is 1, 2 or 4 bytes",
                        self.call
                    ),
                ))
            }
        };
        Ok(if m.height <= 1 {
            Node::Set {
                dst: m.dst,
                value,
                count: m.width,
            }
        } else {
            Node::Set2d {
                dst: m.dst,
                pitch: m.pitch,
                value,
                size: (m.width, m.height),
            }
        })
    }

    pub(super) fn instantiate(&mut self, exec: *mut sys::CUgraphExec, g: sys::CUgraph) -> Answer {
        let key = self.graph(g)?;
        if exec.is_null() {
            return Err(null_out(self.call, "pointer to write the graph exec to"));
        }
        let context = self.current()?;
        let order = self.state.graphs.graphs[&key].nodes.clone().into();
        let h = self.shared.token();
        self.state.graphs.execs.insert(
            h,
            Exec {
                context,
                made_by: self.call,
                destroyed: None,
                order,
            },
        );
        // SAFETY: `exec` is valid for writes (the C contract; not null, checked above).
        unsafe { put(self.call, exec, handle(h)) }
    }

    pub(super) fn graph_destroy(&mut self, g: sys::CUgraph) -> Answer {
        let key = self.graph(g)?;
        let call = self.call;
        if let Some(graph) = self.state.graphs.graphs.get_mut(&key) {
            graph.destroyed = Some(call);
        }
        Ok(())
    }

    pub(super) fn exec_destroy(&mut self, e: sys::CUgraphExec) -> Answer {
        let key = self.exec(e)?;
        let call = self.call;
        if let Some(exec) = self.state.graphs.execs.get_mut(&key) {
            exec.destroyed = Some(call);
        }
        Ok(())
    }

    /// `cuGraphLaunch`: the graph's nodes run once this call has its answer, as work of `s`.
    pub(super) fn graph_launch(&mut self, e: sys::CUgraphExec, s: CUstream) -> Answer {
        let key = self.exec(e)?;
        self.stream(s)?;
        if self.captures(Some(s)) {
            return self.capture_conflict(Some(s));
        }
        self.graph_run = Some((self.state.graphs.execs[&key].order.clone(), s));
        Ok(())
    }

    /// Makes the call `node` was made from again, on `stream`.
    fn replay(&mut self, node: &Node, stream: CUstream) -> Answer {
        match node {
            Node::Kernel {
                f,
                name,
                body,
                grid,
                block,
                shared,
                params,
            } => {
                // Its module must still be loaded.
                self.function(handle(*f))?;
                let mut pointers: Vec<Ptr> = params
                    .iter()
                    .map(|p| p.as_ptr().cast::<c_void>().cast_mut())
                    .collect();
                // SAFETY: one pointer per parameter of `body`'s signature, each to a copy of a
                // value of its type (`kernel_node` checked them against it and copied them).
                unsafe {
                    self.run_kernel(
                        name,
                        &**body,
                        (*grid, *block),
                        *shared,
                        stream,
                        pointers.as_mut_ptr(),
                    )
                }
            }
            Node::Copy { dst, src, n } => self.copy(*dst, *src, *n, Some(stream)),
            Node::Copy2d(c) => self.copy_2d(c, Some(stream)),
            Node::Set { dst, value, count } => self.set(*dst, value, *count, Some(stream)),
            Node::Set2d {
                dst,
                pitch,
                value,
                size,
            } => self.set_2d(*dst, *pitch, value, *size, Some(stream)),
            Node::Host { f, data } => self.host_func(stream, Some(*f), *data),
        }
    }
}

impl Shared {
    /// Runs a launched graph's nodes on `stream`, each as the call `call` on its own, in order
    /// (a host function's with the device unlocked, as `cuLaunchHostFunc`'s): the first that
    /// fails is the launch's answer.
    pub(super) fn run_graph(&self, call: CallRef, per_thread: bool, run: GraphRun) -> CUresult {
        let (nodes, stream) = run;
        for (i, node) in nodes.iter().enumerate() {
            let result = self.step(call, per_thread, |cx| {
                cx.replay(node, stream).map_err(|mut fail| {
                    fail.why = format!("{} (the graph's {} node {})", fail.why, node.kind(), i + 1);
                    fail
                })
            });
            if result != CUresult::CUDA_SUCCESS {
                return result;
            }
        }
        CUresult::CUDA_SUCCESS
    }
}
