//! The `cuda-local` path (`local.rs`): where it looks for headers and what it says when there are
//! none, and, on the 13.0 wheel's include folder, that the three files a local build writes into
//! `OUT_DIR` say exactly what the committed files say for CUDA 13.0.
//!
//! The committed files store every release together (each distinct item once), so the 13.0 view is
//! re-derived from them: the items of `bindings.rs` that 13.0 has (no `cfg`, or one naming
//! `cuda-13000`), the records `manifest_13000.rs` lists with their doc texts put back in, and
//! `abis_13000.rs` as it is. Needs libclang, `cc` and the 13.0 wheel (fetched if missing).

use cuda_driver_table_codegen::local::{self, Crate};
use cuda_driver_table_codegen::{fetch, releases::Release, workspace_root};
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}

#[test]
fn the_include_folder_is_searched_in_the_documented_order() {
    let all = env(&[
        ("CUDA_DRIVER_TABLE_INCLUDE", "/a/include"),
        ("CUDA_PATH", "/opt/cuda"),
    ]);
    let dirs: Vec<PathBuf> = local::candidates(&all).into_iter().map(|c| c.0).collect();
    assert_eq!(
        dirs,
        [
            PathBuf::from("/a/include"),
            PathBuf::from("/opt/cuda/include"),
            PathBuf::from("/usr/local/cuda/include"),
        ]
    );
    let none = env(&[("CUDA_PATH", "")]);
    let dirs: Vec<PathBuf> = local::candidates(&none).into_iter().map(|c| c.0).collect();
    assert_eq!(dirs, [PathBuf::from("/usr/local/cuda/include")]);
}

