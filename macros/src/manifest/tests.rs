//! The reader of the records: every committed release reads, the selected one answers lookups,
//! and damaged text is an error that says where, never a panic.

use super::records::{self, Availability, Index, PerThreadRecord};
use proptest::prelude::*;

/// Two doc texts, `First doc\n\nits rest` and `Second — doc`: four lines (one of them empty)
/// at byte offsets 0, 10, 11 and 20, whose codes of one digit (`!` is 0) are `!`, `+`, `,` and
/// `5`; the texts at offsets 0 and 4 of the `D` section, whose codes are `!` and `%`.
const DOCS: &str = "# docs\n\nL\t35\t1\nFirst doc\n\nits rest\nSecond — doc\nD\t6\t1\n!+,\n5\n";

/// A small valid records text: three functions, one with a per-thread twin and a doc, one with an
/// out-value.
fn sample() -> String {
    "# header line\n# another\n\n\
     R\t4\t13000\t13.0\n\
     F\tcuInit\t2000\n\
     A\t2000\tcuInit\t-\t!\tCUresult\tCUresult cuInit(unsigned int Flags)\n\
     P\tFlags\t::core::ffi::c_uint\n\
     F\tcuLaunchKernel\t4000\n\
     A\t4000\tcuLaunchKernel\t7000_ptsz,cuLaunchKernel_ptsz\t%\tCUresult\tCUresult cuLaunchKernel(CUfunction f)\n\
     P\tf\tCUfunction\n\
     F\tcuMemAlloc\t3020\n\
     A\t3020\tcuMemAlloc_v2\t-\t-\tCUresult\tCUresult cuMemAlloc(CUdeviceptr_v2 *dptr, size_t bytesize)\n\
     P\tout:dptr\t*mut CUdeviceptr_v2\tbytesize\tusize\n"
        .to_string()
}

fn read(records: &str) -> Result<Vec<String>, String> {
    read_with(records, DOCS)
}

/// Every ABI of every function of `records`, each with its doc text from `docs`, read.
fn read_with(records: &str, docs: &str) -> Result<Vec<String>, String> {
    let index = Index::read(records, docs)?;
    let mut out = Vec::new();
    for e in &index.entries {
        for a in index.abis(e)? {
            out.push(format!(
                "{} {} {:?} {:?}",
                e.name, a.version, a.doc, a.params
            ));
        }
    }
    Ok(out)
}

#[test]
fn a_valid_text_reads_with_its_docs_twins_and_params() {
    let text = sample();
    let index = Index::read(&text, DOCS).unwrap();
    assert_eq!((index.release, index.release_name), (13000, "13.0"));
    assert_eq!(index.entries.len(), 3);
    let launch = &index.entries[index.position("cuLaunchKernel").unwrap()];
    assert_eq!(launch.default, 4000);
    let abis = index.abis(launch).unwrap();
    let twin = abis[0].per_thread.clone().unwrap();
    assert_eq!(
        twin,
        PerThreadRecord {
            version: 7000,
            suffix: "ptsz",
            export: Some("cuLaunchKernel_ptsz")
        }
    );
    assert_eq!(abis[0].doc, "Second — doc");
    assert_eq!(abis[0].params, [("f", "CUfunction")]);
    assert_eq!(
        records::per_thread_typedef("cuLaunchKernel", &twin),
        "PFN_cuLaunchKernel_v7000_ptsz"
    );
    let init = &index.entries[index.position("cuInit").unwrap()];
    assert_eq!(index.abis(init).unwrap()[0].doc, "First doc\n\nits rest");
    assert_eq!(records::typedef("cuInit", 2000), "PFN_cuInit_v2000");
    assert_eq!(index.position("cuNope"), None);
    let alloc = &index.entries[index.position("cuMemAlloc").unwrap()];
    let alloc = &index.abis(alloc).unwrap()[0];
    assert_eq!(
        alloc.params,
        [("dptr", "*mut CUdeviceptr_v2"), ("bytesize", "usize")]
    );
    assert_eq!(alloc.outs, ["dptr"]);
    assert!(abis[0].outs.is_empty());
}

