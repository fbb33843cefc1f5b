//! The macro's diagnostics: the collector every phase reports into, and the "did you mean"
//! suggestions. An error always points at the user's tokens; nothing here panics, and nothing
//! stops at the first error.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use std::fmt::Display;

/// Every error of every phase, in the order reported, combined into one `syn::Error`.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// An error at one token.
    pub fn at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// An error that covers all of `tokens` (from the first token to the last).
    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// One `compile_error!` per error, each at its tokens.
    pub fn into_compile_errors(self) -> TokenStream {
        self.0
            .map(syn::Error::into_compile_error)
            .unwrap_or_default()
    }
}

/// The candidates closest to `written` (at most three, closest first): a case-insensitive match,
/// else those within an edit distance that grows with the candidate's length.
pub fn near<'a>(written: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let lower = written.to_lowercase();
    let mut near: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter(|&c| c != written)
        .map(|c| {
            let d = if c.to_lowercase() == lower {
                0
            } else {
                levenshtein(c, written)
            };
            (d, c)
        })
        .filter(|&(d, c)| d <= (c.len() / 3).max(2))
        .collect();
    near.sort_unstable();
    near.into_iter().take(3).map(|(_, c)| c).collect()
}

/// `` did you mean `a` or `b`? `` for the candidates closest to `written`, or nothing.
pub fn did_you_mean<'a>(written: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let near = near(written, candidates);
    if near.is_empty() {
        return String::new();
    }
    let names: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
    format!("did you mean {}?", names.join(" or "))
}

/// The edit distance of two names, in characters: the fewest insertions, deletions and
/// substitutions that turn one into the other.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    // row[j]: the distance from the part of `a` read so far to the first j characters of `b`.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for ca in a.chars() {
        let mut diagonal = row[0];
        row[0] += 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
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
