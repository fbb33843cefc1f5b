//! The implementation of [`cuda-driver-table`](https://docs.rs/cuda-driver-table): loading,
//! resolution, tables, errors. Depend on `cuda-driver-table`, which re-exports all of this crate
//! with the `#[driver_table]` attribute; its documentation is the guide.
//!
//! A crate of its own so that a clean build compiles it and the attribute's crate side by side:
//! the attribute is not needed to compile this code, only to use it.

// docs.rs (`--cfg docsrs`, nightly) shows each feature-gated item with its feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod manifest;
pub mod ptx;
pub mod registry;
pub mod sys;

mod abi_history;
mod backend;
mod call;
mod config;
mod error;
mod ffi;
mod kernel_args;
mod library;
mod resolve;
#[cfg(feature = "stand-in")]
#[cfg_attr(docsrs, doc(cfg(feature = "stand-in")))]
pub mod stand_in;
mod stream;
mod table;
mod trace;
mod version;

#[cfg(test)]
mod testing;

#[doc(hidden)]
#[path = "__private.rs"]
pub mod __private;

pub use backend::{ENV_CUDART, ENV_LIBCUDA};
pub use config::{Backend, Config};
pub use error::{CudaLibrary, Error, ErrorKind, Errors, Origin, Status, UnsupportedPtx};
pub use kernel_args::{KernelArg, KernelArgs, KernelParam};
pub use library::{resolve, SearchReport, SearchStep, StepOutcome};
pub use registry::tables;
pub use resolve::{LookupResult, Query, Resolver, Versioning};
pub use stream::StreamMode;
pub use table::{min_driver_version, FunctionSpec};
pub use version::CudaVersion;
