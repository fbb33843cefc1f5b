//! The unit tests' way in and out of the macro: `proc-macro2` tokens (which work outside the
//! compiler, and which `quote!` writes) read into the macro's model, and its [`Output`] turned
//! back into `proc-macro2` tokens, as `host.rs` does with the compiler's. Every token is at the
//! call site here.

use crate::tokens::{self, Delimiter, Output, Spacing, Span, TokenStream, TokenTree};
use proc_macro2 as pm2;
use std::str::FromStr;

/// The attribute on `proc-macro2` tokens: what the compiler would get, as tokens.
pub fn table(args: pm2::TokenStream, item: pm2::TokenStream) -> pm2::TokenStream {
    let out = crate::table(model(args), &model(item.clone()));
    let mut tokens = tokens_of(&out);
    if out.keep_item {
        tokens.extend(item);
    }
    tokens
}

/// `proc-macro2` tokens in the macro's model.
pub fn model(stream: pm2::TokenStream) -> TokenStream {
    stream
        .into_iter()
        .map(|tree| match tree {
            pm2::TokenTree::Group(g) => {
                let delimiter = match g.delimiter() {
                    pm2::Delimiter::Parenthesis => Delimiter::Parenthesis,
                    pm2::Delimiter::Brace => Delimiter::Brace,
                    pm2::Delimiter::Bracket => Delimiter::Bracket,
                    pm2::Delimiter::None => Delimiter::None,
                };
                TokenTree::Group(tokens::Group::new(delimiter, model(g.stream())))
            }
            pm2::TokenTree::Ident(i) => {
                TokenTree::Ident(tokens::Ident::new(&i.to_string(), Span::call_site()))
            }
            pm2::TokenTree::Punct(p) => {
                let spacing = match p.spacing() {
                    pm2::Spacing::Joint => Spacing::Joint,
                    pm2::Spacing::Alone => Spacing::Alone,
                };
                TokenTree::Punct(tokens::Punct::new(p.as_char(), spacing))
            }
            pm2::TokenTree::Literal(l) => {
                TokenTree::Literal(tokens::Literal::from_text(l.to_string(), Span::call_site()))
            }
        })
        .collect()
}

/// The output's text lexed by `proc-macro2`, each placeholder replaced by its tokens. Panics
/// (failing the test) when the text does not lex.
pub fn tokens_of(out: &Output) -> pm2::TokenStream {
    let stream = pm2::TokenStream::from_str(&out.text)
        .unwrap_or_else(|e| panic!("the expansion does not lex ({e}):\n{}", out.text));
    splice(stream, out)
}

fn splice(stream: pm2::TokenStream, out: &Output) -> pm2::TokenStream {
    stream
        .into_iter()
        .flat_map(|tree| match tree {
            pm2::TokenTree::Group(g) => {
                vec![pm2::TokenTree::Group(pm2::Group::new(
                    g.delimiter(),
                    splice(g.stream(), out),
                ))]
            }
            pm2::TokenTree::Ident(i) => {
                match Output::splice_index(&i.to_string()).and_then(|n| out.splices.get(n)) {
                    Some(tokens) => to_pm2(tokens).into_iter().collect(),
                    None => vec![pm2::TokenTree::Ident(i)],
                }
            }
            tree => vec![tree],
        })
        .collect()
}

/// The model's tokens as `proc-macro2`'s.
pub fn to_pm2(stream: &TokenStream) -> pm2::TokenStream {
    stream
        .trees()
        .iter()
        .map(|tree| match tree {
            TokenTree::Group(g) => {
                let delimiter = match g.delimiter() {
                    Delimiter::Parenthesis => pm2::Delimiter::Parenthesis,
                    Delimiter::Brace => pm2::Delimiter::Brace,
                    Delimiter::Bracket => pm2::Delimiter::Bracket,
                    Delimiter::None => pm2::Delimiter::None,
                };
                pm2::TokenTree::Group(pm2::Group::new(delimiter, to_pm2(&g.stream())))
            }
            TokenTree::Ident(i) => pm2::TokenTree::Ident(match i.as_str().strip_prefix("r#") {
                Some(raw) => pm2::Ident::new_raw(raw, pm2::Span::call_site()),
                None => pm2::Ident::new(i.as_str(), pm2::Span::call_site()),
            }),
            TokenTree::Punct(p) => {
                let spacing = match p.spacing() {
                    Spacing::Joint => pm2::Spacing::Joint,
                    Spacing::Alone => pm2::Spacing::Alone,
                };
                pm2::TokenTree::Punct(pm2::Punct::new(p.as_char(), spacing))
            }
            TokenTree::Literal(l) => pm2::TokenTree::Literal(
                pm2::Literal::from_str(l.as_str()).expect("a literal of the model lexes"),
            ),
        })
        .collect()
}
