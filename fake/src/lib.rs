//! A fake driver and a fake device for tests without a GPU (the `fake` feature, meant for
//! `[dev-dependencies]`; see [Cargo features](#the-fake-feature-and-cargos-resolver)): a table
//! configured with one calls Rust closures instead of driver functions. A [`Device`] is a
//! whole GPU of them: memory the device owns, contexts, streams, events, modules, and kernels
//! written as closures, checked as compute-sanitizer's memcheck and leak check check a GPU. A
//! [`Fake`] fakes single functions, each with a closure taking exactly its arguments, and injects
//! faults in front of the device.
//!
//! Code under test takes the table as `&Cuda`; `main` passes the `static` one, a test passes one
//! configured with a device:
//!
//! ```
//! use cuda_driver_table::fake::{Device, Launch};
//! use cuda_driver_table::sys::{CUdeviceptr, CUdevice_attribute};
//! use cuda_driver_table::{driver_table, kernel_args, Error};
//!
//! #[driver_table(
//!     cuInit, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxSetCurrent,
//!     cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuLaunchKernel,
//!     cuMemAlloc, cuMemFree, cuMemcpyHtoD, cuMemcpyDtoH,
//!     driver = 12000,
//! )]
//! struct Cuda;
//!
//! /// Doubles `values` on the GPU: the code under test, over any `&Cuda`.
//! fn double(cu: &Cuda, values: &mut [f32]) -> Result<(), Error> {
//!     let (mut ctx, mut module, mut f, mut d) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut(), 0);
//!     let (n, bytes) = (values.len() as u32, size_of_val(values));
//!     // SAFETY: each out-value is a valid place; the copies stay inside `values` and the
//!     // allocation of `bytes`; the kernel takes a device pointer and a `u32`.
//!     unsafe {
//!         cu.cuInit(0)?;
//!         cu.cuDevicePrimaryCtxRetain(&mut ctx, 0)?;
//!         cu.cuCtxSetCurrent(ctx)?;
//!         cu.cuModuleLoadData(&mut module, c"(PTX)".as_ptr().cast())?;
//!         cu.cuModuleGetFunction(&mut f, module, c"double".as_ptr())?;
//!         cu.cuMemAlloc(&mut d, bytes)?;
//!         cu.cuMemcpyHtoD(d, values.as_ptr().cast(), bytes)?;
//!         kernel_args![&d, &n].with_params(|params| {
//!             cu.cuLaunchKernel(f, n.div_ceil(256), 1, 1, 256, 1, 1, 0, std::ptr::null_mut(),
//!                 params, std::ptr::null_mut())
//!         })?;
//!         cu.cuMemcpyDtoH(values.as_mut_ptr().cast(), d, bytes)?;
//!         cu.cuMemFree(d)?;
//!         cu.cuModuleUnload(module)?;
//!         cu.cuDevicePrimaryCtxRelease(0)?;
//!     }
//!     Ok(())
//! }
//!
//! // The test: a device, the kernel as a closure over its typed parameters, the code, the check.
//! let device = Device::new();
//! device.kernel("double", |k: &mut Launch, (x, n): (CUdeviceptr, u32)| {
//!     for t in k.threads() {
//!         let i = t.global_x();
//!         if i < u64::from(n) {
//!             let v: f32 = k.read(x, i)?;
//!             k.write(x, i, 2.0 * v)?;
//!         }
//!     }
//!     Ok(())
//! });
//! let cu = Cuda::with_config(device.config());
//! let mut values = [1.0, 2.0, 3.0];
//! double(&cu, &mut values)?;
//! assert_eq!(values, [2.0, 4.0, 6.0]);
//! device.finish()?; // no leaks, no errors: every allocation and handle was freed
//! # let _ = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_WARP_SIZE;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Had `double` forgotten its `cuMemFree`, `finish` would say `leak: 12 bytes at 0xd000… that
//! cuMemAlloc (call 6) allocated were still allocated when cuDevicePrimaryCtxRelease (call 11)
//! destroyed their context`; freeing twice is a failing `cuMemFree` whose error says `double
//! free: cuMemFree (call 11) frees 0xd000…, the 12-byte allocation that cuMemAlloc (call 6) made
//! and cuMemFree (call 10) freed already`. [`Device`] lists the functions and the checks; the
//! guide's page "Testing without a GPU" has the whole pattern.
//!
//! ## Platform profiles
//!
//! A [`Profile`] makes a device imitate a machine users deploy to: its driver's version, the
//! exports that platform lacks, device attributes, and the host's page size. A table made with
//! the device's configuration then resolves as on that machine (a newer ABI is
//! `ErrorKind::DriverTooOld`, a missing export `ErrorKind::SymbolNotFound`, both in
//! `resolve_all`'s report and in the first call), and the device answers as it does (no memory
//! pools: `cuMemAllocAsync` is `CUDA_ERROR_NOT_SUPPORTED`), so a test exercises the code's
//! fallback path:
//!
//! ```
//! use cuda_driver_table::fake::{Device, Profile};
//! use cuda_driver_table::{driver_table, ErrorKind};
//!
//! // Built against CUDA 13: `cuCtxGetDevice` at its newest ABI, 13000 (`cuCtxGetDevice_v2`).
//! #[driver_table(cuInit, cuCtxGetDevice, driver = newest)]
//! struct Cuda;
//! // The fallback: the ABI every driver has.
//! #[driver_table(cuInit, cuCtxGetDevice = 2000, driver = newest)]
//! struct Pinned;
//!
//! let device = Device::new().with_profile(Profile::jetson_orin_jetpack6());
//! let report = Cuda::with_config(device.config()).resolve_all().unwrap_err();
//! assert!(matches!(
//!     report.as_slice()[0].kind(),
//!     ErrorKind::DriverTooOld { function: "cuCtxGetDevice", driver: Some(12060), .. }
//! ));
//! Pinned::with_config(device.config()).resolve_all()?;
//! # device.finish().unwrap();
//! # Ok::<(), cuda_driver_table::Errors>(())
//! ```
//!
//! The named profiles ([`Profile::jetson_orin_jetpack6`], [`Profile::windows_driver_13_1`],
//! [`Profile::windows_tcc`], [`Profile::vgpu_without_pools`], [`Profile::grace`]) each cite the
//! reports or NVIDIA documents they are built from, and claim no absence beyond them.
//!
//! ## Faking functions
//!
//! A [`Fake`] fakes functions one by one, each with a closure that takes exactly its
//! function's arguments and returns its result; with [`Fake::device`] it stands in front of a
//! device, and [`Fake::inject`] fails a call the device would answer:
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use cuda_driver_table::fake::{function, Fake};
//! use cuda_driver_table::{driver_table, sys::CUresult};
//!
//! #[driver_table(cuInit, cuMemAlloc, driver = newest)]
//! struct Cuda;
//!
//! let allocations = AtomicUsize::new(0);
//! let driver = Fake::new()
//!     .returns(function!(Cuda::cuInit), CUresult::CUDA_SUCCESS)
//!     // The second allocation runs out of memory.
//!     .on(function!(Cuda::cuMemAlloc), move |(dptr, bytesize)| {
//!         if allocations.fetch_add(1, Ordering::Relaxed) == 1 {
//!             return CUresult::CUDA_ERROR_OUT_OF_MEMORY;
//!         }
//!         // SAFETY: the caller of cuMemAlloc passes a valid place (its contract).
//!         unsafe { cuda_driver_table::fake::write(dptr, 0x1000 + bytesize as u64) };
//!         CUresult::CUDA_SUCCESS
//!     })
//!     .build();
//! let cu = Cuda::with_config(driver.config());
//!
//! let mut p = 0;
//! // SAFETY: `p` is a valid place for a device pointer.
//! unsafe {
//!     cu.cuInit(0)?;
//!     cu.cuMemAlloc(&mut p, 256)?;
//!     assert_eq!(p, 0x1100);
//!     let error = cu.cuMemAlloc(&mut p, 256).unwrap_err();
//!     assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY.0));
//! }
//! assert_eq!(driver.calls(), ["cuInit", "cuMemAlloc", "cuMemAlloc"]);
//! let sizes: Vec<usize> = driver.calls_to(function!(Cuda::cuMemAlloc)).iter().map(|c| c.1).collect();
//! assert_eq!(sizes, [256, 256]);
//! # Ok::<(), cuda_driver_table::Error>(())
//! ```
//!
//! ## The `fake` feature and Cargo's resolver
//!
//! Enable the feature in `[dev-dependencies]` only:
//!
//! ```toml
//! [dev-dependencies]
//! cuda-driver-table = { version = "0.1", features = ["fake"] }
//! ```
//!
//! With Cargo's feature resolver 2 that is a test-only feature: `cargo build` and `cargo run` of
//! the package build the crate without it. Resolver 2 is the default for edition 2021 and later
//! packages, but not for edition 2015/2018 packages, nor for a virtual workspace (a root
//! `Cargo.toml` with `[workspace]` and no `[package]`), which takes resolver 1 unless it says
//! otherwise. Resolver 1 unifies the features a package asks for in `[dev-dependencies]` with
//! those of its `[dependencies]` in every build of that package, tests or not: `cargo build
//! --release` then compiles the fake into the program (inert: a table uses a fake only when
//! made with a fake's configuration, which only a test makes, but present). A package that
//! depends on yours is not affected either way: the dev-dependencies of a dependency are never
//! built. The fix is one line in the root `Cargo.toml`: `resolver = "2"` under `[workspace]`
//! (or `[package]`).
//!
//! ## How a fake driver answers
//!
//! The fake is a driver as far as a table can tell: the table resolves each function through it
//! at exactly its pinned ABI and stream flag, as from a real driver, so `resolve_all`, pins,
//! per-thread configurations, [`Fake::driver_version`] against `MIN_DRIVER_VERSION` and the
//! resolution events of the `tracing` feature work as they do there. Then each method calls the
//! closure given for its function instead of the pointer, with the method's arguments; a failing
//! `CUresult` it returns is an `ErrorKind::Cuda` named and described from the bindings (the
//! first sentence of the code's documentation in `cuda.h`), and the `tracing` feature's events
//! show these calls as any others.
//!
//! - **Typed.** [`function!`] names a function of a table (`function!(Cuda::cuMemAlloc)`); its
//!   type carries the function's `PFN_*` signature at the table's pin, and the closure given for
//!   it takes that signature's arguments as one tuple (`|(dptr, bytesize)|`, `|(hStream,)|`,
//!   `|()|`, or `|_|` for any) and returns its result. Nothing is transmuted.
//! - **Per driver.** Each [`Fake::build`] makes a driver of its own; a table made with its
//!   [`config`](FakeDriver::config) sees only it, so tests running in parallel, each with its
//!   own fake and its own table, do not see each other's.
//! - **What was not faked** fails to resolve, naming the function: "looking up cuMemFree through
//!   a fake driver (...) failed: CUDA_ERROR_NOT_FOUND (500): the fake driver has no fake for it
//!   (...); give it one with `Fake::on` or `Fake::returns`, ...". No call ever reaches a null
//!   pointer.
//! - **Error strings.** `cuGetErrorName` and `cuGetErrorString` are always answered, as a real
//!   driver answers them: a static C string from the bindings' table of codes (the name, or the
//!   description above), or `CUDA_ERROR_INVALID_VALUE` and a null string for a code the bindings
//!   do not have. A fake given for either with [`Fake::on`] answers instead.
//! - **Raw pointers** (`pfn_*`, `raw_pointer`) of a table configured with a fake are refused with
//!   an error naming the function: a pointer cannot reach a closure. Call the method.
//! - **Recording.** The driver records every call a fake answered, in order ([`FakeDriver::calls`])
//!   with its arguments ([`FakeDriver::calls_to`]); [`Fake::record`] turns it off.
//!
//! A closure receives the method's arguments as the C function would: raw pointers and handles.
//! It may rely on the C function's contract for them (that `dptr` of `cuMemAlloc` is a valid
//! place, say), because only the table's methods call it, and their callers uphold that contract
//! (each method's `# Safety`); writing through such a pointer is still the closure's `unsafe`.
//! The contract binds the closure too, as it binds the driver: with the `tracing` feature, the
//! event of a call that returns `CUDA_SUCCESS` reads the values the function returns through its
//! out-values (`out.dptr`), so a closure that returns `CUDA_SUCCESS` writes each of them where
//! its pointer is not null, as the driver would (a test that passes uninitialised memory and a
//! closure that writes nothing would have the event read it).
//!
//! Closures are `Fn + Send + Sync + 'static`: state lives in what they capture, atomics or a
//! `Mutex`, which makes "fail on the third call" a counter. A driver lives for the rest of the
//! process, as every resolver does (a configuration is `Copy` and refers to it).
//!
//! This module never hands out a pointer of another type than the one requested, and nothing in
//! it lets safe code call a closure: only the `unsafe` methods of tables do.

