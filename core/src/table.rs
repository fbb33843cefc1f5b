//! What generated tables are made of: the description of each function ([`FunctionSpec`]), the
//! traits that bind a table's functions to their types ([`Functions`], [`Field`], written by
//! [`__cdt_bind!`](crate::__cdt_bind)), a table's state ([`TableCore`]) and the `CUresult` check of
//! every call.
//!
//! A table's functions cannot be told to hold another function: a table has one field, its
//! `TableCore`, whose configuration and slots nothing outside this crate can reach. Slot `I` is
//! only ever filled with what the table's own configuration resolves for `FUNCTIONS[I]`, and
//! only ever read as `Field<I>`'s type, which the binding macro takes from this crate's `sys`
//! and checks against the spec, whatever path the user's crate names this crate by.

use std::ffi::{c_void, CStr};
use std::fmt;
use std::marker::PhantomData;
use std::ptr::{null_mut, NonNull};
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::backend::Source;
use crate::config::Config;
#[cfg(feature = "stand-in")]
use crate::error::Status;
use crate::error::{Error, ErrorKind, Errors};
use crate::library::{resolver_for, source_for};
use crate::manifest::{cu_result_name, Abi, PerThread};
use crate::resolve::{found, resolve_request};
use crate::stream::StreamMode;
use crate::sys::CUresult;

/// A table's record, which every value of the table refers to: the linker's garbage collection
/// (`--gc-sections`, which Rust passes it) keeps a record, in a section of its own, only as far
/// as something kept refers to it, so a program records the tables it uses and not those a
/// linked library merely declares (`registry`). [`__cdt_record!`](crate::__cdt_record) (in
/// `registry`, which reads the records) implements it for the table it records.
#[doc(hidden)]
pub trait Recorded {
    /// The record's bytes, in the records section.
    const RECORD: &'static [u8];
}

/// One function of a table and the ABI it is pinned to (`Table::FUNCTIONS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionSpec {
    /// The C name (`cuMemAlloc`).
    pub name: &'static str,
    /// The same name as the lookup takes it, NUL-terminated (`c"cuMemAlloc"`).
    pub symbol: &'static CStr,
    /// The typedef of the pinned ABI (`PFN_cuMemAlloc_v3020`).
    pub typedef: &'static str,
    /// The typedef of its per-thread twin (`PFN_cuLaunchKernel_v7000_ptsz`), if it has one.
    pub per_thread_typedef: Option<&'static str>,
    /// The pinned ABI: its version, exported symbol and per-thread twin. What is requested is
    /// [`Abi::request`].
    pub abi: Abi,
}
/// The functions of a table, in its order (`Table::FUNCTIONS`). Implemented for each table type
/// by [`__cdt_bind!`](crate::__cdt_bind), with one [`Field`] per function. Hidden from the docs.
///
/// # Safety
///
/// For every `I < FUNCTIONS.len()`, `Self` implements [`Field<I>`] and its `Fn` is the function
/// pointer type of the `PFN_*` typedef of exactly `FUNCTIONS[I].abi`, and of its per-thread twin
/// where it has one (the same Rust type); `Self` implements `Field<I>` for no other `I`.
/// [`TableCore`] hands out what the backend resolves for `FUNCTIONS[I]` as a `Fn`.
#[doc(hidden)]
pub unsafe trait Functions {
    /// The functions, in the table's order: slot `I` of the table holds `FUNCTIONS[I]`.
    const FUNCTIONS: &'static [FunctionSpec];
}

/// `T`'s [`Functions::FUNCTIONS`]: what a table's `FUNCTIONS` is set to. A call, so that rustdoc
/// shows no value on the table's page (it would show the path through the hidden `__private`).
pub const fn functions<T: Functions>() -> &'static [FunctionSpec] {
    T::FUNCTIONS
}

/// The type of a table's function `I`. Hidden from the docs: a table's page would list one impl
/// per function.
///
/// # Safety
///
/// `Fn` is an `unsafe extern "C" fn` pointer type: the one [`Functions`] requires for `I`.
#[doc(hidden)]
pub unsafe trait Field<const I: usize>: Functions {
    /// The function pointer type: the `PFN_*` typedef of `FUNCTIONS[I]` without its `Option`.
    type Fn: Copy;
}

