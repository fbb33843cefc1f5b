//! Tables in an edition-2015 crate, at the root and in a module, with pins, options and a
//! `crate = ...` path. Used by `tests/edition2015.rs`, which calls them.

#![deny(missing_docs, warnings)]

#[macro_use]
extern crate cuda_driver_table;

pub use cuda_driver_table::{Config, FunctionSpec};

/// A table at the crate root.
#[driver_table(cuInit, cuDriverGetVersion, cuCtxCreate = 3020, cuMemAlloc, driver = newest)]
#[derive(Debug)]
pub struct Root;

/// Tables in a module, where `::name` is relative to the crate root in edition 2015.
pub mod tables {
    /// A per-thread table through the driver backend.
    #[driver_table(cuInit, cuLaunchKernel, backend = driver, per_thread, driver = newest)]
    pub struct InModule;

    /// A table naming the runtime by the path of the crate root's `extern crate`.
    #[driver_table(cuInit, crate = ::cuda_driver_table, driver = newest)]
    pub struct WithPath;
}