use std::any::{Any, TypeId};
use std::ffi::{c_void, CStr};
use std::fmt;
use std::marker::PhantomData;
use std::panic::RefUnwindSafe;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use cuda_driver_table_core::__private::{Field, LOOKUP_DRIVER_FLOOR};
use cuda_driver_table_core::stand_in::{Call, DriverFn, Kept, OutPlace, StandIn};
use cuda_driver_table_core::sys::CUresult;
use cuda_driver_table_core::{
    manifest, Config, CudaVersion, FunctionSpec, LookupResult, Query, Resolver, Status, StreamMode,
    Versioning,
};

#[doc(inline)]
pub use crate::fake_function as function;

mod device;
mod failure;
mod findings;
mod kernel;
mod memory;
mod order;
mod profile;

pub use cuda_driver_table_core::stand_in::{write, Written};
pub use device::Device;
pub use findings::{Fault, Finding, FindingKind, Report, Work};
pub use kernel::{DeviceValue, Dim3, KernelParams, Launch, Thread};
pub use profile::Profile;

/// What `function!` expands to reaches these through the crate's path (`$crate`).
#[doc(hidden)]
pub mod __private {
    pub use cuda_driver_table_core::__private::Functions;
}

/// The first of the handles `succeed_others` hands out without a device: high, never a host
/// address, apart from a device's.
const OTHERS_BASE: usize = 0xc0de_0000_0000_0000;

