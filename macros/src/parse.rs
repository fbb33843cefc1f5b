//! Reading: the attribute's arguments parsed into a typed [`Request`], and the item it is on into
//! an [`Item`]. No manifest lookups here; what cannot be read is reported at its tokens and the
//! rest is still read.
//!
//! The grammar is small (`name`, `name = value`, separated by commas; a struct with attributes),
//! so it is read straight off the token stream: the macro needs no full Rust parser, which keeps
//! its users' builds short.
//!
//! For the same reason the code here walks slices with plain loops and scans text byte by byte
//! rather than through iterator adapters, closures and string patterns: each of those is generic
//! code instantiated anew, which every clean build of a user's program compiles as part of the
//! macro crate.

use crate::diagnostics::{did_you_mean, span_range, Diagnostics};
use crate::model::{Attr, BackendOption, CratePath, Driver, Entry, Item, NotATable, Pin, Request};
use crate::tokens::{Delimiter, Group, Ident, Spacing, Span, TokenStream, TokenTree};

pub const OPTIONS_HELP: &str = "options are `driver = 12000`, `all`, `per_thread`, `backend = runtime` / `backend = driver` and `crate = path`; \
driver functions are named as in C (`cuMemAlloc`), optionally pinned to an ABI (`cuCtxCreate = 3020`) or named by an exported symbol (`cuCtxCreate_v2`)";

/// How to write `driver = ...`.
pub const DRIVER_HELP: &str =
    "write the oldest driver the table must work on as `cuDriverGetVersion` numbers it \
(`driver = 12000` for CUDA 12.0, `driver = 12_040` for 12.4) or as a string (`driver = \"12.4\"`)";

const BACKEND_HELP: &str =
    "write `backend = runtime` (libcudart, the default) or `backend = driver` (libcuda.so.1)";

const CRATE_HELP: &str = "write the path this crate names cuda-driver-table by: `crate = cdt` for a dependency renamed to `cdt`, \
or a re-export such as `crate = ::my_wrapper::cdt` (a string works too: `crate = \"cdt\"`)";

/// The options of the attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opt {
    /// `all`: every function of the release.
    All,
    /// `per_thread`: the per-thread default stream.
    PerThread,
    /// `backend = runtime | driver`.
    Backend,
    /// `crate = path`.
    Crate,
    /// `driver = 12000`.
    Driver,
}

impl Opt {
    const EVERY: [Opt; 5] = [
        Opt::Driver,
        Opt::All,
        Opt::PerThread,
        Opt::Backend,
        Opt::Crate,
    ];

    fn name(self) -> &'static str {
        match self {
            Opt::All => "all",
            Opt::PerThread => "per_thread",
            Opt::Backend => "backend",
            Opt::Crate => "crate",
            Opt::Driver => "driver",
        }
    }

    /// How to write its value, for an option that takes one.
    fn value_help(self) -> Option<String> {
        match self {
            Opt::All | Opt::PerThread => None,
            Opt::Backend => Some(format!("a value: {BACKEND_HELP}")),
            Opt::Crate => Some(format!("a path: {CRATE_HELP}")),
            Opt::Driver => Some(format!(
                "a driver version: {DRIVER_HELP}; to resolve through libcuda.so.1, write `backend = driver`"
            )),
        }
    }
}

/// What the first word of a part of the list names.
enum Word {
    /// A driver function (`cuInit`, also written `r#cuInit`), as an identifier without `r#`.
    Function(Ident),
    Option(Opt),
    Unknown,
}

/// Reads one word: a raw identifier (`r#cuInit`) is the same word as the plain one.
fn word(ident: &Ident) -> Word {
    let text = ident.as_str();
    let name = text.strip_prefix("r#").unwrap_or(text);
    if name.starts_with("cu") {
        return Word::Function(Ident::new(name, ident.span()));
    }
    for &option in &Opt::EVERY {
        if option.name() == name {
            return Word::Option(option);
        }
    }
    Word::Unknown
}

/// The tokens with every invisible group (`Delimiter::None`, what a `macro_rules!` fragment
/// such as `$vis:vis`, `$e:expr` or `$p:path` arrives as) replaced by its contents, in every
/// group: such groups are transparent to this grammar.
pub fn flatten(tokens: &[TokenTree]) -> Vec<TokenTree> {
    let mut out = Vec::new();
    flatten_into(tokens, &mut out);
    out
}

