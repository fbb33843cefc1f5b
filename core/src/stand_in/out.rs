//! Out-values of calls a stand-in answers: what it wrote through them, recorded per thread during
//! the call, so that the `tracing` feature's event reads only values the stand-in wrote (never a
//! place the caller left uninitialised) and [`Call::written`](super::Call::written) shows them.

use std::any::{type_name, Any};
use std::cell::RefCell;
use std::fmt;
use std::mem::size_of;
use std::sync::Arc;

/// An out-value of a call, as a table's method hands it to a stand-in: its parameter's name,
/// where it points, its pointee's size and whether that is a handle. Made by the generated call.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct OutPlace {
    name: &'static str,
    addr: usize,
    size: usize,
    handle: bool,
}

impl OutPlace {
    /// The out-value `name`, pointing at `place`.
    pub fn new<T: 'static>(name: &'static str, place: *mut T) -> Self {
        // A handle of the bindings is a pointer to an opaque struct (`*mut CUctx_st`); a
        // `void *` out-value is memory, not a handle.
        let pointee = type_name::<T>();
        let handle = (pointee.starts_with("*mut ") || pointee.starts_with("*const "))
            && !pointee.ends_with("c_void")
            && !pointee.ends_with("c_char");
        Self {
            name,
            addr: place as usize,
            size: size_of::<T>(),
            handle,
        }
    }

    /// Writes `handle` (a handle) or zero bytes (anything else) through this place unless null,
    /// and records it.
    ///
    /// # Safety
    ///
    /// The place is null or valid for writes of its type, for which all-zero bytes are a value:
    /// a C type of the bindings (integers, floats, enum newtypes, raw pointers, `Option`s of
    /// function pointers, and `#[repr(C)]` structs, unions and arrays of them).
    pub unsafe fn fill(&self, handle: usize) {
        if self.addr == 0 {
            return;
        }
        let p = self.addr as *mut u8;
        if self.handle && self.size == size_of::<usize>() {
            // SAFETY: valid for writes of a pointer (the caller's contract); unaligned is allowed.
            unsafe { p.cast::<usize>().write_unaligned(handle) };
            let shown = format!("{handle:#x}");
            record(
                self.addr,
                self.size,
                Arc::new(Sent(handle)),
                Some(handle as u64),
                shown,
            );
        } else {
            // SAFETY: valid for writes of `size` bytes, and zero is a value of its type (the
            // caller's contract).
            unsafe { p.write_bytes(0, self.size) };
            let shown = format!("<{} zero bytes>", self.size);
            let bits = (self.size <= 8).then_some(0);
            record(self.addr, self.size, Arc::new(Sent(())), bits, shown);
        }
    }
}

/// What a stand-in wrote through one out-value of a call ([`Call::written`](super::Call::written)).
#[derive(Clone)]
pub struct Written {
    parameter: &'static str,
    value: Arc<dyn Any + Send + Sync>,
    bits: Option<u64>,
    shown: String,
}

impl Written {
    /// The C parameter's name (`phStream`).
    pub fn parameter(&self) -> &'static str {
        self.parameter
    }

    /// The value written, if it was written as a `T` (by [`write()`]).
    pub fn get<T: Copy + 'static>(&self) -> Option<T> {
        self.value.downcast_ref::<Sent<T>>().map(|v| v.0)
    }

    /// A handle's address, or an integer's value, however it was written (a stand-in's
    /// filling of an out-value writes handles as addresses): `None` for what is not a handle or an integer.
    pub fn as_u64(&self) -> Option<u64> {
        self.bits
    }

    /// The value as text, as in the `Debug` of a call (`0xd000000000001000`).
    pub fn shown(&self) -> &str {
        &self.shown
    }
}

impl fmt::Debug for Written {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", self.parameter, self.shown)
    }
}

/// A value written by a stand-in, kept for [`Written`].
struct Sent<T>(T);

// SAFETY: the values kept are out-values of driver functions: C values (integers, handles, raw
// pointers, structs of them) that nothing here dereferences.
unsafe impl<T> Send for Sent<T> {}
// SAFETY: as `Send`; shared only to be copied out.
unsafe impl<T> Sync for Sent<T> {}