/// What a lookup hands out for a function the device or `succeed_others` answers: never called
/// (see the resolver's `SAFETY`).
fn token() -> NonNull<c_void> {
    extern "C" fn never_called() {}
    let f: extern "C" fn() = never_called;
    NonNull::new(f as *mut c_void).unwrap_or(NonNull::dangling())
}

/// Names a function of a table for a [`Fake`](crate::Fake): `function!(Cuda::cuMemAlloc)`,
/// or with a path, `function!(gpu::Cuda::cuMemAlloc)` or `function!(<gpu::Cuda>::cuMemAlloc)`.
/// It is a [`Function`](crate::Function), whose type carries the function's signature at
/// the table's pin, so the closure given for it takes exactly that function's arguments.
///
/// Use it as `cuda_driver_table::fake::function!` (`fake_function!` is the same macro, by the
/// name it is exported under).
///
/// ```
/// use cuda_driver_table::fake::{function, Fake};
/// use cuda_driver_table::{driver_table, sys::CUresult};
///
/// #[driver_table(cuInit, cuMemAlloc, driver = newest)]
/// struct Cuda;
///
/// let cu_init = function!(Cuda::cuInit);
/// assert_eq!(cu_init.name(), "cuInit");
/// let driver = Fake::new().returns(cu_init, CUresult::CUDA_SUCCESS).build();
/// # let _ = driver;
/// ```
///
/// A name the table does not have is a compile error at the name:
///
/// ```compile_fail
/// use cuda_driver_table::fake::function;
/// #[cuda_driver_table::driver_table(cuInit, driver = newest)]
/// struct Cuda;
/// let _ = function!(Cuda::cuMemAlloc);
/// ```
#[macro_export]
macro_rules! fake_function {
    (<$table:ty>::$name:ident) => {{
        // The table's method of that name: a name the table lacks is an error here, at the name.
        let _ = <$table>::$name;
        $crate::Function::<
            $table,
            {
                $crate::function_index(
                    <$table as $crate::__private::Functions>::FUNCTIONS,
                    ::core::stringify!($name),
                )
            },
        >::new()
    }};
    ($($segment:ident)::+) => {
        $crate::fake_function!(@split [] $($segment)+)
    };
    (@split [$($path:ident)*] $name:ident) => {
        $crate::fake_function!(<$($path)::*>::$name)
    };
    (@split [$($path:ident)*] $head:ident $($tail:ident)+) => {
        $crate::fake_function!(@split [$($path)* $head] $($tail)+)
    };
}

