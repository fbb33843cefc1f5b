//! Every sample, run where its CUDA library cannot be loaded, fails cleanly: exit code 1 and one
//! line on standard error naming what it looked for, with no panic. On any machine, one with a
//! driver included: `CUDA_DRIVER_TABLE_CUDART` and `CUDA_DRIVER_TABLE_LIBCUDA` name a file that
//! does not exist, and a library named in the environment is used alone (the default
//! configuration does not fall back to libcuda after it, and `--driver` searches nothing else),
//! so no library is loaded. Each backend's line names its variable's path and only that path,
//! which shows that nothing else was tried.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A path that names no file on any machine the suite runs on: absolute (a relative one would be
/// refused before loading, which is another message) under a folder that does not exist.
const MISSING_CUDART: &str = "/nonexistent/cuda-driver-table-samples/libcudart.so.13";
const MISSING_LIBCUDA: &str = "/nonexistent/cuda-driver-table-samples/libcuda.so.1";

/// The names of the samples: the files of `src/bin/`, read when the test runs, so that every
/// sample added there is covered without a list to keep here.
fn samples() -> Vec<String> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Staged on another machine (no cargo), the test runs from the repository root.
    let bin_dir = [
        manifest_dir.join("src/bin"),
        PathBuf::from("samples/src/bin"),
    ]
    .into_iter()
    .find(|d| d.is_dir())
    .expect("samples/src/bin is not there: run the test from the repository or with cargo");
    let mut names: Vec<String> = std::fs::read_dir(&bin_dir)
        .expect("samples/src/bin can be listed")
        .map(|entry| entry.expect("an entry of samples/src/bin").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_owned()))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no sample in {}", bin_dir.display());
    names
}

/// Runs `sample` with `args` and the two variables naming missing files; checks the exit code
/// and standard error, and that the one line names `expected_path` (from `variable`) alone.
fn fails_cleanly(sample: &str, args: &[&str], variable: &str, expected_path: &str) {
    let exe = common::program(sample);
    let out = Command::new(&exe)
        .args(args)
        .env("CUDA_DRIVER_TABLE_CUDART", MISSING_CUDART)
        .env("CUDA_DRIVER_TABLE_LIBCUDA", MISSING_LIBCUDA)
        .output()
        .expect("the sample starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let what = format!("{sample} {}", args.join(" "));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{what}: exit code {:?}, standard error:\n{stderr}",
        out.status.code()
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{what} panicked:\n{stderr}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: expected one line, got:\n{stderr}");
    let line = lines[0];
    assert!(
        line.starts_with(&format!("{sample}: could not load ")),
        "{what}: the line does not say what could not be loaded: {line}"
    );
    assert!(
        line.contains(&format!(
            "looked for \"{expected_path}\" (from ${variable})"
        )),
        "{what}: the line does not name {expected_path} from ${variable}: {line}"
    );
    // Quotes surround each path tried: one path, so nothing but the named file was tried.
    assert_eq!(
        line.matches('"').count(),
        2,
        "{what}: more than one path tried: {line}"
    );
    assert!(
        line.contains(&format!("fix or unset {variable}")),
        "{what}: the advice is not about {variable}: {line}"
    );
}

#[test]
fn every_sample_without_its_library_exits_with_1_and_one_line_naming_what_it_looked_for() {
    for sample in samples() {
        fails_cleanly(&sample, &[], "CUDA_DRIVER_TABLE_CUDART", MISSING_CUDART);
        fails_cleanly(
            &sample,
            &["--driver"],
            "CUDA_DRIVER_TABLE_LIBCUDA",
            MISSING_LIBCUDA,
        );
    }
}
