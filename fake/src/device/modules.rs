//! Modules, their functions, and launches of the kernels registered as closures.

use cuda_driver_table_core::__private::lent::{self, ValueType};

use super::*;

/// Whether the type named `ty` is one of the language's own (an integer, a float, `bool`,
/// `char`, a raw pointer), whose values the fake knows; a struct of the program's is not. Two
/// structs of one size are taken as one layout (a test may mirror a kernel's struct with a
/// type of its own): what is inside them is the launch's contract, which the fake cannot see.
fn primitive(ty: &str) -> bool {
    plain_bits(ty) || ty == "bool" || ty == "char"
}

/// Whether every byte pattern of the size of the type named `ty` is a value of it: the integers,
/// the floats and raw pointers (whose bytes a kernel may read as another such type of the same
/// size, as a GPU does). Not `bool`, `char`, enums or structs, whose bytes have rules (or
/// padding).
fn plain_bits(ty: &str) -> bool {
    const PLAIN: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64",
    ];
    PLAIN.contains(&ty) || ty.starts_with("*const ") || ty.starts_with("*mut ")
}

impl Cx<'_> {
    pub(super) fn module_load(&mut self, m: *mut CUmodule, image: CPtr) -> Answer {
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

    pub(super) fn module(&self, m: usize) -> Result<usize, Fail> {
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

    pub(super) fn module_unload(&mut self, m: CUmodule) -> Answer {
        let key = self.module(m as usize)?;
        let call = self.call;
        if let Some(module) = self.state.modules.get_mut(&key) {
            module.destroyed = Some(call);
        }
        Ok(())
    }

    pub(super) fn get_function(
        &mut self,
        f: *mut CUfunction,
        m: CUmodule,
        name: *const c_char,
    ) -> Answer {
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
    pub(super) fn function(&self, f: CUfunction) -> Result<String, Fail> {
        let key = f as usize;
        let Some(func) = self.state.functions.get(&key) else {
            return Err(self.invalid_handle(format!(
                "function {key:#x}, which is no function of this device"
            )));
        };
        self.module(func.module)?;
        Ok(func.name.clone())
    }

    /// Whether the launch's `kernelParams` can be read as the parameters of the kernel `name`
    /// (`sizes`, of the types `types` names). An array a `kernel_args!` is lending (`passed`, its
    /// values' types) must hold as many values, each of its parameter's type, or, where both are
    /// plain bits (integers, floats, raw pointers: any bytes are a value), of its size. An array
    /// built by hand (`None`) says nothing of its values: it is read as the C contract of the
    /// launch promises, for parameters that are all plain bits, and refused otherwise, since a
    /// value of another type would be read as, say, an invalid `bool`.
    pub(super) fn parameters_match(
        &self,
        name: &str,
        sizes: &[usize],
        types: fn() -> Vec<&'static str>,
        passed: Option<Vec<ValueType>>,
    ) -> Answer {
        let types = types();
        let mismatch = |what: String| {
            let takes = if types.is_empty() {
                "no parameters".to_owned()
            } else {
                format!("({})", types.join(", "))
            };
            Fail::found(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                FindingKind::ParameterMismatch,
                format!("{} launches {name}, which takes {takes}, {what}", self.call),
            )
        };
        let Some(passed) = passed else {
            return match types.iter().position(|ty| !plain_bits(ty)) {
                None => Ok(()),
                Some(i) => Err(mismatch(format!(
                    "with a kernelParams array that no `kernel_args!` is lending now (built by \
                     hand, or kept past its `with_params`): the fake device reads parameter {} \
                     as a `{}` only from a value `kernel_args!` says is one, so launch inside \
                     `kernel_args![..].with_params(|params| ...)`",
                    i + 1,
                    types[i]
                ))),
            };
        };
        if passed.len() != sizes.len() {
            return Err(mismatch(format!(
                "with a `kernel_args!` of {} value{}: pass one per parameter, in order",
                passed.len(),
                plural(passed.len())
            )));
        }
        let fits = |(i, value): (usize, &ValueType)| {
            let (ty, given) = (types[i], (value.name)());
            given == ty
                || value.size == sizes[i]
                    && (plain_bits(ty) && plain_bits(given) || !primitive(ty) && !primitive(given))
        };
        match passed.iter().enumerate().position(|p| !fits(p)) {
            None => Ok(()),
            Some(i) => {
                let (ty, given) = (types[i], (passed[i].name)());
                Err(mismatch(format!(
                    "with a `{given}` of {} as parameter {} (a `{ty}` of {}): `kernel_args!` \
                     passes each value as it is typed, so give it a `{ty}`",
                    Bytes(passed[i].size),
                    i + 1,
                    Bytes(sizes[i]),
                )))
            }
        }
    }

    pub(super) fn launch_ex(
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

    pub(super) fn host_func(&mut self, stream: CUstream, f: sys::CUhostFn, data: Ptr) -> Answer {
        let Some(f) = f else {
            return Err(null_out(self.call, "host function"));
        };
        self.stream(stream)?;
        if self.captures(Some(stream)) {
            return self.capture(stream, Node::Host { f, data });
        }
        let issued = self.ordered_work(Some(stream))?;
        self.issue(Some(stream), "runs a host function".to_owned(), OP_NS)?;
        self.host_func = Some((f, data, issued));
        Ok(())
    }

    pub(super) fn occupancy_blocks(&self, n: *mut c_int, f: CUfunction, block: c_int) -> Answer {
        self.current()?;
        self.function(f)?;
        let blocks = 2048 / block.clamp(1, 1024);
        // SAFETY: as in `driver_version`.
        unsafe { put(self.call, n, blocks) }
    }

    pub(super) fn occupancy_size(
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
    pub(super) fn peer(&self, dst: CUcontext, src: CUcontext) -> Answer {
        self.initialized()?;
        self.context(dst as usize)?;
        self.context(src as usize)?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch(
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
        self.stream(stream)?;
        if self.captures(Some(stream)) {
            let node = self.kernel_node(f, (grid, block), shared_mem_bytes, params, extra)?;
            return self.capture(stream, node);
        }
        let (name, kernel) = self.launchable(f, grid, block, params, extra)?;
        // SAFETY: `params` holds one pointer per parameter of the kernel (the C contract of the
        // launch), whose signature `launchable` checked.
        unsafe {
            self.run_kernel(
                &name,
                &*kernel.body,
                (grid, block),
                shared_mem_bytes,
                stream,
                params,
            )
        }
    }

    /// Whether `f` can be launched with this geometry and these parameters (checked against
    /// its kernel's signature): its kernel's name, and the kernel.
    pub(super) fn launchable(
        &self,
        f: CUfunction,
        grid: Dim3,
        block: Dim3,
        params: *mut Ptr,
        extra: *mut Ptr,
    ) -> Result<(String, Kernel), Fail> {
        let name = self.function(f)?;
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
        let kernel = self.kernel_of(&name)?;
        let (sizes, len) = (kernel.sizes, kernel.sizes.len());
        if len > 0 && params.is_null() {
            return Err(invalid(format!(
                "{} launches {name}, which takes {len} parameter{}, with null kernelParams",
                self.call,
                plural(len)
            )));
        }
        let passed = lent::types(params);
        if len > 0 || passed.is_some() {
            self.parameters_match(&name, sizes, kernel.types, passed)?;
        }
        Ok((name, kernel))
    }

    /// The kernel registered as `name`.
    fn kernel_of(&self, name: &str) -> Result<Kernel, Fail> {
        let kernel = self
            .shared
            .0
            .kernels
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned();
        kernel.ok_or_else(|| {
            Fail::error(
                CUresult::CUDA_ERROR_NOT_FOUND,
                format!(
                    "{} launches {name}, which is no longer registered",
                    self.call
                ),
            )
        })
    }

    /// Runs the kernel `name`, whose closure is `body`, on `stream`, with `params` as its
    /// parameters.
    ///
    /// # Safety
    ///
    /// `params` holds one pointer per parameter of `body`'s signature, each valid for reads of
    /// its type.
    pub(super) unsafe fn run_kernel(
        &mut self,
        name: &str,
        body: &KernelFn,
        (grid, block): (Dim3, Dim3),
        shared_mem_bytes: c_uint,
        stream: CUstream,
        params: *mut Ptr,
    ) -> Answer {
        let call = self.call;
        let id = self.id();
        let issued = self.ordered_work(Some(stream))?;
        let result = {
            let mut launch = Launch {
                kernel: name,
                grid,
                block,
                shared_mem_bytes,
                memory: &mut self.state.memory,
                access: Access {
                    call,
                    issued: Some(issued),
                },
            };
            // The device is locked while the closure runs: what it asks of the device or its
            // tables is refused as a finding (`Shared::inside_kernel`), never waited for.
            let _running = Running::start(id, name);
            // SAFETY: `params` holds one pointer per parameter of `body`'s signature (the
            // caller's contract).
            body(&mut launch, unsafe { RawParams::new(params) })
        };
        let faults: Vec<Finding> = self.state.memory.faults.borrow_mut().drain(..).collect();
        let had_faults = !faults.is_empty();
        self.state.findings.extend(faults.iter().cloned());
        let threads = grid.count().saturating_mul(block.count());
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