/// The index of the function `name` (as written after the table's name, `r#` allowed) in a
/// table's `functions`: what [`function!`] reads a [`Function`]'s index with, at compile time.
///
/// # Panics
///
/// When the table has no such function: in the constant, a compile error.
#[doc(hidden)]
pub const fn function_index(functions: &[FunctionSpec], name: &str) -> usize {
    let name = match name.as_bytes() {
        [b'r', b'#', rest @ ..] => rest,
        name => name,
    };
    let mut i = 0;
    while i < functions.len() {
        let candidate = functions[i].name.as_bytes();
        if candidate.len() == name.len() {
            let mut j = 0;
            while j < name.len() && candidate[j] == name[j] {
                j += 1;
            }
            if j == name.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!(
        "`function!` names a method that is not a driver function of the table: name one it \
         lists, as in `function!(Cuda::cuMemAlloc)`"
    )
}

/// Function `I` of table `T`, as [`function!`] names it. Its type is the function's: the fake
/// given for it in [`Fake::on`] and its calls in [`FakeDriver::calls_to`] are typed by it.
pub struct Function<T, const I: usize>(PhantomData<fn() -> T>);

impl<T: Field<I>, const I: usize> Function<T, I> {
    /// Function `I` of `T`: what [`function!`] expands to.
    #[doc(hidden)]
    pub const fn new() -> Self {
        const {
            assert!(I < T::FUNCTIONS.len(), "a table has one slot per function");
        }
        Self(PhantomData)
    }

    /// The function and the ABI it is pinned to.
    pub const fn spec(self) -> &'static FunctionSpec {
        &T::FUNCTIONS[I]
    }

    /// Its C name.
    pub const fn name(self) -> &'static str {
        self.spec().name
    }
}

impl<T, const I: usize> Clone for Function<T, I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const I: usize> Copy for Function<T, I> {}

impl<T: Field<I>, const I: usize> fmt::Debug for Function<T, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function!({})", self.name())
    }
}

/// The arguments of function `I` of table `T`, as one tuple: what its fake takes and what
/// [`FakeDriver::calls_to`] gives back.
pub type Args<T, const I: usize> = <<T as Field<I>>::Fn as DriverFn>::Args;

/// The result of function `I` of table `T` (`CUresult`).
pub type Ret<T, const I: usize> = <<T as Field<I>>::Fn as DriverFn>::Ret;

/// The type of a driver function a fake can stand in for: `unsafe extern "C" fn(A, B, ...) ->
/// CUresult` with up to 16 arguments, each `Copy` (core's `stand_in::DriverFn`).
pub use cuda_driver_table_core::stand_in::DriverFn as FakeFn;

/// A closure of [`Fake::on`] or [`Fake::inject`], over the arguments of a call as a stand-in
/// receives them (a tuple of its function's arguments): `Some` answers the call, `None` lets
/// what else answers it have it (an injection's), or the arguments are of another type.
type Handler = Box<dyn Fn(&dyn Any) -> Option<CUresult> + Send + Sync>;

/// One faked function: the spec it was given for, and its closure.
struct Entry {
    spec: &'static FunctionSpec,
    /// `TypeId` of the function's type (`F`).
    fn_type: TypeId,
    /// `F::stand_in`.
    stand_in: fn() -> Option<NonNull<c_void>>,
    handler: Handler,
}

impl Entry {
    /// Whether a lookup of `version` with `flag` asks for this entry's ABI: its request in
    /// either stream mode (a per-thread twin has the type of the ABI it is the twin of).
    fn answers(&self, version: u32, flag: StreamMode) -> bool {
        let abi = &self.spec.abi;
        [StreamMode::Legacy, StreamMode::PerThread]
            .into_iter()
            .any(|mode| abi.request(mode) == (version, flag))
    }
}