#[test]
fn damaged_text_is_an_error_that_says_where() {
    let cases: [(&str, &str, &str); 14] = [
        ("R\t4\t13000\t13.0\n", "", "line 4: the first line is `R"),
        ("R\t4\t", "R\t2\t", "line 4: the records are in format 2"),
        (
            "# another\n\n",
            "# another\n",
            "line 3: the header ends at an empty line",
        ),
        (
            "\tcuLaunchKernel\t4000",
            "\tcuAaa\t4000",
            "line 8: `cuAaa` is not in order",
        ),
        (
            "F\tcuInit\t2000\n",
            "",
            "line 5: expected an `F`, `A` or `P` line",
        ),
        (
            "P\tFlags\t::core::ffi::c_uint\n",
            "",
            "line 6: an `A` line needs its `P` line",
        ),
        (
            "\t-\t!\tCUresult",
            "\t-\t\"\tCUresult",
            "line 6: `\"` names byte 1 of the texts of docs.txt, where none starts (they have 6 bytes)",
        ),
        (
            "\t-\t!\tCUresult",
            "\t-\t!!\tCUresult",
            "line 6: `!!` is not a code of the texts of docs.txt (1 of the digits `!` to `~`)",
        ),
        (
            "ptsz\t%\tCUresult",
            "ptsz\t \tCUresult",
            "line 9: ` ` is not a code of the texts of docs.txt",
        ),
        (
            "\t2000\n",
            "\t3000\n",
            "line 5: the default ABI 3000 of `cuInit`",
        ),
        ("7000_ptsz,", "7000_xx,", "line 9: a per-thread twin is"),
        (
            "Flags\t::core::ffi::c_uint",
            "Flags",
            "line 7: a `P` line holds pairs",
        ),
        ("out:dptr", "out:", "line 13: a `P` line holds pairs"),
        ("\n", "\r\n", "Windows line ends"),
    ];
    for (from, to, expected) in cases {
        let text = sample().replacen(from, to, 1);
        assert_ne!(text, sample(), "{from:?} is not in the sample");
        let err = read(&text).unwrap_err();
        assert!(err.contains(expected), "{from:?} -> {to:?}: {err}");
    }
    // An ABI listed twice, or out of order.
    let twice = sample().replace(
        "P\tFlags\t::core::ffi::c_uint\n",
        "P\tFlags\t::core::ffi::c_uint\nA\t2000\tcuInit\t-\t-\tCUresult\tx\nP\n",
    );
    assert!(read(&twice)
        .unwrap_err()
        .contains("line 8: ABI 2000 of `cuInit` is not in order"));
    assert!(Index::read("", DOCS).unwrap_err().contains("no empty line"));
    assert!(Index::read("#\n\n", DOCS)
        .unwrap_err()
        .contains("no `R` line"));
}

