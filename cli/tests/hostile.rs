//! `inspect` on crafted and unlucky files: text in records and PTX that would rewrite the report
//! on a terminal, files that are not regular files, a large file, several records sections, a
//! program without section headers.
#![cfg(target_os = "linux")]

mod craft;

use craft::{folder, library, record, tool};

/// A table name with terminal escapes that would, printed raw, erase the verdict line and write
/// another; a function name with a newline that would forge a line of the report; a PTX target
/// that would turn the terminal red. Every one is printed escaped, and the verdict stays the
/// report's first line.
#[test]
fn text_from_the_file_cannot_rewrite_the_report() {
    let dir = folder("forged");
    let forged_table = "app::T\u{1b}[1A\u{1b}[2K\rprogram needs nothing\u{202e}";
    let forged_function = "cuInit\n    cuForged ABI 1: asks for 1 with the legacy flag";
    let lib = library(
        &dir,
        "libforged.so",
        &[record(
            forged_table,
            2,
            1,
            12000,
            &[(forged_function, 2000, 0)],
        )],
        &[b".version 8.4\n.target sm_80\x1b[31m\n.address_size 64\n"],
        &[],
    );
    let (out, err, code) = tool(&[std::ffi::OsStr::new("inspect"), lib.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    for hidden in ['\u{1b}', '\r', '\u{202e}'] {
        assert!(!out.contains(hidden), "{hidden:?} printed raw: {out:?}");
    }
    assert!(
        out.lines()
            .next()
            .is_some_and(|l| l.contains("needs a CUDA driver of 12.4 or newer")),
        "{out}"
    );
    assert!(
        out.contains(
            "  app::T\\u{1b}[1A\\u{1b}[2K\\rprogram needs nothing\\u{202e}: backend driver"
        ),
        "{out}"
    );
    assert!(
        out.contains("    cuInit\\n    cuForged ABI 1: asks for 1 with the legacy flag ABI 2000"),
        "{out}"
    );
    assert!(!out.lines().any(|l| l.starts_with("    cuForged")), "{out}");
    assert!(
        out.contains("ISA 8.4 for sm_80\\u{1b}[31m at offset"),
        "{out}"
    );
    // The JSON output keeps the names as they are (JSON escapes them itself).
    let (json, _, _) = tool(&[
        std::ffi::OsStr::new("inspect"),
        "--json".as_ref(),
        lib.as_os_str(),
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(json["tables"][0]["name"], forged_table);
    assert_eq!(json["tables"][0]["functions"][0]["name"], forged_function);
}
