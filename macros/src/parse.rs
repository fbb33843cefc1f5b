//! Reading: the attribute's arguments parsed into a typed [`Request`], and the item it is on into
//! an [`Item`]. No manifest lookups here; what cannot be read is reported at its tokens and the
//! rest is still read.
//!
//! The grammar is small (`name`, `name = value`, separated by commas; a struct with attributes),
//! so it is read straight off the token stream: the macro needs no full Rust parser, which keeps
//! its users' builds short.

use crate::diagnostics::{did_you_mean, span_range, Diagnostics};
use crate::model::{Attr, BackendOption, CratePath, Entry, Item, NotATable, Pin, Request};
use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};

pub const OPTIONS_HELP: &str = "options are `all`, `per_thread`, `backend = runtime` / `backend = driver` and `crate = path`; \
driver functions are named as in C (`cuMemAlloc`), optionally pinned to an ABI (`cuCtxCreate = 3020`)";

const OPTIONS: [&str; 4] = ["all", "per_thread", "backend", "crate"];

const BACKEND_HELP: &str =
    "write `backend = runtime` (libcudart, the default) or `backend = driver` (libcuda.so.1)";

const CRATE_HELP: &str = "write the path this crate names cuda-driver-table by: `crate = cdt` for a dependency renamed to `cdt`, \
or a re-export such as `crate = ::my_wrapper::cdt` (a string works too: `crate = \"cdt\"`)";

/// Whether `t` is the punctuation `c`.
pub fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

fn is_function_name(ident: &Ident) -> bool {
    ident.to_string().starts_with("cu")
}

/// One comma-separated part of a list and the comma that ends it (none for the last part).
struct Part {
    tokens: Vec<TokenTree>,
    comma: Option<Span>,
}

/// The comma-separated parts of a list; a trailing comma ends the list.
fn split_commas(args: TokenStream) -> Vec<Part> {
    let mut parts = vec![Part {
        tokens: Vec::new(),
        comma: None,
    }];
    for t in args {
        let Some(last) = parts.last_mut() else { break };
        if is_punct(&t, ',') {
            last.comma = Some(t.span());
            parts.push(Part {
                tokens: Vec::new(),
                comma: None,
            });
        } else {
            last.tokens.push(t);
        }
    }
    if parts.last().is_some_and(|p| p.tokens.is_empty()) {
        parts.pop();
    }
    parts
}

/// Parses `#[driver_table(...)]`'s arguments.
pub fn parse_args(args: TokenStream, diag: &mut Diagnostics) -> Request {
    let mut request = Request {
        span: args.clone().into_iter().next().map(|t| t.span()),
        ..Request::default()
    };
    for part in split_commas(args) {
        let whole: TokenStream = part.tokens.iter().cloned().collect();
        match part.tokens.as_slice() {
            [] => {
                request.malformed = true;
                diag.at(
                    part.comma.unwrap_or_else(Span::call_site),
                    "nothing before this comma: remove it, or write a driver function or an option before it",
                );
            }
            [TokenTree::Ident(ident)] => flag(ident, &mut request, diag),
            [TokenTree::Ident(ident), eq, value @ ..] if is_punct(eq, '=') => {
                let value: TokenStream = value.iter().cloned().collect();
                if value.is_empty() {
                    request.malformed = true;
                    let what = if is_function_name(ident) {
                        format!("an ABI version after `=`, e.g. `{ident} = 3020`")
                    } else if ident == "backend" {
                        format!("a value: {BACKEND_HELP}")
                    } else if ident == "crate" {
                        format!("a path: {CRATE_HELP}")
                    } else {
                        format!("a value after `=`; {OPTIONS_HELP}")
                    };
                    diag.spanned(&whole, format!("`{ident} =` needs {what}"));
                } else {
                    valued(ident, value, &mut request, diag);
                }
            }
            [TokenTree::Ident(_), TokenTree::Group(g)]
                if g.delimiter() == Delimiter::Parenthesis =>
            {
                request.malformed = true;
                diag.spanned(&whole, format!("unexpected parentheses; {OPTIONS_HELP}"));
            }
            [TokenTree::Ident(_), colon, ..] if is_punct(colon, ':') => {
                request.malformed = true;
                diag.spanned(
                    &whole,
                    format!("expected a driver function or an option, not a path; {OPTIONS_HELP}"),
                );
            }
            _ => {
                request.malformed = true;
                diag.spanned(
                    &whole,
                    format!(
                        "expected a driver function (`cuInit`), a pin (`cuCtxCreate = 3020`) or an option; {OPTIONS_HELP}"
                    ),
                );
            }
        }
    }
    request
}