/// Binds a table's functions to their types: implements [`Functions`] and one [`Field`] per
/// function for `$table`. What `#[driver_table]` emits for each table, as
/// `<crate path>::__private::bind! { Table; 0 "cuInit\0" PFN_cuInit_v2000 ["cuInit"] []; ... }`:
/// the index, the C name with its NUL (as the lookup takes it), the typedef of the pinned ABI,
/// its exported symbol in brackets (empty when it has none), then in brackets the per-thread
/// twin, `PFN_..._ptsz "export"`, for a function that has one. (The brackets keep the entries of
/// one shape: with optional parts between them, matching a long list costs the compiler time
/// that grows with the square of its length.)
///
/// Every type comes from this crate's `sys` through `$crate`, whatever path the user's crate
/// names this crate by, and every version is read off the typedef's name (`spec`), so no input
/// can bind a type to another function's or ABI's spec: a typedef of another function, indices
/// that do not count up from 0, or a per-thread twin of another type fail to compile.
///
/// An entry expands to its `Field` impl and its spec alone (one `stringify!` per typedef); the
/// checks over all entries are one constant each, so that a table of every function costs the
/// compiler few expansions.
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_bind {
    ($table:ident; $($i:literal $symbol:literal $typedef:ident [$($export:literal)?] [$($pt_typedef:ident $($pt_export:literal)?)?];)*) => {
        $(
            // SAFETY: `Fn` is the function type of `$typedef`, the typedef `FUNCTIONS[$i]` reads
            // its ABI off (`spec`), and of its per-thread twin (the same type, checked below);
            // the indices count up from 0 (checked below), so `$i` is this entry's index.
            unsafe impl $crate::__private::Field<$i> for $table {
                type Fn = <$crate::sys::$typedef as $crate::__private::Pfn>::Fn;
            }
        )*

        // SAFETY: see each `Field` above.
        unsafe impl $crate::__private::Functions for $table {
            const FUNCTIONS: &'static [$crate::FunctionSpec] = &[$(
                $crate::__private::spec(
                    $symbol,
                    ::core::stringify!($typedef),
                    &[$($export)?],
                    &[$(::core::stringify!($pt_typedef))?],
                    &[$($($pt_export)?)?],
                )
            ),*];
        }

        const _: () = {
            // Evaluated here, so that a typedef `spec` refuses fails even in a table never used.
            let _ = <$table as $crate::__private::Functions>::FUNCTIONS;
            $crate::__private::count_up(&[$($i),*]);
            $($(let _: fn($crate::sys::$pt_typedef) -> $crate::sys::$typedef = |f| f;)?)*
        };
    };
}

/// Checks that a binding's indices are `0, 1, 2, ...` in order. Evaluated at compile time by
/// [`__cdt_bind!`](crate::__cdt_bind).
///
/// # Panics
///
/// When they are not: in a constant, a compile error.
pub const fn count_up(indices: &[usize]) {
    let mut i = 0;
    while i < indices.len() {
        assert!(
            indices[i] == i,
            "the indices of a table's functions count up from 0"
        );
        i += 1;
    }
}