/// A fake driver being put together: which functions it fakes and how. [`build`](Self::build)
/// makes the driver.
#[must_use]
pub struct Fake {
    entries: Vec<Entry>,
    injections: Vec<Entry>,
    device: Option<device::Shared>,
    succeed_others: bool,
    driver_version: Option<u32>,
    record: bool,
}

impl Default for Fake {
    fn default() -> Self {
        Self::new()
    }
}

impl Fake {
    /// A driver that fakes nothing yet, of no particular version, recording calls.
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
            injections: Vec::new(),
            device: None,
            succeed_others: false,
            driver_version: None,
            record: true,
        }
    }

    /// Fakes `function` with `fake`, which takes the function's arguments as one tuple and
    /// returns its result. A fake given before for the same function and signature is replaced
    /// (so a test can start from a working driver and break one function).
    pub fn on<T, const I: usize, C>(mut self, function: Function<T, I>, fake: C) -> Self
    where
        T: Field<I>,
        <T as Field<I>>::Fn: DriverFn<Ret = CUresult>,
        C: Fn(Args<T, I>) -> Ret<T, I> + Send + Sync + 'static,
    {
        let handler: Handler = Box::new(move |args: &dyn Any| {
            args.downcast_ref::<Args<T, I>>().map(|args| fake(*args))
        });
        Self::put(&mut self.entries, function, handler);
        self
    }

    /// Puts `handler` for `function` into `entries`, in place of one for the same function and
    /// signature.
    fn put<T, const I: usize>(entries: &mut Vec<Entry>, function: Function<T, I>, handler: Handler)
    where
        T: Field<I>,
        <T as Field<I>>::Fn: DriverFn,
    {
        let spec = function.spec();
        let fn_type = TypeId::of::<<T as Field<I>>::Fn>();
        entries.retain(|e| !(e.spec.name == spec.name && e.fn_type == fn_type));
        entries.push(Entry {
            spec,
            fn_type,
            stand_in: <<T as Field<I>>::Fn as DriverFn>::stand_in,
            handler,
        });
    }

    /// Puts `inject` in front of whatever else answers `function` (the [`device`](Self::device),
    /// [`succeed_others`](Self::succeed_others)): it sees each call's arguments first, and a
    /// `Some(result)` it returns is the call's answer, a `None` passes the call on. This is fault
    /// injection on top of a working device: out of memory on the third allocation, a failing
    /// launch. (A closure given with [`on`](Self::on) answers every call itself.)
    pub fn inject<T, const I: usize, C>(mut self, function: Function<T, I>, inject: C) -> Self
    where
        T: Field<I>,
        <T as Field<I>>::Fn: DriverFn<Ret = CUresult>,
        C: Fn(Args<T, I>) -> Option<Ret<T, I>> + Send + Sync + 'static,
    {
        let handler: Handler = Box::new(move |args: &dyn Any| {
            args.downcast_ref::<Args<T, I>>()
                .and_then(|args| inject(*args))
        });
        Self::put(&mut self.injections, function, handler);
        self
    }

    /// Answers the functions the [`Device`] implements (memory, contexts, streams, events,
    /// modules, launches: [`Device`] lists them) with `device`, for every table made with this
    /// driver's configuration. A function given a fake with [`on`](Self::on) is answered by that
    /// fake instead; [`inject`](Self::inject) sees calls before the device does.
    ///
    /// A driver answers for one device: given a second, it keeps the second, and the first
    /// reports that it was replaced (a finding of its check).
    pub fn device(mut self, device: &Device) -> Self {
        let shared = device.shared();
        if let Some(replaced) = self.device.replace(shared.clone()) {
            replaced.replaced_by(&shared);
        }
        self
    }

    /// Answers every function that nothing else answers with `CUDA_SUCCESS`, writing to each of
    /// its out-values (that is not null): a distinct non-null handle to a handle (`CUcontext`,
    /// `CUgraph`, ...), zero to anything else (an integer, an enum, a struct, a host pointer). So a
    /// test fakes only what it checks; [`FakeDriver::written_by`] shows what such a call wrote.
    /// Without it, a function nothing answers fails to resolve, naming itself.
    pub fn succeed_others(mut self) -> Self {
        self.succeed_others = true;
        self
    }

    /// Fakes `function` with one that returns `result` on every call and touches nothing:
    /// `returns(function!(Cuda::cuLaunchKernel), CUresult::CUDA_ERROR_LAUNCH_FAILED)`.
    ///
    /// `result` is a [`sys::CUresult`](cuda_driver_table_core::sys::CUresult).
    pub fn returns<T, const I: usize>(self, function: Function<T, I>, result: CUresult) -> Self
    where
        T: Field<I>,
        <T as Field<I>>::Fn: DriverFn<Ret = CUresult>,
    {
        self.on(function, move |_| result)
    }

    /// The driver's version (`cuDriverGetVersion`'s number, `12080` for CUDA 12.8). A function
    /// requested at a newer ABI then fails to resolve as on such a driver
    /// (`ErrorKind::DriverTooOld`), and below CUDA 11.3, which lookups need, every function
    /// does: a table resolves completely exactly when this is at least its `MIN_DRIVER_VERSION`.
    /// Without it, the version of the [`device`](Self::device)'s [`Profile`] counts, if it sets
    /// one; else no version is checked. (What `cuDriverGetVersion` answers, if the code calls
    /// it, is its fake's, as for any function, or the device's: its profile's version.)
    pub fn driver_version(mut self, version: u32) -> Self {
        self.driver_version = Some(version);
        self
    }

    /// Whether the driver records calls ([`FakeDriver::calls`]); it does unless told otherwise.
    pub fn record(mut self, record: bool) -> Self {
        self.record = record;
        self
    }

    /// The driver. It lives for the rest of the process, as a configuration's resolver must (a
    /// [`Config`] is `Copy` and refers to it): make one per test, not one per call.
    pub fn build(self) -> &'static FakeDriver {
        Box::leak(Box::new(FakeDriver(Driver {
            entries: self.entries,
            injections: self.injections,
            device: self.device,
            succeed_others: self.succeed_others,
            next_handle: AtomicUsize::new(0),
            driver_version: self.driver_version,
            calls: self.record.then(|| Mutex::new(Vec::new())),
        })))
    }
}

