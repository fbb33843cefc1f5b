//! The one door to the compiler: `proc_macro`'s tokens read into the macro's own model
//! (`tokens`), and the macro's [`Output`] turned back into `proc_macro` tokens. Only this module
//! calls `proc_macro`, which works only while the compiler runs a macro; everything else is plain
//! code the unit tests run too.
//!
//! Each token read gets a [`Span`] that is its index in a table of the compiler's spans, kept
//! here for the length of one macro call with the identifiers and literals themselves: a token of
//! the model that is still the user's token (same text, same span) goes out as that very token
//! (a `$crate` of a `macro_rules!` keeps its meaning), and any other token at a user's span gets
//! the compiler's span back. The expansion's text is read by the compiler's own lexer
//! (`TokenStream::from_str`, every token at the call site), then each placeholder identifier is
//! replaced by its tokens.

use crate::tokens::{self, Delimiter, Output, Spacing, Span, TokenStream, TokenTree};
use proc_macro as pm;
use std::cell::RefCell;
use std::str::FromStr;

/// A token read from the compiler: its span, and the identifier or literal itself.
type Read = (pm::Span, Option<pm::TokenTree>);

thread_local! {
    /// The tokens of the current macro call, by `Span` (0: the call site). Emptied when it
    /// returns: the compiler's handles mean nothing in another call.
    static READ: RefCell<Vec<Read>> = const { RefCell::new(Vec::new()) };
}

/// The attribute, from the compiler's tokens to the compiler's tokens.
pub fn expand(args: pm::TokenStream, item: pm::TokenStream) -> pm::TokenStream {
    READ.with(|read| expand_with(args, item, read))
}

/// `expand`, with the table of the tokens read (not borrowed while the macro runs: `render`
/// reads it then).
fn expand_with(
    args: pm::TokenStream,
    item: pm::TokenStream,
    read: &RefCell<Vec<Read>>,
) -> pm::TokenStream {
    let (args, model) = {
        let mut read = read.borrow_mut();
        read.clear();
        read.push((pm::Span::call_site(), None));
        (
            from_compiler(args, &mut read),
            from_compiler(item.clone(), &mut read),
        )
    };
    tokens::set_renderer(Some(render));
    let out = crate::table(args, &model);
    let mut expansion = to_compiler(&out, &read.borrow());
    tokens::set_renderer(None);
    read.borrow_mut().clear();
    if out.keep_item {
        expansion.extend(item);
    }
    expansion
}

fn from_compiler(stream: pm::TokenStream, read: &mut Vec<Read>) -> TokenStream {
    let mut out = TokenStream::new();
    for tree in stream {
        let span = Span(u32::try_from(read.len()).unwrap_or(0));
        let mut model = match &tree {
            pm::TokenTree::Group(g) => {
                read.push((g.span(), None));
                let delimiter = match g.delimiter() {
                    pm::Delimiter::Parenthesis => Delimiter::Parenthesis,
                    pm::Delimiter::Brace => Delimiter::Brace,
                    pm::Delimiter::Bracket => Delimiter::Bracket,
                    pm::Delimiter::None => Delimiter::None,
                };
                let inner = from_compiler(g.stream(), read);
                TokenTree::Group(tokens::Group::new(delimiter, inner))
            }
            pm::TokenTree::Ident(i) => {
                read.push((i.span(), Some(tree.clone())));
                TokenTree::Ident(tokens::Ident::new(&i.to_string(), span))
            }
            pm::TokenTree::Punct(p) => {
                read.push((p.span(), None));
                let spacing = match p.spacing() {
                    pm::Spacing::Joint => Spacing::Joint,
                    pm::Spacing::Alone => Spacing::Alone,
                };
                TokenTree::Punct(tokens::Punct::new(p.as_char(), spacing))
            }
            pm::TokenTree::Literal(l) => {
                read.push((l.span(), Some(tree.clone())));
                TokenTree::Literal(tokens::Literal::from_text(l.to_string(), span))
            }
        };
        model.set_span(span);
        out.push(model);
    }
    out
}