/// The spec of the function whose C name and a NUL are `symbol` (`"cuMemAlloc\0"`, which the
/// lookup takes as it is) in a table that types it `typedef`, exported as the one symbol of
/// `export` (none when it is empty), with the per-thread twin typed as the one typedef of
/// `per_thread` (if any) and exported as the one symbol of `per_thread_export`: the version is
/// read off the typedef (`PFN_cuMemAlloc_v3020` requests 3020), and that of the twin off its
/// typedef (`PFN_cuLaunchKernel_v7000_ptsz`), so a spec requests exactly the ABI of its type.
/// Exports are only recorded. Evaluated at compile time by [`__cdt_bind!`](crate::__cdt_bind).
///
/// # Panics
///
/// When `symbol` is not one C name and a NUL, a typedef is not `PFN_<name>_v<version>` (the
/// twin's ending in `_ptds` or `_ptsz`), or a slice has more than one item: in a constant, a
/// compile error.
pub const fn spec(
    symbol: &'static str,
    typedef: &'static str,
    export: &[&'static str],
    per_thread: &[&'static str],
    per_thread_export: &[&'static str],
) -> FunctionSpec {
    let Ok(symbol) = CStr::from_bytes_with_nul(symbol.as_bytes()) else {
        panic!("a table's function name is one C identifier and a NUL");
    };
    let Some((_, name)) = symbol.to_bytes_with_nul().split_last() else {
        panic!("a table's function name is one C identifier and a NUL");
    };
    let Ok(name) = std::str::from_utf8(name) else {
        panic!("a table's function name is one C identifier and a NUL");
    };
    let per_thread_typedef = one(per_thread);
    let per_thread = match per_thread_typedef {
        Some(typedef) => Some(PerThread {
            version: typedef_version(name, typedef, true),
            export: one(per_thread_export),
        }),
        None => None,
    };
    FunctionSpec {
        name,
        symbol,
        typedef,
        per_thread_typedef,
        abi: Abi {
            version: typedef_version(name, typedef, false),
            export: one(export),
            per_thread,
        },
    }
}

/// The one item of `items`, `None` for none.
///
/// # Panics
///
/// For more than one: in a constant, a compile error.
const fn one(items: &[&'static str]) -> Option<&'static str> {
    match items {
        [] => None,
        [item] => Some(*item),
        _ => panic!("a table's function has at most one typedef and one exported symbol per ABI"),
    }
}

/// The version in `PFN_<name>_v<version>` (with `_ptds`/`_ptsz` after it when `per_thread`).
const fn typedef_version(name: &str, typedef: &str, per_thread: bool) -> u32 {
    const fn at(text: &[u8], i: usize, part: &[u8]) -> bool {
        if i + part.len() > text.len() {
            return false;
        }
        let mut j = 0;
        while j < part.len() {
            if text[i + j] != part[j] {
                return false;
            }
            j += 1;
        }
        true
    }
    let (text, name) = (typedef.as_bytes(), name.as_bytes());
    let mut i = b"PFN_".len() + name.len() + b"_v".len();
    assert!(
        at(text, 0, b"PFN_") && at(text, 4, name) && at(text, i - 2, b"_v"),
        "a table's typedef must be `PFN_<its function>_v<version>`"
    );
    let mut version: u32 = 0;
    let start = i;
    while i < text.len() && text[i].is_ascii_digit() && i - start < 9 {
        version = version * 10 + (text[i] - b'0') as u32;
        i += 1;
    }
    let rest = text.len() - i;
    let ending = if per_thread {
        rest == 5 && (at(text, i, b"_ptds") || at(text, i, b"_ptsz"))
    } else {
        rest == 0
    };
    assert!(
        i > start && ending,
        "a table's typedef must be `PFN_<its function>_v<version>`, and a per-thread twin's end in `_ptds` or `_ptsz`"
    );
    version
}

/// The state of a table of type `T` with `N` functions, and its only field: the configuration
/// it resolves through and one slot per function, empty until the function is resolved.
///
/// Nothing outside this crate can reach the configuration or a slot. Slot `I` is filled only
/// through this value's own configuration, with `T::FUNCTIONS[I]`, and read only as `T`'s
/// [`Field<I>`], so a table always hands out what its own configuration resolves, at the type
/// its binding names. (Replacing or swapping a whole `TableCore` replaces both together.)
///
/// After the first successful resolution a call costs one `Acquire` load and a predictable
/// branch; the fast path never locks, allocates or calls into a library. A failed resolution
/// stores nothing, so the next call asks the backend again (the library search itself runs once
/// per process, see `library`). Any number of threads may race the first call; all get the
/// pointer stored first.
pub struct TableCore<T, const N: usize> {
    config: Config,
    slots: [AtomicPtr<c_void>; N],
    /// The first byte of the table's record (`registry`), never read: the reference keeps the
    /// record in a program exactly where the table is (see `Recorded`). Targets without it
    /// record nothing (Apple's) or keep every record (Microsoft's linker, `#[used]`).
    #[cfg(any(
        all(windows, target_env = "gnu"),
        all(unix, not(target_vendor = "apple"))
    ))]
    _record: &'static u8,
    _table: PhantomData<fn() -> T>,
}

impl<T: Functions, const N: usize> TableCore<T, N> {
    /// A table that resolves through `config`, nothing resolved yet.
    pub const fn new(config: Config) -> Self
    where
        T: Recorded,
    {
        const {
            assert!(T::FUNCTIONS.len() == N, "a table has one slot per function");
        }
        Self {
            config,
            slots: [const { AtomicPtr::new(null_mut()) }; N],
            #[cfg(any(
                all(windows, target_env = "gnu"),
                all(unix, not(target_vendor = "apple"))
            ))]
            _record: &T::RECORD[0],
            _table: PhantomData,
        }
    }

    /// The configuration the table resolves its functions through.
    pub const fn config(&self) -> &Config {
        &self.config
    }

    /// Function `I`, resolved on first use: the body of a generated method (one load and one
    /// branch once resolved) and of its raw accessor.
    ///
    /// # Errors
    ///
    /// When it cannot be resolved (see [`ErrorKind`]).
    #[inline(always)]
    pub fn get<const I: usize>(&self) -> Result<<T as Field<I>>::Fn, Error>
    where
        T: Field<I>,
    {
        match self.loaded::<I>() {
            Some(f) => Ok(f),
            None => self.resolve::<I>(),
        }
    }

    /// Function `I` as a pointer the caller keeps: the body of a raw `pfn_*` accessor. That is
    /// [`get`](Self::get), except that a table configured with a stand-in driver (the
    /// `stand-in` feature) refuses: the pointer could not reach the stand-in, which its methods
    /// call.
    ///
    /// # Errors
    ///
    /// When it cannot be resolved (see [`ErrorKind`]), or the table's driver is a stand-in.
    #[inline(always)]
    pub fn pointer<const I: usize>(&self) -> Result<<T as Field<I>>::Fn, Error>
    where
        T: Field<I>,
    {
        #[cfg(feature = "stand-in")]
        if self.config.stand_in_driver().is_some() {
            return Err(self.refuse_raw(T::FUNCTIONS[I].name));
        }
        self.get::<I>()
    }

    /// With a stand-in driver, the refusal of a raw pointer to `name`: a pointer cannot reach
    /// the stand-in's answer, so it would only be what its lookup handed out.
    #[cfg(feature = "stand-in")]
    #[cold]
    #[inline(never)]
    fn refuse_raw(&self, name: &'static str) -> Error {
        let backend = match resolver_for(&self.config) {
            Ok(resolver) => resolver.describe(),
            Err(e) => e.to_string(),
        };
        ErrorKind::LookupFailed {
            function: name,
            status: Status::new(
                801,
                "CUDA_ERROR_NOT_SUPPORTED",
                format!(
                    "a raw pointer cannot reach a stand-in driver's answers; call the table's \
                     method {name} instead"
                ),
            ),
            backend,
        }
        .into()
    }

    /// Function `I` if it is resolved already; never resolves.
    #[inline(always)]
    fn loaded<const I: usize>(&self) -> Option<<T as Field<I>>::Fn>
    where
        T: Field<I>,
    {
        const {
            assert!(I < N, "a table has one slot per function");
            assert!(
                size_of::<Option<<T as Field<I>>::Fn>>() == size_of::<*mut c_void>(),
                "a table's function is a function pointer"
            );
        }
        let p = self.slots[I].load(Ordering::Acquire);
        // SAFETY: `Option<Fn>` is an `Option` of an `extern "C"` function pointer (`Field`'s
        // contract) of pointer size (checked above), whose representation is the function's
        // address, null for `None`. Slot `I` is only filled (by `settle`, for `fill` or
        // `resolve_all`) with what the backend resolved for `T::FUNCTIONS[I]` at exactly its
        // request, which by `Functions`' contract has type `Fn`.
        unsafe { std::mem::transmute_copy::<*mut c_void, Option<<T as Field<I>>::Fn>>(&p) }
    }

    /// Resolves function `I` and stores it (the slow path of `get`).
    #[cold]
    #[inline(never)]
    fn resolve<const I: usize>(&self) -> Result<<T as Field<I>>::Fn, Error>
    where
        T: Field<I>,
    {
        let p = self.address(I)?;
        // SAFETY: as in `loaded`: `p` is the backend's function for `T::FUNCTIONS[I]`, of type
        // `Fn`, and not null.
        Ok(unsafe { std::mem::transmute_copy::<NonNull<c_void>, <T as Field<I>>::Fn>(&p) })
    }

    /// The address in slot `i`, resolving `T::FUNCTIONS[i]` on first use.
    fn address(&self, i: usize) -> Result<NonNull<c_void>, Error> {
        let slot = &self.slots[i];
        match NonNull::new(slot.load(Ordering::Acquire)) {
            Some(p) => Ok(p),
            None => fill(slot, &self.config, &T::FUNCTIONS[i]),
        }
    }

    /// Resolves every function (a table's `resolve_all`).
    ///
    /// # Errors
    ///
    /// Every function that could not be resolved, in the table's order.
    pub fn resolve_all(&self) -> Result<(), Errors> {
        resolve_every(&self.slots, T::FUNCTIONS, &self.config)
    }

    /// The address of the function named `name`, resolved on first use; `None` when the table
    /// has no such function (a table's `raw_pointer`).
    /// Like a raw accessor, it refuses a table whose driver is a stand-in
    /// ([`pointer`](Self::pointer)).
    pub fn raw_pointer(&self, name: &str) -> Option<Result<NonNull<c_void>, Error>> {
        let i = T::FUNCTIONS.iter().position(|f| f.name == name)?;
        #[cfg(feature = "stand-in")]
        if self.config.stand_in_driver().is_some() {
            return Some(Err(self.refuse_raw(T::FUNCTIONS[i].name)));
        }
        Some(self.address(i))
    }

    /// [`min_driver_version`] of the functions in the stream mode of the configuration.
    pub const fn min_driver_version(&self) -> u32 {
        min_driver_version(T::FUNCTIONS, self.config.stream_mode())
    }
}

