//! What the device said about the last call it failed on this thread: the description its
//! error gets (`Resolver::error_strings` of the fake driver), so that a failing call reads
//! "double free: ..." rather than a bare code; and the answers to `cuGetErrorName` and
//! `cuGetErrorString`, from the bindings' own table.

use std::cell::RefCell;
use std::ffi::c_char;
use std::ptr;

use cuda_driver_table_core::manifest::cu_result_strings;
use cuda_driver_table_core::stand_in::Call;
use cuda_driver_table_core::sys::CUresult;

thread_local! {
    /// The code and why of the last failure the device said on this thread.
    static FAILURE: RefCell<Option<(u32, String)>> = const { RefCell::new(None) };
}

/// A fake call starts on this thread: no failure said.
pub(crate) fn begin() {
    let _ = FAILURE.try_with(|f| f.borrow_mut().take());
}

/// The device failed the call in progress with `code`, for `why`.
pub(crate) fn fail(code: u32, why: String) {
    let _ = FAILURE.try_with(|f| *f.borrow_mut() = Some((code, why)));
}

/// The description of `code` if the last fake call on this thread failed with it and said why.
pub(crate) fn said(code: u32) -> Option<String> {
    FAILURE
        .try_with(|f| match &*f.borrow() {
            Some((c, why)) if *c == code => Some(why.clone()),
            _ => None,
        })
        .ok()
        .flatten()
}

/// The fake driver's answer to `cuGetErrorName` and `cuGetErrorString`, as a real driver's: the
/// name or a description of the code from the bindings' own table
/// ([`cu_result_strings`]: the constant's name and the first sentence of its documentation in
/// `cuda.h`), written as a pointer to a static C string; for a code the bindings do not have,
/// or a null `pStr`, `CUDA_ERROR_INVALID_VALUE` (with `*pStr` set to null when it can be).
/// `None` for any other call.
///
/// # Safety
///
/// The call's arguments uphold the function's C contract: `pStr` is null or valid for a write of
/// a pointer.
pub(crate) unsafe fn error_string_call(call: &Call<'_>) -> Option<CUresult> {
    let describe = match call.name() {
        "cuGetErrorName" => false,
        "cuGetErrorString" => true,
        _ => return None,
    };
    let (code, out) = call.args_as::<(CUresult, *mut *const c_char)>()?;
    if out.is_null() {
        return Some(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    let (answer, text) = match cu_result_strings(code.0) {
        Some((name, description)) => (
            CUresult::CUDA_SUCCESS,
            if describe { description } else { name }.as_ptr(),
        ),
        None => (CUresult::CUDA_ERROR_INVALID_VALUE, ptr::null()),
    };
    // SAFETY: `out` is not null, and valid for a write of a pointer (the caller's contract).
    unsafe { out.write(text) };
    Some(answer)
}

/// Whether `name` is one of the functions [`error_string_call`] answers.
pub(crate) fn answers_error_strings(name: &str) -> bool {
    matches!(name, "cuGetErrorName" | "cuGetErrorString")
}

/// The bindings' name and description of `code`, as [`error_string_call`] answers them.
pub(crate) fn strings_of(code: u32) -> (Option<String>, Option<String>) {
    match cu_result_strings(code) {
        Some((name, description)) => (
            Some(name.to_string_lossy().into_owned()),
            Some(description.to_string_lossy().into_owned()),
        ),
        None => (None, None),
    }
}
