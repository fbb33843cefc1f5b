//! The `docs.txt` the generator writes: each distinct line once, each text as the codes of its
//! lines (their byte offsets, in as many digits as the file needs), which read back, with the
//! macro's own reader, exactly as written.

#[path = "../../macros/src/manifest/records.rs"]
#[allow(dead_code)]
mod records;

use cuda_driver_table_codegen::docs_file::{digits_for, write_code, DocsFile};

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
fn each_line_is_written_once_and_a_text_is_the_codes_of_its_lines() {
    let texts = ["One\n\nTwo", "Two\nOne", "Three"];
    let file = DocsFile::new(&texts);
    // Lines at 0, 4, 5 and 9; texts at 0, 4 and 7.
    assert_eq!(
        file.body(),
        "L\t15\t1\nOne\n\nTwo\nThree\nD\t9\t1\n!%&\n&!\n*\n"
    );
    assert_eq!(file.code(texts[0]).as_deref(), Some("!"));
    assert_eq!(file.code(texts[1]).as_deref(), Some("%"));
    assert_eq!(file.code(texts[2]).as_deref(), Some("("));
    assert_eq!(file.code("Four"), None);
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
    let mut records = String::from("#\n\nR\t4\t13000\t13.0\n");
    for (i, text) in refs.iter().enumerate() {
        let code = file.code(text).expect("a text of the file");
        records.push_str(&format!(
            "F\tcu{i:05}\t2000\nA\t2000\t-\t-\t{code}\tCUresult\tCUresult cu{i:05}(void)\nP\n"
        ));
    }
    let index = records::Index::read(&records, &docs).unwrap_or_else(|e| panic!("{e}"));
    for (entry, text) in index.entries.iter().zip(&texts) {
        assert_eq!(&index.abis(entry).unwrap()[0].doc, text, "{}", entry.name);
    }
    assert_eq!(index.entries.len(), texts.len());
}
