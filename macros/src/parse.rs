//! Reading: the attribute's arguments parsed into a typed [`Request`], and the item it is on into
//! an [`Item`]. No manifest lookups here; what cannot be read is reported at its tokens and the
//! rest is still read.

use crate::diagnostics::{did_you_mean, Errors};
use crate::model::{Attr, Backend, Driver, Entry, Item, NotATable, Pin, Request, FIELD};
use crate::options::{
    option_names, options_help, value_help, Opt, OptionSpec, BACKEND_HELP, CRATE_HELP, DRIVER_HELP,
    OPTIONS,
};
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Generics, Ident, Lit, LitFloat, LitInt, Meta, Path, Token, Visibility};

mod kw {
    syn::custom_keyword!(newest);
}

/// What the first word of a part of the list names.
enum Word {
    /// A driver function (`cuInit`, also written `r#cuInit`), as an identifier without `r#`.
    Function(Ident),
    Option(&'static OptionSpec),
    Unknown,
}

fn word(ident: &Ident) -> Word {
    let name = ident.unraw();
    if name.to_string().starts_with("cu") {
        return Word::Function(name);
    }
    match OPTIONS.iter().find(|o| name == o.name) {
        Some(spec) => Word::Option(spec),
        None => Word::Unknown,
    }
}

/// The tokens with every invisible group (`Delimiter::None`, what a `macro_rules!` fragment
/// such as `$vis:vis`, `$v:literal` or `$p:path` arrives as) replaced by its contents, in every
/// group: such groups are transparent to this grammar.
fn flatten(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|tree| match tree {
            TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
                flatten(g.stream()).into_iter().collect::<Vec<_>>()
            }
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), flatten(g.stream()));
                group.set_span(g.span());
                vec![TokenTree::Group(group)]
            }
            tree => vec![tree],
        })
        .collect()
}

fn is_punct(tree: &TokenTree, c: char) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == c)
}

/// Parses `#[driver_table(...)]`'s arguments: parts separated by commas, each read on its own.
pub fn args(args: TokenStream, errors: &mut Errors) -> Request {
    let args: Vec<TokenTree> = flatten(args).into_iter().collect();
    let mut request = Request {
        span: args.first().map(TokenTree::span),
        ..Request::default()
    };
    // The commas with nothing before them since the last part.
    let mut stray: Vec<&TokenTree> = Vec::new();
    let mut parts = args.split(|t| is_punct(t, ',')).peekable();
    let mut commas = args.iter().filter(|t| is_punct(t, ','));
    while let Some(part) = parts.next() {
        let comma = commas.next();
        let last = parts.peek().is_none();
        if part.is_empty() {
            // The piece after a trailing comma is no slot.
            if let (false, Some(comma)) = (last, comma) {
                stray.push(comma);
            }
            continue;
        }
        report_stray(&mut stray, &mut request, errors);
        let tokens: TokenStream = part.iter().cloned().collect();
        let parsed = (|input: ParseStream| self::part(input, &tokens, &mut request, errors))
            .parse2(tokens.clone());
        if let Err(e) = parsed {
            request.malformed = true;
            errors.push(e);
        }
    }
    report_stray(&mut stray, &mut request, errors);
    request
}

/// One error for a run of commas with nothing before them.
fn report_stray(stray: &mut Vec<&TokenTree>, request: &mut Request, errors: &mut Errors) {
    let commas: TokenStream = stray.drain(..).cloned().collect();
    let message = match commas.clone().into_iter().count() {
        0 => return,
        1 => "nothing before this comma: remove it, or write a driver function or an option before it".to_string(),
        n => format!("{n} commas with nothing between them: remove all but one, or write a driver function or an option between them"),
    };
    request.malformed = true;
    errors.spanned(commas, message);
}

