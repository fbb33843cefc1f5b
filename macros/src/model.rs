//! The typed model of one use of the attribute: what `parse` reads off the tokens, `check`
//! validates and `expand` emits. Plain data, no logic and no manifest lookups.

use crate::tokens::{Ident, Punct, Spacing, Span, TokenStream, TokenTree};

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
    /// Anything that is not one (`"v3"`, `v3020`, `-1`, `3020u8`, `3020.0`): reported in `check`,
    /// where the function's ABIs are known and can be listed.
    Invalid {
        tokens: TokenStream,
        /// What is wrong with a number of the wrong form (`3020u8` does not fit `u8`).
        problem: Option<String>,
        /// The whole number it spells, if any (`3020` of `3020.0`), for the suggested fix.
        number: Option<u32>,
    },
}

/// `driver = 12000` (or `driver = "12.0"`): the oldest driver the table must work on.
#[derive(Clone, Copy)]
pub struct Driver {
    /// In `cuDriverGetVersion`'s numbering (`12000` is CUDA 12.0).
    pub version: u32,
    /// The value's span, for errors about it.
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum BackendOption {
    Runtime,
    Driver,
}

/// The path generated code names the runtime crate by (`crate = cdt`); `::cuda_driver_table`
/// when the option is not given.
pub struct CratePath {
    pub leading_colons: bool,
    pub segments: Vec<Ident>,
}

impl CratePath {
    pub fn default_path() -> Self {
        Self {
            leading_colons: true,
            segments: vec![Ident::new("cuda_driver_table", Span::call_site())],
        }
    }

    /// The path as tokens, `::` written fresh between the user's identifiers.
    pub fn to_tokens(&self) -> TokenStream {
        let mut out = TokenStream::new();
        let mut colons = self.leading_colons;
        for segment in &self.segments {
            if colons {
                out.push(TokenTree::Punct(Punct::new(':', Spacing::Joint)));
                out.push(TokenTree::Punct(Punct::new(':', Spacing::Alone)));
            }
            colons = true;
            out.push(TokenTree::Ident(segment.clone()));
        }
        out
    }

    /// The path to the runtime's `__private` module, through which generated code names
    /// everything: `::__private` takes the span of the path's last name, so a path that does not
    /// lead to the runtime is reported there (`could not find __private in std`), once.
    pub fn private(&self) -> TokenStream {
        let span = match self.segments.last() {
            Some(last) => last.span(),
            None => Span::call_site(),
        };
        let mut out = self.to_tokens();
        let mut joint = TokenTree::Punct(Punct::new(':', Spacing::Joint));
        joint.set_span(span);
        out.push(joint);
        let mut alone = TokenTree::Punct(Punct::new(':', Spacing::Alone));
        alone.set_span(span);
        out.push(alone);
        out.push(TokenTree::Ident(Ident::new("__private", span)));
        out
    }

    /// The path as rustdoc reads it in a link (`::cdt`), or `None` where rustdoc cannot resolve
    /// it from a doc comment (`$crate`, which only a macro expansion substitutes).
    pub fn doc_path(&self) -> Option<String> {
        let mut path = String::new();
        let mut colons = self.leading_colons;
        for segment in &self.segments {
            if segment.as_str().starts_with('$') {
                return None;
            }
            if colons {
                path.push_str("::");
            }
            colons = true;
            path.push_str(segment.as_str());
        }
        Some(path)
    }
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
    pub backend: Option<BackendOption>,
    /// `driver = 12000`: every plain name takes the newest ABI such a driver has.
    pub driver: Option<Driver>,
    /// `crate = path`: how the user's crate names `cuda-driver-table`.
    pub krate: Option<CratePath>,
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
    /// `pub`, `pub(crate)`, or nothing.
    pub vis: TokenStream,
    pub ident: Ident,
}

/// One outer attribute of the struct (doc comments included).
pub enum Attr {
    /// `#[derive(...)]` (or `#[::core::prelude::v1::derive(...)]`): the `#`, the path to
    /// `derive` as written, and the derived paths (each as written).
    Derive {
        pound: TokenTree,
        path: TokenStream,
        paths: Vec<TokenStream>,
    },
    /// `#[repr(...)]` as written, and the first word of each of its items (`C`, `packed`).
    Repr {
        written: TokenStream,
        hints: Vec<Ident>,
    },
    /// Another `#[driver_table(...)]` (any path ending in `driver_table`), as written.
    DriverTable(TokenStream),
    /// Anything else, as written.
    Other(TokenStream),
}

/// Why the item is not a struct this attribute can take.
pub enum NotATable {
    /// Another kind of item: the span of its keyword and a description (`an enum`).
    Other(Span, &'static str),
    /// A struct another `#[driver_table]` (under any name) has made a table already.
    Table(Ident),
}
