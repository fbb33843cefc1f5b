//! Copies and sets, 1D and pitched 2D, each side checked whole before a byte moves.

use super::*;

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

impl Cx<'_> {
    /// `addr` of `cuMemcpy` as the side it is: device memory (of this device, or another fake
    /// device's, which the copy's check then refuses), else host memory (unified addressing).
    pub(super) fn unified(&self, addr: CUdeviceptr) -> Place {
        if device_of(addr).is_some() {
            Place::Device(addr)
        } else {
            Place::Host(std::ptr::with_exposed_provenance_mut(addr as usize))
        }
    }

    /// Checks a host side of a copy: not null, not a device pointer, and within a pinned
    /// allocation it starts in.
    pub(super) fn host_side(&self, p: Ptr, n: usize, write: bool) -> Answer {
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
        if let Some(device) = device_of(addr as u64) {
            let whose = if self.state.memory.holds(addr as u64) {
                "of this device".to_owned()
            } else {
                format!("of fake device {device}, not of this one")
            };
            return Err(Fail::found(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                FindingKind::InvalidPointer,
                format!(
                    "{} {verb} {} of host memory at {addr:#x}, which is a device pointer \
                     {whose} (copy device memory with the DtoD or HtoD/DtoH form that \
                     names it as device memory)",
                    self.call,
                    Bytes(n)
                ),
            ));
        }
        if let Some((&base, (h, freed_by))) = self.state.host_freed.range(..=addr).next_back() {
            let size = h.layout.size();
            if addr - base < size && n > 0 {
                return Err(Fail::found(
                    CUresult::CUDA_ERROR_INVALID_VALUE,
                    FindingKind::UseAfterFree,
                    format!(
                        "{} {verb} {} of host memory at {addr:#x}, in the {}-byte pinned host \
                         allocation at {base:#x} that {} made and {freed_by} freed",
                        self.call,
                        Bytes(n),
                        size,
                        h.made_by
                    ),
                ));
            }
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

    pub(super) fn copy(
        &mut self,
        dst: Place,
        src: Place,
        n: usize,
        stream: Option<CUstream>,
    ) -> Answer {
        self.current()?;
        if let Some(s) = stream {
            self.stream(s)?;
            if self.captures(stream) {
                return self.capture(s, Node::Copy { dst, src, n });
            }
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
        let issued = self.ordered_work(stream)?;
        self.note_sides((dst, dst_range), (src, src_range), n, &issued);
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
        self.finish_work(stream, &issued);
        Ok(())
    }

    /// Notes the uses of a copy's two sides by `issued` (`n` bytes each: device sides by their
    /// place in an allocation, pinned host sides by their address).
    fn note_sides(
        &mut self,
        (dst, dst_at): (Place, Option<(u64, usize)>),
        (src, src_at): (Place, Option<(u64, usize)>),
        n: usize,
        issued: &Issued,
    ) {
        let doing = |write| Doing {
            call: self.call,
            kernel: None,
            write,
            issued: Some(issued),
        };
        if let Some(at) = src_at {
            self.state.memory.note_use(at, n, &doing(false));
        }
        if let Some(at) = dst_at {
            self.state.memory.note_use(at, n, &doing(true));
        }
        if let Place::Host(h) = src {
            self.note_host_use(h, n, issued, false);
        }
        if let Place::Host(h) = dst {
            self.note_host_use(h, n, issued, true);
        }
    }

    /// After the work `issued` of a call on `stream`: a synchronous call (`None`) returns once
    /// its work is done, so the host is ordered after it.
    pub(super) fn finish_work(&mut self, stream: Option<CUstream>, issued: &Issued) {
        if stream.is_none() {
            self.host_waits_for(issued.agent);
        }
    }

    pub(super) fn set(
        &mut self,
        dst: CUdeviceptr,
        value: &[u8],
        count: usize,
        stream: Option<CUstream>,
    ) -> Answer {
        self.current()?;
        if let Some(s) = stream {
            self.stream(s)?;
            if self.captures(stream) {
                let value = value.to_vec();
                return self.capture(s, Node::Set { dst, value, count });
            }
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
        let issued = self.ordered_work(stream)?;
        self.note_sides(
            (Place::Device(dst), Some(range)),
            (Place::Device(dst), None),
            n,
            &issued,
        );
        for chunk in self.state.memory.slice_mut(range, n).chunks_exact_mut(size) {
            chunk.copy_from_slice(value);
        }
        self.issue(
            stream,
            format!("sets {}", Bytes(n)),
            OP_NS + n as u64 / BYTES_PER_NS,
        )?;
        self.finish_work(stream, &issued);
        Ok(())
    }

    pub(super) fn mem_alloc_pitch(
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
        let too_many = || {
            Fail::error(
                CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                format!(
                    "{} asks for {height} rows of {}, more bytes than an address has",
                    self.call,
                    Bytes(width)
                ),
            )
        };
        let pitch = width
            .div_ceil(PITCH_ALIGN)
            .checked_mul(PITCH_ALIGN)
            .ok_or_else(too_many)?;
        let size = pitch.checked_mul(height).ok_or_else(too_many)?;
        let issued = self.host_work();
        let addr = self.state.memory.allocate(size, self.call, ctx, &issued)?;
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

    pub(super) fn copy_2d(
        &mut self,
        p: *const sys::CUDA_MEMCPY2D,
        stream: Option<CUstream>,
    ) -> Answer {
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
        if let Some(s) = stream.filter(|_| self.captures(stream)) {
            return self.capture(s, Node::Copy2d(c));
        }
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
        let issued = self.ordered_work(stream)?;
        self.note_rows(src, src_rows, &issued, false);
        self.note_rows(dst, dst_rows, &issued, true);
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
        self.finish_work(stream, &issued);
        Ok(())
    }

    pub(super) fn set_2d(
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
            if self.captures(stream) {
                let (value, size) = (value.to_vec(), (width, height));
                return self.capture(
                    s,
                    Node::Set2d {
                        dst,
                        pitch,
                        value,
                        size,
                    },
                );
            }
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
        let at = self.rows_side(Place::Device(dst), rows, true)?;
        let issued = self.ordered_work(stream)?;
        self.note_rows(at, rows, &issued, true);
        let RowsAt::Device((base, offset)) = at else {
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
        self.finish_work(stream, &issued);
        Ok(())
    }

    /// Notes the uses of the rows of one checked side of a 2D copy or set by `issued`: each row
    /// of a device side (the padding between rows is not touched), a host side's span once.
    fn note_rows(&mut self, at: RowsAt, rows: Rows, issued: &Issued, write: bool) {
        match at {
            RowsAt::Device((base, offset)) => {
                let doing = Doing {
                    call: self.call,
                    kernel: None,
                    write,
                    issued: Some(issued),
                };
                for row in 0..rows.height {
                    let at = (base, offset + row * rows.pitch);
                    self.state.memory.note_use(at, rows.width, &doing);
                }
            }
            RowsAt::Host(h) => self.note_host_use(h.cast(), rows.span(), issued, write),
        }
    }
}
