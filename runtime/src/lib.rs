//! Typed, lazily resolved tables of CUDA driver API functions, without linking against CUDA.
//!
//! ```no_run
//! use cuda_driver_table::{driver_table, sys};
//!
//! #[driver_table(cuInit, cuDeviceGet, cuMemAlloc, cuMemFree)]
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
//! Module layout:
//! - `sys`: the bindings of the selected CUDA release (generated).
//! - `manifest`: every function's ABIs and exported names in that release (generated).
//! - `config`: [`Config`], [`Backend`], [`StreamMode`] (const-constructible).
//! - `error`: [`Error`] and [`ErrorKind`].
//! - `library`: finding and loading libcudart / libcuda once per process.
//! - `resolve`: the [`Resolver`] trait, the two real backends and the resolution rules.
//! - `slot`, `table`: the lazily filled fields generated tables are made of.
//! - `abi_history`: every ABI version of every driver function across all supported releases.

pub use cuda_driver_table_macros::driver_table;

pub mod manifest;
pub mod sys;

mod abi_history;
mod config;
mod error;
mod library;
mod resolve;
mod slot;
mod table;

#[doc(hidden)]
#[path = "__private.rs"]
pub mod __private;

pub use config::{Backend, Config, StreamMode};
pub use error::{Error, ErrorKind};
pub use resolve::{resolve, Lookup, Query, Resolver, StreamFlag, Versioning};
pub use table::{Errors, FunctionSpec, PerThreadSpec};

impl Config {
    /// The loaded backend this configuration resolves through, loading its library on first use
    /// (once per process). Its [`Resolver::describe`] names the library and lookup in use.
    ///
    /// # Errors
    ///
    /// When the library cannot be found or is not a CUDA library (the error lists every path tried).
    pub fn resolver(&self) -> Result<&'static dyn Resolver, Error> {
        library::resolver_for(self)
    }
}