/// One part: `name`, or `name = value`. What no part can be is the `Err`, over the whole part.
fn part(
    input: ParseStream,
    tokens: &TokenStream,
    request: &mut Request,
    errors: &mut Errors,
) -> syn::Result<()> {
    let expected = || {
        syn::Error::new_spanned(
            tokens,
            format!(
                "expected a driver function (`cuInit`), a pin (`cuCtxCreate = 3020`) or an option; {}",
                options_help()
            ),
        )
    };
    // `crate` is a keyword, and an option's name.
    let Ok(ident) = input.call(Ident::parse_any) else {
        return Err(expected());
    };
    // A `driver` written wrong is reported as itself, not also as missing.
    request.driver_written |=
        matches!(word(&ident), Word::Option(spec) if spec.option == Opt::Driver);
    if input.is_empty() {
        flag(&ident, request, errors);
        return Ok(());
    }
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        let value: TokenStream = input.parse()?;
        if value.is_empty() {
            let what = match word(&ident) {
                Word::Function(name) => format!("an ABI version after `=`, e.g. `{name} = 3020`"),
                Word::Option(spec) => value_help(spec).unwrap_or_else(|| {
                    format!("nothing: `{}` takes no value, write it alone", spec.name)
                }),
                Word::Unknown => format!("a value after `=`; {}", options_help()),
            };
            return Err(syn::Error::new_spanned(
                tokens,
                format!("`{ident} =` needs {what}"),
            ));
        }
        valued(&ident, value, request, errors);
        return Ok(());
    }
    if input.peek(syn::token::Paren) {
        return Err(syn::Error::new_spanned(
            tokens,
            format!("unexpected parentheses; {}", options_help()),
        ));
    }
    if input.peek(Token![::]) {
        return Err(syn::Error::new_spanned(
            tokens,
            format!(
                "expected a driver function or an option, not a path; {}",
                options_help()
            ),
        ));
    }
    if input.peek(Token![:]) {
        let colon: Token![:] = input.parse()?;
        let value: TokenStream = input.parse()?;
        let name = ident.unraw();
        return Err(syn::Error::new(
            colon.span,
            format!("`{name}` takes its value after `=`, not `:`: write `{name} = {value}`"),
        ));
    }
    Err(expected())
}

/// A part that is one word: a function or an option without a value.
fn flag(ident: &Ident, request: &mut Request, errors: &mut Errors) {
    match word(ident) {
        Word::Function(name) => request.entries.push(Entry { name, pin: None }),
        Word::Option(spec) => match (spec.option, value_help(spec)) {
            (Opt::All, _) => set_once(&mut request.all, ident, errors),
            (Opt::PerThread, _) => set_once(&mut request.per_thread, ident, errors),
            (_, help) => errors.at(
                ident.span(),
                format!(
                    "the `{}` option needs {}",
                    spec.name,
                    help.unwrap_or_default()
                ),
            ),
        },
        Word::Unknown => {
            request.malformed = true;
            request.unknown.push(ident.unraw());
        }
    }
}

/// A part `name = value` (a value present).
fn valued(ident: &Ident, value: TokenStream, request: &mut Request, errors: &mut Errors) {
    let spec = match word(ident) {
        Word::Function(name) => {
            request.entries.push(Entry {
                name,
                pin: Some(pin(value)),
            });
            return;
        }
        Word::Option(spec) => spec,
        Word::Unknown => {
            request.malformed = true;
            request.unknown.push(ident.unraw());
            return;
        }
    };
    let twice = || format!("`{}` is given twice; give it once", spec.name);
    match spec.option {
        Opt::Backend => match backend(&value) {
            Ok(_) if request.backend.is_some() => errors.at(ident.span(), twice()),
            Ok(backend) => request.backend = Some(backend),
            Err(message) => errors.spanned(&value, message),
        },
        Opt::Driver => match driver(&value) {
            Ok(_) if request.driver.is_some() => errors.at(ident.span(), twice()),
            Ok(driver) => request.driver = Some(driver),
            Err(message) => errors.spanned(&value, message),
        },
        Opt::Crate => match crate_path(&value) {
            Some(_) if request.krate.is_some() => errors.at(ident.span(), twice()),
            Some(path) => request.krate = Some(path),
            None if value.to_string().contains('-') => errors.spanned(
                &value,
                format!(
                    "`{value}` is a package name, not a path: paths spell crate names with `_` (`crate = cuda_driver_table`, or the name the dependency is renamed to); {CRATE_HELP}"
                ),
            ),
            None => errors.spanned(
                &value,
                format!("`{value}` is not a path to cuda-driver-table; {CRATE_HELP}"),
            ),
        },
        Opt::All | Opt::PerThread => errors.spanned(
            &value,
            format!("`{0}` takes no value: write `{0}` alone", spec.name),
        ),
    }
}

