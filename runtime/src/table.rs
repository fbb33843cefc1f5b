//! What generated tables are made of: the description of each function ([`FunctionSpec`]), the
//! trait that binds a field to it ([`Field`]), the lazily filled field itself ([`Lazy`]) and the
//! `CUresult` check of every call.
//!
//! A field cannot be told which function it holds: its type, `Lazy<Table, I>`, names the table
//! and the field's index, and the table's `unsafe impl Field<I>` (written by the macro) names the
//! spec and the `PFN_*` typedef. So no safe code can put another function, or another ABI, in a
//! field, and two fields of the same C signature are still different types.

use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::{null_mut, NonNull};
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::library::{resolve, resolver_for};
use crate::manifest::{cu_result_name, AbiInfo};
use crate::stream::StreamMode;
use crate::sys::CUresult;

/// One function of a table and the ABI it is pinned to (`Table::FUNCTIONS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionSpec {
    /// The C name (`cuMemAlloc`).
    pub name: &'static str,
    /// The typedef of the pinned ABI (`PFN_cuMemAlloc_v3020`).
    pub typedef: &'static str,
    /// The typedef of its per-thread twin (`PFN_cuLaunchKernel_v7000_ptsz`), if it has one.
    pub per_thread_typedef: Option<&'static str>,
    /// The pinned ABI: its version, exported symbol and per-thread twin. What is requested is
    /// [`AbiInfo::request`].
    pub abi: AbiInfo,
}

/// Binds field `I` of a table to its function: implemented by `#[driver_table]` for the table
/// type, once per field. Hidden from the docs: a table's page would list one impl per function.
///
/// # Safety
///
/// `Pfn` must be the `PFN_*` typedef (an `Option` of an `extern "C"` function pointer) of exactly
/// `SPEC.abi`, and, where `SPEC.abi` has a per-thread twin, of the twin as well (the same Rust
/// type): [`Lazy<Self, I>`](Lazy) hands out what the backend resolves for `SPEC` as a `Pfn`.
#[doc(hidden)]
pub unsafe trait Field<const I: usize> {
    /// The `PFN_*` typedef of the field.
    type Pfn: Copy;
    /// The function and ABI of the field.
    const SPEC: FunctionSpec;
}

/// Field `I` of table `T`: the driver function `T`'s [`Field<I>`] names, resolved on first use.
///
/// After the first successful resolution a call costs one `Acquire` load and a predictable
/// branch; the fast path never locks, allocates or calls into a library. A failed resolution
/// stores nothing, so the next call asks the backend again (the library search itself runs once
/// per process, see `library`). Any number of threads may race the first call; all get the
/// pointer stored first.
pub struct Lazy<T, const I: usize> {
    ptr: AtomicPtr<c_void>,
    _field: PhantomData<fn() -> T>,
}

impl<T: Field<I>, const I: usize> Lazy<T, I> {
    /// An unresolved field.
    pub const fn new() -> Self {
        const {
            assert!(
                size_of::<T::Pfn>() == size_of::<*mut c_void>(),
                "a table field must be a PFN_* typedef"
            );
        }
        Self {
            ptr: AtomicPtr::new(null_mut()),
            _field: PhantomData,
        }
    }

    /// The function if it is resolved already (`None` before); never resolves. Generated methods
    /// call through this first, so their fast path is one load and one branch, and resolution
    /// ([`Lazy::resolve`]) stays out of line.
    #[inline(always)]
    pub fn loaded(&self) -> T::Pfn {
        let p = self.ptr.load(Ordering::Acquire);
        // SAFETY: `T::Pfn` is an `Option<extern "C" fn>` of pointer size (checked in `new`),
        // whose representation is the function's address, null for `None`. Only `fill` stores,
        // and it stores what the backend resolved for `T::SPEC`, which by `Field`'s contract is
        // of type `T::Pfn`.
        unsafe { std::mem::transmute_copy::<*mut c_void, T::Pfn>(&p) }
    }

    /// The function, resolving it through `config` and storing it if it is not resolved yet
    /// (the slow path of generated methods).
    ///
    /// # Errors
    ///
    /// When it cannot be resolved (see [`ErrorKind`]).
    #[cold]
    #[inline(never)]
    pub fn resolve(&self, config: &Config) -> Result<T::Pfn, Error> {
        let p = self.address(config)?;
        // SAFETY: as in `loaded`: `p` is the backend's function for `T::SPEC`, of type `T::Pfn`.
        Ok(unsafe { std::mem::transmute_copy::<NonNull<c_void>, T::Pfn>(&p) })
    }

