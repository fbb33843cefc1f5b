//! The `#[driver_table(...)]` attribute of `cuda-driver-table`.
//!
//! `table` is the whole attribute on `proc-macro2` tokens, in three phases with one module each:
//! - `parse` reads the arguments and the struct into the typed `model`,
//! - `check` validates them against the manifest of the selected release (`manifest`) and
//!   returns the checked table,
//! - `expand` emits it (with the prose of `docs`).
//!
//! Every phase reports into one `diagnostics::Errors`, at the user's tokens; the errors are
//! emitted with the table, so the rest of the user's code still type-checks.
//!
//! Use it through the `cuda-driver-table` crate, which re-exports it.

mod check;
mod diagnostics;
mod docs;
mod expand;
#[cfg(test)]
mod fuzz;
mod manifest;
mod model;
mod options;
mod parse;
mod renamed;
#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

/// Turns a unit struct into a table of lazily resolved, correctly typed CUDA driver functions.
///
/// The guide is the front page of the `cuda-driver-table` crate, which re-exports this attribute:
/// <https://docs.rs/cuda-driver-table>.
///
/// ```ignore
/// #[driver_table(cuInit, cuDeviceGet, cuCtxCreate, cuMemAlloc, driver = 12000)]
/// pub struct Cuda;
/// ```
///
/// Besides the functions (named as in C, optionally pinned to an ABI version, `cuCtxCreate = 3020`,
/// or named by an exported symbol that selects its ABI, `cuCtxCreate_v2`) it takes:
/// - `driver = 12000` (or `driver = "12.0"`), required: the oldest driver the table must work on;
///   each plain name takes the newest ABI such a driver has, and `MIN_DRIVER_VERSION` is at most
///   it. `driver = newest` takes the newest ABIs of the selected bindings instead, whatever driver
///   they need;
/// - `all`: every function of the selected CUDA release (with `driver`, every one it has);
/// - `per_thread`: `new()` uses the per-thread default stream (the `_ptds`/`_ptsz` ABIs);
/// - `backend = runtime` or `backend = driver`: the only backend `new()` uses (without it, libcudart
///   or, where none is installed, libcuda);
/// - `crate = path` (or `crate = "path"`): how your crate names `cuda-driver-table`, when it is
///   a renamed dependency (`crate = cdt`) or reached through another crate's re-export
///   (`crate = ::my_wrapper::cdt`).
///
/// The table implements `Default` (as `new()`) and can derive `Debug`; it cannot be `Clone`,
/// `Copy` or compared, since it holds the pointers it resolves: share one, e.g. in a `static`.
#[proc_macro_attribute]
pub fn driver_table(
    args: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    table(args.into(), item.into()).into()
}

/// The attribute: parse, check, expand. An item that is no table to make is kept as it came,
/// after the errors.
fn table(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = diagnostics::Errors::default();
    let request = parse::args(args, &mut errors);
    let expansion = match parse::item(&item, &mut errors) {
        Ok(item) => {
            let table = check::check(request, item, &mut errors);
            expand::expand(&table, &mut errors)
        }
        Err(not_a_table) => {
            check::not_a_table(not_a_table, &mut errors);
            item
        }
    };
    let mut out = errors.into_compile_errors();
    out.extend(expansion);
    out
}