/// A part that is one word: a function or an option without a value.
fn flag(ident: &Ident, request: &mut Request, diag: &mut Diagnostics) {
    if is_function_name(ident) {
        request.entries.push(Entry {
            name: ident.clone(),
            pin: None,
        });
    } else if ident == "all" {
        set_once(&mut request.all, ident, diag);
    } else if ident == "per_thread" {
        set_once(&mut request.per_thread, ident, diag);
    } else if ident == "backend" {
        diag.at(
            ident.span(),
            format!("the `backend` option needs a value: {BACKEND_HELP}"),
        );
    } else if ident == "crate" {
        diag.at(
            ident.span(),
            format!("the `crate` option needs a path: {CRATE_HELP}"),
        );
    } else {
        request.malformed = true;
        unknown_option(ident, diag);
    }
}

/// A part `name = value` (a value present).
fn valued(ident: &Ident, value: TokenStream, request: &mut Request, diag: &mut Diagnostics) {
    if is_function_name(ident) {
        request.entries.push(Entry {
            name: ident.clone(),
            pin: Some(pin_of(value)),
        });
    } else if ident == "backend" {
        backend_option(ident, &value, request, diag);
    } else if ident == "crate" {
        match crate_path(&value) {
            Some(_) if request.krate.is_some() => {
                diag.at(ident.span(), "`crate` is given twice; give it once");
            }
            Some(path) => request.krate = Some(path),
            None if value.to_string().contains('-') => diag.spanned(
                &value,
                format!(
                    "`{value}` is a package name, not a path: paths spell crate names with `_` (`crate = cuda_driver_table`, or the name the dependency is renamed to); {CRATE_HELP}"
                ),
            ),
            None => diag.spanned(
                &value,
                format!("`{value}` is not a path to cuda-driver-table; {CRATE_HELP}"),
            ),
        }
    } else if ident == "all" || ident == "per_thread" {
        diag.spanned(
            &value,
            format!("`{ident}` takes no value: write `{ident}` alone"),
        );
    } else {
        request.malformed = true;
        unknown_option(ident, diag);
    }
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

/// The text of a string literal without escapes (`"cdt"`, `r"cdt"`, `r#"cdt"#`), or `None`.
fn plain_string(text: &str) -> Option<&str> {
    if let Some(raw) = text.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let fence = &raw[..hashes];
        return raw[hashes..]
            .strip_prefix('"')?
            .strip_suffix(fence)?
            .strip_suffix('"');
    }
    let body = text.strip_prefix('"')?.strip_suffix('"')?;
    (!body.contains('\\')).then_some(body)
}

/// `cdt`, `::cdt`, `crate::cdt`, `::my_wrapper::cdt` (as tokens, or as the text of a string
/// literal, whose span the identifiers then take), or `None` for anything else.
fn crate_path(value: &TokenStream) -> Option<CratePath> {
    let tokens: Vec<TokenTree> = value.clone().into_iter().collect();
    if let [TokenTree::Literal(lit)] = tokens.as_slice() {
        let text = lit.to_string();
        let inner = plain_string(&text)?.trim();
        let (leading_colons, rest) = match inner.strip_prefix("::") {
            Some(rest) => (true, rest),
            None => (false, inner),
        };
        let mut segments = Vec::new();
        for name in rest.split("::") {
            let name = name.trim();
            let mut chars = name.chars();
            let valid = chars
                .next()
                .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
                && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
                && name != "_";
            if !valid {
                return None;
            }
            segments.push(Ident::new(name, lit.span()));
        }
        return valid_path(CratePath {
            leading_colons,
            segments,
        });
    }
    let mut i = 0;
    let leading_colons = colons_at(&tokens, 0);
    if leading_colons {
        i = 2;
    }
    let mut segments = Vec::new();
    loop {
        let Some(TokenTree::Ident(ident)) = tokens.get(i) else {
            return None;
        };
        segments.push(ident.clone());
        i += 1;
        if i == tokens.len() {
            break;
        }
        if !colons_at(&tokens, i) {
            return None;
        }
        i += 2;
    }
    valid_path(CratePath {
        leading_colons,
        segments,
    })
}

