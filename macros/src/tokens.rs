//! The macro's own token model, and what it returns. The compiler's `proc_macro` types work only
//! inside a macro call; these are plain data, so `parse`, `check` and `expand` run the same in
//! unit tests (which build them from `proc-macro2`, `testing.rs`) and in the compiler (`host.rs`
//! converts both ways). Only the names, methods and spans the macro uses are here.
//!
//! A [`Span`] is a number the converter gives each token it reads: it finds the compiler's span
//! (and the token itself) again on the way out, so every error and every user token keeps its
//! exact place. `Span(0)` is the call site.
//!
//! The expansion itself is Rust source text ([`Output`]), which the compiler lexes (every token
//! at the call site, as `quote!` gives by default), with a placeholder identifier wherever tokens
//! carrying the user's spans go: the user's own tokens, the names that point at the user's list,
//! and the errors.

use std::cell::Cell;
use std::fmt::{self, Display, Write};

/// Where a token is: an index the converter keeps the compiler's span under; 0 is the call site.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Span(pub u32);

impl Span {
    pub const fn call_site() -> Self {
        Span(0)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Delimiter {
    Parenthesis,
    Brace,
    Bracket,
    /// An invisible group: how a `macro_rules!` fragment (`$v:vis`, `$e:expr`) arrives.
    None,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Spacing {
    Alone,
    Joint,
}

/// An identifier as written, `r#` included for a raw one.
#[derive(Clone)]
pub struct Ident {
    text: String,
    span: Span,
}

impl Ident {
    pub fn new(text: &str, span: Span) -> Self {
        Ident {
            text: text.to_string(),
            span,
        }
    }

    pub fn span(&self) -> Span {
        self.span
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl<T: AsRef<str> + ?Sized> PartialEq<T> for Ident {
    fn eq(&self, other: &T) -> bool {
        self.text == other.as_ref()
    }
}

#[derive(Clone)]
pub struct Punct {
    ch: char,
    spacing: Spacing,
    span: Span,
}

impl Punct {
    pub fn new(ch: char, spacing: Spacing) -> Self {
        Punct {
            ch,
            spacing,
            span: Span::call_site(),
        }
    }

    pub fn as_char(&self) -> char {
        self.ch
    }

    pub fn spacing(&self) -> Spacing {
        self.spacing
    }
}

/// A literal, as its source text (`3020u32`, `"cdt"`, `r"x"`).
#[derive(Clone)]
pub struct Literal {
    text: String,
    span: Span,
}

impl Literal {
    /// A literal of this source text.
    pub fn from_text(text: String, span: Span) -> Self {
        Literal { text, span }
    }

    /// A string literal of `value`, escaped as Rust reads it back.
    pub fn string(value: &str) -> Self {
        Literal::from_text(format!("{value:?}"), Span::call_site())
    }

    pub fn span(&self) -> Span {
        self.span
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

#[derive(Clone)]
pub struct Group {
    delimiter: Delimiter,
    stream: TokenStream,
    span: Span,
}

impl Group {
    pub fn new(delimiter: Delimiter, stream: TokenStream) -> Self {
        Group {
            delimiter,
            stream,
            span: Span::call_site(),
        }
    }

    pub fn delimiter(&self) -> Delimiter {
        self.delimiter
    }

    /// The tokens inside, as a copy (as `proc_macro` gives them).
    #[cfg(test)]
    pub fn stream(&self) -> TokenStream {
        self.stream.clone()
    }

    pub fn tokens(&self) -> &[TokenTree] {
        &self.stream.0
    }

    pub fn span(&self) -> Span {
        self.span
    }

    pub fn set_span(&mut self, span: Span) {
        self.span = span;
    }
}

#[derive(Clone)]
pub enum TokenTree {
    Group(Group),
    Ident(Ident),
    Punct(Punct),
    Literal(Literal),
}

impl TokenTree {
    pub fn span(&self) -> Span {
        match self {
            TokenTree::Group(g) => g.span,
            TokenTree::Ident(i) => i.span,
            TokenTree::Punct(p) => p.span,
            TokenTree::Literal(l) => l.span,
        }
    }

    pub fn set_span(&mut self, span: Span) {
        match self {
            TokenTree::Group(g) => g.span = span,
            TokenTree::Ident(i) => i.span = span,
            TokenTree::Punct(p) => p.span = span,
            TokenTree::Literal(l) => l.span = span,
        }
    }
}

impl From<Punct> for TokenTree {
    fn from(p: Punct) -> Self {
        TokenTree::Punct(p)
    }
}

#[derive(Clone, Default)]
pub struct TokenStream(Vec<TokenTree>);

impl TokenStream {
    pub fn new() -> Self {
        TokenStream(Vec::new())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn trees(&self) -> &[TokenTree] {
        &self.0
    }

    pub fn push(&mut self, tree: TokenTree) {
        self.0.push(tree);
    }

    /// Appends copies of `other`'s tokens.
    pub fn append(&mut self, other: &TokenStream) {
        self.0.extend_from_slice(&other.0);
    }
}

impl Extend<TokenTree> for TokenStream {
    fn extend<I: IntoIterator<Item = TokenTree>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl IntoIterator for TokenStream {
    type Item = TokenTree;
    type IntoIter = std::vec::IntoIter<TokenTree>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl FromIterator<TokenTree> for TokenStream {
    fn from_iter<I: IntoIterator<Item = TokenTree>>(iter: I) -> Self {
        TokenStream(iter.into_iter().collect())
    }
}

impl From<TokenTree> for TokenStream {
    fn from(tree: TokenTree) -> Self {
        TokenStream(vec![tree])
    }
}

impl From<Vec<TokenTree>> for TokenStream {
    fn from(trees: Vec<TokenTree>) -> Self {
        TokenStream(trees)
    }
}

/// How token streams are printed: the compiler's printing, while a macro call runs.
pub type Renderer = fn(&TokenStream) -> String;

thread_local! {
    /// How the compiler prints tokens, set by `host.rs` for the length of a macro call.
    static RENDER: Cell<Option<Renderer>> = const { Cell::new(None) };
}

/// Prints token streams (in messages that quote the user's tokens) as `f` does: the compiler's
/// own printing, while a macro call runs.
pub fn set_renderer(f: Option<Renderer>) {
    RENDER.with(|r| r.set(f));
}

/// As the compiler prints them while a macro call runs (see [`set_renderer`]); elsewhere each
/// token followed by a space, but a joint punctuation.
impl Display for TokenStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(render) = RENDER.with(Cell::get) {
            return f.write_str(&render(self));
        }
        let mut text = String::new();
        write_plain(&mut text, &self.0);
        f.write_str(&text)
    }
}

fn write_plain(out: &mut String, trees: &[TokenTree]) {
    let mut previous: Option<&TokenTree> = None;
    for tree in trees {
        let space = match previous {
            None => false,
            Some(TokenTree::Punct(p)) => p.spacing != Spacing::Joint,
            Some(_) => true,
        };
        if space {
            out.push(' ');
        }
        previous = Some(tree);
        match tree {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_plain(out, &g.stream.0);
                out.push_str(close);
            }
            TokenTree::Ident(id) => out.push_str(&id.text),
            TokenTree::Punct(p) => out.push(p.ch),
            TokenTree::Literal(l) => out.push_str(&l.text),
        }
    }
}

impl Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The identifier a placeholder starts with, followed by the index of its tokens.
pub const SPLICE: &str = "__cdt_splice_";

/// What the macro returns: Rust source text in which each placeholder identifier
/// (`__cdt_splice_<n>`) stands for the tokens `splices[n]`, with their own spans; then, when
/// `keep_item` is set, the item the attribute is on, exactly as it came.
#[derive(Default)]
pub struct Output {
    pub text: String,
    pub splices: Vec<TokenStream>,
    pub keep_item: bool,
}

impl Output {
    /// A placeholder for `tokens`, to write into the text (once or many times).
    pub fn placeholder(&mut self, tokens: TokenStream) -> String {
        let n = self.splices.len();
        self.splices.push(tokens);
        format!(" {SPLICE}{n} ")
    }

    /// A placeholder for one identifier.
    pub fn ident(&mut self, ident: Ident) -> String {
        self.placeholder(TokenStream(vec![TokenTree::Ident(ident)]))
    }

    /// Writes `tokens` at the end of the text.
    pub fn push_tokens(&mut self, tokens: TokenStream) {
        if !tokens.is_empty() {
            let p = self.placeholder(tokens);
            self.text.push_str(&p);
        }
    }

    /// The index of a placeholder identifier's tokens.
    pub fn splice_index(ident: &str) -> Option<usize> {
        let digits = ident.strip_prefix(SPLICE)?;
        if digits.is_empty() {
            return None;
        }
        let mut n: usize = 0;
        for &b in digits.as_bytes() {
            if !b.is_ascii_digit() {
                return None;
            }
            n = n.checked_mul(10)?.checked_add(usize::from(b - b'0'))?;
        }
        Some(n)
    }
}

impl Write for Output {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}
