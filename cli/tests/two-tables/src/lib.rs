//! Two tables, as a library declares them, each with a value and a function that calls it: a
//! program that uses one links code for that one only, and records only that one.

use cuda_driver_table::driver_table;

/// The table the example program uses.
#[driver_table(cuInit, cuDriverGetVersion, driver = 12000)]
pub struct Used;

/// The table the example program never uses: its record must not be in the program.
#[driver_table(cuInit, cuCtxCreate, driver = newest)]
pub struct Unused;

/// The value of `Used` the program calls.
pub static USED: Used = Used::new();

/// The value of `Unused`, which nothing in the program refers to.
pub static UNUSED: Unused = Unused::new();

/// The driver's version through `Used`.
///
/// # Errors
///
/// When `cuDriverGetVersion` cannot be resolved or fails.
pub fn used_version() -> Result<i32, cuda_driver_table::Error> {
    let mut version = 0;
    // SAFETY: `cuDriverGetVersion` writes one `int` through the pointer, to a local.
    unsafe { USED.cuDriverGetVersion(&raw mut version) }?;
    Ok(version)
}

/// Initialises the driver through `Unused`.
///
/// # Errors
///
/// When `cuInit` cannot be resolved or fails.
pub fn unused_init() -> Result<(), cuda_driver_table::Error> {
    // SAFETY: `cuInit` takes a flags word, 0.
    unsafe { UNUSED.cuInit(0) }
}