/// `::` at `tokens[i..]`.
fn colons_at(tokens: &[TokenTree], i: usize) -> bool {
    matches!(
        (tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == proc_macro2::Spacing::Joint && b.as_char() == ':'
    )
}

/// Rejects keywords as names and `crate`/`self`/`super` anywhere a path cannot have them.
fn valid_path(path: CratePath) -> Option<CratePath> {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern",
        "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
        "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use",
        "where", "while", "Self", "abstract", "become", "box", "do", "final", "gen", "macro",
        "override", "priv", "try", "typeof", "unsized", "virtual", "yield", "_",
    ];
    let mut only_super_so_far = true;
    for (i, segment) in path.segments.iter().enumerate() {
        let name = segment.to_string();
        if name.starts_with("r#") {
            only_super_so_far = false;
            continue;
        }
        let first = i == 0 && !path.leading_colons;
        let ok = match name.as_str() {
            "crate" | "$crate" | "self" => first,
            "super" => only_super_so_far && !path.leading_colons,
            n => !KEYWORDS.contains(&n),
        };
        if !ok {
            return None;
        }
        only_super_so_far &= name == "super" || (first && name == "self");
    }
    Some(path)
}

fn backend_option(
    ident: &Ident,
    value: &TokenStream,
    request: &mut Request,
    diag: &mut Diagnostics,
) {
    let mut iter = value.clone().into_iter();
    let word = match (iter.next(), iter.next()) {
        (Some(TokenTree::Ident(i)), None) => Some(i.to_string()),
        (Some(TokenTree::Literal(l)), None) => plain_string(&l.to_string()).map(str::to_string),
        _ => None,
    };
    let backend = match word.as_deref() {
        Some("runtime") => Some(BackendOption::Runtime),
        Some("driver") => Some(BackendOption::Driver),
        _ => None,
    };
    match backend {
        Some(b) if request.backend.is_none() => request.backend = Some(b),
        Some(_) => diag.at(ident.span(), "`backend` is given twice; give it once"),
        None => diag.spanned(value, format!("unknown backend `{value}`: {BACKEND_HELP}")),
    }
}

fn set_once(slot: &mut Option<Span>, ident: &Ident, diag: &mut Diagnostics) {
    if slot.is_some() {
        diag.at(
            ident.span(),
            format!("`{ident}` is given twice; give it once"),
        );
    } else {
        *slot = Some(ident.span());
    }
}

fn unknown_option(ident: &Ident, diag: &mut Diagnostics) {
    let name = ident.to_string();
    let hint = did_you_mean(&name, OPTIONS);
    let hint = if hint.is_empty() { hint } else { hint + " " };
    diag.at(
        ident.span(),
        format!("unknown option `{name}`: {hint}{OPTIONS_HELP}"),
    );
}

