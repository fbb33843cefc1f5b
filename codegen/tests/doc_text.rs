//! `parse::doc_of`: how bindgen's `#[doc]` attributes become the manifest's doc text.
//! Pure tests on attributes: no headers, no libclang.

use cuda_driver_table_codegen::parse::doc_of;

fn attrs(lines: &[&str]) -> Vec<syn::Attribute> {
    lines
        .iter()
        .map(|line| syn::parse_quote!(#[doc = #line]))
        .collect()
}

#[test]
fn strips_one_leading_space_and_trims_blank_edges() {
    let doc = doc_of(&attrs(&[
        "\n \\brief Allocates device memory\n\n \\param dptr     - Returned device pointer   \n\n",
    ]));
    assert_eq!(
        doc.as_deref(),
        Some("\\brief Allocates device memory\n\n\\param dptr     - Returned device pointer")
    );
    // Only the one space the comment's `*` leaves is removed; indentation beyond it stays.
    let doc = doc_of(&attrs(&[" - ::CU_CTX_SCHED_SPIN\n   spins"]));
    assert_eq!(doc.as_deref(), Some("- ::CU_CTX_SCHED_SPIN\n  spins"));
}

#[test]
fn one_attribute_with_several_lines() {
    // bindgen emits one attribute per comment, with the lines inside.
    let doc = doc_of(&attrs(&[
        " \\brief Gets free and total memory\n\n Returns in \\p *total",
    ]));
    assert_eq!(
        doc.as_deref(),
        Some("\\brief Gets free and total memory\n\nReturns in \\p *total")
    );
}

#[test]
fn no_text_is_none() {
    assert_eq!(doc_of(&[]), None);
    assert_eq!(doc_of(&attrs(&["", "   ", ""])), None);
    let other: syn::Attribute = syn::parse_quote!(#[inline]);
    assert_eq!(doc_of(&[other]), None);
}

#[test]
fn a_group_end_is_not_documentation() {
    // `/** @} */ /* END CUDA_DRIVER_ENTRY_POINT */` is what clang attaches to `cuGetExportTable`.
    assert_eq!(doc_of(&attrs(&[" @}"])), None);
    assert_eq!(doc_of(&attrs(&[" \\}"])), None);
    let doc = doc_of(&attrs(&[" \\brief Create a CUDA context", " @}"]));
    assert_eq!(doc.as_deref(), Some("\\brief Create a CUDA context"));
}

#[test]
fn a_group_definition_is_not_documentation() {
    // A `\defgroup` comment describes the group, not the declaration that happens to follow it.
    let group = [
        " \\defgroup CUDA_MEM Memory Management",
        "",
        " This section describes the memory management functions.",
        "",
        " @{",
    ];
    assert_eq!(doc_of(&attrs(&group)), None);
    assert_eq!(doc_of(&attrs(&[" \\addtogroup CUDA_MEM", " @{"])), None);
    // Mentioning a group inside a function's own text is fine.
    let doc = doc_of(&attrs(&[
        " \\brief Frees memory",
        " See \\defgroup CUDA_MEM",
    ]));
    assert_eq!(
        doc.as_deref(),
        Some("\\brief Frees memory\nSee \\defgroup CUDA_MEM")
    );
}

#[test]
fn a_trailing_member_comment_loses_its_marker() {
    use cuda_driver_table_codegen::parse::member_comment;
    // `int x; /**< Source X in bytes */` reaches bindgen's callback as "< Source X in bytes".
    assert_eq!(
        member_comment("< Source X in bytes").as_deref(),
        Some(" Source X in bytes")
    );
    assert_eq!(member_comment("<Tight").as_deref(), Some(" Tight"));
    assert_eq!(member_comment(" A normal comment with a < inside"), None);
}

#[test]
fn a_cu_result_is_described_by_the_first_sentence_of_its_documentation() {
    use cuda_driver_table_codegen::emit::first_sentence;
    assert_eq!(
        first_sentence(
            " This indicates that the CUDA driver has not been initialized with\n ::cuInit() or \
             that initialization has failed."
        ),
        "This indicates that the CUDA driver has not been initialized with cuInit() or that \
         initialization has failed"
    );
    assert_eq!(
        first_sentence(
            " \\deprecated\n This error return is deprecated as of CUDA 5.0. It is no longer an \
             error to attempt to enable/disable the profiling via ::cuProfilerStart."
        ),
        "This error return is deprecated as of CUDA 5.0"
    );
    assert_eq!(
        first_sentence(" Invalid source, e.g. a bad image. More text."),
        "Invalid source, e.g. a bad image"
    );
    assert_eq!(first_sentence(""), "");
}
