//! The `#[driver_table(...)]` attribute of `cuda-driver-table`. This file only forwards, through
//! four modules with one job each:
//! - `parse` reads the attribute's arguments and the struct into the typed `model`,
//! - `check` validates them against the manifest of the selected release (`manifest`),
//! - `expand` emits the table,
//! - `diagnostics` collects every error of the three, at the user's tokens.
//!
//! They work on the macro's own token model (`tokens`); `host` is the one module that talks to
//! the compiler. The crate depends on nothing but `proc_macro` (no `proc-macro2`, no `quote`): a
//! clean build of a user's program compiles it, and its dependencies would take longer to build
//! than the macro itself (see `Cargo.toml`).
//!
//! Use it through the `cuda-driver-table` crate, which re-exports it.

mod check;
mod diagnostics;
mod docs;
mod expand;
#[cfg(test)]
mod fuzz;
mod host;
mod manifest;
mod model;
mod parse;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
mod tokens;

use tokens::{Output, Span, TokenStream};

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
/// - `driver = 12000` (or `driver = "12.0"`): the oldest driver the table must work on; each
///   plain name takes the newest ABI such a driver has, and `MIN_DRIVER_VERSION` is at most it;
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
    host::expand(args, item)
}

/// The whole attribute: read, check, emit; the errors of every phase are emitted with the table,
/// so the rest of the user's code still type-checks. An item that is no table to make is kept as
/// it came (`keep_item`), after the errors.
fn table(args: TokenStream, item: &TokenStream) -> Output {
    let mut diag = diagnostics::Diagnostics::default();
    let mut out = Output::default();
    // The errors come first: their placeholder now, their tokens once every phase has run.
    let errors = out.placeholder(TokenStream::new());
    out.text.push_str(&errors);
    let request = parse::parse_args(args, &mut diag);
    match parse::parse_item(item, &mut diag) {
        Ok(item_model) => {
            let attrs = check::check_attrs(&item_model, &mut diag);
            let checked = check::check(&request, &mut diag);
            expand::expand(
                &mut out,
                attrs,
                &item_model.vis,
                &item_model.ident,
                &request,
                &checked,
                &mut diag,
            );
        }
        Err(model::NotATable::Table(ident)) => {
            // A second `#[driver_table]`, under a name the first could not recognise: the first
            // table stays as it is.
            diag.at(Span::call_site(), check::two_tables(&ident));
            out.keep_item = true;
        }
        Err(model::NotATable::Other(span, what)) => {
            diag.at(
                span,
                format!("#[driver_table] goes on a unit struct (`pub struct Cuda;`), not {what}; the attribute adds the fields and methods"),
            );
            out.keep_item = true;
        }
    }
    out.splices[0] = diag.to_compile_errors();
    out
}
