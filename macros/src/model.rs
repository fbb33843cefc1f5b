//! Phase 1: the attribute's arguments parsed into a typed request. No manifest lookups here.
//!
//! The grammar is small (`name`, `name = value`, separated by commas), so it is read straight off
//! the token stream: the macro needs no full Rust parser, which keeps its users' builds short.

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// Collects every error instead of stopping at the first; each covers a range of the user's
/// tokens (first and last span), like `syn::Error::new_spanned`.
#[derive(Default)]
pub struct Errors(Vec<(Span, Span, String)>);

impl Errors {
    pub fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.0.push((span, span, message.to_string()));
    }

    /// An error that covers all of `tokens` (from the first token to the last).
    pub fn spanned(&mut self, tokens: &TokenStream, message: impl std::fmt::Display) {
        let (first, last) = span_range(tokens);
        self.0.push((first, last, message.to_string()));
    }

    /// One `compile_error!` per error, spanning its range.
    pub fn to_compile_errors(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (first, last, message) in &self.0 {
            let at_first = |mut t: TokenTree| {
                t.set_span(*first);
                t
            };
            let mut body = Group::new(
                Delimiter::Brace,
                TokenTree::Literal(Literal::string(message)).into(),
            );
            body.set_span(*last);
            out.extend([
                at_first(Punct::new(':', Spacing::Joint).into()),
                at_first(Punct::new(':', Spacing::Alone).into()),
                TokenTree::Ident(Ident::new("core", *first)),
                at_first(Punct::new(':', Spacing::Joint).into()),
                at_first(Punct::new(':', Spacing::Alone).into()),
                TokenTree::Ident(Ident::new("compile_error", *first)),
                at_first(Punct::new('!', Spacing::Alone).into()),
                TokenTree::Group(body),
            ]);
        }
        out
    }
}

/// The spans of the first and the last token (the call site for no tokens).
pub fn span_range(tokens: &TokenStream) -> (Span, Span) {
    let mut iter = tokens.clone().into_iter();
    let first = iter.next().map_or_else(Span::call_site, |t| t.span());
    let last = iter.last().map_or(first, |t| t.span());
    (first, last)
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

fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

/// The comma-separated parts of a list (a trailing comma allowed).
fn split_commas(args: TokenStream) -> Vec<TokenStream> {
    let mut parts = vec![TokenStream::new()];
    for t in args {
        if is_punct(&t, ',') {
            parts.push(TokenStream::new());
        } else if let Some(last) = parts.last_mut() {
            last.extend([t]);
        }
    }
    if parts.last().is_some_and(TokenStream::is_empty) {
        parts.pop();
    }
    parts
}

/// Parses `#[driver_table(...)]`'s arguments.
pub fn parse(args: TokenStream, errors: &mut Errors) -> Request {
    let mut request = Request {
        span: args.clone().into_iter().next().map(|t| t.span()),
        ..Request::default()
    };
    for part in split_commas(args) {
        let tokens: Vec<TokenTree> = part.clone().into_iter().collect();
        match tokens.as_slice() {
            [] => errors.at(
                request.span.unwrap_or_else(Span::call_site),
                format!("expected a driver function or an option between the commas; {OPTIONS_HELP}"),
            ),
            [TokenTree::Ident(ident)] => {
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
            [TokenTree::Ident(ident), eq, value @ ..] if is_punct(eq, '=') && !value.is_empty() => {
                let value: TokenStream = value.iter().cloned().collect();
                if is_function_name(ident) {
                    request.entries.push(Entry {
                        name: ident.clone(),
                        pin: Some(pin_of(value)),
                    });
                } else if ident == "backend" {
                    backend_option(ident, &value, &mut request, errors);
                } else {
                    unknown_option(ident, errors);
                }
            }
            [TokenTree::Ident(_), TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => {
                errors.spanned(&part, format!("unexpected parentheses; {OPTIONS_HELP}"));
            }
            [TokenTree::Ident(_), colon, ..] if is_punct(colon, ':') => errors.spanned(
                &part,
                format!("expected a driver function or an option, not a path; {OPTIONS_HELP}"),
            ),
            _ => errors.spanned(
                &part,
                format!(
                    "expected a driver function (`cuInit`), a pin (`cuCtxCreate = 3020`) or an option; {OPTIONS_HELP}"
                ),
            ),
        }
    }
    request
}

/// `3020` (an integer literal, `_` separators allowed) or anything else, kept for the error.
fn pin_of(value: TokenStream) -> Pin {
    let mut iter = value.clone().into_iter();
    if let (Some(TokenTree::Literal(lit)), None) = (iter.next(), iter.next()) {
        let text = lit.to_string().replace('_', "");
        let digits = text
            .strip_suffix("u32")
            .or_else(|| text.strip_suffix("u64"))
            .unwrap_or(&text);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(v) = digits.parse() {
                return Pin::Version(v, lit.span());
            }
        }
    }
    Pin::Invalid(value)
}

fn backend_option(ident: &Ident, value: &TokenStream, request: &mut Request, errors: &mut Errors) {
    let mut iter = value.clone().into_iter();
    let word = match (iter.next(), iter.next()) {
        (Some(TokenTree::Ident(i)), None) => Some(i.to_string()),
        (Some(TokenTree::Literal(l)), None) => {
            let text = l.to_string();
            text.strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .map(str::to_string)
        }
        _ => None,
    };
    let backend = match word.as_deref() {
        Some("runtime") => Some(BackendOption::Runtime),
        Some("driver") => Some(BackendOption::Driver),
        _ => None,
    };
    match backend {
        Some(b) if request.backend.is_none() => request.backend = Some(b),
        Some(_) => errors.at(ident.span(), "`backend` is given twice"),
        None => errors.spanned(
            value,
            format!(
                "unknown backend `{value}`: write `backend = runtime` (libcudart, the default) or `backend = driver` (libcuda.so.1)"
            ),
        ),
    }
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
