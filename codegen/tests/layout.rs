//! The layout check (`codegen -- layout`, run over every release by `scripts/test.sh`) can fail,
//! once per kind of difference: on a scratch copy of the sys crate whose merged bindings were
//! edited the ways a wrong bindgen run or a wrong merge would (a field's type, a field's name, an
//! alignment, a union made a struct, an enumerator's or macro's value, a typedef, an item of
//! another release let into this one, another release's variant of an item given to this one),
//! the check of CUDA 12.8 names each edit; on the committed sys crate it finds nothing.
//!
//! Needs libclang, a C compiler (`cc`), `rustc` and the 12.8 header wheel (fetched into
//! `~/.cache/cuda-driver-table` when missing). No GPU.

use cuda_driver_table_codegen::layout;
use cuda_driver_table_codegen::releases::Release;
use std::path::{Path, PathBuf};

const RELEASE: &str = "12.8";

fn release() -> Release {
    *Release::find(RELEASE).unwrap_or_else(|| panic!("no release {RELEASE} in releases.rs"))
}

fn workspace() -> PathBuf {
    cuda_driver_table_codegen::workspace_root()
}

/// A copy of what the check reads: the workspace's `Cargo.toml` (its edition), the sys crate's
/// `lib.rs` and generated files, with `edit` applied to the merged bindings.
fn scratch(edit: impl FnOnce(String) -> String) -> PathBuf {
    let root = std::env::temp_dir().join(format!(
        "cuda-driver-table-layout-test-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&root);
    let generated = root.join("sys/src/generated");
    std::fs::create_dir_all(&generated).unwrap();
    let from = workspace();
    for rel in [
        "Cargo.toml",
        "sys/src/lib.rs",
        "sys/src/generated/select.rs",
    ] {
        std::fs::copy(from.join(rel), root.join(rel)).unwrap();
    }
    let bindings = std::fs::read_to_string(from.join("sys/src/generated/bindings.rs")).unwrap();
    std::fs::write(generated.join("bindings.rs"), edit(bindings)).unwrap();
    root
}

/// Replaces every occurrence, after checking there is one (the test would prove nothing if the
/// bindings no longer had the text).
fn replace_all(text: String, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "the bindings have no `{from}` any more: pick another edit"
    );
    text.replace(from, to)
}

/// Replaces the first occurrence of `from` after `anchor`.
fn replace_after(text: String, anchor: &str, from: &str, to: &str) -> String {
    let start = text
        .find(anchor)
        .unwrap_or_else(|| panic!("the bindings have no `{anchor}` any more: pick another edit"));
    let at = start
        + text[start..]
            .find(from)
            .unwrap_or_else(|| panic!("no `{from}` after `{anchor}`"));
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

const FEATURE_12_8: &str = "feature = \"cuda-12080\", ";

/// Where the inside of the `#[cfg(any(...))]` of the item at `item` starts (the last one before
/// it), and where its line ends.
fn cfg_of(text: &str, item: &str) -> (usize, usize) {
    let at = text
        .find(item)
        .unwrap_or_else(|| panic!("the bindings have no `{item}` any more: pick another item"));
    let start = text[..at]
        .rfind("#[cfg(any(")
        .expect("a cfg before the item")
        + "#[cfg(any(".len();
    (start, start + text[start..].find('\n').unwrap())
}

/// Adds the 12.8 feature to the `#[cfg(any(...))]` of the item at `item`.
fn let_into_12_8(text: String, item: &str) -> String {
    let (start, end) = cfg_of(&text, item);
    assert!(
        !text[start..end].contains("cuda-12080"),
        "{item} is in 12.8 already: pick another item"
    );
    format!("{}{FEATURE_12_8}{}", &text[..start], &text[start..])
}

/// Moves the 12.8 feature from the `#[cfg]` of the item at `from` to that of the item at `to`
/// (a merge that gave 12.8 another release's variant).
fn move_12_8(text: String, from: &str, to: &str) -> String {
    let (start, end) = cfg_of(&text, from);
    let line = text[start..end].replace(FEATURE_12_8, "");
    assert!(
        line.len() < end - start,
        "{from} is not in 12.8: pick another item"
    );
    let_into_12_8(format!("{}{line}{}", &text[..start], &text[end..]), to)
}

fn problems(root: &Path) -> Vec<String> {
    let outcomes = layout::check(root, &[release()]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outcomes.len(), 1);
    outcomes[0].1.problems.clone()
}

#[test]
fn the_committed_bindings_of_one_release_equal_the_c_compiler_s_layouts() {
    let outcomes = layout::check(&workspace(), &[release()]).unwrap_or_else(|e| panic!("{e}"));
    let (_, outcome) = &outcomes[0];
    assert!(outcome.problems.is_empty(), "{:#?}", outcome.problems);
    // The check measured something of every kind.
    let c = &outcome.counts;
    assert!(
        c.records > 50 && c.fields > 300 && c.enums > 50 && c.enumerators > 500,
        "{c:?}"
    );
    assert!(
        c.typedefs > 100 && c.constants > 20 && c.opaque > 10,
        "{c:?}"
    );
}

#[test]
fn each_kind_of_difference_is_named() {
    let root = scratch(|b| {
        // A field's type: the same offset, another size.
        let b = replace_after(
            b,
            "pub struct CUDA_ARRAY_DESCRIPTOR_st {",
            "pub Width: usize,",
            "pub Width: u32,",
        );
        // A field's name.
        let b = replace_after(
            b,
            "pub struct CUDA_ARRAY_DESCRIPTOR_st {",
            "pub NumChannels:",
            "pub NumChannel:",
        );
        // An alignment.
        let b = replace_all(
            b,
            "pub struct CUuuid_st {",
            "#[repr(align(16))]\npub struct CUuuid_st {",
        );
        // A union made a struct.
        let b = replace_all(
            b,
            "pub union CUlaunchAttributeValue_union {",
            "pub struct CUlaunchAttributeValue_union {",
        );
        // An enumerator's value, a macro constant's value.
        let b = replace_all(
            b,
            "CUDA_ERROR_INVALID_VALUE: CUresult = CUresult(1);",
            "CUDA_ERROR_INVALID_VALUE: CUresult = CUresult(2);",
        );
        let b = replace_all(
            b,
            "pub const CUDA_ARRAY3D_LAYERED: u32 = 1;",
            "pub const CUDA_ARRAY3D_LAYERED: u32 = 3;",
        );
        // A typedef.
        let b = replace_all(
            b,
            "pub type CUdeviceptr_v2 = ::core::ffi::c_ulonglong;",
            "pub type CUdeviceptr_v2 = ::core::ffi::c_uint;",
        );
        // A struct of 13.0 and later let into 12.8 by its cfg.
        let b = let_into_12_8(b, "pub struct CUcheckpointGpuPair_st {");
        // 13.0's variant of a struct given to 12.8 instead of its own (aligned to 128, not 64).
        move_12_8(b, "#[repr(align(64))]", "#[repr(align(128))]")
    });
    let found = problems(&root);
    let _ = std::fs::remove_dir_all(&root);
    let expected = [
        "CUDA_ARRAY_DESCRIPTOR_st.Width: offset, size: 0, 8 in C, 0, 4 in the bindings",
        "field CUDA_ARRAY_DESCRIPTOR_st.NumChannels of cuda.h is not in the bindings (NumChannels)",
        "field CUDA_ARRAY_DESCRIPTOR_st.NumChannel is in the bindings but not in cuda.h",
        "CUuuid_st: size, alignment: 16, 1 in C, 16, 16 in the bindings",
        "CUlaunchAttributeValue_union is a union in cuda.h and a struct in the bindings",
        "cudaError_enum::CUDA_ERROR_INVALID_VALUE: 1 in C, 2 in the bindings",
        "constant CUDA_ARRAY3D_LAYERED: 1 in C, 3 in the bindings",
        "CUdeviceptr_v2: size, alignment: 8, 8 in C, 4, 4 in the bindings",
        "struct CUcheckpointGpuPair_st is in the bindings but not in cuda.h",
        "CUtensorMap_st: size, alignment: 128, 64 in C, 128, 128 in the bindings",
    ];
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|e| !found.iter().any(|f| f == e))
        .collect();
    assert!(
        missing.is_empty(),
        "not reported: {missing:#?}\nreported: {found:#?}"
    );
}