#[test]
fn damaged_docs_are_an_error_that_says_which_line_of_docs_txt() {
    let cases: [(&str, &str, &str); 10] = [
        (
            "L\t35\t1",
            "L\t35\t0",
            "docs.txt line 3: a code has 1 to 4 digits, not 0",
        ),
        (
            "L\t35\t1",
            "L\t35",
            "docs.txt line 3: expected the line `L <bytes> <digits>`",
        ),
        (
            "L\t35\t1",
            "L\tx\t1",
            "docs.txt line 3: expected the line `L <bytes> <digits>` (numbers)",
        ),
        (
            "L\t35",
            "L\t36",
            "docs.txt line 3: the `L` line counts 36 bytes of items, each ended by a line end",
        ),
        (
            "D\t6\t1",
            "L\t6\t1",
            "docs.txt line 8: expected the line `D <bytes> <digits>` (numbers)",
        ),
        (
            "D\t6\t1",
            "D\t6\t2",
            "line 6: `!` is not a code of the texts of docs.txt (2 of the digits",
        ),
        (
            "!+,\n5\n",
            "!+{\n5\n",
            "line 6: `{` names byte 90 of the lines of docs.txt, where none starts (they have 35 bytes)",
        ),
        (
            "5\n",
            "5\nX\n",
            "docs.txt line 11: the file goes on after its `D` section",
        ),
        (
            "L\t35\t1",
            "L\t35\t2",
            "line 6: the doc `!` names a text that is not codes of 2 digits, one per line",
        ),
        ("First doc\n", "First doc\r\n", "Windows line ends"),
    ];
    for (from, to, expected) in cases {
        let docs = DOCS.replacen(from, to, 1);
        assert_ne!(docs, DOCS, "{from:?} is not in the docs");
        let err = read_with(&sample(), &docs).unwrap_err();
        assert!(err.contains(expected), "{from:?} -> {to:?}: {err}");
    }
    let err = Index::read(&sample(), "# docs\n\n").unwrap_err();
    assert!(
        err.contains("docs.txt ends before its `L <bytes> <digits>` line"),
        "{err}"
    );
    // Codes of two digits, the most significant first: byte 10 is `!+`.
    let wide = DOCS.replacen("L\t35\t1", "L\t35\t2", 1).replacen(
        "D\t6\t1\n!+,\n5\n",
        "D\t10\t1\n!!!+!,\n!5\n",
        1,
    );
    let records = sample().replacen("\t%\t", "\t(\t", 1);
    let index = Index::read(&records, &wide).unwrap();
    let init = &index.entries[index.position("cuInit").unwrap()];
    assert_eq!(index.abis(init).unwrap()[0].doc, "First doc\n\nits rest");
    let err = read_with(&records, &wide.replacen("!!!+", "!!\"+", 1)).unwrap_err();
    assert!(
        err.contains("line 6: `\"+` names byte 104 of the lines of docs.txt"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    /// Whatever is cut out of or put into a valid text, reading it gives a value or an error.
    #[test]
    fn reading_never_panics(at in 0usize..400, cut in 0usize..8, insert in "[\\t\\nAFPR0-9+,_-]{0,4}") {
        let text = sample();
        let at = at.min(text.len());
        let end = (at + cut).min(text.len());
        if text.is_char_boundary(at) && text.is_char_boundary(end) {
            let damaged = format!("{}{insert}{}", &text[..at], &text[end..]);
            let _ = read(&damaged);
        }
    }

    /// The same for the doc texts: every doc text reads as a value or an error.
    #[test]
    fn reading_damaged_docs_never_panics(at in 0usize..70, cut in 0usize..8, insert in "[\\t\\nLD0-9!-~é]{0,4}") {
        let at = at.min(DOCS.len());
        let end = (at + cut).min(DOCS.len());
        if DOCS.is_char_boundary(at) && DOCS.is_char_boundary(end) {
            let damaged = format!("{}{insert}{}", &DOCS[..at], &DOCS[end..]);
            let _ = read_with(&sample(), &damaged);
        }
    }
}

/// Every release's committed records read completely with the committed docs, and name the
/// release of their file.
#[test]
fn every_committed_release_reads() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/generated");
    let docs = std::fs::read_to_string(dir.join("docs.txt")).unwrap();
    let mut releases = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(version) = name
            .strip_prefix("manifest_")
            .and_then(|n| n.strip_suffix(".txt"))
        else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let index = Index::read(&text, &docs).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(index.release.to_string(), version);
        assert!(index.entries.len() > 300, "{name}: {}", index.entries.len());
        for e in &index.entries {
            index.abis(e).unwrap();
        }
        releases += 1;
    }
    assert!(releases >= 17, "{releases} releases");
}

/// The selected release (run with one `cuda-XXXXX` feature) answers lookups from its records.
#[test]
fn the_selected_release_answers_lookups() {
    if super::RELEASE == 0 {
        assert!(super::functions().is_empty());
        return;
    }
    super::load().unwrap();
    let all = super::functions();
    assert!(all.len() > 400, "{}", all.len());
    assert!(all.windows(2).all(|w| w[0].name < w[1].name));
    let create = super::find("cuCtxCreate").unwrap();
    let v2 = create.abi(3020).unwrap();
    assert_eq!(v2.typedef, "PFN_cuCtxCreate_v3020");
    assert_eq!(v2.export, Some("cuCtxCreate_v2"));
    assert_eq!(v2.params[0], ("pctx", "*mut CUcontext"));
    assert!(create.abi(create.default).is_some());
    // Found twice: the same record, read once.
    assert!(std::ptr::eq(create, super::find("cuCtxCreate").unwrap()));
    let launch = super::find("cuLaunchKernel").unwrap();
    let twin = launch.abi(4000).unwrap().per_thread.as_ref().unwrap();
    assert_eq!(twin.typedef, "PFN_cuLaunchKernel_v7000_ptsz");
    let doc = launch.abi(launch.default).unwrap().doc;
    assert!(doc.starts_with("Launches a CUDA function"), "{doc}");
    assert!(super::find("cuNope").is_none());
}

