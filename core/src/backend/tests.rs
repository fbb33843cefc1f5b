//! The driver backend around stand-in `cuGetProcAddress_v2` functions: how a failing lookup's
//! `CUresult` is named when the driver cannot name it. CPU only; nothing is loaded.

use std::ffi::{c_char, c_int, c_void};

use super::*;
use crate::resolve::resolve_with;
use crate::sys;
use crate::testing::abi;

/// `cuGetProcAddress_v2` of a toolkit's stub `libcuda.so`: like every function of the stub, it
/// fails with `CUDA_ERROR_STUB_LIBRARY` (34).
unsafe extern "C" fn stub_get_proc_address(
    _: *const c_char,
    _: *mut *mut c_void,
    _: c_int,
    _: sys::cuuint64_t,
    _: *mut c_int,
) -> sys::CUresult {
    sys::CUresult::CUDA_ERROR_STUB_LIBRARY
}

/// A driver whose lookups fail with `CUDA_ERROR_INVALID_CONTEXT` (201), a code it cannot name
/// (its `cuGetErrorName` is looked up through the same failing function).
unsafe extern "C" fn failing_get_proc_address(
    _: *const c_char,
    _: *mut *mut c_void,
    _: c_int,
    _: sys::cuuint64_t,
    _: *mut c_int,
) -> sys::CUresult {
    sys::CUresult::CUDA_ERROR_INVALID_CONTEXT
}

/// Likewise with a code the bindings do not know either.
unsafe extern "C" fn unknown_code_get_proc_address(
    _: *const c_char,
    _: *mut *mut c_void,
    _: c_int,
    _: sys::cuuint64_t,
    _: *mut c_int,
) -> sys::CUresult {
    sys::CUresult(12345)
}

fn lookup_error(get_proc: ffi::GetProcAddressV2) -> Error {
    let driver = Driver::around(
        "/usr/local/cuda/lib64/stubs/libcuda.so",
        GetProc::V2(get_proc),
    );
    resolve_with(&driver, StreamMode::Legacy, "cuInit", &abi(2000, None)).unwrap_err()
}

/// The stub `libcuda.so` of a toolkit fails every call: the error names the code, says what the
/// library is and what to load instead.
#[test]
fn a_toolkit_stub_library_is_named_as_such() {
    let e = lookup_error(stub_get_proc_address);
    eprintln!("--- the stub:\n{e}");
    let (cause, fix) = crate::error::cause_and_fix(34, cfg!(windows)).unwrap();
    assert_eq!(
        e.to_string(),
        format!(
            "looking up cuInit through the CUDA driver (/usr/local/cuda/lib64/stubs/libcuda.so, \
             cuGetProcAddress_v2) failed: CUDA_ERROR_STUB_LIBRARY (34)\n{cause}\nTo fix: {fix}"
        )
    );
}

/// A `CUresult` the driver cannot name is named from the bindings' constants; one they do not
/// know either stays a number.
#[test]
fn a_code_the_driver_cannot_name_is_named_by_the_bindings() {
    assert_eq!(
        lookup_error(failing_get_proc_address).to_string(),
        "looking up cuInit through the CUDA driver (/usr/local/cuda/lib64/stubs/libcuda.so, \
         cuGetProcAddress_v2) failed: CUDA_ERROR_INVALID_CONTEXT (201)"
    );
    assert_eq!(
        lookup_error(unknown_code_get_proc_address).to_string(),
        "looking up cuInit through the CUDA driver (/usr/local/cuda/lib64/stubs/libcuda.so, \
         cuGetProcAddress_v2) failed: unknown CUresult (12345)"
    );
}
