//! The fake device's memory model: device allocations by address (freed ones keep their place,
//! so a stale pointer is always caught), pinned host allocations, and bounds-checked access to
//! them for copies, sets and kernels.

use std::alloc::Layout;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::Arc;

use cuda_driver_table_core::sys::CUresult;

use crate::findings::{Answer, Bytes, CallRef, Fail, Fault, Finding, FindingKind};
use crate::order::{Issued, Uses, Written};

/// Where the first device's memory starts: high, so never a host address (a process's own
/// addresses are below 2^57 on every platform Rust runs on).
pub(crate) const MEMORY_BASE: u64 = 0xd000_0000_0000_0000;
/// The addresses of one device: device `id`'s memory is the window at
/// `MEMORY_BASE + id * WINDOW`, so no two devices of a process share an address.
pub(crate) const WINDOW: u64 = 1 << 40;
/// How many devices' windows fit above `MEMORY_BASE`: over three million. Device ids count up
/// from 0 and start again here, so only a device made that many devices later could take a
/// stale pointer for one of its own.
pub(crate) const DEVICES: u64 = (u64::MAX - MEMORY_BASE) / WINDOW;

/// The first address of device `id`'s window.
pub(crate) fn window_of(id: u64) -> u64 {
    MEMORY_BASE + (id % DEVICES) * WINDOW
}

/// The id (modulo [`DEVICES`]) of the device whose window holds `addr`, if any device's does.
pub(crate) fn device_of(addr: u64) -> Option<u64> {
    addr.checked_sub(MEMORY_BASE).map(|offset| offset / WINDOW)
}

/// `size` zeroed bytes, or `None` when the host cannot give them: the allocator's answer is
/// checked, never an abort, and the bytes are not touched, so the host backs only the pages a
/// test uses (a large allocation of zeroed memory is mapped lazily).
fn zeroed(size: usize) -> Option<Vec<u8>> {
    if size == 0 {
        return Some(Vec::new());
    }
    let layout = Layout::array::<u8>(size).ok()?;
    // SAFETY: `layout` has a size other than zero.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return None;
    }
    // SAFETY: `p` was allocated by the global allocator with `layout`, of `size` bytes and the
    // alignment of `u8`, all of them initialised (zeroed); the vector owns it from here.
    Some(unsafe { Vec::from_raw_parts(p, size, size) })
}
/// Allocations are aligned to this, with a gap of at least this between them.
pub(crate) const ALIGN: u64 = 0x1000;
/// A device's memory unless told otherwise.
pub(crate) const DEFAULT_MEMORY: usize = 4 << 30;

/// How an allocation ended.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Freed {
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

pub(crate) struct Alloc {
    pub(crate) size: usize,
    pub(crate) bytes: Vec<u8>,
    pub(crate) made_by: CallRef,
    pub(crate) context: usize,
    pub(crate) freed: Option<Freed>,
    /// Its uses that later work must be ordered after, and the bytes ever written.
    pub(crate) track: RefCell<Track>,
}

/// What the order and initialisation checks keep of an allocation.
#[derive(Default)]
pub(crate) struct Track {
    pub(crate) uses: Uses,
    pub(crate) written: Written,
}

/// Which of the device's checks of order and initialisation are on, and whether allocations
/// count as zeroed (written).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checks {
    pub(crate) order: bool,
    pub(crate) initialization: bool,
    pub(crate) zeroed: bool,
}

/// Device memory: every allocation ever made (freed ones keep their place, with no bytes), by
/// address.
pub(crate) struct Memory {
    pub(crate) base: u64,
    pub(crate) next: u64,
    pub(crate) allocs: BTreeMap<u64, Alloc>,
    pub(crate) used: usize,
    pub(crate) total: usize,
    /// What kernels' accesses found during the launch in progress.
    pub(crate) faults: RefCell<Vec<Finding>>,
    /// Findings that fail nothing (hazards, uninitialised reads), for the device's report.
    pub(crate) notes: RefCell<Vec<Finding>>,
    /// What the call in progress checked already: each allocation's order for a read or a write,
    /// and whether an uninitialised read of it was noted (one finding each per call or launch).
    pub(crate) seen: RefCell<HashSet<(u64, Seen)>>,
    pub(crate) checks: Checks,
}

/// What a call checked of an allocation already.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Seen {
    Read,
    Write,
    Unwritten,
}

