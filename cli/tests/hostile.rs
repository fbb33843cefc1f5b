//! `inspect` on crafted and unlucky files: text in records and PTX that would rewrite the report
//! on a terminal, files that are not regular files, a large file, several records sections, a
//! program without section headers.
#![cfg(target_os = "linux")]

mod common;
mod craft;

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use craft::{folder, library, record, record_v2, tool};

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

/// `inspect` on `path`, which must end within `limit`: its output, error and exit code.
fn inspect_within(path: &std::path::Path, limit: Duration) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .arg("inspect")
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("inspect {} did not end within {limit:?}", path.display());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("the output");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().expect("an exit code"),
    )
}

/// A FIFO (which would block a reader until a writer comes), `/dev/zero` (which never ends) and a
/// directory are refused at once with exit code 2.
#[test]
fn what_is_not_a_regular_file_is_refused_at_once() {
    let dir = folder("special");
    let fifo = dir.join("fifo");
    let _ = std::fs::remove_file(&fifo);
    let path = std::ffi::CString::new(fifo.as_os_str().as_bytes()).expect("a path");
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0, "mkfifo");
    for (path, what) in [
        (fifo.as_path(), "is a FIFO (named pipe), not a regular file"),
        (
            Path::new("/dev/zero"),
            "is a character device, not a regular file",
        ),
        (dir.as_path(), "is a directory, not a regular file"),
    ] {
        let (out, err, code) = inspect_within(path, Duration::from_secs(10));
        assert_eq!((code, out.as_str()), (2, ""), "{}: {err}", path.display());
        assert!(
            err.starts_with(&format!("error: {} {what}", path.display())),
            "{err}"
        );
    }
}

/// A program followed by 6 GiB (a sparse file: no disk is used) is read through its headers and
/// sections: the same records as the program alone, in a few MiB of memory (the tool's maximum
/// resident set, which `wait4` reports).
#[test]
fn a_large_file_is_read_in_bounded_memory() {
    let dir = folder("large");
    let large = dir.join("recorded-large");
    std::fs::copy(common::recorded(), &large).expect("a copy");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&large)
        .expect("open");
    file.set_len(6 << 30).expect("a sparse 6 GiB file");
    drop(file);
    // `wait4` below reaps it, with the resource usage that `Child::wait` does not give.
    #[allow(clippy::zombie_processes)]
    let mut child = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .args(["inspect", "--json"])
        .arg(&large)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the tool runs");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: a zeroed `rusage` is a valid value for `wait4` to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is the child just spawned and not yet waited for; valid out-parameters.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let text = reader.join().expect("the output");
    let _ = std::fs::remove_file(&large);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let alone = inspect_json(&common::recorded());
    assert_eq!(json["tables"], alone["tables"]);
    assert_eq!(json["ptx"], alone["ptx"]);
    // Linux reports the maximum resident set in KiB.
    let rss_kib = usage.ru_maxrss;
    eprintln!("inspect of a 6 GiB file: maximum resident set {rss_kib} KiB");
    assert!(rss_kib < 64 * 1024, "{rss_kib} KiB resident");
}

