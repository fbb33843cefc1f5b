//! A crate that names cuda-driver-table `cdt` (a renamed dependency) and re-exports it and its
//! macro, as a wrapper crate would. It builds only if every path `#[driver_table]` generates
//! (types, traits, constructors and doc links) follows the `crate = ...` option.

#![deny(missing_docs, rustdoc::broken_intra_doc_links)]

pub use cdt;
pub use cdt::driver_table;

/// The option as a path.
#[cdt::driver_table(cuInit, cuMemAlloc, cuLaunchKernel, crate = cdt, driver = newest)]
pub struct Renamed;

/// The option as a string, as serde and tokio also take it.
#[cdt::driver_table(cuInit, cuCtxCreate = 3020, crate = "cdt", driver = newest)]
pub struct RenamedString;

/// Through this crate's re-export, as a module of the wrapper would name it.
#[driver_table(cuInit, backend = driver, per_thread, crate = crate::cdt, driver = newest)]
pub struct ThroughReexport;
