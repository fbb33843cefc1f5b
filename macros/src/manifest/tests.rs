//! The reader of the records: every committed release reads, the selected one answers lookups,
//! and damaged text is an error that says where, never a panic.

use super::records::{self, Availability, Index, PerThreadRecord};
use proptest::prelude::*;

/// Three doc texts, `First doc\n\nits rest`, `Second — doc` and one with two links written short:
/// five lines (one of them empty) at byte offsets 0, 10, 11, 20 and 35, whose codes of one digit
/// (`!` is 0) are `!`, `+`, `,`, `5` and `D`; the texts, runs of a code and a count (`$` is 3,
/// `"` is 1), at offsets 0, 3 and 6 of the `D` section, whose codes are `!`, `$` and `'`.
const DOCS: &str = "# docs\n\nL\t99\t1\nFirst doc\n\nits rest\nSecond — doc\n\
     See [`cuInit()`](Self::) and [`CUDA_SUCCESS`](sys::CUresult::).\n\
     D\t9\t1\n!$\n5\"\nD\"\n";

/// A small valid records text of two releases: `cuInit`, whose doc changed; `cuLaunchKernel`,
/// with a per-thread twin; `cuMemAlloc`, whose ABI 3020 (with an out-value) replaced ABI 2000;
/// and `cuNew`, of 13.0 only.
fn sample() -> String {
    "# header line\n# another\n\n\
     R\t5\n\
     V\t12000\t12.0\n\
     V\t13000\t13.0\n\
     F\tcuInit\t12000-13000\n\
     A\t2000\t12000-13000\tcuInit\t-\t12000=' 13000=!\tCUresult\tCUresult cuInit(unsigned int Flags)\n\
     P\tFlags\t::core::ffi::c_uint\n\
     F\tcuLaunchKernel\t12000-13000\n\
     A\t4000\t12000-13000\tcuLaunchKernel\t7000_ptsz,cuLaunchKernel_ptsz\t$\tCUresult\tCUresult cuLaunchKernel(CUfunction f)\n\
     P\tf\tCUfunction\n\
     F\tcuMemAlloc\t12000-13000\n\
     A\t2000\t12000\tcuMemAlloc\t-\t-\tCUresult\tCUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)\n\
     P\tdptr\t*mut CUdeviceptr_v1\tbytesize\t::core::ffi::c_uint\n\
     A\t3020\t13000\tcuMemAlloc_v2\t-\t-\tCUresult\tCUresult cuMemAlloc(CUdeviceptr_v2 *dptr, size_t bytesize)\n\
     P\tout:dptr\t*mut CUdeviceptr_v2\tbytesize\tusize\n\
     F\tcuNew\t13000\n\
     A\t13000\t13000\tcuNew\t-\t-\tCUresult\tCUresult cuNew(void)\n\
     P\n"
        .to_string()
}

fn read(records: &str) -> Result<Vec<String>, String> {
    read_with(records, DOCS)
}

/// Every ABI of every function of release 13.0 of `records`, each with its doc text from `docs`,
/// read.
fn read_with(records: &str, docs: &str) -> Result<Vec<String>, String> {
    let index = Index::read(records, docs, 13000)?;
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
    let index = Index::read(&text, DOCS, 13000).unwrap();
    assert_eq!((index.release, index.release_name), (13000, "13.0"));
    assert_eq!(index.entries.len(), 4);
    let launch = &index.entries[index.position("cuLaunchKernel").unwrap()];
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
    let alloc = index.abis(alloc).unwrap();
    assert_eq!(alloc.len(), 1);
    assert_eq!(alloc[0].version, 3020);
    assert_eq!(
        alloc[0].params,
        [("dptr", "*mut CUdeviceptr_v2"), ("bytesize", "usize")]
    );
    assert_eq!(alloc[0].outs, ["dptr"]);
    assert!(abis[0].outs.is_empty());
    let new = &index.entries[index.position("cuNew").unwrap()];
    assert!(index.abis(new).unwrap()[0].params.is_empty());
}