/// The text, lexed by the compiler, with each placeholder replaced by its tokens.
fn to_compiler(out: &Output, read: &[Read]) -> pm::TokenStream {
    match pm::TokenStream::from_str(&out.text) {
        Ok(stream) => splice(stream, out, read),
        // Not reached: the text is written by `expand` and checked by the tests.
        Err(e) => {
            let message = format!("cuda-driver-table-macros wrote an expansion the compiler cannot read ({e}); please report this");
            let error = format!("::std::compile_error!{{{message:?}}}");
            pm::TokenStream::from_str(&error).unwrap_or_default()
        }
    }
}

fn splice(stream: pm::TokenStream, out: &Output, read: &[Read]) -> pm::TokenStream {
    let mut trees = Vec::new();
    for tree in stream {
        match tree {
            pm::TokenTree::Group(g) => {
                let mut group = pm::Group::new(g.delimiter(), splice(g.stream(), out, read));
                group.set_span(g.span());
                trees.push(pm::TokenTree::Group(group));
            }
            pm::TokenTree::Ident(i) => {
                let text = i.to_string();
                match Output::splice_index(&text).and_then(|n| out.splices.get(n)) {
                    Some(tokens) => write(tokens.trees(), read, &mut trees),
                    None => trees.push(pm::TokenTree::Ident(i)),
                }
            }
            tree => trees.push(tree),
        }
    }
    trees.into_iter().collect()
}

/// The compiler's span of `span`.
fn span_of(span: Span, read: &[Read]) -> pm::Span {
    read.get(span.0 as usize)
        .map_or_else(pm::Span::call_site, |r| r.0)
}

/// The model's tokens as the compiler's, each at its span.
fn write(trees: &[TokenTree], read: &[Read], out: &mut Vec<pm::TokenTree>) {
    for tree in trees {
        let span = span_of(tree.span(), read);
        let original = read.get(tree.span().0 as usize).and_then(|r| r.1.as_ref());
        let tree = match tree {
            TokenTree::Group(g) => {
                let delimiter = match g.delimiter() {
                    Delimiter::Parenthesis => pm::Delimiter::Parenthesis,
                    Delimiter::Brace => pm::Delimiter::Brace,
                    Delimiter::Bracket => pm::Delimiter::Bracket,
                    Delimiter::None => pm::Delimiter::None,
                };
                let mut inner = Vec::new();
                write(g.tokens(), read, &mut inner);
                let mut group = pm::Group::new(delimiter, inner.into_iter().collect());
                group.set_span(span);
                pm::TokenTree::Group(group)
            }
            TokenTree::Ident(i) => match original {
                Some(pm::TokenTree::Ident(o)) if o.to_string() == i.as_str() => {
                    pm::TokenTree::Ident(o.clone())
                }
                _ => pm::TokenTree::Ident(match i.as_str().strip_prefix("r#") {
                    Some(raw) => pm::Ident::new_raw(raw, span),
                    None => pm::Ident::new(i.as_str(), span),
                }),
            },
            TokenTree::Punct(p) => {
                let spacing = match p.spacing() {
                    Spacing::Joint => pm::Spacing::Joint,
                    Spacing::Alone => pm::Spacing::Alone,
                };
                let mut punct = pm::Punct::new(p.as_char(), spacing);
                punct.set_span(span);
                pm::TokenTree::Punct(punct)
            }
            TokenTree::Literal(l) => match original {
                Some(pm::TokenTree::Literal(o)) if o.to_string() == l.as_str() => {
                    pm::TokenTree::Literal(o.clone())
                }
                _ => {
                    let mut literal = pm::Literal::from_str(l.as_str())
                        .unwrap_or_else(|_| pm::Literal::string(l.as_str()));
                    literal.set_span(span);
                    pm::TokenTree::Literal(literal)
                }
            },
        };
        out.push(tree);
    }
}

/// How the compiler prints the model's tokens (in messages that quote them).
fn render(stream: &TokenStream) -> String {
    READ.with(|read| {
        let mut trees = Vec::new();
        write(stream.trees(), &read.borrow(), &mut trees);
        trees.into_iter().collect::<pm::TokenStream>().to_string()
    })
}
