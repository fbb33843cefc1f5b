//! Initialisation, the device's own queries, and contexts (primary, created, current per
//! thread).

use super::*;

impl Cx<'_> {
    pub(super) fn id(&self) -> u64 {
        self.shared.0.id
    }

    pub(super) fn invalid_handle(&self, what: String) -> Fail {
        Fail::found(
            CUresult::CUDA_ERROR_INVALID_HANDLE,
            FindingKind::InvalidHandle,
            format!("{} uses {what}", self.call),
        )
    }

    pub(super) fn invalid_context(&self, what: String) -> Fail {
        Fail::found(
            CUresult::CUDA_ERROR_INVALID_CONTEXT,
            FindingKind::InvalidHandle,
            format!("{} uses {what}", self.call),
        )
    }

    pub(super) fn initialized(&self) -> Answer {
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
    pub(super) fn context(&self, ctx: usize) -> Result<usize, Fail> {
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
    pub(super) fn current(&self) -> Result<usize, Fail> {
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

    pub(super) fn ctx_or_current(&self, ctx: CUcontext) -> Result<usize, Fail> {
        if ctx.is_null() {
            self.current()
        } else {
            self.initialized()?;
            self.context(ctx as usize)
        }
    }

    pub(super) fn device(&self, dev: c_int) -> Answer {
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

    pub(super) fn init(&mut self, flags: c_uint) -> Answer {
        if flags != 0 {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!("{} was given flags {flags}; they must be 0", self.call),
            ));
        }
        self.state.initialized = true;
        Ok(())
    }

    pub(super) fn driver_version(&self, v: *mut c_int) -> Answer {
        let version = self.shared.profile().version().unwrap_or(sys::RELEASE);
        // SAFETY: the handler's contract: `v` is null or valid for writes.
        unsafe { put(self.call, v, version as c_int) }
    }

    pub(super) fn device_get(&self, d: *mut c_int, ordinal: c_int) -> Answer {
        self.device(ordinal)?;
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, d, 0) }
    }

    pub(super) fn device_count(&self, n: *mut c_int) -> Answer {
        self.initialized()?;
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, n, 1) }
    }

    pub(super) fn device_name(&self, name: *mut c_char, len: c_int, dev: c_int) -> Answer {
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

    pub(super) fn attribute(
        &self,
        pi: *mut c_int,
        attr: sys::CUdevice_attribute,
        dev: c_int,
    ) -> Answer {
        use sys::CUdevice_attribute as A;
        self.device(dev)?;
        // The profile's value, else the fake's own.
        let value =
            self.shared
                .profile()
                .attribute_value(attr)
                .unwrap_or(match attr {
                    A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
                    | A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X
                    | A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y => 1024,
                    A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z => 64,
                    A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X => i32::MAX,
                    A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y
                    | A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z => 65535,
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
                });
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, pi, value) }
    }

    pub(super) fn total_mem(&self, bytes: *mut usize, dev: c_int) -> Answer {
        self.device(dev)?;
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, bytes, self.state.memory.total) }
    }

    pub(super) fn new_context(&mut self, primary: bool) -> usize {
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

    pub(super) fn primary_retain(&mut self, pctx: *mut CUcontext, dev: c_int) -> Answer {
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

    pub(super) fn primary_release(&mut self, dev: c_int, reset: bool) -> Answer {
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
    pub(super) fn end_context(&mut self, ctx: usize) {
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
        // Handles of the context end with it, as on a GPU: each still live is a leak too, named
        // with the call that made it (and a later use of it is one of a destroyed handle).
        let handle = |kind: &str, destroy: &str, h: usize, made_by: CallRef| Finding {
            kind: FindingKind::Leak,
            message: format!(
                "leak: {kind} {h:#x} that {made_by} created was still live when {call} destroyed \
                 its context ({destroy})"
            ),
        };
        let state = &mut *self.state;
        for (&h, s) in &mut state.streams {
            if s.context == ctx && s.destroyed.is_none() {
                s.destroyed = Some(call);
                leaks.push(handle("stream", "cuStreamDestroy", h, s.made_by));
            }
        }
        for (&h, e) in &mut state.events {
            if e.context == ctx && e.destroyed.is_none() {
                e.destroyed = Some(call);
                leaks.push(handle("event", "cuEventDestroy", h, e.made_by));
            }
        }
        for (&h, m) in &mut state.modules {
            if m.context == ctx && m.destroyed.is_none() {
                m.destroyed = Some(call);
                leaks.push(handle("module", "cuModuleUnload", h, m.made_by));
            }
        }
        leaks.extend(
            state
                .graphs
                .end_context(ctx, call, |kind, destroy, h, made_by| {
                    handle(kind, destroy, h, made_by)
                }),
        );
        self.state.findings.extend(leaks);
        let id = self.id();
        with_stack(id, |stack| stack.retain(|&c| c != ctx));
    }

    pub(super) fn ctx_create(&mut self, pctx: *mut CUcontext, dev: c_int) -> Answer {
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

    pub(super) fn ctx_destroy(&mut self, ctx: CUcontext) -> Answer {
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

    pub(super) fn ctx_set_current(&mut self, ctx: CUcontext) -> Answer {
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

    pub(super) fn ctx_get_current(&self, pctx: *mut CUcontext) -> Answer {
        self.initialized()?;
        let ctx = current(self.id()).unwrap_or(0);
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, pctx, handle(ctx)) }
    }

    pub(super) fn ctx_push(&mut self, ctx: CUcontext) -> Answer {
        self.initialized()?;
        let ctx = self.context(ctx as usize)?;
        with_stack(self.id(), |stack| stack.push(ctx));
        Ok(())
    }

    pub(super) fn ctx_pop(&mut self, pctx: *mut CUcontext) -> Answer {
        let ctx = self.current()?;
        with_stack(self.id(), |stack| stack.pop());
        if pctx.is_null() {
            return Ok(());
        }
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, pctx, handle(ctx)) }
    }

    pub(super) fn ctx_get_device(&self, d: *mut c_int, ctx: Option<CUcontext>) -> Answer {
        match ctx {
            Some(ctx) => self.ctx_or_current(ctx)?,
            None => self.current()?,
        };
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, d, 0) }
    }

    pub(super) fn mem_get_info(&self, free: *mut usize, total: *mut usize) -> Answer {
        self.current()?;
        let m = &self.state.memory;
        // SAFETY: as in `driver_version`.
        unsafe {
            put(self.call, free, m.free_bytes())?;
            put(self.call, total, m.total)
        }
    }
}
