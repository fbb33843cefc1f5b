// The front page is the README (the guide for users; the same text crates.io shows). Its links
// are absolute docs.rs addresses, for crates.io; the definitions below come first, so rustdoc
// takes these intra-doc links instead (the first definition of a name wins), which stay within
// the documentation being read.
//! [Error]: crate::Error
//! [Error::kind]: crate::Error::kind
//! [Config]: crate::Config
//! [Config::new]: crate::Config::new
//! [Config::driver]: crate::Config::driver
//! [Config::runtime]: crate::Config::runtime
//! [Config::library]: crate::Config::library
//! [kernel_args]: crate::kernel_args!
//! [sys]: crate::sys
//! [guide-tables]: crate::guide::tables
//! [guide-loading]: crate::guide::loading
//! [guide-tracing]: crate::guide::call_tracing
//! [guide-local]: crate::guide::local_toolkit
//! [from-cudarc]: crate::guide::from_cudarc
#![cfg_attr(feature = "fake", doc = "[fake-module]: crate::fake")]
#![doc = ""]
#![doc = include_str!("../README.md")]

pub use cuda_driver_table_macros::driver_table;

#[cfg(feature = "fake")]
pub mod fake;
pub mod guide;
pub mod manifest;
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
pub use library::resolve;
pub use resolve::{LookupResult, Query, Resolver, Versioning};
pub use stream::StreamMode;
pub use table::{min_driver_version, FunctionSpec};
pub use version::CudaVersion;
