//! The C functions the runtime calls itself, outside any table, each with exactly the type it is
//! called through. One home: every call the runtime makes goes through a type of this module.
//!
//! Driver functions take the bindings' typedef of the ABI they are requested at
//! (`sys::PFN_cuGetErrorName_v6000` for `cuGetErrorName` at 6000, and so on), so a `CUresult`
//! parameter is a `CUresult`, not an `int` of the same size. libcudart's own functions are
//! declared in `cuda_runtime_api.h`, which the bindings do not cover; they are written out here
//! as that header declares them, `cudaError_t` (a C enum) as the `int` it is passed as.
//!
//! Nothing here calls anything: callers transmute a looked-up address into one of these types,
//! with a `SAFETY` note naming the ABI that the lookup proved.

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

use crate::sys;

/// The function pointer type inside a `PFN_*` typedef (`Option<unsafe extern "C" fn(...)>`): what
/// the runtime calls through here, and what a table's field holds (`__cdt_bind!`).
#[doc(hidden)]
pub trait Pfn {
    /// The `unsafe extern "C" fn(...)`.
    type Fn: Copy;
}

impl<F: Copy> Pfn for Option<F> {
    type Fn = F;
}

/// `CUresult cuGetErrorName(CUresult, const char**)` at ABI 6000.
pub(crate) type GetErrorName = <sys::PFN_cuGetErrorName_v6000 as Pfn>::Fn;
/// `CUresult cuGetErrorString(CUresult, const char**)` at ABI 6000.
pub(crate) type GetErrorString = <sys::PFN_cuGetErrorString_v6000 as Pfn>::Fn;
/// `CUresult cuDriverGetVersion(int*)` at ABI 2020.
pub(crate) type DriverGetVersion = <sys::PFN_cuDriverGetVersion_v2020 as Pfn>::Fn;
/// `CUresult cuGetProcAddress(const char*, void**, int, cuuint64_t)` at ABI 11030.
pub(crate) type GetProcAddress = <sys::PFN_cuGetProcAddress_v11030 as Pfn>::Fn;

/// `CUresult cuGetProcAddress_v2(const char*, void**, int, cuuint64_t,
/// CUdriverProcAddressQueryResult*)` at ABI 12000.
///
/// The bindings of CUDA 11.x (and a local 11.x toolkit) have no typedef of this ABI, which came
/// with 12.0, but the runtime calls it on every newer driver whatever release it was built for:
/// written out with the bindings' types, the status out-parameter (a pointer to a C enum) as a
/// pointer to the `int` it is. On releases that have the typedef, the compiler checks that the
/// two agree (below).
pub(crate) type GetProcAddressV2 = unsafe extern "C" fn(
    *const c_char,
    *mut *mut c_void,
    c_int,
    sys::cuuint64_t,
    *mut c_int,
) -> sys::CUresult;

/// libcudart: `cudaError_t cudaGetDriverEntryPointByVersion(const char*, void**, unsigned int,
/// unsigned long long, cudaDriverEntryPointQueryResult*)` (12.5+).
pub(crate) type RtEntryPointByVersion =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_uint, c_ulonglong, *mut c_int) -> c_int;
/// libcudart 11.x: `cudaError_t cudaGetDriverEntryPoint(const char*, void**, unsigned long long)`.
pub(crate) type RtEntryPoint11 =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_ulonglong) -> c_int;
/// libcudart 12.x: `cudaError_t cudaGetDriverEntryPoint(const char*, void**, unsigned long long,
/// cudaDriverEntryPointQueryResult*)`.
pub(crate) type RtEntryPoint12 =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_ulonglong, *mut c_int) -> c_int;
/// libcudart: `cudaError_t cudaRuntimeGetVersion(int*)`, likewise `cudaDriverGetVersion`.
pub(crate) type RtGetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;
/// libcudart: `const char* cudaGetErrorName(cudaError_t)`, likewise `cudaGetErrorString`.
pub(crate) type RtErrorText = unsafe extern "C" fn(c_int) -> *const c_char;
/// A libcudart function whose type is decided when it is called (`cudaGetDriverEntryPoint`,
/// whose parameters depend on the runtime's major version).
pub(crate) type Untyped = unsafe extern "C" fn();

// Where the bindings have `cuGetProcAddress_v2` (12.0 and newer), `GetProcAddressV2` is their
// typedef up to the status pointer's pointee, checked by the compiler at every build: the same
// parameter and result types otherwise, and a pointee of the same size (pointers all pass alike).
#[cfg(not(any(feature = "cuda-11070", feature = "cuda-11080", feature = "cuda-local")))]
const _: () = {
    use std::marker::PhantomData;
    type Bindings = <sys::PFN_cuGetProcAddress_v12000 as Pfn>::Fn;
    const fn status_as_int<A, B, C, D, E, R>(
        _: PhantomData<unsafe extern "C" fn(A, B, C, D, *mut E) -> R>,
    ) -> PhantomData<unsafe extern "C" fn(A, B, C, D, *mut c_int) -> R> {
        PhantomData
    }
    let _: PhantomData<GetProcAddressV2> = status_as_int(PhantomData::<Bindings>);
    assert!(size_of::<sys::CUdriverProcAddressQueryResult>() == size_of::<c_int>());
};