/// Reads `attrs vis struct Name generics? (; | {} | (...);)` off the item's tokens. Problems with
/// the generics or fields are reported and the table is still expanded, so the rest of the user's
/// code type-checks; an item that is not a struct is returned as `Err` and re-emitted unchanged.
pub fn parse_item(item: &TokenStream, diag: &mut Diagnostics) -> Result<Item, NotATable> {
    let tokens: Vec<TokenTree> = item.clone().into_iter().collect();
    let mut i = 0;
    let mut attrs = Vec::new();
    while let (Some(pound), Some(TokenTree::Group(body))) = (tokens.get(i), tokens.get(i + 1)) {
        if !is_punct(pound, '#') || body.delimiter() != Delimiter::Bracket {
            break;
        }
        attrs.push(attr(pound, body));
        i += 2;
    }
    let mut vis = TokenStream::new();
    if matches!(&tokens.get(i), Some(TokenTree::Ident(id)) if id == "pub") {
        vis.extend([tokens[i].clone()]);
        i += 1;
        if let Some(TokenTree::Group(g)) = tokens.get(i) {
            if g.delimiter() == Delimiter::Parenthesis {
                vis.extend([tokens[i].clone()]);
                i += 1;
            }
        }
    }
    match tokens.get(i) {
        Some(TokenTree::Ident(kw)) if kw == "struct" => {}
        Some(TokenTree::Ident(kw)) if kw == "enum" => return Err(NotATable(kw.span(), "an enum")),
        Some(TokenTree::Ident(kw)) if kw == "union" => return Err(NotATable(kw.span(), "a union")),
        _ => return Err(not_a_struct(item)),
    }
    let Some(TokenTree::Ident(ident)) = tokens.get(i + 1) else {
        return Err(not_a_struct(item));
    };
    i += 2;
    // Generics: `<` ... the matching `>` (a `>` of `->` does not close).
    if tokens.get(i).is_some_and(|t| is_punct(t, '<')) {
        let start = i;
        let mut depth = 0usize;
        while let Some(t) = tokens.get(i) {
            if let TokenTree::Punct(p) = t {
                let arrow = p.as_char() == '>' && i > 0 && is_punct(&tokens[i - 1], '-');
                match p.as_char() {
                    '<' => depth += 1,
                    '>' if !arrow => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            i += 1;
            if depth == 0 {
                break;
            }
        }
        let generics: TokenStream = tokens[start..i].iter().cloned().collect();
        diag.spanned(
            &generics,
            "#[driver_table] tables take no generic parameters: remove them",
        );
    }
    match tokens.get(i) {
        Some(t) if is_punct(t, ';') => {}
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace && g.stream().is_empty() => {}
        Some(TokenTree::Group(g)) => diag.spanned(
            &TokenTree::Group(g.clone()).into(),
            "#[driver_table] needs a struct without fields (`pub struct Cuda;`): the attribute adds one private field per function",
        ),
        _ => diag.at(
            ident.span(),
            "#[driver_table] needs a unit struct such as `pub struct Cuda;`",
        ),
    }
    Ok(Item {
        attrs,
        vis,
        ident: ident.clone(),
    })
}

/// One `#[...]`, classified.
fn attr(pound: &TokenTree, body: &proc_macro2::Group) -> Attr {
    let inner: Vec<TokenTree> = body.stream().into_iter().collect();
    let written: TokenStream = [pound.clone(), TokenTree::Group(body.clone())]
        .into_iter()
        .collect();
    match inner.as_slice() {
        [TokenTree::Ident(derive), TokenTree::Group(list)]
            if derive == "derive" && list.delimiter() == Delimiter::Parenthesis =>
        {
            Attr::Derive {
                pound: pound.clone(),
                derive: derive.clone(),
                paths: split_commas(list.stream())
                    .into_iter()
                    .map(|p| p.tokens.into_iter().collect())
                    .collect(),
            }
        }
        _ => {
            // The path's last name: `driver_table`, `cdt::driver_table`, ... (arguments aside).
            let last = inner
                .iter()
                .take_while(|t| !matches!(t, TokenTree::Group(_)))
                .filter_map(|t| match t {
                    TokenTree::Ident(i) => Some(i.to_string()),
                    _ => None,
                })
                .last();
            if last.as_deref() == Some("driver_table") {
                Attr::DriverTable(written)
            } else {
                Attr::Other(written)
            }
        }
    }
}

/// For an item that is not a struct, enum or union: the span of its keyword and what it is.
/// A token scan (attributes, visibility and qualifiers skipped).
fn not_a_struct(item: &TokenStream) -> NotATable {
    let mut tokens = item.clone().into_iter().peekable();
    while let Some(token) = tokens.next() {
        match &token {
            // `#[...]`, `pub(crate)`, `extern "C"`: skip the group or literal that follows.
            TokenTree::Punct(p) if p.as_char() == '#' => {
                tokens.next();
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {}
            TokenTree::Literal(_) => {}
            TokenTree::Ident(ident) => {
                let what = match ident.to_string().as_str() {
                    // `const X: u32 = 1;` is a constant; `const fn`, `const unsafe fn` are not.
                    "const"
                        if !matches!(tokens.peek(), Some(TokenTree::Ident(next))
                            if ["fn", "unsafe", "async", "extern"].iter().any(|k| next == k)) =>
                    {
                        "a constant"
                    }
                    "pub" | "const" | "async" | "unsafe" | "extern" | "default" | "safe" => {
                        continue
                    }
                    "fn" => "a function",
                    "impl" => "an impl block",
                    "trait" => "a trait",
                    "mod" => "a module",
                    "type" => "a type alias",
                    "static" => "a static",
                    "use" => "a `use` declaration",
                    "crate" => "an `extern crate`",
                    "macro_rules" => "a macro",
                    _ => break,
                };
                return NotATable(ident.span(), what);
            }
            _ => break,
        }
    }
    NotATable(span_range(item).0, "this item")
}