    /// The function's address, resolving it through `config` on first use.
    ///
    /// # Errors
    ///
    /// When it cannot be resolved.
    #[inline]
    pub fn address(&self, config: &Config) -> Result<NonNull<c_void>, Error> {
        match NonNull::new(self.ptr.load(Ordering::Acquire)) {
            Some(p) => Ok(p),
            None => fill(&self.ptr, config, &T::SPEC),
        }
    }
}

/// Resolves `spec` through `config` and stores it in `ptr` (the slow path of every field).
///
/// Not generic: one copy serves every field of every table, so resolving a whole table runs one
/// function 447 times rather than 447 copies of it once each.
#[cold]
#[inline(never)]
fn fill(
    ptr: &AtomicPtr<c_void>,
    config: &Config,
    spec: &FunctionSpec,
) -> Result<NonNull<c_void>, Error> {
    #[cfg(feature = "tracing")]
    let start = std::time::Instant::now();
    let result = resolve(config, spec.name, &spec.abi).map(|p| {
        // Resolution is deterministic, so racing threads found the same pointer; still, everyone
        // returns the one stored first.
        match ptr.compare_exchange(null_mut(), p.as_ptr(), Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => p,
            Err(winner) => NonNull::new(winner).unwrap_or(p),
        }
    });
    // The event comes after the store: a subscriber that calls this table from inside it finds
    // the field resolved (and `trace` keeps events from nesting, for a failure).
    #[cfg(feature = "tracing")]
    crate::trace::resolution(config, spec.name, &spec.abi, &result, start.elapsed());
    result
}

impl<T: Field<I>, const I: usize> Default for Lazy<T, I> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const I: usize> fmt::Debug for Lazy<T, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Lazy")
            .field(&self.ptr.load(Ordering::Relaxed))
            .finish()
    }
}

/// The driver version the lookup itself needs: `cuGetProcAddress` appeared in CUDA 11.3 (both
/// backends reach every function through it; libcudart 12.5+ through its `_v2`, which 12.0+
/// drivers have).
pub(crate) const LOOKUP_DRIVER_FLOOR: u32 = 11030;

/// The lowest driver version (`cuDriverGetVersion`'s number) on which every function of
/// `functions` resolves in stream mode `mode`: the newest version any of them is requested at
/// ([`AbiInfo::request`]), and at least 11030 (`cuGetProcAddress`). A driver older than a requested
/// version refuses it ([`ErrorKind::DriverTooOld`]), so below this floor some field cannot
/// resolve; at or above it, every field's ABI exists. Generated tables expose it as
/// `MIN_DRIVER_VERSION` and `min_driver_version()`.
pub const fn min_driver_version(functions: &[FunctionSpec], mode: StreamMode) -> u32 {
    let mut floor = LOOKUP_DRIVER_FLOOR;
    let mut i = 0;
    while i < functions.len() {
        let (version, _) = functions[i].abi.request(mode);
        if version > floor {
            floor = version;
        }
        i += 1;
    }
    floor
}

/// `Ok(())` for `CUDA_SUCCESS`, else [`ErrorKind::Cuda`] with the code's name and description
/// from `cuGetErrorName`/`cuGetErrorString`, resolved lazily through `config`'s backend (ABI
/// 6000, legacy stream); a code the driver cannot name is named by the bindings. Generated methods call this after every driver call. It never panics;
/// when the names cannot be had they are `None`.
///
/// # Errors
///
/// Any code but `CUDA_SUCCESS`.
#[inline(always)]
pub fn check(config: &Config, function: &'static str, result: CUresult) -> Result<(), Error> {
    if result.0 == 0 {
        Ok(())
    } else {
        Err(cuda_error(config, function, result.0))
    }
}

#[cold]
#[inline(never)]
fn cuda_error(config: &Config, function: &'static str, code: u32) -> Error {
    let (name, description) = match resolver_for(config) {
        Ok(resolver) => resolver.error_strings(code),
        Err(_) => (None, None),
    };
    let name = name.or_else(|| cu_result_name(code).map(str::to_owned));
    ErrorKind::Cuda {
        function,
        code,
        name,
        description,
    }
    .into()
}

/// The error for a field that resolved to a null function (a resolver broke its contract).
#[cold]
pub fn null_pointer(function: &'static str) -> Error {
    Error::from(ErrorKind::SymbolNotFound {
        function,
        version: 0,
    })
}

#[cfg(test)]
mod tests;