/// `inspect --json` of `path`, which must succeed.
fn inspect_json(path: &Path) -> serde_json::Value {
    let (out, err, code) = tool(&[
        OsStr::new("inspect"),
        OsStr::new("--json"),
        path.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON")
}

/// A relocatable object (what a compiler writes before linking) may hold several sections of the
/// same name: one for each table, as rustc writes them. Every one is read.
#[test]
fn every_records_section_of_an_object_is_read() {
    let dir = folder("object");
    let bytes = |r: &[u8]| {
        r.iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let a = record("app::A", 2, 1, 11030, &[("cuInit", 2000, 0)]);
    let b = record("app::B", 2, 1, 12000, &[("cuMemAlloc", 3020, 0)]);
    let source = dir.join("two.s");
    std::fs::write(
        &source,
        format!(
            ".section cuda_driver_table,\"a\",@progbits,unique,1\n.byte {}\n\
             .section cuda_driver_table,\"a\",@progbits,unique,2\n.byte {}\n",
            bytes(&a),
            bytes(&b)
        ),
    )
    .expect("the source");
    let object = dir.join("two.o");
    craft::cc(&["-c", "-o"], &object, &source, &[]);
    let json = inspect_json(&object);
    let names: Vec<&str> = json["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["app::A", "app::B"], "{json:#}");
    assert_eq!(
        json["records_found_in"].as_array().expect("places").len(),
        2
    );
    assert_eq!(json["driver_floor"], 12000);
}

/// A program whose section headers were removed (as `sstrip` does; the loader needs only the
/// program headers) still holds its records in a loaded segment: they are found there, with its
/// PTX, as in the whole program.
#[test]
fn a_program_without_section_headers_is_read_through_its_segments() {
    let dir = folder("stripped");
    let stripped = dir.join("recorded-stripped");
    let mut bytes = std::fs::read(common::recorded()).expect("the program");
    // ELF64: e_shoff at 0x28 (8 bytes), e_shnum at 0x3c and e_shstrndx at 0x3e (2 bytes each).
    assert_eq!(&bytes[..5], b"\x7fELF\x02", "a 64-bit ELF file");
    bytes[0x28..0x30].fill(0);
    bytes[0x3c..0x40].fill(0);
    std::fs::write(&stripped, &bytes).expect("the copy");
    let json = inspect_json(&stripped);
    let whole = inspect_json(&common::recorded());
    assert!(!whole["tables"].as_array().expect("tables").is_empty());
    assert_eq!(json["tables"], whole["tables"]);
    assert_eq!(json["driver_floor"], whole["driver_floor"]);
    assert_eq!(json["unreadable_records"], serde_json::json!([]));
    let ptx = |j: &serde_json::Value| -> Vec<(serde_json::Value, serde_json::Value)> {
        j["ptx"]
            .as_array()
            .expect("ptx")
            .iter()
            .map(|p| (p["offset"].clone(), p["isa"].clone()))
            .collect()
    };
    assert_eq!(ptx(&json), ptx(&whole));
    let places = json["records_found_in"].as_array().expect("places");
    assert_eq!(
        places.len(),
        whole["tables"].as_array().expect("tables").len()
    );
    assert!(places.iter().all(|p| p
        .as_str()
        .expect("a place")
        .contains("(the file has no section headers)")));
}

/// A table declared with `driver = 12000` whose functions' newest ABIs are older needs only what
/// those ABIs need (11.3, the lookup's own): the report says what sets each table's floor and why
/// it can be below the declared option; and that every table linked in is recorded.
#[test]
fn a_floor_below_the_declared_driver_is_explained() {
    let dir = folder("floor");
    let lib = library(
        &dir,
        "libfloor.so",
        &[record(
            "app::Cuda",
            2,
            1,
            11030,
            &[("cuInit", 2000, 0), ("cuMemAlloc", 3020, 0)],
        )],
        &[],
        &[],
    );
    let (out, err, code) = tool(&[OsStr::new("inspect"), lib.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines()
            .next()
            .is_some_and(|l| l.contains("needs a CUDA driver of 11.3 or newer")),
        "{out}"
    );
    assert!(
        out.contains(
            "  app::Cuda: backend driver, legacy stream, MIN_DRIVER_VERSION 11030 (11.3), 2 \
             functions\n    floor 11.3 set by the lookup itself (cuGetProcAddress needs 11.3); no \
             function's ABI needs more\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("It can be below the `driver = N` its source declares: that option picks for each function the newest ABI a driver of N has"),
        "{out}"
    );
    assert!(
        out.contains(
            "Every table linked into the file is recorded (an earlier cuda-driver-table wrote its \
             records), whether the program uses it or not"
        ),
        "{out}"
    );
}

/// PTX of an ISA the tool does not know: the floor is unknown (JSON `null`, the modules in
/// `set_by`), the report says so above the PTX list instead of "embeds no PTX".
#[test]
fn ptx_of_an_unknown_isa_makes_the_floor_unknown() {
    let dir = folder("unknown-isa");
    let only_ptx = library(
        &dir,
        "libunknown.so",
        &[],
        &[b".version 99.0\n.target sm_200\n.address_size 64\n"],
        &[],
    );
    let (out, err, code) = tool(&[OsStr::new("inspect"), only_ptx.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().next().is_some_and(|l| l.ends_with(
            "needs a CUDA driver this tool cannot name: it embeds PTX of an ISA newer than this \
             tool knows (update cuda-driver-table-cli)."
        )),
        "{out}"
    );
    assert!(!out.contains("embeds no PTX"), "{out}");
    assert!(
        out.contains("  unknown: PTX ISA 99.0 for sm_200 at offset"),
        "{out}"
    );
    let json = inspect_json(&only_ptx);
    assert_eq!(json["driver_floor"], serde_json::Value::Null);
    assert_eq!(json["set_by"][0]["kind"], "ptx");
    assert_eq!(json["set_by"][0]["isa"], "99.0");

    // With a table: what is known is said too.
    let both = library(
        &dir,
        "libboth.so",
        &[record("app::T", 2, 1, 12050, &[("cuCtxCreate", 12050, 0)])],
        &[b".version 99.0\n.target sm_200\n"],
        &[],
    );
    let (out, _, _) = tool(&[OsStr::new("inspect"), both.as_os_str()]);
    assert!(
        out.lines()
            .next()
            .is_some_and(|l| l.ends_with("; what it knows needs 12.5 or newer (12050).")),
        "{out}"
    );
}

/// A file holding a record of each format version, as a program linking code built with this
/// version and with an earlier one has: both are read; the earlier one's `driver` option, which
/// it does not keep, is reported unknown, and the later one's beside the floor its ABIs set.
#[test]
fn records_of_the_earlier_format_are_read_and_their_driver_option_unknown() {
    let dir = folder("formats");
    let lib = library(
        &dir,
        "libformats.so",
        &[
            record("app::Old", 2, 1, 11030, &[("cuInit", 2000, 0)]),
            record_v2("app::New", 11030, (1, 12000), &[("cuInit", 2000, 0)]),
            record_v2(
                "app::Newest",
                12050,
                (2, 13000),
                &[("cuCtxCreate", 12050, 0)],
            ),
        ],
        &[],
        &[],
    );
    let (out, err, code) = tool(&[OsStr::new("inspect"), lib.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("warning"), "{out}");
    for line in [
        "  app::Old: backend driver, legacy stream, MIN_DRIVER_VERSION 11030 (11.3), 1 function\n",
        "    declared `driver` option unknown: the record was written by an earlier \
         cuda-driver-table (format version 1), which does not keep it\n",
        "    declared `driver = 12000` (12.0); its functions' ABIs need only 11.3: the newest ABIs \
         a 12.0 driver has of these functions are older\n",
        "    declared `driver = newest`: the newest ABIs of the CUDA 13.0 bindings, which need \
         12.5\n",
    ] {
        assert!(out.contains(line), "{line:?} not in:\n{out}");
    }
    let (json, err, code) = tool(&[OsStr::new("inspect"), OsStr::new("--json"), lib.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let declared: Vec<(&str, &serde_json::Value)> = json["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| (t["name"].as_str().expect("a name"), &t["declared"]))
        .collect();
    assert_eq!(
        declared,
        [
            ("app::New", &serde_json::json!({"driver": 12000})),
            ("app::Newest", &serde_json::json!({"newest": 13000})),
            ("app::Old", &serde_json::Value::Null),
        ]
    );
}