/// Resolves `spec` through `config` and stores it in `slot` (the slow path of every field).
///
/// Not generic: one copy serves every field of every table.
#[cold]
#[inline(never)]
fn fill(
    slot: &AtomicPtr<c_void>,
    config: &Config,
    spec: &FunctionSpec,
) -> Result<NonNull<c_void>, Error> {
    settle(slot, config, spec, &|request| {
        let resolver = source_for(config)?.resolver();
        resolve_request(
            resolver,
            &resolver.versioning(),
            spec.name,
            spec.symbol,
            request,
        )
    })
}

/// The one way a slot is filled: computes `spec`'s request ([`Abi::request`] in `config`'s
/// stream mode) once, resolves it with `resolve`, stores the pointer ([`store_first`]) and, with
/// the `tracing` feature, emits the resolution's event with that same request. The event comes
/// after the store: a subscriber that calls the table from inside it finds the field resolved
/// (and `trace` keeps events from nesting, for a failure).
fn settle(
    slot: &AtomicPtr<c_void>,
    config: &Config,
    spec: &FunctionSpec,
    resolve: &dyn Fn((u32, StreamMode)) -> Result<NonNull<c_void>, Error>,
) -> Result<NonNull<c_void>, Error> {
    let request = spec.abi.request(config.stream_mode());
    #[cfg(feature = "tracing")]
    let start = std::time::Instant::now();
    let result = resolve(request).map(|p| store_first(slot, p));
    #[cfg(feature = "tracing")]
    crate::trace::resolution(
        &|| resolver_for(config).map_or_else(|_| "no library".to_owned(), |r| r.describe()),
        spec.name,
        request,
        &result,
        start.elapsed(),
    );
    result
}