fn flatten_into(tokens: &[TokenTree], out: &mut Vec<TokenTree>) {
    for t in tokens {
        match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
                flatten_into(g.tokens(), out)
            }
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), flatten(g.tokens()).into());
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            t => out.push(t.clone()),
        }
    }
}

/// Whether `t` is the punctuation `c`.
pub fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

/// One comma-separated part of a list and the comma that ends it (none for the last part).
struct Part {
    tokens: Vec<TokenTree>,
    comma: Option<Span>,
}

/// The comma-separated parts of a list; a trailing comma ends the list.
fn split_commas(args: &[TokenTree]) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut tokens = Vec::new();
    for t in args {
        if is_punct(t, ',') {
            parts.push(Part {
                tokens,
                comma: Some(t.span()),
            });
            tokens = Vec::new();
        } else {
            tokens.push(t.clone());
        }
    }
    if !tokens.is_empty() {
        parts.push(Part {
            tokens,
            comma: None,
        });
    }
    parts
}

/// Parses `#[driver_table(...)]`'s arguments.
pub fn parse_args(args: TokenStream, diag: &mut Diagnostics) -> Request {
    let args = flatten(args.trees());
    let mut request = Request::default();
    if let Some(first) = args.first() {
        request.span = Some(first.span());
    }
    for part in &split_commas(&args) {
        let whole = TokenStream::from(part.tokens.clone());
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
                let value = TokenStream::from(value.to_vec());
                if value.is_empty() {
                    request.malformed = true;
                    let what = match word(ident) {
                        Word::Function(name) => {
                            format!("an ABI version after `=`, e.g. `{name} = 3020`")
                        }
                        Word::Option(option) => option.value_help().unwrap_or_else(|| {
                            format!(
                                "nothing: `{}` takes no value, write it alone",
                                option.name()
                            )
                        }),
                        Word::Unknown => format!("a value after `=`; {OPTIONS_HELP}"),
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
    match word(ident) {
        Word::Function(name) => request.entries.push(Entry { name, pin: None }),
        Word::Option(Opt::All) => set_once(&mut request.all, ident, diag),
        Word::Option(Opt::PerThread) => set_once(&mut request.per_thread, ident, diag),
        Word::Option(option @ (Opt::Backend | Opt::Crate | Opt::Driver)) => diag.at(
            ident.span(),
            format!(
                "the `{}` option needs {}",
                option.name(),
                option.value_help().unwrap_or_default()
            ),
        ),
        Word::Unknown => {
            request.malformed = true;
            unknown_option(ident, diag);
        }
    }
}

/// A part `name = value` (a value present).
fn valued(ident: &Ident, value: TokenStream, request: &mut Request, diag: &mut Diagnostics) {
    match word(ident) {
        Word::Function(name) => request.entries.push(Entry {
            name,
            pin: Some(pin_of(value)),
        }),
        Word::Option(Opt::Backend) => backend_option(ident, &value, request, diag),
        Word::Option(Opt::Driver) => match driver_of(&value) {
            Ok(_) if request.driver.is_some() => {
                diag.at(ident.span(), "`driver` is given twice; give it once");
            }
            Ok(driver) => request.driver = Some(driver),
            Err(problem) => diag.spanned(&value, problem),
        },
        Word::Option(Opt::Crate) => match crate_path(&value) {
            Some(_) if request.krate.is_some() => {
                diag.at(ident.span(), "`crate` is given twice; give it once");
            }
            Some(path) => request.krate = Some(path),
            None if has_byte(&value.to_string(), b'-') => diag.spanned(
                &value,
                format!(
                    "`{value}` is a package name, not a path: paths spell crate names with `_` (`crate = cuda_driver_table`, or the name the dependency is renamed to); {CRATE_HELP}"
                ),
            ),
            None => diag.spanned(
                &value,
                format!("`{value}` is not a path to cuda-driver-table; {CRATE_HELP}"),
            ),
        },
        Word::Option(option @ (Opt::All | Opt::PerThread)) => diag.spanned(
            &value,
            format!(
                "`{0}` takes no value: write `{0}` alone",
                option.name()
            ),
        ),
        Word::Unknown => {
            request.malformed = true;
            unknown_option(ident, diag);
        }
    }
}

/// The integer types a pin's literal may name as its suffix, with their largest value.
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

/// A number as `integer` reads it.
enum Number {
    /// An integer literal that fits its suffix's type and a `u32`, with its span.
    Value(u32, Span),
    /// Anything else. `problem` says what is wrong with a number of the wrong form (`3020u8`
    /// does not fit `u8`); `number` is the whole number it spells, if any (`3020` of `3020.0`).
    Wrong {
        problem: Option<String>,
        number: Option<u32>,
    },
}

/// An integer literal as Rust writes one (`3020`, `3_020`, `3020u32`, `0xBCC`, `0o5714`,
/// `0b1011_1100_1100`) that fits its suffix's type and a `u32`, or what is wrong with the value
/// (`what` it is, in words: `an ABI version`).
fn integer(value: &TokenStream, what: &str) -> Number {
    let wrong = |problem: Option<String>, number: Option<u32>| Number::Wrong { problem, number };
    let [TokenTree::Literal(lit)] = value.trees() else {
        return wrong(None, None);
    };
    let written = lit.as_str();
    // Strings and characters (`"v3"`) are not numbers of a wrong form.
    if !written.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return wrong(None, None);
    }
    // The text without `_`, all ASCII (it starts with a digit).
    let mut text = String::with_capacity(written.len());
    for c in written.chars() {
        if c != '_' {
            text.push(c);
        }
    }
    let (radix, body) = match text.get(..2) {
        Some("0x") => (16, &text[2..]),
        Some("0o") => (8, &text[2..]),
        Some("0b") => (2, &text[2..]),
        _ => (10, text.as_str()),
    };
    let mut end = 0;
    while end < body.len() && char::from(body.as_bytes()[end]).is_digit(radix) {
        end += 1;
    }
    let (digits, suffix) = body.split_at(end);
    // Its value (`None` for no digits, or one too large for a `u128`).
    let mut number = if digits.is_empty() { None } else { Some(0u128) };
    for c in digits.chars() {
        number = number
            .and_then(|n| n.checked_mul(u128::from(radix)))
            .and_then(|n| n.checked_add(u128::from(c.to_digit(radix).unwrap_or(0))));
    }
    let version = match number {
        Some(n) => u32::try_from(n).ok(),
        None => None,
    };
    let fraction = matches!(suffix.as_bytes().first(), Some(b'.' | b'e' | b'E'));
    if radix == 10 && (fraction || suffix == "f32" || suffix == "f64") {
        return wrong(Some(format!("`{written}` is not a whole number")), version);
    }
    let too_large = || Some(format!("`{written}` is too large for {what}"));
    let Some(number) = number else {
        return wrong(too_large(), None);
    };
    if !suffix.is_empty() {
        let mut max = None;
        for &(name, name_max) in &INTEGER_SUFFIXES {
            if name == suffix {
                max = Some(name_max);
            }
        }
        match max {
            Some(max) if number <= max => {}
            Some(_) => {
                let problem = format!("`{written}` does not fit in `{suffix}`");
                return wrong(Some(problem), version);
            }
            None => {
                let problem = format!("`{suffix}` is not an integer type");
                return wrong(Some(problem), version);
            }
        }
    }
    match version {
        Some(version) => Number::Value(version, lit.span()),
        None => wrong(too_large(), None),
    }
}

/// A pin: an integer literal (see `integer`), or anything else, kept for the error with what is
/// wrong when it is a number of the wrong form.
fn pin_of(value: TokenStream) -> Pin {
    match integer(&value, "an ABI version") {
        Number::Value(version, span) => Pin::Version(version, span),
        Number::Wrong { problem, number } => Pin::Invalid {
            tokens: value,
            problem,
            number,
        },
    }
}

/// `MAJOR.MINOR` (`12.4`) in `cuDriverGetVersion`'s numbering (`12040`), or `None`.
fn major_minor(text: &str) -> Option<u32> {
    let dot = find_byte(text, b'.')?;
    let (major, minor) = (small_number(&text[..dot])?, small_number(&text[dot + 1..])?);
    if text.len() - dot - 1 > 2 || major == 0 {
        return None;
    }
    Some(major * 1000 + minor * 10)
}

/// The value of one to three decimal digits, or `None`.
fn small_number(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 3 {
        return None;
    }
    let mut value = 0;
    for &b in text.as_bytes() {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u32::from(b - b'0');
    }
    Some(value)
}

/// The position of the first byte `b` of `text`.
fn find_byte(text: &str, b: u8) -> Option<usize> {
    let mut i = 0;
    while i < text.len() {
        if text.as_bytes()[i] == b {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Whether `text` has the byte `b`.
fn has_byte(text: &str, b: u8) -> bool {
    find_byte(text, b).is_some()
}

/// The value of `driver = ...`: a whole number as `cuDriverGetVersion` writes it (`12000`,
/// `12_000`, `12000u32`), or a string `"12.0"`; anything else is the message for the user.
/// Whether the version is one a table can target is for `check`.
fn driver_of(value: &TokenStream) -> Result<Driver, String> {
    let span = span_range(value.trees()).0;
    let text = match value.trees() {
        [TokenTree::Literal(lit)] => lit.as_str(),
        _ => "",
    };
    if let Some(inner) = plain_string(text) {
        return match major_minor(trim(inner)) {
            Some(version) => Ok(Driver { version, span }),
            None => Err(format!(
                "`{text}` is not a CUDA version of the form \"major.minor\"; {DRIVER_HELP}"
            )),
        };
    }
    // `12.4` unquoted: a float literal.
    if let Some(version) = major_minor(text) {
        return Err(format!(
            "`{text}` is a float, not a driver version: write `driver = {version}` (as `cuDriverGetVersion` numbers CUDA {text}) or `driver = \"{text}\"`"
        ));
    }
    match integer(value, "a driver version") {
        Number::Value(version, _) if version < 1000 => {
            // `driver = 12` most likely means CUDA 12.0.
            let major = if matches!(version, 1..=99) {
                version
            } else {
                12
            };
            Err(format!(
                "`driver = {text}` is not a driver version: versions are numbered as `cuDriverGetVersion` returns them, \
                 1000 × major + 10 × minor; for CUDA {major}.0 write `driver = {}` (or `driver = \"{major}.0\"`)",
                major * 1000
            ))
        }
        Number::Value(version, _) => Ok(Driver { version, span }),
        Number::Wrong {
            problem: Some(problem),
            ..
        } => Err(format!("{problem}; {DRIVER_HELP}")),
        Number::Wrong { problem: None, .. } => {
            Err(format!("`{value}` is not a driver version; {DRIVER_HELP}"))
        }
    }
}

/// The text of a string literal without escapes (`"cdt"`, `r"cdt"`, `r#"cdt"#`), or `None`.
fn plain_string(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    // `r`, then as many `#` before the opening quote as after the closing one.
    let (raw, mut open) = match bytes.first() {
        Some(b'r') => (true, 1),
        _ => (false, 0),
    };
    while raw && bytes.get(open) == Some(&b'#') {
        open += 1;
    }
    let hashes = open - usize::from(raw);
    // The quotes: the one after the fence, and the one before a fence as long at the end.
    if bytes.get(open) != Some(&b'"') || bytes.len() < open + 2 + hashes {
        return None;
    }
    let close = bytes.len() - 1 - hashes;
    if bytes[close] != b'"' {
        return None;
    }
    for &b in &bytes[close + 1..] {
        if b != b'#' {
            return None;
        }
    }
    let body = &text[open + 1..close];
    if !raw && has_byte(body, b'\\') {
        return None;
    }
    Some(body)
}

/// `text` without the whitespace at either end (`str::trim`).
fn trim(text: &str) -> &str {
    let mut start = 0;
    for c in text.chars() {
        if !c.is_whitespace() {
            break;
        }
        start += c.len_utf8();
    }
    let mut end = text.len();
    for c in text[start..].chars().rev() {
        if !c.is_whitespace() {
            break;
        }
        end -= c.len_utf8();
    }
    &text[start..end]
}

/// `cdt`, `::cdt`, `crate::cdt`, `::my_wrapper::cdt` (as tokens, or as the text of a string
/// literal, whose span the identifiers then take), or `None` for anything else.
fn crate_path(value: &TokenStream) -> Option<CratePath> {
    let tokens = value.trees();
    if let [TokenTree::Literal(lit)] = tokens {
        let inner = trim(plain_string(lit.as_str())?);
        let leading_colons = inner.as_bytes().starts_with(b"::");
        let mut rest = if leading_colons { &inner[2..] } else { inner };
        let mut segments = Vec::new();
        // Each name between `::`s.
        loop {
            let bytes = rest.as_bytes();
            let mut end = 0;
            while end < bytes.len() && !(bytes[end] == b':' && bytes.get(end + 1) == Some(&b':')) {
                end += 1;
            }
            let name = trim(&rest[..end]);
            if !is_identifier(name) {
                return None;
            }
            segments.push(Ident::new(name, lit.span()));
            if end == bytes.len() {
                break;
            }
            rest = &rest[end + 2..];
        }
        return valid_path(CratePath {
            leading_colons,
            segments,
        });
    }
    let mut i = 0;
    let leading_colons = colons_at(tokens, 0);
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
        if !colons_at(tokens, i) {
            return None;
        }
        i += 2;
    }
    valid_path(CratePath {
        leading_colons,
        segments,
    })
}

/// A plain (not raw) identifier of ASCII letters, digits and `_`, not `_` alone.
pub fn is_identifier(text: &str) -> bool {
    let bytes = text.as_bytes();
    if text == "_"
        || !bytes
            .first()
            .is_some_and(|&c| c == b'_' || c.is_ascii_alphabetic())
    {
        return false;
    }
    for &c in bytes {
        if c != b'_' && !c.is_ascii_alphanumeric() {
            return false;
        }
    }
    true
}

/// `::` at `tokens[i..]`.
fn colons_at(tokens: &[TokenTree], i: usize) -> bool {
    matches!(
        (tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
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
    let mut first = !path.leading_colons;
    for segment in &path.segments {
        let name = segment.as_str();
        if name.starts_with("r#") {
            only_super_so_far = false;
            first = false;
            continue;
        }
        let ok = match name {
            "crate" | "$crate" | "self" => first,
            "super" => only_super_so_far && !path.leading_colons,
            n => {
                let mut keyword = false;
                for k in KEYWORDS {
                    keyword |= *k == n;
                }
                !keyword
            }
        };
        if !ok {
            return None;
        }
        only_super_so_far &= name == "super" || (first && name == "self");
        first = false;
    }
    Some(path)
}

fn backend_option(
    ident: &Ident,
    value: &TokenStream,
    request: &mut Request,
    diag: &mut Diagnostics,
) {
    let word = match value.trees() {
        [TokenTree::Ident(i)] => Some(i.as_str()),
        [TokenTree::Literal(l)] => plain_string(l.as_str()),
        _ => None,
    };
    let backend = match word {
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
    let name = ident.as_str();
    let options = [
        Opt::Driver.name(),
        Opt::All.name(),
        Opt::PerThread.name(),
        Opt::Backend.name(),
        Opt::Crate.name(),
    ];
    let mut hint = did_you_mean(name, &options);
    if !hint.is_empty() {
        hint.push(' ');
    }
    diag.at(
        ident.span(),
        format!("unknown option `{name}`: {hint}{OPTIONS_HELP}"),
    );
}

/// Reads `attrs vis struct Name generics? (; | {} | (...);)` off the item's tokens. Problems with
/// the generics or fields are reported and the table is still expanded, so the rest of the user's
/// code type-checks; an item that is not a struct is returned as `Err` and re-emitted unchanged.
pub fn parse_item(item: &TokenStream, diag: &mut Diagnostics) -> Result<Item, NotATable> {
    let tokens = flatten(item.trees());
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
    if matches!(&tokens.get(i), Some(TokenTree::Ident(id)) if id.as_str() == "pub") {
        vis.push(tokens[i].clone());
        i += 1;
        if let Some(TokenTree::Group(g)) = tokens.get(i) {
            if g.delimiter() == Delimiter::Parenthesis {
                vis.push(tokens[i].clone());
                i += 1;
            }
        }
    }
    match tokens.get(i) {
        Some(TokenTree::Ident(kw)) if kw.as_str() == "struct" => {}
        Some(TokenTree::Ident(kw)) if kw.as_str() == "enum" => {
            return Err(NotATable::Other(kw.span(), "an enum"))
        }
        Some(TokenTree::Ident(kw)) if kw.as_str() == "union" => {
            return Err(NotATable::Other(kw.span(), "a union"))
        }
        _ => return Err(not_a_struct(&tokens)),
    }
    let Some(TokenTree::Ident(ident)) = tokens.get(i + 1) else {
        return Err(not_a_struct(&tokens));
    };
    i += 2;
    // Generics: `<` ... the matching `>` (a `>` of `->` does not close).
    if matches!(tokens.get(i), Some(t) if is_punct(t, '<')) {
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
        let generics = TokenStream::from(tokens[start..i].to_vec());
        diag.spanned(
            &generics,
            "#[driver_table] tables take no generic parameters: remove them",
        );
    }
    match tokens.get(i) {
        Some(t) if is_punct(t, ';') => {}
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace && g.tokens().is_empty() => {}
        // The field the attribute gives every table: another `#[driver_table]` expanded first.
        Some(TokenTree::Group(g))
            if g.delimiter() == Delimiter::Brace && has_table_field(g.tokens()) =>
        {
            return Err(NotATable::Table(ident.clone()));
        }
        Some(TokenTree::Group(g))
            if g.delimiter() == Delimiter::Parenthesis && g.tokens().is_empty() =>
        {
            diag.spanned(
                &TokenTree::Group(g.clone()).into(),
                format!(
                    "`struct {ident}()` declares a tuple struct; a table is a unit struct: write `struct {ident};` (the attribute adds its fields)"
                ),
            );
        }
        Some(TokenTree::Group(g)) => diag.spanned(
            &TokenTree::Group(g.clone()).into(),
            format!(
                "#[driver_table] needs a struct without fields (`struct {ident};`): the attribute adds the fields"
            ),
        ),
        _ => diag.at(
            ident.span(),
            format!("#[driver_table] needs a unit struct such as `pub struct {ident};`"),
        ),
    }
    Ok(Item {
        attrs,
        vis,
        ident: ident.clone(),
    })
}

/// Whether `fields` name the field the attribute gives every table.
fn has_table_field(fields: &[TokenTree]) -> bool {
    for t in fields {
        if matches!(t, TokenTree::Ident(field) if field.as_str() == crate::expand::FIELD) {
            return true;
        }
    }
    false
}

/// One `#[...]`, classified by its path's last name (`derive`, `::core::prelude::v1::derive`,
/// `repr`, `driver_table`, `cdt::driver_table`).
fn attr(pound: &TokenTree, body: &Group) -> Attr {
    let inner = body.tokens();
    let written = TokenStream::from(vec![pound.clone(), TokenTree::Group(body.clone())]);
    // The path: identifiers and `:`s, up to the last identifier.
    let mut path_len = 0;
    let mut last = None;
    while let Some(t) = inner.get(path_len) {
        match t {
            TokenTree::Ident(i) => last = Some(i.as_str()),
            t if is_punct(t, ':') => {}
            _ => break,
        }
        path_len += 1;
    }
    let list = match &inner[path_len..] {
        [TokenTree::Group(list)] if list.delimiter() == Delimiter::Parenthesis => Some(list),
        _ => None,
    };
    match (last, list) {
        (Some("derive"), Some(list)) => {
            let mut paths = Vec::new();
            for part in &split_commas(list.tokens()) {
                paths.push(TokenStream::from(part.tokens.clone()));
            }
            Attr::Derive {
                pound: pound.clone(),
                path: TokenStream::from(inner[..path_len].to_vec()),
                paths,
            }
        }
        (Some("repr"), Some(list)) => {
            let mut hints = Vec::new();
            for part in &split_commas(list.tokens()) {
                if let Some(TokenTree::Ident(i)) = part.tokens.first() {
                    hints.push(i.clone());
                }
            }
            Attr::Repr { written, hints }
        }
        (Some("driver_table"), _) => Attr::DriverTable(written),
        _ => Attr::Other(written),
    }
}

/// For an item that is not a struct, enum or union: the span of its keyword and what it is.
/// A token scan (attributes, visibility and qualifiers skipped).
fn not_a_struct(item: &[TokenTree]) -> NotATable {
    let mut i = 0;
    while let Some(token) = item.get(i) {
        i += 1;
        let next = item.get(i);
        match token {
            // `#[...]`, `pub(crate)`, `extern "C"`: skip the group or literal that follows.
            TokenTree::Punct(p) if p.as_char() == '#' => {
                i += 1;
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {}
            TokenTree::Literal(_) => {}
            TokenTree::Ident(ident) => {
                let what = match ident.as_str() {
                    // `const X: u32 = 1;` is a constant; `const fn`, `const unsafe fn` are not.
                    "const"
                        if !matches!(next, Some(TokenTree::Ident(next))
                            if matches!(next.as_str(), "fn" | "unsafe" | "async" | "extern")) =>
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
                    _ if matches!(next, Some(t) if is_punct(t, '!')) => {
                        "a macro call (put the attribute on the struct the macro writes, inside the macro)"
                    }
                    _ => break,
                };
                return NotATable::Other(ident.span(), what);
            }
            _ => break,
        }
    }
    NotATable::Other(span_range(item).0, "this item")
}
