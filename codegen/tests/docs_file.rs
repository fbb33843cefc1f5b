//! The `docs.txt` the generator writes: each distinct line once, its links written short, each
//! text as runs of its lines (the code of the first's byte offset, in as many digits as the file
//! needs, and a count), which read back, with the macro's own reader, exactly as written.

#[path = "../../macros/src/manifest/records.rs"]
#[allow(dead_code)]
mod records;

use cuda_driver_table_codegen::docs_file::{digits_for, short_links, write_code, DocsFile};

#[test]
fn offsets_are_written_in_the_fewest_digits_most_significant_first() {
    let code = |n: usize, digits: usize| {
        let mut out = String::new();
        write_code(&mut out, n, digits);
        out
    };
    assert_eq!(code(0, 1), "!");
    assert_eq!(code(93, 1), "~");
    assert_eq!(code(94, 2), "\"!");
    assert_eq!(code(95, 3), "!\"\"");
    assert_eq!(code(94 * 94 * 94 - 1, 3), "~~~");
    for (bytes, digits) in [(0, 1), (94, 1), (95, 2), (94 * 94, 2), (94 * 94 + 1, 3)] {
        assert_eq!(digits_for(bytes), digits, "{bytes} bytes");
    }
}

#[test]
fn each_line_is_written_once_and_a_text_is_runs_of_its_lines() {
    let texts = ["One\n\nTwo", "Two\nOne", "Three"];
    let file = DocsFile::new(&texts);
    // Lines at 0, 4, 5 and 9. The first text is one run of three lines from 0 (`$` is 3), the
    // second two runs of one (`"`), from 5 and from 0; texts at 0, 3 and 8.
    assert_eq!(
        file.body(),
        "L\t15\t1\nOne\n\nTwo\nThree\nD\t11\t1\n!$\n&\"!\"\n*\"\n"
    );
    assert_eq!(file.code(texts[0]).as_deref(), Some("!"));
    assert_eq!(file.code(texts[1]).as_deref(), Some("$"));
    assert_eq!(file.code(texts[2]).as_deref(), Some(")"));
    assert_eq!(file.code("Four"), None);
}

/// A link whose target ends with the name it shows is written without that name; any other link,
/// and text that only looks like one, is written as it is.
#[test]
fn links_are_written_short_where_the_target_ends_with_the_name() {
    for (line, short) in [
        (
            "See [`cuMemFree`](Self::cuMemFree).",
            "See [`cuMemFree`](Self::).",
        ),
        (
            "[`cuA()`](Self::cuA), [`cuB`](Self::cuB)",
            "[`cuA()`](Self::), [`cuB`](Self::)",
        ),
        (
            "[`CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS)",
            "[`CUDA_SUCCESS`](sys::CUresult::)",
        ),
        (
            "[`CUresult::CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS)",
            "[`CUresult::CUDA_SUCCESS`](sys::)",
        ),
        // The target does not end with the name, after `::`.
        ("[`D::x`](sys::D)", "[`D::x`](sys::D)"),
        (
            "[`SUCCESS`](sys::CUDA_SUCCESS)",
            "[`SUCCESS`](sys::CUDA_SUCCESS)",
        ),
        ("[`a b`](Self::a b)", "[`a b`](Self::a b)"),
        ("[`x`](https://x)", "[`x`](https://x)"),
        ("`](", "`]("),
        ("plain (x::) text", "plain (x::) text"),
    ] {
        assert_eq!(short_links(line), short, "{line}");
    }
}

/// Texts with links read back, with the macro's reader, as written, their links short where they
/// can be (the macro writes them whole as it resolves a table's links).
#[test]
fn texts_with_links_read_back_as_written() {
    let texts = [
        "See [`cuMemFree`](Self::cuMemFree) and [`cuA()`](Self::cuA).\n\n[`CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS)",
        "[`D::x`](sys::D) (x::) [`y`](sys::y)",
    ];
    let file = DocsFile::new(&texts);
    assert!(
        file.body().contains("[`cuA()`](Self::)."),
        "{}",
        file.body()
    );
    let docs = format!("# docs\n\n{}", file.body());
    let mut records = String::from("#\n\nR\t5\nV\t13000\t13.0\n");
    for (i, text) in texts.iter().enumerate() {
        let code = file.code(text).expect("a text of the file");
        records.push_str(&format!(
            "F\tcu{i}\t13000\nA\t2000\t13000\t-\t-\t{code}\tCUresult\tCUresult cu{i}(void)\nP\n"
        ));
    }
    let index = records::Index::read(&records, &docs, 13000).unwrap_or_else(|e| panic!("{e}"));
    let short = [
        "See [`cuMemFree`](Self::) and [`cuA()`](Self::).\n\n[`CUDA_SUCCESS`](sys::CUresult::)",
        "[`D::x`](sys::D) (x::) [`y`](sys::)",
    ];
    for (entry, text) in index.entries.iter().zip(short) {
        assert_eq!(index.abis(entry).unwrap()[0].doc, text, "{}", entry.name);
    }
}

/// Enough distinct lines that their offsets take three digits: each text reads back as written.
#[test]
fn texts_whose_codes_take_three_digits_read_back_as_written() {
    let texts: Vec<String> = (0..5000)
        .map(|i| {
            // Some lines shared by many texts, and many lines used once.
            format!(
                "Summary {i} of w{}\n\nThe shared line.\nw{} `x{}` and w{i}_{}",
                i % 7,
                i * 3,
                i % 11,
                i * 5
            )
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let file = DocsFile::new(&refs);
    let docs = format!("# docs\n\n{}", file.body());
    assert!(docs.contains("\t3\n"), "three digits: {}", &docs[..40]);
    let mut records = String::from("#\n\nR\t5\nV\t13000\t13.0\n");
    for (i, text) in refs.iter().enumerate() {
        let code = file.code(text).expect("a text of the file");
        records.push_str(&format!(
            "F\tcu{i:05}\t13000\nA\t2000\t13000\t-\t-\t{code}\tCUresult\tCUresult cu{i:05}(void)\nP\n"
        ));
    }
    let index = records::Index::read(&records, &docs, 13000).unwrap_or_else(|e| panic!("{e}"));
    for (entry, text) in index.entries.iter().zip(&texts) {
        assert_eq!(&index.abis(entry).unwrap()[0].doc, text, "{}", entry.name);
    }
    assert_eq!(index.entries.len(), texts.len());
}
