//! Generated code is lint-clean: a user crate that denies clippy's pedantic and nursery groups
//! builds with a small table and with a table of every function. The test command checks this
//! file with `cargo clippy --workspace --all-targets -- -D warnings`; as a test it only checks
//! that the tables are there.

#![deny(clippy::pedantic, clippy::nursery, missing_docs)]

use cuda_driver_table::driver_table;

/// A small table with a pin, options and a derive.
#[driver_table(cuInit, cuMemAlloc, cuCtxCreate = 3020, cuLaunchKernel, per_thread, driver = newest)]
#[derive(Debug)]
pub struct Small;

/// Every function of the release.
#[driver_table(all, backend = driver, driver = newest)]
pub struct Every;

/// For a driver, with exported symbols: the compile-time check of the floor is lint-clean too.
#[driver_table(
    cuInit,
    cuCtxCreate_v2,
    cuLaunchKernel_ptsz,
    per_thread,
    driver = 12000
)]
pub struct ForADriver;

#[test]
fn both_tables_are_there() {
    assert_eq!(Small::FUNCTIONS.len(), 4);
    assert!(Every::FUNCTIONS.len() > 400);
    assert_eq!(ForADriver::FUNCTIONS.len(), 3);
}
