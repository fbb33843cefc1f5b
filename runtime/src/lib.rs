//! Typed, lazily resolved tables of CUDA driver API functions, without linking against CUDA.
//!
//! ```no_run
//! use cuda_driver_table::{driver_table, sys};
//!
//! // Each function at the newest ABI a CUDA 12.0 driver has.
//! #[driver_table(cuInit, cuDeviceGet, cuMemAlloc, cuMemFree, driver = 12000)]
//! pub struct Cuda;
//!
//! static CU: Cuda = Cuda::new(); // nothing is loaded yet
//!
//! fn alloc(n: usize) -> Result<sys::CUdeviceptr, cuda_driver_table::Error> {
//!     let mut p = 0;
//!     // SAFETY: `p` is a valid place for the device pointer.
//!     unsafe {
//!         CU.cuInit(0)?;
//!         CU.cuMemAlloc(&mut p, n)?;
//!     }
//!     Ok(p)
//! }
//! ```
//!
//! A field typed `PFN_X_vN` is always requested at exactly ABI version `N` (its per-thread twin
//! at its own version), so the pointer a table hands out always matches its type, whatever the
//! versions of the headers, the runtime and the driver.
//!
//! What the crate offers besides the attribute:
//! - [`Config`] and [`Backend`]: where a table finds its functions (libcudart, libcuda, or a
//!   [`Resolver`] of the program's own) and which default stream it uses ([`StreamMode`]).
//! - [`Error`], [`ErrorKind`] and [`Errors`]: what a failed resolution or call says, and what
//!   `resolve_all` reports ([`Status`], [`CudaLibrary`] and [`Origin`] are their parts).
//! - [`resolve`] and [`manifest`]: resolving one function at one ABI by hand, and every
//!   function's ABIs in the selected release.
//! - [`sys`]: the bindings of the selected CUDA release (types, constants, `PFN_*` typedefs).
//! - [`kernel_args!`] ([`KernelArgs`]): the `kernelParams` of a kernel launch, from references to
//!   its arguments, without allocation.
//! - `fake` (with the `fake` feature, for tests): a fake driver whose functions are Rust closures,
//!   for testing code that uses tables on a machine without a GPU.

pub use cuda_driver_table_macros::driver_table;

#[cfg(feature = "fake")]
pub mod fake;
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
