//! The `#[driver_table(...)]` attribute of `cuda-driver-table`. This file only forwards: the
//! attribute is parsed in `model`, checked against the manifest in `check` and expanded in
//! `expand`. Use it through the `cuda-driver-table` crate, which re-exports it.

mod check;
mod docs;
mod expand;
mod manifest;
mod model;
#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Turns a unit struct into a table of lazily resolved, correctly typed CUDA driver functions.
///
/// See the `cuda-driver-table` crate for the full guide.
///
/// ```ignore
/// #[driver_table(cuInit, cuDeviceGet, cuCtxCreate = 3020, cuMemAlloc)]
/// pub struct Cuda;
/// ```
#[proc_macro_attribute]
pub fn driver_table(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::driver_table(args.into(), item.into()).into()
}
