//! The lazily filled function-pointer slot behind every field of a generated table.
//!
//! After the first successful resolution a call costs one `Acquire` load and a predictable branch.
//! The fast path must never lock, allocate or call into a library. Failures are not cached: each
//! call of an unresolved field tries again (and pays for it), so a fixed environment can recover.

use std::ffi::c_void;
use std::ptr::{null_mut, NonNull};
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::config::Config;
use crate::error::Error;
use crate::resolve::resolve;

/// One driver function pointer, resolved on first use.
///
/// A slot must always be asked with the same `config`, `name` and versions (generated code passes
/// constants). Any number of threads may race the first call; all get the same pointer.
#[derive(Debug)]
pub struct Slot(AtomicPtr<c_void>);

impl Slot {
    /// An empty slot.
    pub const fn new() -> Self {
        Self(AtomicPtr::new(null_mut()))
    }

    /// The pointer of driver function `name` pinned at ABI `version` (per-thread ABI
    /// `per_thread_version`, if it has one), resolving it through `config` on the first call.
    #[inline(always)]
    pub fn get(
        &self,
        config: &Config,
        name: &'static str,
        version: u32,
        per_thread_version: Option<u32>,
    ) -> Result<NonNull<c_void>, Error> {
        match NonNull::new(self.0.load(Ordering::Acquire)) {
            Some(p) => Ok(p),
            None => self.fill(config, name, version, per_thread_version),
        }
    }

    /// The pointer if this slot is filled; never resolves. The fast path of generated methods.
    #[inline(always)]
    pub fn load(&self) -> Option<NonNull<c_void>> {
        NonNull::new(self.0.load(Ordering::Acquire))
    }

    /// Resolves the pointer through `config` and stores it (the slow path of [`Slot::get`]).
    ///
    /// # Errors
    ///
    /// When the function cannot be resolved; nothing is stored then.
    #[cold]
    #[inline(never)]
    pub fn fill(
        &self,
        config: &Config,
        name: &'static str,
        version: u32,
        per_thread_version: Option<u32>,
    ) -> Result<NonNull<c_void>, Error> {
        let p = resolve(config, name, version, per_thread_version)?;
        // Resolution is deterministic, so racing threads found the same pointer; still, everyone
        // returns the one stored first.
        match self
            .0
            .compare_exchange(null_mut(), p.as_ptr(), Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(p),
            Err(winner) => Ok(NonNull::new(winner).unwrap_or(p)),
        }
    }
}

impl Default for Slot {
    fn default() -> Self {
        Self::new()
    }
}
