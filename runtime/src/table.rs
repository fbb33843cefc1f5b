//! What generated tables are made of: the per-function description ([`FunctionSpec`]), the typed
//! lazy field ([`Lazy`]) and the error list of `resolve_all` ([`Errors`]).

use crate::config::{Config, StreamMode};
use crate::error::Error;
use crate::resolve::StreamFlag;
use crate::slot::Slot;
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// One function of a table and the ABI it is pinned to (`Table::FUNCTIONS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionSpec {
    /// The C name (`cuMemAlloc`).
    pub name: &'static str,
    /// The pinned ABI (`3020` for `PFN_cuMemAlloc_v3020`).
    pub version: u32,
    /// The typedef of that ABI.
    pub typedef: &'static str,
    /// The symbol `cuda.h` exports for that ABI (`cuMemAlloc_v2`).
    pub export: Option<&'static str>,
    /// The per-thread default stream twin, where the headers have one.
    pub per_thread: Option<PerThreadSpec>,
}

/// The `_ptds`/`_ptsz` twin of a pinned ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerThreadSpec {
    /// Its typedef's version (`7000` for `PFN_cuLaunchKernel_v7000_ptsz`).
    pub version: u32,
    /// Its typedef.
    pub typedef: &'static str,
    /// Its exported symbol (`cuLaunchKernel_ptsz`).
    pub export: Option<&'static str>,
}

impl FunctionSpec {
    /// What is asked of the driver in `mode`: the version and the stream flag. Per-thread mode
    /// uses the per-thread twin where there is one; every other case is the pinned ABI with the
    /// legacy flag.
    pub fn request(&self, mode: StreamMode) -> (u32, StreamFlag) {
        crate::resolve::request(mode, self.version, self.per_thread.map(|p| p.version))
    }

    /// The symbol the driver should hand out in `mode` (compare with `dlsym`).
    pub fn expected_export(&self, mode: StreamMode) -> Option<&'static str> {
        match (mode, self.per_thread) {
            (StreamMode::PerThread, Some(pt)) => pt.export,
            _ => self.export,
        }
    }
}

/// A field of a generated table: a driver function pointer of typedef `F`, resolved on first use.
pub struct Lazy<F> {
    slot: Slot,
    _typedef: PhantomData<F>,
}

impl<F: Copy> Lazy<F> {
    /// An unresolved field.
    ///
    /// # Safety
    ///
    /// `F` must be the `PFN_*` typedef (an `Option` of an `extern "C"` function pointer) of
    /// exactly the ABI of every [`FunctionSpec`] this field is later asked with.
    pub const unsafe fn new() -> Self {
        const {
            assert!(
                size_of::<F>() == size_of::<*mut c_void>(),
                "a table field must be a PFN_* typedef"
            )
        };
        Self {
            slot: Slot::new(),
            _typedef: PhantomData,
        }
    }

    /// The function if it is resolved already (`None` before); never resolves. Generated methods
    /// call through this first, so their fast path is one load and one branch, and resolution
    /// ([`Lazy::resolve`]) stays out of line.
    #[inline(always)]
    pub fn loaded(&self) -> F {
        let p = self
            .slot
            .load()
            .map_or(std::ptr::null_mut(), NonNull::as_ptr);
        // SAFETY: `F` is an `Option<extern "C" fn>` of pointer size (checked in `new`) whose
        // representation is the function's address, null for `None`; a non-null `p` is the
        // driver's function for exactly the ABI of `F` (the contract of `new`).
        unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) }
    }

    /// Resolves the function through `config` and stores it (the slow path).
    ///
    /// # Errors
    ///
    /// When it cannot be resolved (see [`ErrorKind`](crate::ErrorKind)).
    #[cold]
    #[inline(never)]
    pub fn resolve(&self, config: &Config, spec: &FunctionSpec) -> Result<F, Error> {
        let per_thread = spec.per_thread.map(|p| p.version);
        let p = self
            .slot
            .fill(config, spec.name, spec.version, per_thread)?;
        // SAFETY: `F` is an `Option<extern "C" fn>` of pointer size (checked in `new`), whose
        // representation is the function's address; `p` is the driver's function for exactly the
        // ABI of `F` (the contract of `new`).
        Ok(unsafe { std::mem::transmute_copy::<NonNull<c_void>, F>(&p) })
    }

    /// The function's address, resolving it through `config` on first use.
    ///
    /// # Errors
    ///
    /// When it cannot be resolved.
    #[inline(always)]
    pub fn pointer(&self, config: &Config, spec: &FunctionSpec) -> Result<NonNull<c_void>, Error> {
        let per_thread = spec.per_thread.map(|p| p.version);
        self.slot.get(config, spec.name, spec.version, per_thread)
    }
}

impl<F> fmt::Debug for Lazy<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Lazy").field(&self.slot).finish()
    }
}

/// Every failure of a table's `resolve_all`, in the table's order.
#[derive(Debug, Clone)]
pub struct Errors(Vec<Error>);

impl Errors {
    /// `Ok` for an empty list.
    ///
    /// # Errors
    ///
    /// The list itself when it is not empty.
    pub fn from_vec(errors: Vec<Error>) -> Result<(), Errors> {
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Errors(errors))
        }
    }

    /// The failures.
    pub fn as_slice(&self) -> &[Error] {
        &self.0
    }

    /// The failures, owned.
    pub fn into_vec(self) -> Vec<Error> {
        self.0
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} driver function(s) could not be resolved:",
            self.0.len()
        )?;
        for e in &self.0 {
            write!(f, "\n  - {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}
