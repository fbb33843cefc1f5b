//! Crafted programs for the tool to read: records written byte by byte (the format
//! `cuda_driver_table::registry` documents), and ELF files built around them with the C compiler.
// Each test file uses the part it needs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A version-1 record of a table `name` with the backend and stream flag bytes given, its
/// `MIN_DRIVER_VERSION`, and `functions` as (name, ABI, per-thread twin or 0).
pub fn record(
    name: &str,
    backend: u8,
    flag: u8,
    min: u32,
    functions: &[(&str, u32, u32)],
) -> Vec<u8> {
    let mut out = b"cdtR".to_vec();
    out.extend([1, backend, flag, 0]);
    out.extend([0; 4]); // the length, below
    out.extend(min.to_le_bytes());
    out.extend(
        u16::try_from(name.len())
            .expect("a short name")
            .to_le_bytes(),
    );
    out.extend(name.as_bytes());
    out.extend(u16::try_from(functions.len()).expect("few").to_le_bytes());
    for (f, abi, twin) in functions {
        out.push(u8::try_from(f.len()).expect("a short name"));
        out.extend(f.as_bytes());
        out.extend(abi.to_le_bytes());
        out.extend(twin.to_le_bytes());
    }
    let len = u32::try_from(out.len()).expect("small").to_le_bytes();
    out[8..12].copy_from_slice(&len);
    out
}

/// A version-2 record: [`record`] with the table's `driver` option, `option` 1 for
/// `driver = N` and 2 for `driver = newest`, `driver` N or the release of the bindings.
pub fn record_v2(
    name: &str,
    min: u32,
    (option, driver): (u8, u32),
    functions: &[(&str, u32, u32)],
) -> Vec<u8> {
    let old = record(name, 2, 1, min, functions);
    let mut out = old[..16].to_vec();
    out[4] = 2;
    out[7] = option;
    out.extend(driver.to_le_bytes());
    out.extend(&old[16..]);
    let len = u32::try_from(out.len()).expect("small").to_le_bytes();
    out[8..12].copy_from_slice(&len);
    out
}

/// A fresh folder for the test `name`.
pub fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cdt-craft-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// `bytes` as a C array initialiser.
fn c_bytes(bytes: &[u8]) -> String {
    let items: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
    format!("{{{}}}", items.join(","))
}

/// A shared library built by `cc` in `dir` as `file`, holding `records` in the records section
/// (one C array each, which the compiler puts side by side in one section) and `rodata` (each a
/// NUL-terminated string) in its read-only data. `extra` are more `cc` arguments.
pub fn library(
    dir: &Path,
    file: &str,
    records: &[Vec<u8>],
    rodata: &[&[u8]],
    extra: &[&str],
) -> PathBuf {
    let mut c = String::new();
    for (n, r) in records.iter().enumerate() {
        c += &format!(
            "__attribute__((used, section(\"cuda_driver_table\"))) static const unsigned char record{n}[] = {};\n",
            c_bytes(r)
        );
    }
    for (n, text) in rodata.iter().enumerate() {
        let mut bytes = text.to_vec();
        bytes.push(0);
        c += &format!(
            "__attribute__((used)) static const char text{n}[] = {};\n",
            c_bytes(&bytes)
        );
    }
    c += "int crafted_function(void) { return 0; }\n";
    let source = dir.join(format!("{file}.c"));
    std::fs::write(&source, c).expect("the source is written");
    let out = dir.join(file);
    cc(&["-shared", "-fPIC", "-O0", "-o"], &out, &source, extra);
    out
}

/// Runs `cc ARGS OUT SOURCE EXTRA`.
pub fn cc(args: &[&str], out: &Path, source: &Path, extra: &[&str]) {
    let status = Command::new("cc")
        .args(args)
        .arg(out)
        .arg(source)
        .args(extra)
        .status()
        .expect("cc runs (the test builds crafted programs with the C compiler)");
    assert!(status.success(), "cc builds {}", out.display());
}

/// The tool run with `args`: standard output, standard error, exit code.
pub fn tool<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .args(args)
        .output()
        .expect("the tool runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().expect("an exit code"),
    )
}