/// Stores `p` in `slot` unless a racing thread stored a pointer first, and returns the one
/// stored: every caller of a function gets the same pointer, even from a resolver that answers
/// one question with different (equally valid) pointers.
fn store_first(slot: &AtomicPtr<c_void>, p: NonNull<c_void>) -> NonNull<c_void> {
    match slot.compare_exchange(null_mut(), p.as_ptr(), Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => p,
        Err(winner) => NonNull::new(winner).unwrap_or(p),
    }
}

/// Resolves every function of `specs` whose slot (in `slots`, the same order) is empty, through
/// `config` (the body of every table's `resolve_all`, not generic).
fn resolve_every(
    slots: &[AtomicPtr<c_void>],
    specs: &[FunctionSpec],
    config: &Config,
) -> Result<(), Errors> {
    resolve_every_through(slots, specs, config, source_for(config))
}

/// [`resolve_every`] through `source`, the outcome of `source_for(config)`.
///
/// What can be asked once for the whole table is asked once: the library (`source`; when it
/// failed, every function fails with its error) and, for a built-in backend, its versioned lookup
/// function, which is then called directly for each function, with a plain check that it found
/// it ([`found`]); a function it did not find is asked again through the resolver
/// ([`resolve_request`]), which says why in the error: failures take the slow path, successes
/// nothing more. For another resolver, or a backend without a versioned lookup now (an old
/// libcudart without a driver), its [`Versioning`] is asked once, then each function as a
/// field's first call asks it. Each function goes through [`settle`], as a field's first call does.
///
/// [`Versioning`]: crate::Versioning
fn resolve_every_through(
    slots: &[AtomicPtr<c_void>],
    specs: &[FunctionSpec],
    config: &Config,
    source: Result<Source, Error>,
) -> Result<(), Errors> {
    let direct = source
        .as_ref()
        .ok()
        .and_then(|source| source.versioned_lookup());
    let versioning = match (&source, direct) {
        (Ok(source), None) => Some(source.resolver().versioning()),
        _ => None,
    };
    let errors = slots
        .iter()
        .zip(specs)
        .filter(|(slot, _)| slot.load(Ordering::Acquire).is_null())
        .filter_map(|(slot, spec)| {
            settle(slot, config, spec, &|(version, flag)| {
                let resolver = source.as_ref().map_err(Error::clone)?.resolver();
                if let Some(lookup) = direct {
                    let (rc, status, p) = lookup.call(spec.symbol, version, flag);
                    if let Some(p) = found(rc, status, p) {
                        return Ok(p);
                    }
                }
                let versioning = match &versioning {
                    Some(versioning) => versioning,
                    None => &resolver.versioning(),
                };
                resolve_request(
                    resolver,
                    versioning,
                    spec.name,
                    spec.symbol,
                    (version, flag),
                )
            })
            .err()
        })
        .collect();
    Errors::from_vec(errors)
}