/// A damaged file is an error for the attribute: what cannot be read, where, and what to do.
#[test]
fn a_damaged_manifest_is_one_error_that_says_what_to_do() {
    let damaged: &'static str =
        Box::leak(sample().replace("F\tcuInit", "X\tcuInit").into_boxed_str());
    let err = super::read(damaged, DOCS).unwrap_err();
    assert!(
        err.starts_with(&format!(
            "cuda-driver-table-macros cannot read its function manifest of CUDA {} (line 5: expected an `F`",
            super::selected::RELEASE_NAME
        )),
        "{err}"
    );
    assert!(
        err.ends_with("download and build it again (`cargo clean -p cuda-driver-table-macros`)")
    );
    // Records of another release than the selected one.
    let other: &'static str =
        Box::leak(sample().replace("R\t4\t13000", "R\t4\t1").into_boxed_str());
    assert!(super::read(other, DOCS)
        .unwrap_err()
        .contains("its records are of CUDA 13.0 (1)"));
}

/// Three releases; `cuOld` is in the first and the last.
const AVAILABILITY: &str = "# availability\n\n\
     R\t12000\t12.0\nR\t12010\t12.1\nR\t12020\t12.2\n\
     F\tcuInit\t12000-12020\nF\tcuOld\t12000,12020\n";

#[test]
fn availability_reads_its_runs_and_damaged_text_is_an_error_that_says_where() {
    let read = Availability::read(AVAILABILITY).unwrap();
    assert_eq!(
        read.releases,
        [(12000, "12.0"), (12010, "12.1"), (12020, "12.2")]
    );
    assert_eq!(
        read.functions,
        [
            ("cuInit", vec![12000, 12010, 12020]),
            ("cuOld", vec![12000, 12020])
        ]
    );
    let cases: [(&str, &str, &str); 7] = [
        (
            "12000-12020",
            "12020-12000",
            "line 6: the run `12020-12000` goes backwards",
        ),
        (
            "12000,12020",
            "12000,13000",
            "line 7: 13000 is not a release of the `R` lines",
        ),
        ("F\tcuOld", "F\tcuAaa", "line 7: `cuAaa` is not in order"),
        (
            "R\t12020\t12.2\n",
            "R\t12020\t12.2\nF\tcuA\t12000\nR\t13000\t13.0\n",
            "line 7: expected `R <release> <release name>` (every one before the first `F` line)",
        ),
        (
            "12000-12020",
            "x-12020",
            "line 6: `x` is not a version number",
        ),
        ("\tcuInit\t", "\tcuInit ", "line 6: expected `R <release>"),
        ("\n", "\r\n", "Windows line ends"),
    ];
    for (from, to, expected) in cases {
        let text = AVAILABILITY.replacen(from, to, 1);
        assert_ne!(text, AVAILABILITY, "{from:?} is not in the text");
        let err = Availability::read(&text).unwrap_err();
        assert!(err.contains(expected), "{from:?} -> {to:?}: {err}");
    }
    // What the user sees at the attribute.
    let damaged: &'static str = Box::leak(
        AVAILABILITY
            .replace("12000,12020", "12000,1")
            .into_boxed_str(),
    );
    let err = super::read_availability(damaged).unwrap_err();
    assert_eq!(
        err,
        "cuda-driver-table-macros cannot read which releases have which function \
         (availability.txt: line 7: 1 is not a release of the `R` lines): its files are damaged; \
         download and build it again (`cargo clean -p cuda-driver-table-macros`)"
    );
}

/// The committed availability reads, and names the releases of the committed records.
#[test]
fn the_committed_availability_reads() {
    let read = Availability::read(super::AVAILABILITY_TEXT).unwrap();
    assert!(read.releases.len() >= 17, "{:?}", read.releases);
    assert!(read.functions.len() > 400, "{}", read.functions.len());
    assert_eq!(super::releases_with("cuInit").len(), read.releases.len());
    assert_eq!(super::release_name(11070), "11.7");
    assert_eq!(super::release_name(1), "1");
    assert!(super::releases_with("cuNope").is_empty());
}