/// What accesses memory during a call, for its messages: the call, and the kernel if any.
#[derive(Clone)]
pub(crate) struct Access {
    pub(crate) call: CallRef,
    /// The work the access is part of, for the order checks.
    pub(crate) issued: Option<Arc<Issued>>,
}

/// One access: who, and whether it writes.
pub(crate) struct Doing<'a> {
    pub(crate) call: CallRef,
    pub(crate) kernel: Option<&'a str>,
    pub(crate) write: bool,
    pub(crate) issued: Option<&'a Issued>,
}

impl Access {
    pub(crate) fn reading<'a>(&'a self, kernel: &'a str) -> Doing<'a> {
        Doing {
            call: self.call,
            kernel: Some(kernel),
            write: false,
            issued: self.issued.as_deref(),
        }
    }

    pub(crate) fn writing<'a>(&'a self, kernel: &'a str) -> Doing<'a> {
        Doing {
            call: self.call,
            kernel: Some(kernel),
            write: true,
            issued: self.issued.as_deref(),
        }
    }
}

impl Doing<'_> {
    /// Who accesses: "kernel vadd launched by cuLaunchKernel (call 9) on stream 0xc000…".
    fn who(&self) -> String {
        let call = self
            .issued
            .map_or_else(|| self.call.to_string(), |w| w.name.to_string());
        match self.kernel {
            Some(kernel) => format!("kernel {kernel} launched by {call}"),
            None => call,
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
    pub(crate) fn new(base: u64) -> Self {
        Self {
            base,
            next: base + ALIGN,
            allocs: BTreeMap::new(),
            used: 0,
            total: DEFAULT_MEMORY,
            faults: RefCell::new(Vec::new()),
            notes: RefCell::new(Vec::new()),
            seen: RefCell::new(HashSet::new()),
            checks: Checks {
                order: true,
                initialization: true,
                zeroed: false,
            },
        }
    }

    pub(crate) fn live(&self) -> usize {
        self.allocs.values().filter(|a| a.freed.is_none()).count()
    }

    /// Whether `addr` is in this device's range of addresses.
    pub(crate) fn holds(&self, addr: u64) -> bool {
        (self.base..self.base + WINDOW).contains(&addr)
    }

    /// The bytes free: what is not in use (none when the device's size was set below that).
    pub(crate) fn free_bytes(&self) -> usize {
        self.total.saturating_sub(self.used)
    }

    /// A new allocation of `size` bytes that `call` makes in `context`, as the work `issued`
    /// (the host, or a stream for a stream-ordered allocation): its address.
    pub(crate) fn allocate(
        &mut self,
        size: usize,
        call: CallRef,
        context: usize,
        issued: &Issued,
    ) -> Result<u64, Fail> {
        if size == 0 {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_INVALID_VALUE,
                format!("{call} asks for 0 bytes"),
            ));
        }
        if size > self.free_bytes() {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                format!(
                    "{call} asks for {}; the fake device has {} of its {} free \
                     (`Device::with_memory` sets its size)",
                    Bytes(size),
                    Bytes(self.free_bytes()),
                    Bytes(self.total)
                ),
            ));
        }
        // Addresses are never handed out twice: the next one follows the last allocation's end,
        // and the window of 2^40 bytes ends somewhere.
        let addr = self.next;
        let next = u64::try_from(size)
            .ok()
            .and_then(|size| addr.checked_add(size))
            .and_then(|end| end.div_ceil(ALIGN).checked_mul(ALIGN))
            .and_then(|end| end.checked_add(ALIGN))
            .filter(|&next| next <= self.base + WINDOW);
        let Some(next) = next else {
            return Err(Fail::error(
                CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                format!(
                    "{call} asks for {}, more than is left of the fake device's addresses ({} of \
                     its 1 TiB window; an address is never handed out twice)",
                    Bytes(size),
                    Bytes((self.base + WINDOW).saturating_sub(addr))
                ),
            ));
        };
        let Some(bytes) = zeroed(size) else {
            return Err(Fail::found(
                CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                FindingKind::HostOutOfMemory,
                format!(
                    "{call} asks for {}, which the host cannot give the fake device (its memory \
                     is the test process's own)",
                    Bytes(size)
                ),
            ));
        };
        self.next = next;
        self.used += size;
        // The allocation is a use: work not ordered after it must not touch the memory.
        let mut track = Track {
            uses: Uses::default(),
            written: if self.checks.zeroed {
                Written::all(size)
            } else {
                Written::default()
            },
        };
        track.uses.touch(0, size, issued, true, "allocates");
        self.allocs.insert(
            addr,
            Alloc {
                size,
                bytes,
                made_by: call,
                context,
                freed: None,
                track: RefCell::new(track),
            },
        );
        Ok(addr)
    }

    /// Frees the allocation at `addr` as `call`, the work `issued` (the host, or a stream for a
    /// stream-ordered free): a free is a use that every earlier use must be ordered before.
    pub(crate) fn free(&mut self, addr: u64, call: CallRef, issued: &Issued) -> Answer {
        let invalid = CUresult::CUDA_ERROR_INVALID_VALUE;
        if self.allocs.get(&addr).is_some_and(|a| a.freed.is_none()) {
            let size = self.allocs[&addr].size;
            let doing = Doing {
                call,
                kernel: None,
                write: true,
                issued: Some(issued),
            };
            self.note_order((addr, 0), size, &doing, "frees");
        }
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
    pub(crate) fn locate(
        &self,
        addr: u64,
        len: usize,
        doing: &Doing<'_>,
    ) -> Result<(u64, usize), Finding> {
        let found = |kind: FindingKind, what: String| Finding {
            kind,
            message: format!("{}: {doing} {} at {addr:#x}{what}", kind.name(), Bytes(len)),
        };
        // A 0-byte access touches nothing: never a finding, wherever it points.
        if len == 0 {
            return Ok((addr, 0));
        }
        if !self.holds(addr) {
            return Err(found(FindingKind::InvalidPointer, self.not_ours(addr)));
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

    /// Why `addr`, outside this device's window, is no pointer of its: another fake device's,
    /// or no device's.
    pub(crate) fn not_ours(&self, addr: u64) -> String {
        let ours = device_of(self.base).unwrap_or_default();
        match device_of(addr) {
            Some(other) => format!(
                ", which is a device pointer of fake device {other}, not of this one (fake device \
                 {ours}, whose memory is at {:#x}): a device answers for its own memory only",
                self.base
            ),
            None => format!(
                ", which is no device pointer of this device (fake device {ours}, whose memory is \
                 at {:#x})",
                self.base
            ),
        }
    }

    /// The bytes `[addr, addr + len)` for reading, or the fault (recorded for the launch).
    pub(crate) fn bytes(&self, addr: u64, len: usize, doing: &Doing<'_>) -> Result<&[u8], Fault> {
        match self.locate(addr, len, doing) {
            Ok(at) => {
                self.note_use(at, len, doing);
                Ok(self.slice(at, len))
            }
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
            Ok(at) => {
                self.note_use(at, len, doing);
                Ok(self.slice_mut(at, len))
            }
            Err(finding) => Err(self.fault(finding)),
        }
    }

    pub(crate) fn fault(&self, finding: Finding) -> Fault {
        let message = finding.message.clone();
        self.faults.borrow_mut().push(finding);
        Fault {
            message,
            illegal_address: true,
        }
    }

    /// The bytes at `[addr, addr + len)` if they are in one live allocation.
    pub(crate) fn peek(&self, addr: u64, len: usize) -> Option<&[u8]> {
        if len == 0 {
            return Some(&[]);
        }
        let (&base, a) = self.allocs.range(..=addr).next_back()?;
        let offset = usize::try_from(addr - base).ok()?;
        (a.freed.is_none() && offset <= a.size && len <= a.size - offset)
            .then(|| &a.bytes[offset..offset + len])
    }

    /// A use of `len` bytes at `offset` in the allocation at `base` (as `locate` found them) by
    /// `doing`: notes a hazard when an earlier use is not ordered before it, and a read of bytes
    /// never written; marks the bytes a write writes. Each allocation's order is checked once per
    /// call (or launch) for reads and once for writes, and one uninitialised read is noted.
    pub(crate) fn note_use(&self, at: (u64, usize), len: usize, doing: &Doing<'_>) {
        if len == 0 {
            return;
        }
        let verb = if doing.write { "writes" } else { "reads" };
        self.note_order(at, len, doing, verb);
        let (base, offset) = at;
        let Some(a) = self.allocs.get(&base) else {
            return;
        };
        let mut track = a.track.borrow_mut();
        if doing.write {
            track.written.insert(offset, len);
            return;
        }
        if !self.checks.initialization || self.seen.borrow().contains(&(base, Seen::Unwritten)) {
            return;
        }
        if let Some(first) = track.written.first_unwritten(offset, len) {
            self.seen.borrow_mut().insert((base, Seen::Unwritten));
            let kind = FindingKind::UninitializedRead;
            self.notes.borrow_mut().push(Finding {
                kind,
                message: format!(
                    "{}: {} reads {} at {:#x} in the {}-byte allocation at {base:#x} that {} \
                     made, and its byte {first} was never written: a GPU hands out memory \
                     holding whatever was there (upload or set it first; a test of code that \
                     relies on zeroed memory says so with `Device::with_zeroed_memory`)",
                    kind.name(),
                    doing.who(),
                    Bytes(len),
                    base + offset as u64,
                    a.size,
                    a.made_by
                ),
            });
        }
    }

    /// The order check of [`note_use`](Self::note_use), for a use `verb` names.
    fn note_order(
        &self,
        (base, offset): (u64, usize),
        len: usize,
        doing: &Doing<'_>,
        verb: &'static str,
    ) {
        let Some(issued) = doing.issued else {
            return;
        };
        if !self.checks.order {
            return;
        }
        let Some(a) = self.allocs.get(&base) else {
            return;
        };
        let hazard = a
            .track
            .borrow_mut()
            .uses
            .touch(offset, len, issued, doing.write, verb);
        let Some(hazard) = hazard else {
            return;
        };
        let seen = if doing.write { Seen::Write } else { Seen::Read };
        if !self.seen.borrow_mut().insert((base, seen)) {
            return;
        }
        let kind = FindingKind::Hazard;
        let earlier = hazard.earlier_verb;
        self.notes.borrow_mut().push(Finding {
            kind,
            message: format!(
                "{}: {} {verb} the {}-byte allocation at {base:#x} that {} made (its bytes {offset} \
                 to {}), which {} {earlier}, and nothing orders the two: {}",
                kind.name(),
                doing.who(),
                a.size,
                a.made_by,
                offset.saturating_add(len),
                hazard.earlier,
                hazard.advice
            ),
        });
    }

    /// The bytes of a copy's or set's device side, or the failure (a finding); with `issued`,
    /// the use is noted ([`note_use`](Self::note_use)).
    pub(crate) fn range(
        &self,
        addr: u64,
        len: usize,
        call: CallRef,
        write: bool,
    ) -> Result<(u64, usize), Fail> {
        self.range_used(addr, len, call, write, None)
    }

    /// [`range`](Self::range), as a use by the work `issued`.
    pub(crate) fn range_used(
        &self,
        addr: u64,
        len: usize,
        call: CallRef,
        write: bool,
        issued: Option<&Issued>,
    ) -> Result<(u64, usize), Fail> {
        let doing = Doing {
            call,
            kernel: None,
            write,
            issued,
        };
        let at = self.locate(addr, len, &doing).map_err(|f| Fail {
            code: CUresult::CUDA_ERROR_INVALID_VALUE,
            why: f.message,
            finding: Some(f.kind),
        })?;
        if issued.is_some() {
            self.note_use(at, len, &doing);
        }
        Ok(at)
    }

    /// The `len` bytes at `offset` in the allocation at `base`, as `locate` found them (empty
    /// for 0 bytes, or for a place `locate` did not give).
    pub(crate) fn slice(&self, (base, offset): (u64, usize), len: usize) -> &[u8] {
        self.allocs
            .get(&base)
            .and_then(|a| a.bytes.get(offset..offset.checked_add(len)?))
            .unwrap_or_default()
    }

    /// [`slice`](Self::slice), for writing.
    pub(crate) fn slice_mut(&mut self, (base, offset): (u64, usize), len: usize) -> &mut [u8] {
        self.allocs
            .get_mut(&base)
            .and_then(|a| a.bytes.get_mut(offset..offset.checked_add(len)?))
            .unwrap_or_default()
    }
}

/// A pinned host allocation (`cuMemAllocHost`): memory of the process the device allocated,
/// at the address it is kept under. The device never gives it back to the allocator (a freed
/// one stays in quarantine, see the device's `host_freed`), so its address stays its own.
pub(crate) struct HostAlloc {
    pub(crate) layout: Layout,
    pub(crate) made_by: CallRef,
    /// Its uses by the device's work and the host, that later ones must be ordered after.
    pub(crate) uses: Uses,
}
