//! What `#[driver_table]`'s expansion calls. Not a public API: names and signatures here change
//! with the macro, which always comes in the same version as this crate.

pub use crate::table::Lazy;

use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::sys::CUresult;

/// `Ok(())` for `CUDA_SUCCESS`, else the error with the code's name and description.
///
/// # Errors
///
/// Any code but `CUDA_SUCCESS`.
#[inline(always)]
pub fn check(config: &Config, function: &'static str, result: CUresult) -> Result<(), Error> {
    crate::error::cuda_result(config, function, result.0)
}

/// The error for a slot that held no pointer (a resolver broke its contract).
#[cold]
pub fn null_pointer(function: &'static str) -> Error {
    Error::from(ErrorKind::SymbolNotFound {
        function,
        version: 0,
    })
}
