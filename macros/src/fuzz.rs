//! A property test of the whole attribute: arbitrary argument lists and items, from plain noise
//! to near-misses of valid tables, must never make the macro panic, and what it returns must
//! always be a token stream the compiler can read (the table, errors, or the item unchanged).
//!
//! Tokens are drawn from what the macro looks at: driver function names (real, near, per-thread
//! exports), the option names and values, the punctuation of its grammar (`, = : ; # ! < > -`),
//! literals of every kind, and nested groups. Runs a few hundred cases in seconds:
//! `cargo test -p cuda-driver-table-macros --features cuda-13000 fuzz`.

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use proptest::prelude::*;
use std::str::FromStr;

const WORDS: &[&str] = &[
    // Functions, real and not: pins, per-thread exports, near names, other releases.
    "cuInit",
    "cuMemAlloc",
    "cuCtxCreate",
    "cuLaunchKernel",
    "cuLaunchKernel_ptsz",
    "cuMemcpy_ptds",
    "cuCtxCreate_v2",
    "cuCtxCreate_v9",
    "cuMemcpyHtoD_v2_ptds",
    "cuMemAloc",
    "cuGraphGetId",
    "cu",
    "cuda",
    // Options and their values.
    "all",
    "per_thread",
    "per_thred",
    "backend",
    "driver",
    "runtime",
    "crate",
    "cdt",
    "cuda_driver_table",
    "my_wrapper",
    // What items are made of.
    "pub",
    "struct",
    "enum",
    "union",
    "fn",
    "const",
    "unsafe",
    "impl",
    "mod",
    "derive",
    "driver_table",
    "Default",
    "Clone",
    "Debug",
    "doc",
    "self",
    "super",
    "Self",
    "Cuda",
    "T",
    "_",
];

const PUNCT: &[char] = &[',', '=', ':', ';', '#', '!', '<', '>', '-', '&', '.'];

fn word() -> impl Strategy<Value = TokenTree> {
    prop_oneof![
        8 => prop::sample::select(WORDS).prop_map(|w| TokenTree::Ident(Ident::new(w, Span::call_site()))),
        1 => prop::sample::select(&["type", "match", "cuInit"][..])
            .prop_map(|w| TokenTree::Ident(Ident::new_raw(w, Span::call_site()))),
    ]
}

fn punct() -> impl Strategy<Value = TokenTree> {
    (prop::sample::select(PUNCT), any::<bool>()).prop_map(|(c, joint)| {
        let spacing = if joint {
            Spacing::Joint
        } else {
            Spacing::Alone
        };
        TokenTree::Punct(Punct::new(c, spacing))
    })
}

fn literal() -> impl Strategy<Value = TokenTree> {
    let strings = prop::sample::select(
        &[
            "cdt",
            "::cdt",
            "crate::cdt",
            "a::",
            "::",
            "",
            "cuda-driver-table",
            "driver",
            "v3",
            "12.0",
            "12.",
            "999.99",
            "a b",
            "\\",
            "é",
        ][..],
    );
    prop_oneof![
        any::<u32>().prop_map(Literal::u32_unsuffixed),
        prop::sample::select(&[2000u32, 3020, 11030, 11040, 12000, 12050, 12, 0][..])
            .prop_map(Literal::u32_unsuffixed),
        any::<u64>().prop_map(Literal::u64_suffixed),
        any::<i32>().prop_map(Literal::i32_suffixed),
        (-1.0e6f64..1.0e6).prop_map(Literal::f64_unsuffixed),
        strings.clone().prop_map(Literal::string),
        strings.prop_map(|s| Literal::byte_string(s.as_bytes())),
        any::<char>().prop_map(Literal::character),
    ]
    .prop_map(TokenTree::Literal)
}

fn delimiter() -> impl Strategy<Value = Delimiter> {
    prop::sample::select(
        &[
            Delimiter::Parenthesis,
            Delimiter::Bracket,
            Delimiter::Brace,
            Delimiter::None,
        ][..],
    )
}

/// Any token tree, groups nested a few levels deep.
fn tree() -> impl Strategy<Value = TokenTree> {
    let leaf = prop_oneof![4 => word(), 3 => punct(), 2 => literal()];
    leaf.prop_recursive(3, 24, 6, |inner| {
        (delimiter(), prop::collection::vec(inner, 0..6))
            .prop_map(|(d, trees)| TokenTree::Group(Group::new(d, trees.into_iter().collect())))
    })
}

fn tokens(max: usize) -> impl Strategy<Value = TokenStream> {
    prop::collection::vec(tree(), 0..max).prop_map(|t| t.into_iter().collect())
}

/// `a`, `::a::b`, `crate::a`: what `crate = ...` takes, and near misses.
fn path() -> impl Strategy<Value = TokenStream> {
    (any::<bool>(), prop::collection::vec(word(), 1..4)).prop_map(|(leading, names)| {
        let mut out = TokenStream::new();
        for (i, name) in names.into_iter().enumerate() {
            if i > 0 || leading {
                out.extend([
                    TokenTree::Punct(Punct::new(':', Spacing::Joint)),
                    TokenTree::Punct(Punct::new(':', Spacing::Alone)),
                ]);
            }
            out.extend([name]);
        }
        out
    })
}