/// The configuration and the names of the functions resolved so far.
impl<T: Functions, const N: usize> fmt::Debug for TableCore<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let resolved: Vec<&str> = T::FUNCTIONS
            .iter()
            .zip(&self.slots)
            .filter(|(_, slot)| !slot.load(Ordering::Relaxed).is_null())
            .map(|(spec, _)| spec.name)
            .collect();
        f.debug_struct("TableCore")
            .field("config", &self.config)
            .field("resolved", &resolved)
            .finish()
    }
}

/// The driver version the lookup itself needs: `cuGetProcAddress` appeared in CUDA 11.3 (both
/// backends reach every function through it; libcudart 12.5+ through its `_v2`, which 12.0+
/// drivers have).
#[doc(hidden)]
pub const LOOKUP_DRIVER_FLOOR: u32 = 11030;

/// The lowest driver version (`cuDriverGetVersion`'s number) on which every function of
/// `functions` resolves in stream mode `mode`: the newest version any of them is requested at
/// ([`Abi::request`]), and at least 11030 (`cuGetProcAddress`). A driver older than a requested
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
    let (name, description) = resolver_for(config)
        .map(|resolver| resolver.error_strings(code))
        .unwrap_or_default();
    let name = name.or_else(|| cu_result_name(code).map(str::to_owned));
    ErrorKind::Cuda {
        function,
        code,
        name,
        description,
        ptx: None,
    }
    .into()
}

mod ptx_image;
pub use ptx_image::{with_ptx_image, PtxImage};

#[cfg(test)]
mod tests;