/// The integer types a literal may name as its suffix, with their largest value.
const INTEGER_SUFFIXES: [(&str, u128); 12] = [
    ("u8", u8::MAX as u128),
    ("u16", u16::MAX as u128),
    ("u32", u32::MAX as u128),
    ("u64", u64::MAX as u128),
    ("u128", u128::MAX),
    ("usize", u64::MAX as u128),
    ("i8", i8::MAX as u128),
    ("i16", i16::MAX as u128),
    ("i32", i32::MAX as u128),
    ("i64", i64::MAX as u128),
    ("i128", i128::MAX as u128),
    ("isize", i64::MAX as u128),
];

/// Why a literal is not the number wanted, and the whole number it spells, if any.
type Wrong = (Option<String>, Option<u32>);

/// An integer literal (`3020`, `3_020`, `3020u32`, `0xBCC`, `0b1011_1100_1100`) that fits its
/// suffix's type and a `u32`, or what is wrong with it (`what` it is, in words: `an ABI version`).
fn integer(lit: &LitInt, what: &str) -> Result<u32, Wrong> {
    // `-3020`, one token where it comes through a `macro_rules!` fragment (`$v:literal`).
    if let Some(digits) = lit.base10_digits().strip_prefix('-') {
        return Err((
            Some(format!("`{lit}` is negative, and {what} is not")),
            digits.parse().ok(),
        ));
    }
    // `3020f32` is a float.
    if ["f32", "f64"].contains(&lit.suffix()) {
        let number = lit.base10_parse().ok();
        return Err((Some(format!("`{lit}` is not a whole number")), number));
    }
    let too_large = || (Some(format!("`{lit}` is too large for {what}")), None);
    let value: u128 = lit.base10_parse().map_err(|_| too_large())?;
    let number = u32::try_from(value).ok();
    let suffix = lit.suffix();
    if !suffix.is_empty() {
        match INTEGER_SUFFIXES.iter().find(|(name, _)| *name == suffix) {
            Some(&(_, max)) if value <= max => {}
            Some(_) => return Err((Some(format!("`{lit}` does not fit in `{suffix}`")), number)),
            None => return Err((Some(format!("`{suffix}` is not an integer type")), number)),
        }
    }
    number.ok_or_else(too_large)
}

/// A float literal's complaint, and the whole number it spells (`3020` of `3020.0`), if any.
fn float(lit: &LitFloat) -> Wrong {
    let number = lit
        .base10_parse::<f64>()
        .ok()
        .filter(|v| v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(v))
        .and_then(|v| format!("{v}").parse().ok());
    (Some(format!("`{lit}` is not a whole number")), number)
}

/// A pin: an integer literal (see [`integer`]), or anything else, kept for the error with what is
/// wrong when that is more than "not a number".
fn pin(value: TokenStream) -> Pin {
    let (problem, number) = match syn::parse2::<Lit>(value.clone()) {
        Ok(Lit::Int(lit)) => match integer(&lit, "an ABI version") {
            Ok(version) => return Pin::Version(version, lit.span()),
            Err(wrong) => wrong,
        },
        Ok(Lit::Float(lit)) => float(&lit),
        Ok(_) => (None, None),
        // `-3020`, written as two tokens.
        Err(_) if negative(&value).is_some() => negative(&value).map_or((None, None), |lit| {
            let number = lit.base10_parse().ok();
            (
                Some(format!("`{value}` is negative, and an ABI version is not")),
                number,
            )
        }),
        // A name (`MY_ABI`, `abi::V`) is read before constants have values.
        Err(_) if syn::parse2::<Path>(value.clone()).is_ok() => (
            Some(format!(
                "`{value}` is a name, and the attribute reads its arguments before any constant has a value: \
                 a pin is a number literal (from a `macro_rules!`, forward it as `$v:literal`)"
            )),
            None,
        ),
        Err(_) => (None, None),
    };
    Pin::Invalid {
        tokens: value,
        problem,
        number,
    }
}