// The device's own configuration: a driver of the device alone (here, above the device, which
// knows no driver).
impl Device {
    /// The configuration of tables on this device alone: `Cuda::with_config(device.config())`.
    /// It is [`Fake::new().device(&device).build().config()`](Fake::device): functions the
    /// device does not implement fail to resolve, naming themselves. Each call makes a driver
    /// (which lives for the process): call it once per test.
    pub fn config(&self) -> Config {
        Fake::new().device(self).build().config()
    }
}

impl fmt::Debug for Fake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.entries.iter().map(|e| e.spec.name).collect();
        f.debug_struct("Fake")
            .field("fakes", &names)
            .field("device", &self.device.is_some())
            .field("succeed_others", &self.succeed_others)
            .field("driver_version", &self.driver_version)
            .field("record", &self.record)
            .finish()
    }
}

/// A fake driver: the functions it fakes, and the calls it answered. Tables made with its
/// [`config`](Self::config) call its fakes.
pub struct FakeDriver(Driver);

/// The driver's state, and the resolver its configuration looks up through. Private, so that no
/// configuration resolves through it without routing the calls to it (`Config::custom` would).
struct Driver {
    entries: Vec<Entry>,
    injections: Vec<Entry>,
    device: Option<device::Shared>,
    succeed_others: bool,
    /// The handles `succeed_others` hands out without a device, counted.
    next_handle: AtomicUsize,
    driver_version: Option<u32>,
    calls: Option<Mutex<Vec<Answered>>>,
}

/// One call a fake answered.
struct Answered {
    function: &'static str,
    /// Its arguments.
    args: Kept,
    /// What it wrote through its out-values.
    written: Vec<Written>,
}

// A driver's own interior mutability is the record of calls, which a panic leaves consistent
// (a push is whole, and a poisoned lock is used as it is); what the closures capture is the
// test's, as with any closure it shares. So a `&FakeDriver` is unwind safe, as the configurations
// that refer to it must be.
impl RefUnwindSafe for FakeDriver {}
impl RefUnwindSafe for Driver {}

impl FakeDriver {
    /// The configuration of tables that use this driver: `Cuda::with_config(driver.config())`,
    /// or `driver.config().per_thread()` for the per-thread default stream.
    pub fn config(&'static self) -> Config {
        Config::stand_in(&self.0)
    }

    /// The C names of the calls the fakes answered, in order (empty when not recording).
    pub fn calls(&self) -> Vec<&'static str> {
        self.0
            .lock()
            .map_or_else(Vec::new, |calls| calls.iter().map(|c| c.function).collect())
    }

    /// The arguments of every call of `function` the fakes answered, in order (empty when not
    /// recording): `driver.calls_to(function!(Cuda::cuMemAlloc))` gives `(dptr, bytesize)`
    /// pairs.
    pub fn calls_to<T, const I: usize>(&self, function: Function<T, I>) -> Vec<Args<T, I>>
    where
        T: Field<I>,
        <T as Field<I>>::Fn: DriverFn,
    {
        let name = function.name();
        self.0.lock().map_or_else(Vec::new, |calls| {
            calls
                .iter()
                .filter(|c| c.function == name)
                .filter_map(|c| c.args.get::<Args<T, I>>())
                .collect()
        })
    }

    /// What every call of `function` the driver answered wrote through its out-values, in order
    /// (empty when not recording), one list per call: `written_by(function!(Cuda::cuStreamCreate))`
    /// gives each call's `[phStream]`. A call that failed, or whose fake wrote nothing (a closure
    /// of [`Fake::on`] that writes without [`write()`]), has an empty list. Shown for the calls of
    /// tables made with the `tracing` feature or without it alike.
    pub fn written_by<T, const I: usize>(&self, function: Function<T, I>) -> Vec<Vec<Written>>
    where
        T: Field<I>,
        <T as Field<I>>::Fn: DriverFn,
    {
        let name = function.name();
        self.0.lock().map_or_else(Vec::new, |calls| {
            calls
                .iter()
                .filter(|c| c.function == name)
                .map(|c| c.written.clone())
                .collect()
        })
    }
}