/// An option with a value of the kinds options take.
fn option() -> impl Strategy<Value = TokenStream> {
    let name = prop::sample::select(
        &[
            "backend",
            "crate",
            "driver",
            "all",
            "per_thread",
            "cuCtxCreate",
            "cuCtxCreate_v2",
        ][..],
    );
    let value = prop_oneof![
        word().prop_map(TokenStream::from),
        literal().prop_map(TokenStream::from),
        path(),
    ];
    (name, value).prop_map(|(name, value)| {
        let mut part = TokenStream::from(TokenTree::Ident(Ident::new(name, Span::call_site())));
        part.extend([TokenTree::Punct(Punct::new('=', Spacing::Alone))]);
        part.extend(value);
        part
    })
}

/// One part of an argument list that is close to valid: `name`, `name = value`, or noise.
fn part() -> impl Strategy<Value = TokenStream> {
    prop_oneof![
        3 => word().prop_map(TokenStream::from),
        3 => option(),
        3 => (word(), tokens(3)).prop_map(|(name, value)| {
            let mut part = TokenStream::from(name);
            part.extend([TokenTree::Punct(Punct::new('=', Spacing::Alone))]);
            part.extend(value);
            part
        }),
        1 => tokens(4),
    ]
}

/// Argument lists: noise, or parts separated by commas (empty parts included).
fn args() -> impl Strategy<Value = TokenStream> {
    prop_oneof![
        1 => tokens(8),
        3 => prop::collection::vec(part(), 0..5).prop_map(|parts| {
            let mut out = TokenStream::new();
            for (i, p) in parts.into_iter().enumerate() {
                if i > 0 {
                    out.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
                }
                out.extend(p);
            }
            out
        }),
    ]
}

/// `#[...]` with a derive list, a driver_table attribute, or anything.
fn attribute() -> impl Strategy<Value = TokenStream> {
    let body = prop_oneof![
        prop::collection::vec(word(), 0..4).prop_map(|names| {
            let mut list = TokenStream::new();
            for (i, n) in names.into_iter().enumerate() {
                if i > 0 {
                    list.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
                }
                list.extend([n]);
            }
            let mut body =
                TokenStream::from(TokenTree::Ident(Ident::new("derive", Span::call_site())));
            body.extend([TokenTree::Group(Group::new(Delimiter::Parenthesis, list))]);
            body
        }),
        args().prop_map(|a| {
            let mut body = TokenStream::from(TokenTree::Ident(Ident::new(
                "driver_table",
                Span::call_site(),
            )));
            body.extend([TokenTree::Group(Group::new(Delimiter::Parenthesis, a))]);
            body
        }),
        tokens(3),
    ];
    body.prop_map(|body| {
        let mut attr = TokenStream::from(TokenTree::Punct(Punct::new('#', Spacing::Alone)));
        attr.extend([TokenTree::Group(Group::new(Delimiter::Bracket, body))]);
        attr
    })
}

/// Items: noise, or `attrs vis? struct|enum|... Name generics? body` with each piece varied.
fn item() -> impl Strategy<Value = TokenStream> {
    let structured = (
        prop::collection::vec(attribute(), 0..3),
        prop::option::of(tokens(2)),
        word(),
        prop::option::of(word()),
        prop::option::of(tokens(3)),
        tokens(3),
    )
        .prop_map(|(attrs, vis, keyword, name, generics, body)| {
            let mut item = TokenStream::new();
            item.extend(attrs);
            if let Some(vis) = vis {
                item.extend([TokenTree::Ident(Ident::new("pub", Span::call_site()))]);
                item.extend(vis);
            }
            item.extend([keyword]);
            item.extend(name);
            if let Some(generics) = generics {
                item.extend([TokenTree::Punct(Punct::new('<', Spacing::Alone))]);
                item.extend(generics);
                item.extend([TokenTree::Punct(Punct::new('>', Spacing::Alone))]);
            }
            item.extend(body);
            item
        });
    prop_oneof![1 => tokens(8), 3 => structured]
}

/// Whether the compiler (here: proc-macro2's own lexer, the same grammar) reads `tokens` back.
fn reads_back(tokens: &TokenStream) -> bool {
    TokenStream::from_str(&tokens.to_string()).is_ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn the_macro_never_panics_and_always_returns_tokens(args in args(), item in item()) {
        // The manifest decides what `check` and `expand` reach; without one, they are skipped.
        prop_assume!(crate::manifest::RELEASE != 0);
        let out = crate::table(args.clone(), item.clone());
        if reads_back(&args) && reads_back(&item) {
            prop_assert!(reads_back(&out), "unreadable output for ({args}) on {item}:\n{out}");
        }
    }

    #[test]
    fn a_unit_struct_is_always_expanded_whatever_the_arguments(args in args()) {
        prop_assume!(crate::manifest::RELEASE != 0);
        let item = quote::quote!(pub struct Cuda;);
        let out = crate::table(args.clone(), item).to_string();
        // Faulty arguments are reported, and the table is still emitted once, so the rest of the
        // user's code type-checks.
        prop_assert_eq!(out.matches("struct Cuda {").count(), 1, "({}):\n{}", args, out);
    }
}
