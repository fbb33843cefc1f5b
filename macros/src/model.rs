//! The typed model of one use of the attribute: what `parse` reads off the tokens and `check`
//! validates. Plain data, no logic and no manifest lookups.

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Ident, Path, Visibility};

/// The name of a table's one field: also how a second `#[driver_table]` on the same struct,
/// under any name, sees that the struct is a table already.
pub const FIELD: &str = "__cdt_table";

/// One listed function, with its ABI pin if any (`cuCtxCreate = 3020`).
pub struct Entry {
    /// As written (without `r#`): a C name (`cuCtxCreate`) or an exported symbol naming one of
    /// its ABIs (`cuCtxCreate_v2`, `cuLaunchKernel_ptsz`); `check` tells which.
    pub name: Ident,
    pub pin: Option<Pin>,
}

/// What follows `=` after a function's name.
pub enum Pin {
    /// An ABI version (`3020`, `3_020`, `3020u32`, `0xBCC` in `cuCtxCreate = 3020`), with the
    /// literal's span.
    Version(u32, Span),
    /// Anything that is not one (`"v3"`, `v3020`, `-1`, `3020u8`, `3020.0`, a constant's name):
    /// reported in `check`, where the function's ABIs are known and can be listed.
    Invalid {
        tokens: TokenStream,
        /// What is wrong with it, when that is more than "not a number": `3020u8` does not fit
        /// `u8`, a name is no literal.
        problem: Option<String>,
        /// The whole number it spells, if any (`3020` of `3020.0`), for the suggested fix.
        number: Option<u32>,
    },
}

/// `driver = 12000` (or `driver = "12.0"`): the oldest driver the table must work on; or
/// `driver = newest`: the newest ABIs of the selected bindings, whatever driver they need.
#[derive(Clone, Copy)]
pub enum Driver {
    Version {
        /// In `cuDriverGetVersion`'s numbering (`12000` is CUDA 12.0).
        version: u32,
        /// The value's span, for errors about it.
        span: Span,
        /// Written as a string (`"12.0"`), for errors about it.
        quoted: bool,
    },
    Newest,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Runtime,
    Driver,
}

/// The parsed attribute.
#[derive(Default)]
pub struct Request {
    pub entries: Vec<Entry>,
    /// `all`: every function of the selected release.
    pub all: Option<Span>,
    /// `per_thread`: `new()` uses the per-thread default stream.
    pub per_thread: Option<Span>,
    /// `backend = runtime | driver`: the backend `new()` uses.
    pub backend: Option<Backend>,
    /// `driver = 12000`: every plain name takes the newest ABI such a driver has.
    pub driver: Option<Driver>,
    /// The `driver` option is written, valid or not (one missing is an error).
    pub driver_written: bool,
    /// `crate = path`: how the user's crate names `cuda-driver-table`.
    pub krate: Option<Path>,
    /// Words that are neither an option nor named like a driver function (`CUINIT`): `check`
    /// reports each with the options and functions near it.
    pub unknown: Vec<Ident>,
    /// Some part of the list could not be read at all (and was reported): the list's other
    /// faults, such as naming no function, are then not reported on top of it.
    pub malformed: bool,
    /// The whole argument list, for errors about it as a whole.
    pub span: Option<Span>,
}

/// The struct the attribute is on, taken apart: everything is re-emitted as written, except
/// attributes `check` rejects.
pub struct Item {
    pub attrs: Vec<Attr>,
    pub vis: Visibility,
    pub ident: Ident,
}

/// One outer attribute of the struct (doc comments included).
pub enum Attr {
    /// `#[derive(...)]` (or `#[::core::prelude::v1::derive(...)]`), with the derived paths.
    Derive { attr: Attribute, paths: Vec<Path> },
    /// `#[repr(...)]`, and the first word of each of its items (`C`, `packed`).
    Repr { attr: Attribute, hints: Vec<Ident> },
    /// Another `#[driver_table(...)]` (any path ending in `driver_table`).
    DriverTable(Attribute),
    /// Anything else.
    Other(Attribute),
}

/// Why the item is not a struct this attribute can take.
pub enum NotATable {
    /// Another kind of item: the span of its keyword and a description (`an enum`).
    Other(Span, &'static str),
    /// A struct another `#[driver_table]` (under any name) has made a table already.
    Table(Ident),
    /// A struct named as the expansion names what it uses (`sys`, `__cdt`).
    ReservedName(Ident),
}
