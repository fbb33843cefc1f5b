//! Device memory and pinned host memory: allocation, freeing, what is allocated, memory pools
//! (as far as the profile has them), and host memory registration.

use super::*;

impl Cx<'_> {
    pub(super) fn mem_alloc(
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
            self.pools()?;
            self.stream(s)?;
        }
        // A stream-ordered allocation is work of its stream, a synchronous one the host's.
        let issued = match stream {
            Some(_) => self.ordered_work(stream)?,
            None => self.host_work(),
        };
        let addr = self.state.memory.allocate(size, self.call, ctx, &issued)?;
        if stream.is_some() {
            self.issue(stream, format!("allocates {}", Bytes(size)), OP_NS)?;
        }
        // SAFETY: `dptr` is valid for writes (the C contract; not null, checked above).
        unsafe { out::write_hex(dptr, addr) };
        Ok(())
    }

    pub(super) fn mem_free(&mut self, dptr: CUdeviceptr, stream: Option<CUstream>) -> Answer {
        self.current()?;
        if let Some(s) = stream {
            self.stream(s)?;
        }
        if dptr == 0 {
            return Ok(());
        }
        // `cuMemFree` synchronises as the driver's does (cudaFree's implicit synchronisation):
        // the host waits for the context's work first, so it is never a hazard. A
        // stream-ordered free is work of its stream, and use not ordered before it is one.
        let issued = match stream {
            Some(_) => self.ordered_work(stream)?,
            None => {
                let ctx = self.current()?;
                self.ctx_synchronize(ctx)?;
                self.host_work()
            }
        };
        self.state.memory.free(dptr, self.call, &issued)?;
        if stream.is_some() {
            self.issue(stream, format!("frees {dptr:#x}"), OP_NS)?;
        }
        Ok(())
    }

    pub(super) fn address_range(
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

    pub(super) fn host_alloc(&mut self, pp: *mut Ptr, size: usize) -> Answer {
        self.current()?;
        if pp.is_null() {
            return Err(null_out(self.call, "pointer to write the host pointer to"));
        }
        // Pinned memory starts at a page boundary of the host the profile names.
        let profile = self.shared.profile();
        let page = profile.page_size();
        if !page.is_power_of_two() {
            return Err(Fail::found(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                FindingKind::Misuse,
                format!(
                    "{} needs the host's page size, and the device's profile ({profile}) gives \
                     {}, which is no page size: give `Profile::host_page_size` a power of two",
                    self.call,
                    Bytes(page)
                ),
            ));
        }
        let layout = Layout::from_size_align(size.max(1), page).map_err(|_| {
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
                layout,
                made_by: self.call,
                uses: Uses::default(),
            },
        );
        // SAFETY: `pp` is valid for writes (the C contract; not null, checked above).
        unsafe { out::write(pp, p.as_ptr().cast::<c_void>()) };
        Ok(())
    }

    pub(super) fn host_free(&mut self, p: Ptr) -> Answer {
        self.current()?;
        let addr = p as usize;
        // `cuMemFreeHost` synchronises as `cuMemFree` does: the host waits for the context's
        // work first.
        let ctx = self.current()?;
        self.ctx_synchronize(ctx)?;
        let Some(h) = self.state.host.remove(&addr) else {
            let invalid = CUresult::CUDA_ERROR_INVALID_VALUE;
            return Err(match self.state.host_freed.get(&addr) {
                Some((h, freed_by)) => Fail::found(
                    invalid,
                    FindingKind::DoubleFree,
                    format!(
                        "{} frees host memory at {addr:#x}, the {} that {} \
                         allocated and {freed_by} freed already",
                        self.call,
                        Bytes(h.layout.size()),
                        h.made_by
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
        // Kept, not given back to the allocator: no other allocation of the process can take
        // its place, so a later copy into it is a use after free (`host_side`), never a write
        // into memory the process uses for something else.
        self.state.host_freed.insert(addr, (h, self.call));
        Ok(())
    }
}

impl Cx<'_> {
    /// Fails unless the device has stream-ordered memory pools (its profile's
    /// `CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED`), as a device without them fails.
    pub(super) fn pools(&self) -> Answer {
        let profile = self.shared.profile();
        if profile.has_pools() {
            return Ok(());
        }
        Err(Fail::error(
            CUresult::CUDA_ERROR_NOT_SUPPORTED,
            format!(
                "{} needs stream-ordered memory pools, and the device ({profile}) has none \
                 (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED is 0): where it is 0, allocate \
                 with cuMemAlloc",
                self.call
            ),
        ))
    }

    /// `cuDeviceGetMemPool` and `cuDeviceGetDefaultMemPool`: the device's one pool, the same
    /// handle every time (the first of its handle window, which `Shared::token` never hands
    /// out).
    pub(super) fn mem_pool(&self, pool: *mut sys::CUmemoryPool, dev: c_int) -> Answer {
        self.device(dev)?;
        self.pools()?;
        let device = (self.id() % HANDLE_DEVICES) as usize;
        // SAFETY: `pool` is null or valid for writes (the handler's contract).
        unsafe { put(self.call, pool, handle(HANDLE_BASE + (device << 36))) }
    }

    /// `cuMemHostRegister`: records `[p, p + size)` as registered. NVIDIA's documentation asks
    /// no alignment of it (the driver page-locks the pages it touches), so none is checked; a
    /// range that overlaps one registered already, or pinned memory of `cuMemAllocHost`, fails
    /// with `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`.
    pub(super) fn host_register(&mut self, p: Ptr, size: usize) -> Answer {
        self.current()?;
        let addr = p as usize;
        let end = match addr.checked_add(size) {
            Some(end) if addr != 0 && size != 0 => end,
            _ => {
                return Err(Fail::error(
                    CUresult::CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "{} registers {} of host memory at {addr:#x}: give it a host pointer that \
                         is not null and a size that is not 0 and stays in the address space",
                        self.call,
                        Bytes(size)
                    ),
                ))
            }
        };
        if device_of(addr as u64).is_some() {
            return Err(Fail::found(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                FindingKind::InvalidPointer,
                format!(
                    "{} registers {} at {addr:#x}, which is a device pointer, as host memory \
                     (register memory of the host: device memory needs no registration)",
                    self.call,
                    Bytes(size)
                ),
            ));
        }
        let already = |what: String| {
            Err(Fail::error(
                CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                format!(
                    "{} registers {} of host memory at {addr:#x}, which overlaps {what}",
                    self.call,
                    Bytes(size)
                ),
            ))
        };
        if let Some((&base, &(len, by))) = self.state.registered.range(..end).next_back() {
            if base + len > addr {
                return already(format!(
                    "the {} at {base:#x} that {by} registered",
                    Bytes(len)
                ));
            }
        }
        if let Some((&base, h)) = self.state.host.range(..end).next_back() {
            if base + h.layout.size() > addr {
                return already(format!(
                    "the {} of pinned host memory at {base:#x} that {} allocated (pinned memory \
                     is registered already)",
                    Bytes(h.layout.size()),
                    h.made_by
                ));
            }
        }
        self.state.registered.insert(addr, (size, self.call));
        Ok(())
    }

    /// `cuMemHostUnregister`: `p` must be the start of a registered range.
    pub(super) fn host_unregister(&mut self, p: Ptr) -> Answer {
        self.current()?;
        let addr = p as usize;
        if self.state.registered.remove(&addr).is_some() {
            return Ok(());
        }
        Err(Fail::error(
            CUresult::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
            format!(
                "{} unregisters host memory at {addr:#x}, which is not the start of a range \
                 cuMemHostRegister registered (unregister with the pointer given to it)",
                self.call
            ),
        ))
    }
}
