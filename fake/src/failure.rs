//! What the device said about the last call it failed on this thread: the description its
//! error gets (`Resolver::error_strings` of the fake driver), so that a failing call reads
//! "double free: ..." rather than a bare code.

use std::cell::RefCell;

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