/// One text, two releases: each reads the functions, ABIs and docs that name it.
#[test]
fn each_release_reads_its_own_records() {
    let text = sample();
    let index = Index::read(&text, DOCS, 12000).unwrap();
    assert_eq!((index.release, index.release_name), (12000, "12.0"));
    let names: Vec<&str> = index.entries.iter().map(|e| e.name).collect();
    assert_eq!(names, ["cuInit", "cuLaunchKernel", "cuMemAlloc"]);
    let alloc = index.abis(&index.entries[2]).unwrap();
    let versions: Vec<u32> = alloc.iter().map(|a| a.version).collect();
    assert_eq!(versions, [2000]);
    assert!(alloc[0].outs.is_empty());
    // The doc of 12.0, its links as written (short: `docs::resolve_links` writes them whole).
    assert_eq!(
        index.abis(&index.entries[0]).unwrap()[0].doc,
        "See [`cuInit()`](Self::) and [`CUDA_SUCCESS`](sys::CUresult::)."
    );
    let err = Index::read(&text, DOCS, 12010).unwrap_err();
    assert_eq!(err, "no `V` line names the release 12010");
}

#[test]
fn damaged_text_is_an_error_that_says_where() {
    let cases: [(&str, &str, &str); 17] = [
        ("R\t5\n", "", "line 4: the first line is `R <format>`"),
        ("R\t5\n", "R\t4\n", "line 4: the records are in format 4"),
        (
            "# another\n\n",
            "# another\n",
            "line 3: the header ends at an empty line",
        ),
        (
            "V\t13000\t13.0",
            "V\t11000\t11.0",
            "line 6: the release 11000 is not in order",
        ),
        ("V\t13000\t13.0", "V\t13000", "line 6: a `V` line is"),
        (
            "\tcuLaunchKernel\t12000",
            "\tcuAaa\t12000",
            "line 10: `cuAaa` is not in order",
        ),
        (
            "F\tcuInit\t12000-13000\n",
            "",
            "line 7: expected an `F`, `A` or `P` line",
        ),
        (
            "F\tcuInit\t12000-13000",
            "F\tcuInit\t13000-12000",
            "line 7: the run `13000-12000` goes backwards",
        ),
        (
            "P\tFlags\t::core::ffi::c_uint\n",
            "",
            "line 8: an `A` line needs its `P` line",
        ),
        (
            "_ptsz\t$\tCUresult",
            "_ptsz\t\"\tCUresult",
            "line 11: `\"` names byte 1 of the texts of docs.txt, where none starts (they have 9 bytes)",
        ),
        (
            "_ptsz\t$\tCUresult",
            "_ptsz\t$$\tCUresult",
            "line 11: `$$` is not a code of the texts of docs.txt (1 of the digits `!` to `~`)",
        ),
        (
            "12000=' 13000=!",
            "12000=' 13000!",
            "line 8: a doc of several texts is `<releases>=<code>` for each, not `13000!`",
        ),
        (
            "12000=' 13000=!",
            "12000=' 12000=!",
            "line 8: the doc `12000=' 12000=!` names no text of the release 13000",
        ),
        ("7000_ptsz,", "7000_xx,", "line 11: a per-thread twin is"),
        (
            "Flags\t::core::ffi::c_uint",
            "Flags",
            "line 9: a `P` line holds pairs",
        ),
        ("out:dptr", "out:", "line 17: a `P` line holds pairs"),
        ("\n", "\r\n", "Windows line ends"),
    ];
    for (from, to, expected) in cases {
        let text = sample().replacen(from, to, 1);
        assert_ne!(text, sample(), "{from:?} is not in the sample");
        let err = read(&text).unwrap_err();
        assert!(err.contains(expected), "{from:?} -> {to:?}: {err}");
    }
    // An ABI listed twice in one release, or out of order.
    let twice = sample().replace(
        "P\tFlags\t::core::ffi::c_uint\n",
        "P\tFlags\t::core::ffi::c_uint\nA\t2000\t13000\tcuInit\t-\t-\tCUresult\tx\nP\n",
    );
    assert!(read(&twice)
        .unwrap_err()
        .contains("line 10: ABI 2000 of `cuInit` is not in order in the release 13000"));
    // A function of the release with no ABI of it.
    let none = sample().replace("A\t13000\t13000\tcuNew", "A\t13000\t12000\tcuNew");
    assert!(read(&none)
        .unwrap_err()
        .contains("line 18: `cuNew` has no `A` line of the release 13000"));
    assert!(Index::read("", DOCS, 13000)
        .unwrap_err()
        .contains("no empty line"));
    assert!(Index::read("#\n\n", DOCS, 13000)
        .unwrap_err()
        .contains("no `R` line"));
}

