//! The macro's diagnostics: the collector every phase reports into, the spans an error covers,
//! and the "did you mean" suggestions. An error always points at the user's tokens; nothing here
//! panics, and nothing stops at the first error.

use crate::tokens::{
    Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree,
};

/// Collects every error instead of stopping at the first; each covers a range of the user's
/// tokens (first and last span), like `syn::Error::new_spanned`.
#[derive(Default)]
pub struct Diagnostics(Vec<(Span, Span, String)>);

impl Diagnostics {
    /// An error at one token.
    pub fn at(&mut self, span: Span, message: impl Into<String>) {
        self.0.push((span, span, message.into()));
    }

    /// An error that covers all of `tokens` (from the first token to the last).
    pub fn spanned(&mut self, tokens: &TokenStream, message: impl Into<String>) {
        self.covering(tokens.trees(), message.into());
    }

    fn covering(&mut self, tokens: &[TokenTree], message: String) {
        let (first, last) = span_range(tokens);
        self.0.push((first, last, message));
    }

    /// One `::std::compile_error!` per error, spanning its range (`::std`, which every edition
    /// resolves from any module).
    pub fn to_compile_errors(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (first, last, message) in &self.0 {
            let at_first = |mut t: TokenTree| {
                t.set_span(*first);
                t
            };
            let mut body = Group::new(
                Delimiter::Brace,
                TokenStream::from(TokenTree::Literal(Literal::string(message))),
            );
            body.set_span(*last);
            out.push(at_first(Punct::new(':', Spacing::Joint).into()));
            out.push(at_first(Punct::new(':', Spacing::Alone).into()));
            out.push(TokenTree::Ident(Ident::new("std", *first)));
            out.push(at_first(Punct::new(':', Spacing::Joint).into()));
            out.push(at_first(Punct::new(':', Spacing::Alone).into()));
            out.push(TokenTree::Ident(Ident::new("compile_error", *first)));
            out.push(at_first(Punct::new('!', Spacing::Alone).into()));
            out.push(TokenTree::Group(body));
        }
        out
    }
}

/// The spans of the first and the last token (the call site for no tokens).
pub fn span_range(trees: &[TokenTree]) -> (Span, Span) {
    match (trees.first(), trees.last()) {
        (Some(first), Some(last)) => (first.span(), last.span()),
        _ => (Span::call_site(), Span::call_site()),
    }
}

/// The candidates closest to `written` (at most three, closest first): a case-insensitive match,
/// else those within an edit distance that grows with the candidate's length.
pub fn near<'a>(written: &str, candidates: &[&'a str]) -> Vec<&'a str> {
    let lower = written.to_lowercase();
    // The three nearest so far, in order (a sort would cost the macro's build more).
    let mut near: Vec<(usize, &str)> = Vec::with_capacity(4);
    for &c in candidates {
        if c == written {
            continue;
        }
        let d = if c.to_lowercase() == lower {
            0
        } else {
            levenshtein(c, written)
        };
        if d <= (c.len() / 3).max(2) {
            // After those nearer, or as near and sorting before it.
            let mut at = 0;
            while at < near.len() && near[at] < (d, c) {
                at += 1;
            }
            near.insert(at, (d, c));
            near.truncate(3);
        }
    }
    let mut out = Vec::with_capacity(near.len());
    for (_, c) in &near {
        out.push(*c);
    }
    out
}

/// `did you mean `a` or `b`?` for the candidates closest to `written`, or nothing.
pub fn did_you_mean(written: &str, candidates: &[&str]) -> String {
    let near = near(written, candidates);
    if near.is_empty() {
        return String::new();
    }
    let mut out = String::from("did you mean ");
    let mut first = true;
    for n in &near {
        if !first {
            out.push_str(" or ");
        }
        first = false;
        out.push('`');
        out.push_str(n);
        out.push('`');
    }
    out.push('?');
    out
}

/// `items` separated by `sep` (written out: `[String]::join` is generic code the macro's build
/// would compile for this one use).
pub fn join(items: &[String], sep: &str) -> String {
    let mut out = String::new();
    let mut first = true;
    for item in items {
        if !first {
            out.push_str(sep);
        }
        first = false;
        out.push_str(item);
    }
    out
}

/// The edit distance of two names, in characters: the fewest insertions, deletions and
/// substitutions that turn one into the other. (Written here rather than taken from a crate: the
/// macro needs this one function, and a dependency is compiled on every clean build.)
pub(crate) fn levenshtein(a: &str, b: &str) -> usize {
    let mut chars = Vec::new();
    for c in b.chars() {
        chars.push(c);
    }
    let b = chars;
    // row[j]: the distance from the part of `a` read so far to the first j characters of `b`.
    let mut row = Vec::with_capacity(b.len() + 1);
    while row.len() <= b.len() {
        row.push(row.len());
    }
    for ca in a.chars() {
        let mut diagonal = row[0];
        row[0] += 1;
        let mut j = 0;
        while j < b.len() {
            let above = row[j + 1];
            row[j + 1] = if ca == b[j] {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
            j += 1;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::levenshtein;

    #[test]
    fn the_edit_distance_counts_characters() {
        for (a, b, d) in [
            ("kitten", "sitting", 3),
            ("", "abc", 3),
            ("abc", "", 3),
            ("cuMemAloc", "cuMemAlloc", 1),
            ("cuMemAlloc", "cuMemAlloc", 0),
            ("per_thred", "per_thread", 1),
            ("backend", "bakcend", 2),
            ("é", "e", 1),
            ("flaw", "lawn", 2),
        ] {
            assert_eq!(levenshtein(a, b), d, "{a} {b}");
            assert_eq!(levenshtein(b, a), d, "{b} {a}");
        }
    }
}