/// One write of the call in progress.
struct Record {
    addr: usize,
    /// Read by the `tracing` feature's check (`was_written`).
    #[cfg_attr(not(feature = "tracing"), allow(dead_code))]
    size: usize,
    value: Arc<dyn Any + Send + Sync>,
    bits: Option<u64>,
    shown: String,
}

thread_local! {
    /// The writes of the stand-in's call in progress on this thread.
    static WRITES: RefCell<Vec<Record>> = const { RefCell::new(Vec::new()) };
}

fn record(
    addr: usize,
    size: usize,
    value: Arc<dyn Any + Send + Sync>,
    bits: Option<u64>,
    shown: String,
) {
    let _ = WRITES.try_with(|w| {
        w.borrow_mut().push(Record {
            addr,
            size,
            value,
            bits,
            shown,
        });
    });
}

/// A stand-in's call starts on this thread: nothing written yet.
pub(crate) fn begin() {
    let _ = WRITES.try_with(|w| w.borrow_mut().clear());
}

/// The writes of the call in progress through its `outs`.
pub(crate) fn taken(outs: &[OutPlace]) -> Vec<Written> {
    WRITES
        .try_with(|w| {
            let w = w.borrow();
            outs.iter()
                .filter_map(|place| {
                    let r = w
                        .iter()
                        .rev()
                        .find(|r| r.addr == place.addr && place.addr != 0)?;
                    Some(Written {
                        parameter: place.name,
                        value: r.value.clone(),
                        bits: r.bits,
                        shown: r.shown.clone(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the stand-in's call that just returned on this thread wrote the `size` bytes at `addr`
/// (what the `tracing` feature's event of a stand-in's call may read).
#[cfg(feature = "tracing")]
pub(crate) fn was_written(addr: usize, size: usize) -> bool {
    WRITES
        .try_with(|w| {
            w.borrow()
                .iter()
                .any(|r| r.addr <= addr && addr.saturating_add(size) <= r.addr + r.size)
        })
        .unwrap_or(false)
}

/// Writes `value` through `place` as a stand-in's answer, and records that it did (unless
/// `place` is null): what a fake writes its out-values with, so that the `tracing` feature's
/// event and the record of calls show them. (An out-value written otherwise is still written,
/// but neither shows it.)
///
/// # Safety
///
/// `place` is null or valid for writes of a `T` (an out-value of the call being answered, as
/// the C function's contract gives it to the closure). It need not be aligned.
pub unsafe fn write<T: Copy + fmt::Debug + 'static>(place: *mut T, value: T) {
    // SAFETY: the caller's contract.
    unsafe { write_shown(place, value, format!("{value:?}")) }
}

/// [`write()`] of a device pointer, shown in hex.
///
/// # Safety
///
/// As [`write()`].
pub unsafe fn write_hex<T: Copy + fmt::LowerHex + 'static>(place: *mut T, value: T) {
    // SAFETY: the caller's contract.
    unsafe { write_shown(place, value, format!("{value:#x}")) }
}

/// [`write()`], shown as `shown`.
///
/// # Safety
///
/// As [`write()`].
unsafe fn write_shown<T: Copy + 'static>(place: *mut T, value: T, shown: String) {
    if place.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    unsafe { place.write_unaligned(value) };
    record(
        place as usize,
        size_of::<T>(),
        Arc::new(Sent(value)),
        bits_of(&value),
        shown,
    );
}

/// `value` as an integer, where it is an integer or a pointer (of at most 8 bytes).
fn bits_of<T: Copy + 'static>(value: &T) -> Option<u64> {
    let any: &dyn Any = value;
    if let Some(v) = any.downcast_ref::<u64>() {
        return Some(*v);
    }
    if let Some(v) = any.downcast_ref::<usize>() {
        return Some(*v as u64);
    }
    if let Some(v) = any.downcast_ref::<i32>() {
        return Some(*v as u64);
    }
    if let Some(v) = any.downcast_ref::<u32>() {
        return Some(u64::from(*v));
    }
    // A handle: a pointer-sized raw pointer type.
    if size_of::<T>() == size_of::<usize>() && std::any::type_name::<T>().starts_with('*') {
        // SAFETY: `T` is a raw pointer type (its name says so, and it has a pointer's size),
        // whose bits are its address.
        let addr: usize = unsafe { std::mem::transmute_copy::<T, *const u8>(value) }.addr();
        return Some(addr as u64);
    }
    None
}