#[test]
fn damaged_docs_are_an_error_that_says_which_line_of_docs_txt() {
    let cases: [(&str, &str, &str); 11] = [
        (
            "L\t99\t1",
            "L\t99\t0",
            "docs.txt line 3: a code has 1 to 4 digits, not 0",
        ),
        (
            "L\t99\t1",
            "L\t99",
            "docs.txt line 3: expected the line `L <bytes> <digits>`",
        ),
        (
            "L\t99\t1",
            "L\tx\t1",
            "docs.txt line 3: expected the line `L <bytes> <digits>` (numbers)",
        ),
        (
            "L\t99",
            "L\t100",
            "docs.txt line 3: the `L` line counts 100 bytes of items, each ended by a line end",
        ),
        (
            "D\t9\t1",
            "L\t9\t1",
            "docs.txt line 9: expected the line `D <bytes> <digits>` (numbers)",
        ),
        (
            "D\t9\t1",
            "D\t9\t2",
            "line 8: `!` is not a code of the texts of docs.txt (2 of the digits",
        ),
        (
            "D\t9\t1\n!$\n",
            "D\t9\t1\n{$\n",
            "line 8: `{` names byte 90 of the lines of docs.txt, where none starts (they have 99 bytes)",
        ),
        (
            "D\t9\t1\n!$\n",
            "D\t9\t1\n!'\n",
            "line 8: the doc `!` names a run of 6 lines from `!`, and 5 are there",
        ),
        (
            "D\"\n",
            "D\"\nX\n",
            "docs.txt line 13: the file goes on after its `D` section",
        ),
        (
            "L\t99\t1",
            "L\t99\t2",
            "line 8: the doc `!` names a text that is not runs of a code of 2 digits and a count of 1",
        ),
        ("First doc\n", "First doc\r\n", "Windows line ends"),
    ];
    for (from, to, expected) in cases {
        let docs = DOCS.replacen(from, to, 1);
        assert_ne!(docs, DOCS, "{from:?} is not in the docs");
        let err = read_with(&sample(), &docs).unwrap_err();
        assert!(err.contains(expected), "{from:?} -> {to:?}: {err}");
    }
    let err = Index::read(&sample(), "# docs\n\n", 13000).unwrap_err();
    assert!(
        err.contains("docs.txt ends before its `L <bytes> <digits>` line"),
        "{err}"
    );
    // Codes of two digits, the most significant first: byte 20 is `!5`.
    let wide = DOCS.replacen("L\t99\t1", "L\t99\t2", 1).replacen(
        "D\t9\t1\n!$\n5\"\nD\"\n",
        "D\t12\t1\n!!$\n!5\"\n!D\"\n",
        1,
    );
    let records = sample().replacen("\t$\t", "\t%\t", 1);
    let index = Index::read(&records, &wide, 13000).unwrap();
    let launch = &index.entries[index.position("cuLaunchKernel").unwrap()];
    assert_eq!(index.abis(launch).unwrap()[0].doc, "Second — doc");
    let err = read_with(&records, &wide.replacen("!5\"", "\"5\"", 1)).unwrap_err();
    assert!(
        err.contains("line 11: `\"5` names byte 114 of the lines of docs.txt"),
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

/// Every release of the committed records reads completely with the committed docs.
#[test]
fn every_committed_release_reads() {
    let read = Availability::read(super::PINNED).unwrap();
    assert!(read.releases.len() >= 17, "{:?}", read.releases);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/generated");
    let docs = std::fs::read_to_string(dir.join("docs.txt")).unwrap();
    for (release, name) in read.releases {
        let index =
            Index::read(super::PINNED, &docs, release).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(index.release_name, name);
        assert!(index.entries.len() > 300, "{name}: {}", index.entries.len());
        for e in &index.entries {
            index.abis(e).unwrap();
        }
    }
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
    let release = super::selected::RELEASE_NAME;
    assert!(
        err.starts_with(&format!(
            "cuda-driver-table-macros cannot read its function manifest of CUDA {release} (line 7: expected an `F`"
        )) || err.contains("no `V` line names the release"),
        "{err}"
    );
    assert!(
        err.ends_with("download and build it again (`cargo clean -p cuda-driver-table-macros`)")
    );
}

#[test]
fn availability_reads_its_runs_and_damaged_text_is_an_error_that_says_where() {
    let text = sample();
    let read = Availability::read(&text).unwrap();
    assert_eq!(read.releases, [(12000, "12.0"), (13000, "13.0")]);
    assert_eq!(
        read.functions,
        [
            ("cuInit", vec![12000, 13000]),
            ("cuLaunchKernel", vec![12000, 13000]),
            ("cuMemAlloc", vec![12000, 13000]),
            ("cuNew", vec![13000]),
        ]
    );
    let cases: [(&str, &str, &str); 6] = [
        (
            "F\tcuInit\t12000-13000",
            "F\tcuInit\t13000-12000",
            "line 7: the run `13000-12000` goes backwards",
        ),
        (
            "F\tcuNew\t13000",
            "F\tcuNew\t13010",
            "line 18: 13010 is not a release of the `V` lines",
        ),
        ("F\tcuNew", "F\tcuAaa", "line 18: `cuAaa` is not in order"),
        (
            "F\tcuInit\t12000-13000",
            "F\tcuInit\tx-13000",
            "line 7: `x` is not a version number",
        ),
        (
            "F\tcuInit\t12000-13000\n",
            "",
            "line 7: expected `F <function> <releases>`",
        ),
        ("\n", "\r\n", "Windows line ends"),
    ];
    for (from, to, expected) in cases {
        let damaged = text.replacen(from, to, 1);
        assert_ne!(damaged, text, "{from:?} is not in the text");
        let err = Availability::read(&damaged).unwrap_err();
        assert!(err.contains(expected), "{from:?} -> {to:?}: {err}");
    }
    // What the user sees at the attribute.
    let damaged: &'static str = Box::leak(
        text.replace("F\tcuNew\t13000", "F\tcuNew\t1")
            .into_boxed_str(),
    );
    let err = super::read_availability(damaged).unwrap_err();
    assert_eq!(
        err,
        "cuda-driver-table-macros cannot read which releases have which function \
         (manifest.txt: line 18: 1 is not a release of the `V` lines): its files are damaged; \
         download and build it again (`cargo clean -p cuda-driver-table-macros`)"
    );
}

/// The committed records say which releases have which function.
#[test]
fn the_committed_availability_reads() {
    let read = Availability::read(super::PINNED).unwrap();
    assert!(read.releases.len() >= 17, "{:?}", read.releases);
    assert!(read.functions.len() > 400, "{}", read.functions.len());
    assert_eq!(super::releases_with("cuInit").len(), read.releases.len());
    assert_eq!(super::release_name(11070), "11.7");
    assert_eq!(super::release_name(1), "1");
    assert!(super::releases_with("cuNope").is_empty());
    // `cuCheckpointOperationComplete` is new in 13.4.
    assert_eq!(
        super::releases_with("cuCheckpointOperationComplete"),
        [13040, 13050]
    );
}