impl fmt::Debug for FakeDriver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FakeDriver")
            .field("describe", &self.0.describe())
            .field("calls", &self.calls().len())
            .finish()
    }
}

impl Driver {
    /// The record of calls, if recording.
    fn lock(&self) -> Option<MutexGuard<'_, Vec<Answered>>> {
        let calls = self.calls.as_ref()?;
        Some(calls.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The closure of `entries` for `call`'s function and type.
    fn find<'a>(entries: &'a [Entry], call: &Call<'_>) -> Option<&'a Handler> {
        entries
            .iter()
            .find(|e| e.fn_type == call.function() && e.spec.name == call.name())
            .map(|e| &e.handler)
    }

    /// Answers `call`: an injection's `Some`, else the fake given for that function and type,
    /// else the device, else `succeed_others`; `None` when nothing does. Records the call when
    /// something answered it.
    ///
    /// # Safety
    ///
    /// The call's arguments uphold the C function's contract, and its out-values are among
    /// them.
    unsafe fn answer_and_record(&self, call: &Call<'_>) -> Option<CUresult> {
        failure::begin();
        // SAFETY: the caller's contract.
        let answer = match unsafe { self.answer(call) } {
            Some(answer) => answer,
            // SAFETY: the out-values are the call's (the caller's contract).
            None if self.succeed_others => unsafe { self.succeed(call.outs()) },
            None => return None,
        };
        if let Some(mut calls) = self.lock() {
            calls.push(Answered {
                function: call.name(),
                args: call.keep(),
                written: call.written(),
            });
        }
        Some(answer)
    }

    /// The injection's, the fake's or the device's answer to a call, if one answers.
    ///
    /// # Safety
    ///
    /// As [`answer_and_record`](Self::answer_and_record).
    unsafe fn answer(&self, call: &Call<'_>) -> Option<CUresult> {
        if let Some(inject) = Self::find(&self.injections, call) {
            if let Some(answer) = inject(call.args()) {
                return Some(answer);
            }
        }
        if let Some(handler) = Self::find(&self.entries, call) {
            return handler(call.args());
        }
        // SAFETY: the caller's contract.
        if let Some(answer) = unsafe { failure::error_string_call(call) } {
            return Some(answer);
        }
        let device = self.device.as_ref()?;
        // SAFETY: the caller's contract.
        unsafe { device.call(call.name(), call.args(), call.outs(), call.stream_mode()) }
    }

    /// `succeed_others`' answer: `CUDA_SUCCESS`, having written a distinct non-null handle to
    /// each handle among `outs`, zero to each other out-value.
    ///
    /// # Safety
    ///
    /// `outs` are out-values of a call whose caller upholds the C contract: each is null or valid
    /// for writes of its type, and that type is a C type of the bindings, for which all-zero
    /// bytes are a value (integers, floats, enum newtypes, raw pointers, `Option`s of function
    /// pointers, and `#[repr(C)]` structs, unions and arrays of them).
    unsafe fn succeed(&self, outs: &[OutPlace]) -> CUresult {
        for place in outs {
            let handle = match &self.device {
                Some(device) => device.token(),
                None => OTHERS_BASE + 16 * (self.next_handle.fetch_add(1, Ordering::Relaxed) + 1),
            };
            // SAFETY: the caller's contract.
            unsafe { place.fill(handle) };
        }
        CUresult::CUDA_SUCCESS
    }

    /// The driver's version: [`Fake::driver_version`]'s, else the device's profile's, if either
    /// sets one.
    fn version(&self) -> Option<u32> {
        self.driver_version
            .or_else(|| self.device.as_ref()?.profile().version())
    }

    /// Whether the platform the device's profile imitates lacks the export that a lookup of
    /// `symbol` at `version` with `flag` asks for: the export of that ABI in the bindings'
    /// manifest, or the name itself for a function the manifest does not know.
    fn lacks(&self, symbol: &CStr, version: u32, flag: StreamMode) -> bool {
        let Some(device) = &self.device else {
            return false;
        };
        let profile = device.profile();
        if profile.lacking().next().is_none() {
            return false;
        }
        let name = symbol.to_str().unwrap_or_default();
        let export = manifest::find(name).map_or(Some(name), |function| {
            function.abis.iter().find_map(|abi| {
                [StreamMode::Legacy, StreamMode::PerThread]
                    .into_iter()
                    .find(|&mode| abi.request(mode) == (version, flag))
                    .and_then(|mode| abi.expected_export(mode))
            })
        });
        export.is_some_and(|export| profile.lacks_export(export))
    }

    /// The status of a lookup of a function no fake was given for.
    fn not_faked() -> Status {
        Status::new(
            500,
            "CUDA_ERROR_NOT_FOUND",
            "the fake driver has no fake for it (and no device that implements it); give it \
             one with `Fake::on` or `Fake::returns`, or answer the rest with \
             `Fake::succeed_others`",
        )
    }
}

// SAFETY: a pointer handed out for an entry is its `stand_in`, a function of this program
// (valid forever) of the entry's type: `Field<I>::Fn` of the table whose `FUNCTIONS[I]` is the
// entry's spec, which by `Functions`' contract is the type of the `PFN_*` typedef of exactly that
// spec's ABI and of its per-thread twin. A lookup finds an entry only for the request of that
// very ABI (`Entry::answers`: `Abi::request` in either mode, the version and the flag), so
// what it returns has exactly the requested ABI's type.
//
// For a function the device or `succeed_others` answers, a lookup hands out `token()`, a
// function of no driver's type. No one calls it: a `Driver` is reachable only through the
// configuration `FakeDriver::config` makes with `Config::stand_in` (private type, private
// field), whose tables hand their calls to `StandIn::call` and never call what was resolved;
// their raw accessors are refused, and `Config::resolver` and `resolve` refuse that
// configuration (`StandIn`'s contract), so no safe code can reach a resolved pointer to call it;
// error names are not looked up (`error_strings` answers). Every pointer stays valid for the
// process.
unsafe impl Resolver for Driver {
    fn describe(&self) -> String {
        let mut names: Vec<&str> = self.entries.iter().map(|e| e.spec.name).collect();
        names.sort_unstable();
        names.dedup();
        let mut parts = vec!["cuda_driver_table::fake".to_owned()];
        if let Some(v) = self.version() {
            parts.push(format!("CUDA {}", CudaVersion(v)));
        }
        if !names.is_empty() {
            parts.push(format!("fakes of {}", names.join(", ")));
        }
        if self.device.is_some() {
            parts.push("a fake device".to_owned());
        }
        if self.succeed_others {
            parts.push("success for the rest".to_owned());
        }
        format!("a fake driver ({})", parts.join("; "))
    }

