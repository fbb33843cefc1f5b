//! The attribute names the primitives and `core::ffi`'s C types of a method's signature through
//! the runtime's `__private` (`__cdt::c_uint`): its lists of them (`PRIMITIVES` and `C_TYPES` in
//! `macros/src/expand.rs`) and the re-exports in `core/src/__private.rs` are two lists of one
//! fact. A name the macro writes that `__private` lacks breaks only the tables whose functions
//! use it, so this checks the two against each other, as text, both ways.

use std::path::Path;

/// The file at `path` from the repository root.
fn source(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text of `text` between `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str, what: &str) -> &'a str {
    let (_, rest) = text
        .split_once(start)
        .unwrap_or_else(|| panic!("{what}: no `{start}`"));
    rest.split_once(end)
        .unwrap_or_else(|| panic!("{what}: no `{end}` after `{start}`"))
        .0
}

/// The string literals of the macro's `const <name>: &[&str] = &[...]`.
fn macro_list(expand: &str, name: &str) -> Vec<String> {
    let list = between(expand, &format!("const {name}: &[&str] = &["), "];", name);
    list.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.strip_prefix('"')
                .and_then(|item| item.strip_suffix('"'))
                .unwrap_or_else(|| panic!("{name}: `{item}` is not a string literal"))
                .to_owned()
        })
        .collect()
}

/// The names of `__private`'s `pub use <path>::{...};`.
fn re_exports(private: &str, path: &str) -> Vec<String> {
    let list = between(private, &format!("pub use {path}::{{"), "};", path);
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_name_the_macro_writes_through_private_is_re_exported_there() {
    let expand = source("macros/src/expand.rs");
    let private = source("core/src/__private.rs");
    for (list, path) in [("PRIMITIVES", "std::primitive"), ("C_TYPES", "std::ffi")] {
        let mut written = macro_list(&expand, list);
        let mut exported = re_exports(&private, path);
        assert!(!written.is_empty(), "{list} is empty");
        written.sort();
        exported.sort();
        assert_eq!(
            written, exported,
            "the macro's {list} (macros/src/expand.rs) and the re-exports of {path} in \
             core/src/__private.rs must name the same types"
        );
    }
}
