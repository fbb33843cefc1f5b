//! The committed bindings name each newtype enum by the typedef users write: rustdoc shows a type
//! re-exported with `pub use` by its definition's name in another crate's pages, so
//! `pub struct cudaError_enum` with `pub use self::cudaError_enum as CUresult;` made every
//! signature written with `CUresult` read `cudaError_enum`. The C tag stays a name of the same
//! type (`pub use self::CUresult as cudaError_enum;`), its tuple constructor included.

use std::collections::BTreeSet;
use std::path::Path;

fn bindings() -> syn::File {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(cuda_driver_table_codegen::emit::BINDINGS_PATH);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `pub use self::A as B;` as `(A, B)`.
fn self_renames(file: &syn::File) -> Vec<(String, String)> {
    file.items
        .iter()
        .filter_map(|item| {
            let syn::Item::Use(u) = item else { return None };
            let syn::UseTree::Path(p) = &u.tree else {
                return None;
            };
            let syn::UseTree::Rename(r) = &*p.tree else {
                return None;
            };
            (p.ident == "self").then(|| (r.ident.to_string(), r.rename.to_string()))
        })
        .collect()
}

#[test]
fn newtype_enums_are_named_by_their_typedefs_and_keep_their_tags() {
    let file = bindings();
    let newtypes: BTreeSet<String> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) if matches!(s.fields, syn::Fields::Unnamed(_)) => {
                Some(s.ident.to_string())
            }
            _ => None,
        })
        .collect();
    for name in [
        "CUresult",
        "CUdevice_attribute",
        "CUmemorytype",
        "CUlaunchAttributeID",
    ] {
        assert!(
            newtypes.contains(name),
            "no `pub struct {name}(...)` in the bindings"
        );
    }
    let renames = self_renames(&file);
    for (name, tag) in [
        ("CUresult", "cudaError_enum"),
        ("CUdevice_attribute", "CUdevice_attribute_enum"),
    ] {
        assert!(
            renames.contains(&(name.to_string(), tag.to_string())),
            "no `pub use self::{name} as {tag};` in the bindings"
        );
    }
    // No struct is named by its tag while a typedef renames it.
    let by_tag: Vec<_> = renames
        .iter()
        .filter(|(target, _)| newtypes.contains(target) && target.ends_with("_enum"))
        .collect();
    assert!(
        by_tag.is_empty(),
        "newtype enums still named by their C tag: {by_tag:?}"
    );
}