    fn versioning(&self) -> Versioning {
        match self.version() {
            Some(v) if v < LOOKUP_DRIVER_FLOOR => Versioning::Unavailable(Status::new(
                500,
                "CUDA_ERROR_NOT_FOUND",
                format!(
                    "the fake driver is CUDA {}, older than CUDA {}, whose cuGetProcAddress every \
                     lookup needs",
                    CudaVersion(v),
                    CudaVersion(LOOKUP_DRIVER_FLOOR)
                ),
            )),
            _ => Versioning::Versioned,
        }
    }

    fn lookup(&self, symbol: &CStr, query: Query, flag: StreamMode) -> LookupResult {
        let Query::ByVersion(version) = query else {
            // Never asked: this resolver answers versioned lookups only.
            return LookupResult::Failed(Self::not_faked());
        };
        if self.version().is_some_and(|driver| version > driver) {
            return LookupResult::VersionTooNew;
        }
        if self.lacks(symbol, version, flag) {
            return LookupResult::SymbolNotFound;
        }
        let named = || {
            self.entries
                .iter()
                .filter(|e| e.spec.name.as_bytes() == symbol.to_bytes())
        };
        if let Some(entry) = named().find(|e| e.answers(version, flag)) {
            return (entry.stand_in)().map_or(LookupResult::SymbolNotFound, LookupResult::Found);
        }
        let name = symbol.to_str().unwrap_or_default();
        if self.succeed_others
            || failure::answers_error_strings(name)
            || self.device.is_some() && device::implements(name)
        {
            return LookupResult::Found(token());
        }
        let faked_at: Vec<String> = named()
            .map(|e| {
                let abi = &e.spec.abi;
                match abi.per_thread {
                    Some(pt) => format!("ABI {} (per-thread: {})", abi.version, pt.version),
                    None => format!("ABI {}", abi.version),
                }
            })
            .collect();
        if faked_at.is_empty() {
            return LookupResult::Failed(Self::not_faked());
        }
        LookupResult::Failed(Status::new(
            500,
            "CUDA_ERROR_NOT_FOUND",
            format!(
                "the fake driver fakes it at {}, not at ABI {version} ({flag:?} stream); give the \
                 table's pin a fake with `Fake::on`",
                faked_at.join(" and ")
            ),
        ))
    }

    fn driver_version(&self) -> Option<u32> {
        self.version()
    }

    /// The bindings' name and description of the code, as the fake's `cuGetErrorName` and
    /// `cuGetErrorString` answer them; what a device says about the call that just failed on
    /// this thread (a double free, say) is the description instead.
    fn error_strings(&self, code: u32) -> (Option<String>, Option<String>) {
        let (name, description) = failure::strings_of(code);
        (name, failure::said(code).or(description))
    }
}

// SAFETY: the pointers `lookup` hands out for functions the fakes, the device or
// `succeed_others` answer are not those functions, and a `Driver` is reachable only through
// the configuration `FakeDriver::config` makes with `Config::stand_in` (private type, private
// field); `error_strings` calls nothing looked up.
unsafe impl StandIn for Driver {
    unsafe fn call(&self, call: &Call<'_>) -> Option<CUresult> {
        // SAFETY: the caller's contract.
        unsafe { self.answer_and_record(call) }
    }
}

#[cfg(test)]
mod tests;
