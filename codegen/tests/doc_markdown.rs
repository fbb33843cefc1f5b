//! `doc::markdown`: `cuda.h`'s Doxygen comments as the Markdown rustdoc shows on each method.
//! Pure tests on text: no headers, no libclang.

use cuda_driver_table_codegen::doc::{markdown, Ref};

fn refs(name: &str) -> Ref {
    match name {
        "cuMemFree" | "cuMemAlloc" => Ref::Function,
        "CUDA_SUCCESS" => Ref::Sys("CUresult::CUDA_SUCCESS".into()),
        "CUdeviceptr" => Ref::Sys("CUdeviceptr".into()),
        _ => Ref::Plain,
    }
}

const MEM_ALLOC: &str = "\\brief Allocates device memory

Allocates \\p bytesize bytes and returns in \\p *dptr a pointer. If \\p bytesize
is 0, ::cuMemAlloc() returns ::CUDA_ERROR_INVALID_VALUE.

\\param dptr     - Returned device pointer
\\param[in] bytesize - Requested allocation size
                     in bytes

\\return
::CUDA_SUCCESS,
::CUDA_ERROR_INVALID_VALUE
\\notefnerr

\\sa ::cuMemFree, ::cudaMalloc";

#[test]
fn brief_first_then_description_parameters_return_codes_notes_and_see_also() {
    let md = markdown(MEM_ALLOC, &refs);
    let expected = "Allocates device memory

Allocates `bytesize` bytes and returns in `*dptr` a pointer. If `bytesize`
is 0, [`cuMemAlloc()`](Self::cuMemAlloc) returns `CUDA_ERROR_INVALID_VALUE`.

# Parameters

- `dptr`: Returned device pointer
- `bytesize`: Requested allocation size in bytes

# Return codes

[`CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS), `CUDA_ERROR_INVALID_VALUE`

**Note:** this function may also return error codes of earlier asynchronous launches.

# See also

[`cuMemFree`](Self::cuMemFree), `cudaMalloc`";
    assert_eq!(md, expected);
}

#[test]
fn a_brief_ends_where_a_capitalised_line_starts_the_description() {
    // cuInit's comment: the description follows the brief without a blank line.
    let md = markdown(
        "\\brief Initialize the CUDA driver API\nInitializes the driver API and must be called\nbefore any other function.\n\n\\param Flags - 0",
        &refs,
    );
    assert_eq!(
        md,
        "Initialize the CUDA driver API\n\nInitializes the driver API and must be called\nbefore any other function.\n\n# Parameters\n\n- `Flags`: 0"
    );
    // A brief wrapped onto the next line (in lower case) stays one sentence.
    let md = markdown(
        "\\brief Returns numerical values that correspond to the least and\ngreatest stream priorities.\n\nMore.",
        &refs,
    );
    assert_eq!(
        md,
        "Returns numerical values that correspond to the least and greatest stream priorities.\n\nMore."
    );
}

#[test]
fn without_a_brief_the_first_paragraph_is_the_summary() {
    let md = markdown("Frees memory.\n\nMore text.", &refs);
    assert_eq!(md, "Frees memory.\n\nMore text.");
}

#[test]
fn code_blocks_are_fenced_c_and_kept_verbatim() {
    let md = markdown(
        "\\brief B\n\nExample:\n\\code\n    int a[2] = {1, 2}; // *not* markup\n    f(::cuMemFree);\n\\endcode\nAfter.",
        &refs,
    );
    assert_eq!(
        md,
        "B\n\nExample:\n\n```c\nint a[2] = {1, 2}; // *not* markup\nf(::cuMemFree);\n```\n\nAfter."
    );
}

#[test]
fn text_markdown_would_misread_is_escaped() {
    // Brackets would be links rustdoc cannot resolve, `<x>` an unclosed HTML tag, `*`/`_`
    // emphasis, a bare URL a rustdoc warning; a `#` starting a line of the description a heading.
    let md = markdown(
        "\\brief Range [0, N) of <major>.<minor> with a*b and __x__\n# not a heading\nsee https://docs.nvidia.com/cuda.",
        &refs,
    );
    assert_eq!(
        md,
        "Range \\[0, N) of &lt;major>.&lt;minor> with a\\*b and \\_\\_x\\_\\_ # not a heading see <https://docs.nvidia.com/cuda>."
    );
    let md = markdown("Text\n\n# heading?\n    indented, not code", &refs);
    assert_eq!(md, "Text\n\n\\# heading?\nindented, not code");
}

#[test]
fn lists_keep_their_nesting() {
    let md = markdown(
        "\\brief B\n\n- ::CUdeviceptr, which\n  continues\n    - nested \\p x",
        &refs,
    );
    assert_eq!(
        md,
        "B\n\n- [`CUdeviceptr`](sys::CUdeviceptr), which\n  continues\n    - nested `x`"
    );
}

#[test]
fn html_tables_lists_and_emphasis_become_markdown() {
    let md = markdown(
        "\\brief B\n\n<table>\n<tr><td><b>type</b></td><td><b>extent</b></td></tr>\n<tr><td>1D</td>\n<td><small>{ (1,W), 0 }<br>or\n{ 2 }</small></td></tr>\n</table>\n\nItems:\n<ul>\n  <li>one\n  more</li>\n  <li><i>two</i></li>\n</ul>",
        &refs,
    );
    assert_eq!(
        md,
        "B\n\n| **type** | **extent** |\n|---|---|\n| 1D | { (1,W), 0 } or { 2 } |\n\nItems:\n\n- one\n  more\n- *two*"
    );
}

#[test]
fn notes_warnings_and_deprecation_are_labelled() {
    let md = markdown(
        "\\brief B\n\\note Only \\e once.\n\\deprecated Use ::cuMemFree.\n\\warning Careful.\n\\note_graph_thread_safety",
        &refs,
    );
    assert_eq!(
        md,
        "B\n\n**Note:** Only *once*.\n\n**Deprecated:** Use [`cuMemFree`](Self::cuMemFree).\n\n**Warning:** Careful.\n\n**Note:** graph objects are not thread-safe."
    );
}

#[test]
fn words_keep_the_brackets_they_open_and_lose_trailing_punctuation() {
    let md = markdown("\\brief \\p kernelParams[0], \\p f(x). (\\p y)", &refs);
    assert_eq!(md, "`kernelParams[0]`, `f(x)`. (`y`)");
}

#[test]
fn a_member_path_is_one_reference_linked_by_its_first_name() {
    let md = markdown(
        "\\brief Set ::CUdeviceptr::handle::win32 or ::Other::x.",
        &refs,
    );
    assert_eq!(
        md,
        "Set [`CUdeviceptr::handle::win32`](sys::CUdeviceptr) or `Other::x`."
    );
}
