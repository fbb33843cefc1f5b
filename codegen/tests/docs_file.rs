//! The compact `docs.txt`: how a line is cut into words, how numbers are written as codes, and
//! that texts needing codes of one, two and three digits read back, with the macro's own reader,
//! exactly as written.

#[path = "../../macros/src/manifest/records.rs"]
#[allow(dead_code)]
mod records;

use cuda_driver_table_codegen::docs_file::{body, words, Code};

#[test]
fn a_line_is_cut_into_words_that_put_together_are_the_line() {
    let line = "Creates a [`CUDA_ARRAY3D_DESCRIPTOR`](sys::X) now.  –x";
    let cut = words(line);
    assert_eq!(
        cut,
        [
            "Creates ",
            "a ",
            "[`",
            "CUDA_ARRAY3D_DESCRIPTOR",
            "`](",
            "sys",
            "::",
            "X",
            ") ",
            "now",
            ". ",
            " ",
            "–",
            "x"
        ]
    );
    assert_eq!(cut.concat(), line);
    assert!(words("").is_empty());
    assert_eq!(words("    - item"), ["    ", "- ", "item"]);
}

/// The examples of the reader's module doc (`macros/src/manifest/records.rs`).
#[test]
fn numbers_are_written_in_one_two_or_three_digits() {
    let code = Code { one: 50, two: 40 };
    let write = |n: usize| {
        let mut out = String::new();
        code.write(&mut out, n);
        out
    };
    assert_eq!(write(0), "!");
    assert_eq!(write(49), "R");
    assert_eq!(write(50), "S!");
    assert_eq!(write(143), "S~");
    assert_eq!(write(144), "T!");
    assert_eq!(write(50 + 94 * 40), "{!!");
    assert_eq!(write(code.capacity() - 1), "~~~");
}

#[test]
fn the_code_picked_can_write_every_number_and_gives_the_most_used_the_shortest() {
    for n in [
        0,
        1,
        94,
        95,
        94 * 94,
        94 * 94 + 1,
        100_000,
        94 * 94 * 94 - 1,
    ] {
        let code = Code::best(&vec![1; n]);
        assert!(code.capacity() >= n, "{n}: {code:?}");
        assert!(code.one + code.two <= 94, "{n}: {code:?}");
    }
    // Up to 94 items: one digit each.
    assert_eq!(Code::best(&[5, 3, 1]), Code { one: 94, two: 0 });
    // One item used far more than 9000 others: it alone gets one digit.
    let mut counts = vec![1_000_000];
    counts.extend(std::iter::repeat_n(1, 9000));
    let code = Code::best(&counts);
    assert!(code.one >= 1 && code.capacity() >= counts.len(), "{code:?}");
}

/// Enough distinct words and lines that their codes take one, two and three digits: each text
/// reads back as written.
#[test]
fn texts_whose_codes_take_up_to_three_digits_read_back_as_written() {
    let texts: Vec<String> = (0..5000)
        .map(|i| {
            // Some words shared by many lines, some lines shared by many texts, and many
            // words and lines used once.
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
    let docs = format!("# docs\n\n{}", body(&refs));
    for tag in ["W", "L"] {
        let line = docs
            .lines()
            .find(|l| l.starts_with(&format!("{tag}\t")))
            .unwrap();
        let fields: Vec<usize> = line
            .split('\t')
            .skip(1)
            .map(|f| f.parse().unwrap())
            .collect();
        let (count, code) = (
            fields[0],
            Code {
                one: fields[1],
                two: fields[2],
            },
        );
        assert!(
            count > code.one + code.two * 94,
            "{line}: some {tag} codes take three digits"
        );
    }
    let mut records = String::from("#\n\nR\t3\t13000\t13.0\n");
    for i in 0..texts.len() {
        records.push_str(&format!(
            "F\tcu{i:05}\t2000\nA\t2000\t-\t-\t{i}\tCUresult\tCUresult cu{i:05}(void)\nP\n"
        ));
    }
    let index = records::Index::read(&records, &docs).unwrap_or_else(|e| panic!("{e}"));
    for (entry, text) in index.entries.iter().zip(&texts) {
        assert_eq!(&index.abis(entry).unwrap()[0].doc, text, "{}", entry.name);
    }
    assert_eq!(index.entries.len(), texts.len());
}
