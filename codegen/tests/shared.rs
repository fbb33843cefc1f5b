//! What keeps the published crates small: items and records that several releases share are
//! written once, and each release still gets exactly its own. Synthetic releases, no headers.

use cuda_driver_table_codegen::emit::{bindings_text, Records};
use cuda_driver_table_codegen::manifest::{Abi, Function, Manifest};
use cuda_driver_table_codegen::pipeline::{BindingItem, ParsedRelease, Source};
use std::collections::BTreeMap;

fn item(name: &str, text: &str) -> BindingItem {
    BindingItem {
        name: name.into(),
        text: format!("{text}\n"),
    }
}

fn function(name: &str, doc: &str) -> Function {
    Function {
        name: name.into(),
        abis: vec![Abi {
            version: 2000,
            typedef: format!("PFN_{name}_v2000"),
            params: Vec::new(),
            ret: "CUresult".into(),
            c_prototype: format!("CUresult {name}(void)"),
            export: Some(name.into()),
            per_thread: None,
            doc: Some(doc.into()),
        }],
    }
}

fn release(version: u32, items: Vec<BindingItem>, functions: Vec<Function>) -> ParsedRelease {
    let mut manifest = Manifest::default();
    for f in functions {
        manifest.functions.insert(f.name.clone(), f);
    }
    ParsedRelease {
        source: Source::Local {
            version,
            include: format!("/include/{version}").into(),
        },
        bindings: String::new(),
        items,
        sys_paths: BTreeMap::from([("CUresult".to_string(), "CUresult".to_string())]),
        manifest,
    }
}

fn releases() -> [ParsedRelease; 3] {
    let shared = || item("CUdevice", "pub type CUdevice = i32;");
    [
        release(
            12000,
            vec![shared(), item("CUx", "pub struct CUx(u32);")],
            vec![function("cuInit", "\\brief Init"), function("cuOld", "Old")],
        ),
        release(
            12010,
            vec![shared(), item("CUx", "pub struct CUx(u32);")],
            vec![function("cuInit", "\\brief Init")],
        ),
        release(
            12020,
            vec![shared(), item("CUx", "pub struct CUx(u64);")],
            vec![function("cuInit", "\\brief Init, returns ::CUresult")],
        ),
    ]
}

#[test]
fn each_distinct_item_is_written_once_behind_the_features_of_its_releases() {
    let r = releases();
    let text = bindings_text(&r.iter().collect::<Vec<_>>());
    assert_eq!(text.matches("pub type CUdevice = i32;").count(), 1);
    // In every release: no attribute.
    assert!(
        text.contains("pub const RELEASE: u32 = 12020;\npub type CUdevice"),
        "{text}"
    );
    assert!(text.contains(
        "#[cfg(any(feature = \"cuda-12000\", feature = \"cuda-12010\"))]\npub struct CUx(u32);"
    ));
    assert!(text.contains("#[cfg(any(feature = \"cuda-12020\"))]\npub struct CUx(u64);"));
    for v in [12000, 12010, 12020] {
        assert!(text.contains(&format!(
            "#[cfg(feature = \"cuda-{v}\")]\npub const RELEASE: u32 = {v};"
        )));
    }
    assert!(text.contains("//   CUDA 12.0 cuda.h + cudaTypedefs.h from /include/12000"));
}

#[test]
fn each_distinct_record_and_doc_is_written_once_and_each_release_lists_its_own() {
    let r = releases();
    let all: Vec<&ParsedRelease> = r.iter().collect();
    let records = Records::collect(&all);
    let functions = records.functions_text(&all);
    // cuInit has two records (its doc changed in 12.2), each doc text once, in Markdown.
    assert_eq!(
        functions
            .matches("const cuInit_doc_1: &str = \"Init\";")
            .count(),
        1
    );
    assert!(functions
        .contains("const cuInit_doc_2: &str = \"Init, returns [`CUresult`](sys::CUresult)\";"));
    assert!(functions.contains("/// CUDA 12.0, 12.1.\npub const cuInit_12000: Function"));
    assert!(functions.contains("/// CUDA 12.2.\npub const cuInit_12020: Function"));
    assert_eq!(functions.matches("pub const cuInit_").count(), 2);
    assert_eq!(
        records.manifest_text(12000),
        "/// The name of this release, as messages and docs show it.\npub const RELEASE_NAME: &str = \"12.0\";\n\n\
         /// Every function of this release, sorted by name (the records are in `functions.rs`).\n\
         pub static FUNCTIONS: &[Function] = &[\n    cuInit_12000,\n    cuOld_12000,\n];\n"
    );
    assert!(records
        .manifest_text(12010)
        .contains("&[\n    cuInit_12000,\n];"));
    assert!(records
        .manifest_text(12020)
        .contains("&[\n    cuInit_12020,\n];"));
}