/// The integer literal of `-<literal>` (`-3020` written as two tokens), or `None`.
fn negative(value: &TokenStream) -> Option<LitInt> {
    let mut tokens = value.clone().into_iter();
    match (tokens.next(), tokens.next(), tokens.next()) {
        (Some(minus), Some(TokenTree::Literal(lit)), None) if is_punct(&minus, '-') => {
            syn::parse2::<LitInt>(TokenTree::Literal(lit).into()).ok()
        }
        _ => None,
    }
}

/// `MAJOR.MINOR` (`12.4`) in `cuDriverGetVersion`'s numbering (`12040`), or `None`.
fn major_minor(text: &str) -> Option<u32> {
    let (major, minor) = text.split_once('.')?;
    let digits = |s: &str, max: usize| {
        (!s.is_empty() && s.len() <= max && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    let (major, minor) = (digits(major, 3)?, digits(minor, 2)?);
    (major != 0).then_some(major * 1000 + minor * 10)
}

/// The value of `driver = ...`: a whole number as `cuDriverGetVersion` writes it (`12000`,
/// `12_000`, `12000u32`), or a string `"12.0"`; anything else is the message for the user.
/// Whether the version is one a table can target is for `check`.
fn driver(value: &TokenStream) -> Result<Driver, String> {
    if syn::parse2::<kw::newest>(value.clone()).is_ok() {
        return Ok(Driver::Newest);
    }
    let lit = syn::parse2::<Lit>(value.clone());
    let span = lit.as_ref().map_or_else(|_| Span::call_site(), Lit::span);
    match lit {
        Ok(Lit::Str(s)) => match major_minor(s.value().trim()) {
            Some(version) => Ok(Driver::Version {
                version,
                span,
                quoted: true,
            }),
            None => Err(format!(
                "`{}` is not a CUDA version of the form \"major.minor\"; {DRIVER_HELP}",
                s.to_token_stream()
            )),
        },
        // `12.4` unquoted.
        Ok(Lit::Float(f)) => match major_minor(&f.to_string()) {
            Some(version) => Err(format!(
                "`{f}` is a float, not a driver version: write `driver = {version}` (as `cuDriverGetVersion` numbers CUDA {f}) or `driver = \"{f}\"`"
            )),
            None => Err(format!("{}; {DRIVER_HELP}", float(&f).0.unwrap_or_default())),
        },
        Ok(Lit::Int(i)) => match integer(&i, "a driver version") {
            Ok(version) if version < 1000 => {
                // `driver = 12` most likely means CUDA 12.0.
                let major = if (1..=99).contains(&version) {
                    version
                } else {
                    12
                };
                Err(format!(
                    "`driver = {i}` is not a driver version: versions are numbered as `cuDriverGetVersion` returns them, \
                     1000 × major + 10 × minor; for CUDA {major}.0 write `driver = {}` (or `driver = \"{major}.0\"`)",
                    major * 1000
                ))
            }
            Ok(version) => Ok(Driver::Version {
                version,
                span,
                quoted: false,
            }),
            Err((problem, _)) => Err(format!(
                "{}; {DRIVER_HELP}",
                problem.unwrap_or_else(|| format!("`{i}` is not a driver version"))
            )),
        },
        _ => Err(format!("`{value}` is not a driver version; {DRIVER_HELP}")),
    }
}

/// `cdt`, `::cdt`, `crate::cdt`, `::my_wrapper::cdt` (as tokens, or as the text of a string
/// literal, whose span the path then takes), or `None` for anything else.
fn crate_path(value: &TokenStream) -> Option<Path> {
    let path = match syn::parse2::<syn::LitStr>(value.clone()) {
        Ok(lit) => lit.parse_with(Path::parse_mod_style).ok()?,
        Err(_) => Path::parse_mod_style.parse2(value.clone()).ok()?,
    };
    valid_path(&path).then_some(path)
}

/// Whether `crate`, `$crate`, `self` and `super` are where a path can have them: first (`super`
/// after `self` or another `super`), and never after a leading `::`.
fn valid_path(path: &Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let relative = path.leading_colon.is_none();
    names
        .iter()
        .enumerate()
        .all(|(i, name)| match name.as_str() {
            "crate" | "$crate" | "self" => relative && i == 0,
            "super" => {
                relative
                    && names[..i]
                        .iter()
                        .enumerate()
                        .all(|(j, n)| n == "super" || (j == 0 && n == "self"))
            }
            _ => true,
        })
}

/// `backend = runtime | driver` (or a string of either).
fn backend(value: &TokenStream) -> Result<Backend, String> {
    let word = match syn::parse2::<Lit>(value.clone()) {
        Ok(Lit::Str(s)) => s.value(),
        _ => value.to_string(),
    };
    match word.as_str() {
        "runtime" => Ok(Backend::Runtime),
        "driver" => Ok(Backend::Driver),
        other => {
            let hint = match other.trim_start_matches("lib") {
                "cuda" | "cuda.so" | "cuda.so.1" => " (libcuda is `backend = driver`)",
                "cudart" | "cudart.so" => " (libcudart is `backend = runtime`)",
                _ => "",
            };
            Err(format!("unknown backend `{value}`{hint}: {BACKEND_HELP}"))
        }
    }
}

fn set_once(slot: &mut Option<Span>, ident: &Ident, errors: &mut Errors) {
    if slot.is_some() {
        errors.at(
            ident.span(),
            format!("`{ident}` is given twice; give it once"),
        );
    } else {
        *slot = Some(ident.span());
    }
}

/// A word that is neither an option nor named like a driver function, with the options near it,
/// else the functions (`check` gives them).
pub fn unknown_word(ident: &Ident, functions: &[&str]) -> syn::Error {
    let name = ident.to_string();
    let help = options_help();
    let option = did_you_mean(&name, option_names());
    let message = if !option.is_empty() {
        format!("unknown option `{name}`: {option} {help}")
    } else {
        match did_you_mean(&name, functions.iter().copied()) {
            hint if hint.is_empty() => format!("unknown option `{name}`: {help}"),
            hint => format!(
                "`{name}` is neither an option nor a driver function (those start with `cu`): {hint} {help}"
            ),
        }
    };
    syn::Error::new(ident.span(), message)
}

/// Reads `attrs vis struct Name generics? (; | {} | (...);)` off the item's tokens. Problems with
/// the generics or fields are reported and the table is still expanded, so the rest of the user's
/// code type-checks; an item that is not a struct is returned as `Err` and re-emitted unchanged.
pub fn item(item: &TokenStream, errors: &mut Errors) -> Result<Item, NotATable> {
    let tokens = flatten(item.clone());
    let mut found = Vec::new();
    let parsed = (|input: ParseStream| {
        let item = unit_struct(input, &mut found)?;
        // Whatever follows (the `;` of a tuple struct, an enum's body) is the compiler's to judge.
        input.parse::<TokenStream>()?;
        Ok(item)
    })
    .parse2(tokens.clone());
    match parsed {
        Ok(Ok(item)) => {
            for e in found {
                errors.push(e);
            }
            Ok(item)
        }
        Ok(Err(not_a_table)) => Err(not_a_table),
        Err(_) => Err(not_a_struct(&tokens.into_iter().collect::<Vec<_>>())),
    }
}

/// The struct, with the faults of its generics and body in `found`; `Ok(Err)` for an enum, a
/// union or a table already made, `Err` for anything else.
fn unit_struct(
    input: ParseStream,
    found: &mut Vec<syn::Error>,
) -> syn::Result<Result<Item, NotATable>> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    if input.peek(Token![enum]) {
        let kw: Token![enum] = input.parse()?;
        return Ok(Err(NotATable::Other(kw.span, "an enum")));
    }
    if input.peek(Token![union]) {
        let kw: Token![union] = input.parse()?;
        return Ok(Err(NotATable::Other(kw.span, "a union")));
    }
    input.parse::<Token![struct]>()?;
    let ident: Ident = input.parse()?;
    if is_reserved(&ident) {
        return Ok(Err(NotATable::ReservedName(ident)));
    }
    if input.peek(Token![<]) {
        let generics: Generics = input.parse()?;
        found.push(syn::Error::new_spanned(
            generics,
            "#[driver_table] tables take no generic parameters: remove them",
        ));
    }
    if input.peek(Token![;]) {
        // A unit struct.
    } else if let Ok(TokenTree::Group(body)) = input.parse::<TokenTree>() {
        let empty = body.stream().is_empty();
        match body.delimiter() {
            Delimiter::Brace if empty => {}
            // The field the attribute gives every table: another `#[driver_table]` expanded first.
            Delimiter::Brace
                if body
                    .stream()
                    .into_iter()
                    .any(|t| matches!(&t, TokenTree::Ident(i) if i == FIELD)) =>
            {
                return Ok(Err(NotATable::Table(ident)));
            }
            Delimiter::Parenthesis if empty => found.push(syn::Error::new_spanned(
                body,
                format!(
                    "`struct {ident}()` declares a tuple struct; a table is a unit struct: write `struct {ident};` (the attribute adds its fields)"
                ),
            )),
            _ => found.push(syn::Error::new_spanned(
                body,
                format!(
                    "#[driver_table] needs a struct without fields (`struct {ident};`): the attribute adds the fields"
                ),
            )),
        }
    } else {
        found.push(syn::Error::new(
            ident.span(),
            format!("#[driver_table] needs a unit struct such as `pub struct {ident};`"),
        ));
    }
    Ok(Ok(Item {
        attrs: attrs.into_iter().map(attr).collect(),
        vis,
        ident,
    }))
}

/// Whether a table may not be named `ident`: its expansion names the runtime's bindings `sys` and
/// the runtime `__cdt` (and its own items `__cdt_...`) in the block that implements the table,
/// where they would hide the struct.
pub fn is_reserved(ident: &Ident) -> bool {
    let name = ident.unraw().to_string();
    name == "sys" || name.starts_with("__cdt")
}

/// One `#[...]`, classified by its path's last name (`derive`, `::core::prelude::v1::derive`,
/// `repr`, `driver_table`, `cdt::driver_table`).
fn attr(attr: Attribute) -> Attr {
    let last = attr.path().segments.last().map(|s| s.ident.to_string());
    match last.as_deref() {
        Some("derive") => {
            match attr.parse_args_with(Punctuated::<Path, Token![,]>::parse_terminated) {
                Ok(paths) => Attr::Derive {
                    paths: paths.into_iter().collect(),
                    attr,
                },
                Err(_) => Attr::Other(attr),
            }
        }
        Some("repr") => match attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        {
            Ok(metas) => Attr::Repr {
                hints: metas
                    .iter()
                    .filter_map(|m| m.path().get_ident().cloned())
                    .collect(),
                attr,
            },
            Err(_) => Attr::Other(attr),
        },
        Some("driver_table") => Attr::DriverTable(attr),
        _ => Attr::Other(attr),
    }
}

/// For an item that is not a struct, enum or union: the span of its keyword and what it is
/// (attributes, visibility and qualifiers skipped).
fn not_a_struct(item: &[TokenTree]) -> NotATable {
    let mut trees = item.iter().peekable();
    while let Some(tree) = trees.next() {
        let ident = match tree {
            // `#[...]`: skip the group that follows.
            TokenTree::Punct(p) if p.as_char() == '#' => {
                trees.next();
                continue;
            }
            // `pub(crate)`, `extern "C"`.
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => continue,
            TokenTree::Literal(_) => continue,
            TokenTree::Ident(ident) => ident,
            _ => break,
        };
        let next = trees.peek();
        let keyword = ident.to_string();
        let what = match keyword.as_str() {
            // `const X: u32 = 1;` is a constant; `const fn`, `const unsafe fn` are not.
            "const"
                if !matches!(next, Some(TokenTree::Ident(next))
                    if ["fn", "unsafe", "async", "extern"].iter().any(|k| next == k)) =>
            {
                "a constant"
            }
            "pub" | "const" | "async" | "unsafe" | "extern" | "default" | "safe" => continue,
            "fn" => "a function",
            "impl" => "an impl block",
            "trait" => "a trait",
            "mod" => "a module",
            "type" => "a type alias",
            "static" => "a static",
            "use" => "a `use` declaration",
            "crate" => "an `extern crate`",
            "macro_rules" => "a macro",
            _ if next.is_some_and(|t| is_punct(t, '!')) => {
                "a macro call (put the attribute on the struct the macro writes, inside the macro)"
            }
            _ => break,
        };
        return NotATable::Other(ident.span(), what);
    }
    let span = item.first().map_or_else(Span::call_site, TokenTree::span);
    NotATable::Other(span, "this item")
}
