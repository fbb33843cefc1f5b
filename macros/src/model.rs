//! Phase 1: the attribute's arguments parsed into a typed request. No manifest lookups here.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit, Meta, Token};

/// Collects every error instead of stopping at the first.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    /// An error that covers all of `tokens` (from the first token to the last, also on stable).
    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn to_compile_errors(&self) -> TokenStream {
        self.0
            .as_ref()
            .map(syn::Error::to_compile_error)
            .unwrap_or_default()
    }
}

/// One listed function, with its ABI pin if any (`cuCtxCreate = 3020`).
pub struct Entry {
    pub name: Ident,
    pub pin: Option<Pin>,
}

/// What follows `=` after a function's name.
pub enum Pin {
    /// An ABI version (`3020` in `cuCtxCreate = 3020`), with the literal's span.
    Version(u32, Span),
    /// Anything that is not one (`"v3"`, `v3020`, `-1`): reported in `check`, where the
    /// function's ABIs are known and can be listed.
    Invalid(TokenStream),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum BackendOption {
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
    pub backend: Option<BackendOption>,
    /// The whole argument list, for errors about it as a whole.
    pub span: Option<Span>,
}

pub const OPTIONS_HELP: &str = "options are `all`, `per_thread` and `backend = runtime` / `backend = driver`; \
driver functions are named as in C (`cuMemAlloc`), optionally pinned to an ABI (`cuCtxCreate = 3020`)";

fn is_function_name(ident: &Ident) -> bool {
    ident.to_string().starts_with("cu")
}

/// Parses `#[driver_table(...)]`'s arguments.
pub fn parse(args: TokenStream, errors: &mut Errors) -> Request {
    let mut request = Request {
        span: (!args.is_empty()).then(|| args.span()),
        ..Request::default()
    };
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args) {
        Ok(m) => m,
        Err(e) => {
            errors.push(syn::Error::new(
                e.span(),
                format!("{e}: expected a comma-separated list of driver functions, e.g. `#[driver_table(cuInit, cuCtxCreate = 3020)]`"),
            ));
            return request;
        }
    };
    for meta in metas {
        match meta {
            Meta::Path(path) => {
                let Some(ident) = path.get_ident() else {
                    errors.spanned(
                        &path,
                        format!(
                            "expected a driver function or an option, not a path; {OPTIONS_HELP}"
                        ),
                    );
                    continue;
                };
                if is_function_name(ident) {
                    request.entries.push(Entry {
                        name: ident.clone(),
                        pin: None,
                    });
                } else if ident == "all" {
                    set_once(&mut request.all, ident, errors);
                } else if ident == "per_thread" {
                    set_once(&mut request.per_thread, ident, errors);
                } else {
                    unknown_option(ident, errors);
                }
            }
            Meta::NameValue(nv) => {
                let Some(ident) = nv.path.get_ident() else {
                    errors.spanned(
                        &nv.path,
                        format!("expected a driver function or an option; {OPTIONS_HELP}"),
                    );
                    continue;
                };
                if is_function_name(ident) {
                    let pin = match &nv.value {
                        Expr::Lit(ExprLit {
                            lit: Lit::Int(int), ..
                        }) => match int.base10_parse::<u32>() {
                            Ok(v) => Pin::Version(v, int.span()),
                            Err(_) => Pin::Invalid(nv.value.to_token_stream()),
                        },
                        other => Pin::Invalid(other.to_token_stream()),
                    };
                    request.entries.push(Entry {
                        name: ident.clone(),
                        pin: Some(pin),
                    });
                } else if ident == "backend" {
                    let value = match &nv.value {
                        Expr::Path(p) => p.path.get_ident().map(Ident::to_string),
                        Expr::Lit(ExprLit {
                            lit: Lit::Str(s), ..
                        }) => Some(s.value()),
                        _ => None,
                    };
                    let backend = match value.as_deref() {
                        Some("runtime") => Some(BackendOption::Runtime),
                        Some("driver") => Some(BackendOption::Driver),
                        _ => None,
                    };
                    match backend {
                        Some(b) if request.backend.is_none() => request.backend = Some(b),
                        Some(_) => errors.at(ident.span(), "`backend` is given twice"),
                        None => errors.spanned(
                            &nv.value,
                            format!(
                                "unknown backend `{}`: write `backend = runtime` (libcudart, the default) or `backend = driver` (libcuda.so.1)",
                                nv.value.to_token_stream()
                            ),
                        ),
                    }
                } else {
                    unknown_option(ident, errors);
                }
            }
            Meta::List(list) => {
                errors.spanned(&list, format!("unexpected parentheses; {OPTIONS_HELP}"));
            }
        }
    }
    request
}

fn set_once(slot: &mut Option<Span>, ident: &Ident, errors: &mut Errors) {
    if slot.is_some() {
        errors.at(ident.span(), format!("`{ident}` is given twice"));
    } else {
        *slot = Some(ident.span());
    }
}

fn unknown_option(ident: &Ident, errors: &mut Errors) {
    let name = ident.to_string();
    let near = ["all", "per_thread", "backend"]
        .iter()
        .filter(|o| strsim::levenshtein(o, &name) <= 3)
        .map(|o| format!("`{o}`"))
        .collect::<Vec<_>>();
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!("did you mean {}? ", near.join(" or "))
    };
    errors.at(
        ident.span(),
        format!("unknown option `{name}`: {hint}{OPTIONS_HELP}"),
    );
}