#[test]
fn missing_headers_name_every_folder_searched_and_what_to_do() {
    let dir = std::env::temp_dir().join(format!("cdt-local-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("cuda.h"), "#define CUDA_VERSION 13000\n").unwrap();
    let vars = [
        ("CUDA_DRIVER_TABLE_INCLUDE", dir.to_str().unwrap()),
        ("CUDA_PATH", "/nonexistent/cuda-driver-table-test"),
    ];
    let vars = env(&vars);
    if Path::new(local::DEFAULT_INCLUDE)
        .join("cudaTypedefs.h")
        .is_file()
    {
        // This machine has a toolkit: the default folder is found, which is right.
        assert!(local::find_include(&vars).is_ok());
        return;
    }
    let err = local::find_include(&vars).unwrap_err();
    let first = err.find(&dir.display().to_string()).expect(&err);
    let second = err
        .find("/nonexistent/cuda-driver-table-test/include")
        .expect(&err);
    let third = err.find("/usr/local/cuda/include").expect(&err);
    assert!(first < second && second < third, "{err}");
    assert!(err.contains("has no cudaTypedefs.h"), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(err.contains("CUDA_DRIVER_TABLE_INCLUDE"), "{err}");
    assert!(err.contains("cuda-XXXXX"), "{err}");
    assert_eq!(local::header_version(&dir), Ok(13000));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The items of a bindings file as 13.0 sees them: those without a `cfg` or with one that names
/// `cuda-13000`, each without its `cfg` and formatted on its own, sorted (the order of two items of
/// one name may differ between the shared file and a single release's; Rust does not care).
fn items_for(text: &str, feature: &str) -> Vec<String> {
    let file = syn::parse_file(text).expect("the bindings parse");
    let mut out: Vec<String> = file
        .items
        .into_iter()
        .filter_map(|mut item| {
            let attrs = match &mut item {
                syn::Item::Const(i) => &mut i.attrs,
                syn::Item::Enum(i) => &mut i.attrs,
                syn::Item::Struct(i) => &mut i.attrs,
                syn::Item::Type(i) => &mut i.attrs,
                syn::Item::Union(i) => &mut i.attrs,
                syn::Item::Impl(i) => &mut i.attrs,
                syn::Item::Static(i) => &mut i.attrs,
                syn::Item::Use(i) => &mut i.attrs,
                syn::Item::Fn(i) => &mut i.attrs,
                other => panic!("unexpected item {}", other.to_token_stream()),
            };
            let cfg = attrs.iter().position(|a| a.path().is_ident("cfg"));
            if let Some(i) = cfg {
                let cfg = attrs.remove(i).to_token_stream().to_string();
                if !cfg.contains(&format!("\"{feature}\"")) {
                    return None;
                }
            }
            Some(prettyplease::unparse(&syn::File {
                shebang: None,
                attrs: Vec::new(),
                items: vec![item],
            }))
        })
        .collect();
    out.sort();
    out
}

/// `const NAME: T = EXPR;` and `pub static NAME: T = &[..]` items of `items`, by name.
fn consts(items: &[syn::Item]) -> HashMap<String, syn::Expr> {
    let mut out = HashMap::new();
    for item in items {
        match item {
            syn::Item::Const(c) => {
                out.insert(c.ident.to_string(), (*c.expr).clone());
            }
            syn::Item::Static(s) => {
                out.insert(s.ident.to_string(), (*s.expr).clone());
            }
            _ => {}
        }
    }
    out
}

/// Replaces each identifier that names a doc constant by its string.
fn resolve_docs(tokens: TokenStream, docs: &HashMap<String, syn::Expr>) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) if docs.contains_key(&i.to_string()) => {
                TokenTree::Group(proc_macro2::Group::new(
                    proc_macro2::Delimiter::None,
                    docs[&i.to_string()].to_token_stream(),
                ))
            }
            TokenTree::Group(g) => {
                let mut n = proc_macro2::Group::new(g.delimiter(), resolve_docs(g.stream(), docs));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            other => other,
        })
        .collect()
}

/// The release name and the full records (doc texts in place) a manifest lists, in its order.
fn records(functions: &[syn::Item], manifest: &[syn::Item]) -> (String, Vec<String>) {
    let all = consts(functions);
    let docs: HashMap<String, syn::Expr> = all
        .iter()
        .filter(|(k, _)| k.contains("_doc_"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let list = consts(manifest);
    let name = list["RELEASE_NAME"].to_token_stream().to_string();
    let syn::Expr::Reference(r) = &list["FUNCTIONS"] else {
        panic!("FUNCTIONS is not &[..]")
    };
    let syn::Expr::Array(a) = &*r.expr else {
        panic!("FUNCTIONS is not &[..]")
    };
    let records = a
        .elems
        .iter()
        .map(|e| {
            let constant = e.to_token_stream().to_string();
            let record = all
                .get(&constant)
                .unwrap_or_else(|| panic!("no record {constant}"));
            resolve_docs(record.to_token_stream(), &docs).to_string()
        })
        .collect();
    (name, records)
}

fn module_items<'a>(file: &'a syn::File, name: &str) -> &'a [syn::Item] {
    file.items
        .iter()
        .find_map(|i| match i {
            syn::Item::Mod(m) if m.ident == name => m.content.as_ref().map(|c| c.1.as_slice()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no mod {name}"))
}

/// The text below the `//` header.
fn body(text: &str) -> String {
    text.lines()
        .skip_while(|l| l.starts_with("//") || l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_13_0_wheel_as_a_local_toolkit_gives_the_committed_13_0_files() {
    let release = *Release::find("13.0").expect("13.0 is pinned");
    let include = fetch::fetch(&release).expect("the 13.0 wheel").include;
    let parsed = local::parse(&include).expect("the local path runs");
    assert_eq!(parsed.source.version(), 13000, "CUDA_VERSION of cuda.h");
    let root = workspace_root();

    // The runtime's ABI list: the same text.
    let abis = Crate::Runtime.text(&parsed);
    assert_eq!(
        body(&abis),
        body(&read(&root, "runtime/src/generated/abis_13000.rs"))
    );

    // The bindings: the same items (and RELEASE = 13000).
    let local_items = items_for(&Crate::Sys.text(&parsed), "cuda-13000");
    let committed_items = items_for(&read(&root, "sys/src/generated/bindings.rs"), "cuda-13000");
    assert!(local_items.len() > 1000, "{} items", local_items.len());
    assert_eq!(local_items.len(), committed_items.len());
    for (l, c) in local_items.iter().zip(&committed_items) {
        assert_eq!(l, c);
    }

    // The macro's manifest: the same records, in the same order, with the same doc texts.
    let local_file = syn::parse_file(&Crate::Macros.text(&parsed)).expect("the manifest parses");
    let local = records(
        module_items(&local_file, "functions"),
        module_items(&local_file, "selected"),
    );
    let functions = syn::parse_file(&read(&root, "macros/src/generated/functions.rs")).unwrap();
    let manifest = syn::parse_file(&read(&root, "macros/src/generated/manifest_13000.rs")).unwrap();
    let committed = records(&functions.items, &manifest.items);
    assert_eq!(local.0, committed.0);
    assert!(local.1.len() > 400, "{} functions", local.1.len());
    assert_eq!(local.1.len(), committed.1.len());
    for (l, c) in local.1.iter().zip(&committed.1) {
        assert_eq!(l, c);
    }
    let selected = module_items(&local_file, "selected");
    assert_eq!(
        consts(selected)["RELEASE"].to_token_stream().to_string(),
        "13000"
    );
}
