//! Device memory and pinned host memory: allocation, freeing, and what is allocated.

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
                self.ctx_synchronize(ctx);
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
        self.ctx_synchronize(ctx);
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
