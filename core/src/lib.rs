//! The implementation of [`cuda-driver-table`](https://docs.rs/cuda-driver-table): loading,
//! resolution, tables, errors. Depend on `cuda-driver-table`, which re-exports all of this crate
//! with the `#[driver_table]` attribute; its documentation is the guide.
//!
//! A crate of its own so that a clean build compiles it and the attribute's crate side by side:
//! the attribute is not needed to compile this code, only to use it.

// Compile cost: this crate is compiled into every user's program, with debug info in a debug
// build, and every iterator adapter, closure handed to a generic function and generic used at
// one more type compiles one more copy of the standard library's code into it. So its code
// prefers plain loops, `match`es, `&dyn Fn` and values (such as `backend::BuiltIn`) to adapter
// chains, `Option`/`Result` combinators and generics; these lints would ask for them back.
#![allow(
    clippy::manual_map,
    clippy::manual_ok_err,
    clippy::manual_unwrap_or,
    clippy::manual_unwrap_or_default,
    clippy::needless_range_loop,
    clippy::vec_init_then_push
)]

#[cfg(feature = "fake")]
pub mod fake;
pub mod manifest;
pub mod registry;
pub mod sys;

mod abi_history;
mod backend;
mod config;
mod error;
mod ffi;
mod kernel_args;
mod library;
mod resolve;
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
pub use error::{CudaLibrary, Error, ErrorKind, Errors, Origin, Status};
pub use kernel_args::{KernelArg, KernelArgs, KernelParam};
pub use library::{resolve, SearchReport, SearchStep, StepOutcome};
pub use registry::tables;
pub use resolve::{LookupResult, Query, Resolver, Versioning};
pub use stream::StreamMode;
pub use table::{min_driver_version, FunctionSpec};
pub use version::CudaVersion;
