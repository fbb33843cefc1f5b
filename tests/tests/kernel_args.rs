//! `kernel_args!` through a generated `cuLaunchKernel`, on the CPU: an in-process resolver hands
//! out a stand-in that reads `kernelParams` during the call, as the driver copies a launch's
//! parameters, so the values it sees are the ones the program passed, in order.

use cuda_driver_table::{
    driver_table, kernel_args, sys, Config, KernelParam, LookupResult, Query, Resolver, StreamMode,
    Versioning,
};
use std::ffi::{c_uint, c_void, CStr};
use std::ptr::NonNull;
use std::sync::Mutex;

/// The parameters of the kernel the stand-in launches: three device pointers, a count, a struct.
type Params = (u64, u64, u64, u32, Scale);

/// What the stand-in read from its parameters, launch by launch.
static SEEN: Mutex<Vec<Params>> = Mutex::new(Vec::new());

/// A parameter struct of the program's own, passed by value.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Scale {
    factor: f32,
    offset: f32,
}

impl KernelParam for Scale {}

#[allow(clippy::too_many_arguments)]
extern "C" fn fake_launch(
    _: sys::CUfunction,
    _: c_uint,
    _: c_uint,
    _: c_uint,
    _: c_uint,
    _: c_uint,
    _: c_uint,
    _: c_uint,
    _: sys::CUstream,
    params: *mut *mut c_void,
    _: *mut *mut c_void,
) -> sys::CUresult {
    /// Parameter `i` as a `T`.
    ///
    /// # Safety
    ///
    /// `params[i]` points at a `T`.
    unsafe fn at<T: Copy>(params: *mut *mut c_void, i: usize) -> T {
        // SAFETY: the caller's contract.
        unsafe { (*params.add(i)).cast::<T>().read() }
    }
    // SAFETY: every launch in this file passes the five parameters of this kernel's signature.
    let seen: Params = unsafe {
        (
            at(params, 0),
            at(params, 1),
            at(params, 2),
            at(params, 3),
            at(params, 4),
        )
    };
    SEEN.lock().unwrap_or_else(|p| p.into_inner()).push(seen);
    sys::CUresult::CUDA_SUCCESS
}

struct Fake;

// SAFETY: the one pointer handed out is a function of exactly the C signature of
// `cuLaunchKernel` ABI 4000, returned only for that ABI; anything else is `SymbolNotFound`.
unsafe impl Resolver for Fake {
    fn describe(&self) -> String {
        "a fake driver".to_string()
    }
    fn versioning(&self) -> Versioning {
        Versioning::Versioned
    }
    fn lookup(&self, symbol: &CStr, query: Query, mode: StreamMode) -> LookupResult {
        match (symbol.to_bytes(), query, mode) {
            (b"cuLaunchKernel", Query::ByVersion(4000), StreamMode::Legacy) => {
                NonNull::new(fake_launch as *mut c_void)
                    .map_or(LookupResult::SymbolNotFound, LookupResult::Found)
            }
            _ => LookupResult::SymbolNotFound,
        }
    }
}

#[driver_table(cuLaunchKernel, driver = newest)]
struct Cuda;

static CU: Cuda = Cuda::with_config(Config::custom(&Fake));

#[test]
fn the_launch_reads_each_argument_in_order() {
    let (a, b, c): (sys::CUdeviceptr, sys::CUdeviceptr, sys::CUdeviceptr) =
        (0xA000, 0xB000, 0xC000);
    let n = 1024u32;
    let scale = Scale {
        factor: 2.0,
        offset: 0.5,
    };
    // The stand-in's launch of `grid` blocks with the parameters `params` points at.
    let launch = |params: *mut *mut std::ffi::c_void, grid: u32| {
        // SAFETY: each caller passes the array of the five parameters of the stand-in's
        // signature, in order, borrowed by `with_params` for this call, during which the
        // stand-in reads them.
        unsafe {
            CU.cuLaunchKernel(
                std::ptr::null_mut(),
                grid,
                1,
                1,
                256,
                1,
                1,
                0,
                std::ptr::null_mut(),
                params,
                std::ptr::null_mut(),
            )
        }
        .expect("launch");
    };
    // Made in the launch's expression: the array lives until the closure, and so the call, has
    // returned.
    kernel_args![&a, &b, &c, &n, &scale].with_params(|params| launch(params, 4));
    // Kept in a variable and launched twice.
    let half = n / 2;
    let args = kernel_args![&c, &b, &a, &half, &scale];
    for _ in 0..2 {
        args.with_params(|params| launch(params, 2));
    }
    let seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    assert_eq!(
        *seen,
        [
            (0xA000, 0xB000, 0xC000, 1024, scale),
            (0xC000, 0xB000, 0xA000, 512, scale),
            (0xC000, 0xB000, 0xA000, 512, scale),
        ]
    );
}
