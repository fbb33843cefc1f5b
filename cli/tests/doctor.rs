//! `doctor` against stand-in libcuda files built here with `cc`: a driver that has everything the
//! example program `recorded` asks for, a stub, a driver too old, one missing a function, and
//! interposers that answer another ABI or a null pointer. Each case's report and exit code.
#![cfg(target_os = "linux")]

mod common;
mod craft;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// One stand-in libcuda. Its functions are exported under the names `cuda.h` gives each ABI, and
/// `cuGetProcAddress_v2` hands them out by (name, version, flag) as a driver of `VERSION` does;
/// the `-D` flags of each case change that.
const LIBCUDA_C: &str = r#"
#include <string.h>
#include <unistd.h>
#ifndef VERSION
#define VERSION 13000
#endif
#ifndef ANSWERED_VERSION
#define ANSWERED_VERSION VERSION
#endif
#ifndef VERSION_STATUS
#define VERSION_STATUS 0
#endif
int cuInit(unsigned f) { (void)f; return 0; }
int cuDriverGetVersion(int *v) { *v = ANSWERED_VERSION; return VERSION_STATUS; }
int cuCtxCreate_v2(void) { return 0; }
int cuCtxCreate_v4(void) { return 0; }
int cuLaunchKernel(void) { return 0; }
int cuLaunchKernel_ptsz(void) { return 0; }
int cuMemcpyHtoD_v2(void) { return 0; }
int cuMemcpyHtoD_v2_ptds(void) { return 0; }
int cuMemAlloc_v2(void) { return 0; }
int cuGetProcAddress_v2(const char *s, void **p, int version, unsigned long long flags,
                        int *status) {
    void *f = 0;
#ifdef STUB
    *p = 0; return 34;
#endif
    if (version > VERSION) { *p = 0; return 1; }
#ifdef HANG
    if (!strcmp(s, "cuMemAlloc")) {
#ifdef KEEP_PIPES
        /* A process of its own that keeps the probe's output open after the probe is killed. */
        if (fork() == 0) { sleep(20); _exit(0); }
#endif
        for (;;) sleep(1);
    }
#endif
#ifdef CRASH
    if (!strcmp(s, "cuMemAlloc")) *(volatile int *)8 = 1;
#endif
    if (!strcmp(s, "cuInit")) f = (void *)cuInit;
    else if (!strcmp(s, "cuDriverGetVersion")) f = (void *)cuDriverGetVersion;
    else if (!strcmp(s, "cuCtxCreate"))
#ifdef OTHER_ABI
        f = (void *)cuCtxCreate_v2;
#else
        f = version >= 12050 ? (void *)cuCtxCreate_v4 : (void *)cuCtxCreate_v2;
#endif
    else if (!strcmp(s, "cuLaunchKernel"))
#ifdef NULL_POINTER
        { *p = 0; if (status) *status = 0; return 0; }
#else
        f = flags == 2 ? (void *)cuLaunchKernel_ptsz : (void *)cuLaunchKernel;
#endif
#ifndef NO_MEMCPY
    else if (!strcmp(s, "cuMemcpyHtoD"))
        f = flags == 2 ? (void *)cuMemcpyHtoD_v2_ptds : (void *)cuMemcpyHtoD_v2;
#endif
    else if (!strcmp(s, "cuMemAlloc"))
#if defined(ANOTHER_EXPORT)
        f = (void *)cuInit;
#elif defined(GARBAGE)
        f = (void *)8;
#else
        f = (void *)cuMemAlloc_v2;
#endif
    *p = f;
    if (status) *status = f ? 0 : 1;
    return 0;
}
"#;

/// A stand-in libcudart 12.9: it exports the versioned lookup (which finds nothing) and says its
/// version.
const LIBCUDART_C: &str = r#"
int cudaGetDriverEntryPointByVersion(const char *s, void **p, unsigned v, unsigned long long f,
                                     int *status) {
    (void)s; (void)v; (void)f; *p = 0; if (status) *status = 1; return 0;
}
int cudaRuntimeGetVersion(int *v) { *v = 12090; return 0; }
"#;

/// Builds the stand-in libcudart as `libcudart.so.12` in a fresh folder.
fn stand_in_cudart() -> PathBuf {
    // Built once: the tests run in parallel.
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| build("cudart", LIBCUDART_C, "libcudart.so.12", &[]))
        .clone()
}

/// Builds the stand-in with `defines` as `NAME/libcuda.so.1` in a fresh folder.
fn stand_in(name: &str, defines: &[&str]) -> PathBuf {
    build(name, LIBCUDA_C, "libcuda.so.1", defines)
}

/// Builds `source` with `defines` as `NAME/file` in a fresh folder.
fn build(name: &str, source_text: &str, file: &str, defines: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cdt-doctor-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let source = dir.join(format!("{file}.c"));
    std::fs::create_dir_all(source.parent().expect("a folder")).expect("the library's folder");
    std::fs::write(&source, source_text).expect("the source is written");
    let lib = dir.join(file);
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&lib)
        .arg(&source)
        .args(defines.iter().map(|d| format!("-D{d}")))
        .status()
        .expect("cc runs (the test builds stand-in libraries with the C compiler)");
    assert!(status.success(), "cc builds the stand-in {name}");
    lib
}

/// `doctor` with `libcuda` as the driver and the stand-in libcudart, on `binary` if given.
fn doctor(libcuda: &Path, binary: Option<&Path>) -> (String, i32) {
    doctor_with(libcuda, binary, &[])
}

/// [`doctor`] with more arguments.
fn doctor_with(libcuda: &Path, binary: Option<&Path>, args: &[&str]) -> (String, i32) {
    doctor_env(libcuda, binary, args, &[])
}

/// [`doctor`] with more arguments and environment variables.
fn doctor_env(
    libcuda: &Path,
    binary: Option<&Path>,
    args: &[&str],
    env: &[(&str, &Path)],
) -> (String, i32) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"));
    command
        .arg("doctor")
        .args(args)
        .env_remove("CUDA_INJECTION64_PATH")
        .envs(env.iter().copied())
        .env("CUDA_DRIVER_TABLE_LIBCUDA", libcuda)
        .env("CUDA_DRIVER_TABLE_CUDART", stand_in_cudart());
    if let Some(binary) = binary {
        command.arg(binary);
    }
    let out = command.output().expect("the tool runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (text, out.status.code().expect("an exit code"))
}

/// `doctor --json` with `libcuda` as the driver and the stand-in libcudart, on `binary`: the
/// object and the exit code.
fn doctor_json(libcuda: &Path, binary: &Path) -> (serde_json::Value, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .args(["doctor", "--json"])
        .arg(binary)
        .env("CUDA_DRIVER_TABLE_LIBCUDA", libcuda)
        .env("CUDA_DRIVER_TABLE_CUDART", stand_in_cudart())
        .output()
        .expect("the tool runs");
    let json = serde_json::from_slice(&out.stdout).expect("the output is JSON");
    (json, out.status.code().expect("an exit code"))
}

/// The keys of a JSON object, sorted.
fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
    k.sort();
    k
}

/// The schema the README documents, every field with its type; and what it says of a driver that
/// meets everything and of one whose lookup hands out a null pointer.
#[test]
fn the_json_output_follows_its_schema() {
    let program = common::recorded();
    let good = stand_in("json-good", &[]);
    let (json, code) = doctor_json(&good, &program);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        keys(&json),
        [
            "binary",
            "libcuda",
            "libcudart",
            "met",
            "problems",
            "requirements",
            "schema",
            "situation"
        ]
    );
    assert!(json["situation"]
        .as_array()
        .expect("situation")
        .iter()
        .all(|n| n.is_string()));
    assert_eq!(json["schema"], cuda_driver_table_cli::DOCTOR_SCHEMA);
    assert_eq!(json["schema"], "cuda-driver-table-doctor/1");
    assert_eq!(json["met"], true);
    assert_eq!(json["problems"], serde_json::json!([]));
    assert_eq!(json["binary"], program.display().to_string());
    for library in ["libcuda", "libcudart"] {
        let l = &json[library];
        assert_eq!(keys(l), ["found", "search", "stub", "version"], "{library}");
        assert!(l["stub"].is_boolean());
        for step in l["search"].as_array().expect("search") {
            assert_eq!(keys(step), ["detail", "outcome", "what"]);
            assert!(step["what"].is_string());
            assert!(step["detail"].is_string() || step["detail"].is_null());
            assert!(
                ["loaded", "absent", "load_failed", "not_cuda", "not_tried"]
                    .contains(&step["outcome"].as_str().expect("outcome")),
                "{step}"
            );
        }
    }
    assert_eq!(json["libcuda"]["found"], good.display().to_string());
    assert_eq!(json["libcuda"]["version"], 13000);
    assert_eq!(json["libcuda"]["stub"], false);
    let last = json["libcuda"]["search"]
        .as_array()
        .expect("search")
        .last()
        .cloned();
    assert_eq!(last.expect("a step")["outcome"], "loaded");
    assert_eq!(json["libcudart"]["version"], 12090);
    let requirements = json["requirements"].as_array().expect("requirements");
    assert_eq!(requirements.len(), 7);
    for r in requirements {
        assert_eq!(
            keys(r),
            ["flag", "function", "met", "note", "requested", "table"]
        );
        assert_eq!(r["met"], true, "{r}");
        assert!(["legacy", "per-thread"].contains(&r["flag"].as_str().expect("flag")));
        assert!(r["requested"].is_u64() && r["note"].is_string());
    }

    let (json, code) = doctor_json(&stand_in("json-null", &["NULL_POINTER"]), &program);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["met"], false);
    let failed: Vec<&serde_json::Value> = json["requirements"]
        .as_array()
        .expect("requirements")
        .iter()
        .filter(|r| r["met"] == false)
        .collect();
    assert_eq!(failed.len(), 1, "{json:#}");
    assert_eq!(failed[0]["function"], "cuLaunchKernel");
    assert_eq!(failed[0]["flag"], "per-thread");
    assert!(failed[0]["note"]
        .as_str()
        .expect("note")
        .contains("handed out a null pointer"));
    assert_eq!(json["problems"].as_array().expect("problems").len(), 1);
}

#[test]
fn a_driver_with_every_recorded_function_meets_the_requirements() {
    let lib = stand_in("good", &[]);
    let program = common::recorded();
    let (text, code) = doctor(&lib, Some(&program));
    assert_eq!(code, 0, "{text}");
    assert!(
        text.starts_with("This machine meets every requirement"),
        "{text}"
    );
    assert!(text.contains("7 recorded functions"), "{text}");
    assert!(text.contains("driver version: 13.0 (13000)"), "{text}");
    assert!(
        text.contains(&format!(
            "{:?} (from $CUDA_DRIVER_TABLE_LIBCUDA): loaded",
            lib.display().to_string()
        )),
        "{text}"
    );
    // libcudart's search, and its own version.
    assert!(text.contains("libcudart version: 12.9 (12090)"), "{text}");
    assert!(
        text.contains("recorded::PerThread cuLaunchKernel at 7000 (per-thread)"),
        "{text}"
    );
    // Without a program: the driver alone.
    let (text, code) = doctor(&lib, None);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.starts_with("This machine has a usable CUDA driver: the CUDA driver 13.0"),
        "{text}"
    );
}

#[test]
fn a_stub_is_named_as_such_up_front() {
    let (text, code) = doctor(&stand_in("stub", &["STUB"]), None);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.starts_with("This machine does not meet 1 requirement"),
        "{text}"
    );
    assert!(
        text.contains("\n  - no usable libcuda: ")
            && text.contains(
                "libcuda.so.1 is a stub libcuda (a toolkit's, for linking), not a driver"
            ),
        "{text}"
    );
}

#[test]
fn a_driver_too_old_is_named_with_the_function_that_needs_more() {
    let (text, code) = doctor(
        &stand_in("old", &["VERSION=12000"]),
        Some(&common::recorded()),
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(
            "NOT MET recorded::Driver cuCtxCreate at 12050 (legacy): the driver is too old: it is \
             12.0 and this ABI needs 12.5; update the NVIDIA driver, or pin the older ABI \
             `cuCtxCreate = 11040` in the table, which this driver has\n"
        ),
        "{text}"
    );
    // Said once: the function, the versions and the advice each appear once in its line.
    let line = text
        .lines()
        .find(|l| l.contains("NOT MET recorded::Driver cuCtxCreate"))
        .expect("the line");
    for once in ["too old", "12.0", "12.5", "update the NVIDIA driver", "pin"] {
        assert_eq!(line.matches(once).count(), 1, "{once}: {line}");
    }
    // A function without an older ABI is not advised to pin one.
    let (older, _) = doctor(
        &stand_in("old-no-older-abi", &["VERSION=6000"]),
        Some(&common::recorded()),
    );
    let line = older
        .lines()
        .find(|l| l.contains("NOT MET recorded::PerThread cuLaunchKernel"))
        .expect("the line");
    assert!(
        line.ends_with(
            "the driver is too old: it is 6.0 and this ABI needs 7.0; update the NVIDIA driver"
        ),
        "{older}"
    );
    // And the PTX, of ISA 8.4, needs 12.4.
    assert!(
        text.starts_with("This machine does not meet 2 requirements"),
        "{text}"
    );
    assert!(
        text.contains("the program's PTX needs a driver of 12.4 and this one is 12.0"),
        "{text}"
    );
}

#[test]
fn a_missing_function_is_named_absent() {
    let (text, code) = doctor(
        &stand_in("missing", &["NO_MEMCPY"]),
        Some(&common::recorded()),
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("NOT MET recorded::PerThread cuMemcpyHtoD at 7000 (per-thread): absent from this driver"),
        "{text}"
    );
}

#[test]
fn an_interposer_answering_another_abi_is_caught() {
    let (text, code) = doctor(
        &stand_in("other-abi", &["OTHER_ABI"]),
        Some(&common::recorded()),
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("NOT MET recorded::Driver cuCtxCreate at 12050 (legacy): the lookup handed out cuCtxCreate_v2 (ABI 3020, legacy) where cuCtxCreate_v4 was asked for"),
        "{text}"
    );
}

#[test]
fn an_interposer_answering_a_null_pointer_is_caught() {
    let (text, code) = doctor(
        &stand_in("null", &["NULL_POINTER"]),
        Some(&common::recorded()),
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("NOT MET recorded::PerThread cuLaunchKernel at 7000 (per-thread): the lookup said found but handed out a null pointer"),
        "{text}"
    );
}

/// Without a usable libcuda: one cause, one line, and what it leaves unchecked counted; the
/// functions are listed with `-v` and in the JSON output.
#[test]
fn no_libcuda_at_all_is_one_line() {
    let missing = Path::new("/nonexistent/cuda-driver-table-test/libcuda.so.1");
    let (text, code) = doctor(missing, None);
    assert_eq!(code, 1, "{text}");
    let list: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("This machine does not meet"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        list,
        ["  - no usable libcuda (the search's steps are below)"],
        "{text}"
    );
    // The step says where the path came from, as the crate's error does.
    assert!(
        text.contains(
            "1. \"/nonexistent/cuda-driver-table-test/libcuda.so.1\" \
             (from $CUDA_DRIVER_TABLE_LIBCUDA): "
        ),
        "{text}"
    );

    let program = common::recorded();
    let (text, code) = doctor(missing, Some(&program));
    assert_eq!(code, 1, "{text}");
    assert!(
        text.starts_with(&format!(
            "This machine does not meet 1 requirement of {}:\n  - no usable libcuda: 7 functions \
             of recorded::Driver, recorded::PerThread and recorded::Runtime not checked (-v or \
             --json lists them)\n\n",
            program.display()
        )),
        "{text}"
    );
    assert!(!text.contains("cuCtxCreate"), "{text}");
    assert_eq!(text.matches("no usable libcuda").count(), 2, "{text}");

    let out = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .args(["doctor", "-v"])
        .arg(&program)
        .env("CUDA_DRIVER_TABLE_LIBCUDA", missing)
        .env("CUDA_DRIVER_TABLE_CUDART", stand_in_cudart())
        .output()
        .expect("the tool runs");
    let verbose = String::from_utf8_lossy(&out.stdout);
    assert!(
        verbose.contains("\n  not checked recorded::Driver cuCtxCreate at 12050 (legacy)\n"),
        "{verbose}"
    );
    assert_eq!(verbose.matches("\n  not checked ").count(), 7, "{verbose}");

    let (json, code) = doctor_json(missing, &program);
    assert_eq!(code, 1);
    assert_eq!(json["problems"].as_array().expect("problems").len(), 1);
    let requirements = json["requirements"].as_array().expect("requirements");
    assert_eq!(requirements.len(), 7, "{json:#}");
    assert!(requirements
        .iter()
        .all(|r| r["met"] == false && r["note"] == "not checked: no usable libcuda"));
}

/// A table name that would erase the verdict on a terminal and a function name that would forge an
/// `ok` line: both printed escaped, the verdict first and no forged line.
#[test]
fn forged_names_cannot_forge_a_verdict_or_an_ok_line() {
    let dir = craft::folder("doctor-forged");
    let program = craft::library(
        &dir,
        "libforged.so",
        &[craft::record(
            "app::T\u{1b}[1A\u{1b}[2K\rThis machine meets every requirement",
            2,
            1,
            2000,
            &[(
                "cuInit\n  ok      app::T cuForged at 2000 (legacy)",
                2000,
                0,
            )],
        )],
        &[],
        &[],
    );
    let (text, code) = doctor(&stand_in("forged", &[]), Some(&program));
    assert_eq!(code, 1, "{text}");
    assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
    assert!(
        text.starts_with("This machine does not meet 1 requirement"),
        "{text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("  ok      app::T cuForged")),
        "{text}"
    );
    assert!(
        !text.lines().skip(1).any(|l| l.starts_with("This machine")),
        "{text}"
    );
    assert!(
        text.contains("  NOT MET app::T\\u{1b}[1A\\u{1b}[2K\\rThis machine meets every requirement cuInit\\n  ok      app::T cuForged at 2000 (legacy) at 2000 (legacy): "),
        "{text}"
    );
}

/// A lookup that hands out another function the library exports (`dladdr` names it), or an
/// address in no library: not met.
#[test]
fn another_export_or_an_address_in_no_library_is_not_met() {
    let program = common::recorded();
    let (text, code) = doctor(
        &stand_in("another-export", &["ANOTHER_EXPORT"]),
        Some(&program),
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("NOT MET recorded::Runtime cuMemAlloc at 3020 (legacy): the lookup handed out cuInit, another function exported by "),
        "{text}"
    );
    assert!(
        text.starts_with("This machine does not meet 1 requirement"),
        "{text}"
    );
    let (text, code) = doctor(&stand_in("garbage", &["GARBAGE"]), Some(&program));
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("NOT MET recorded::Runtime cuMemAlloc at 3020 (legacy): the lookup handed out 0x8, an address in no loaded library"),
        "{text}"
    );
}

/// A lookup that never returns, and one that crashes the process: each ends in a verdict within
/// the limit, naming the step.
#[test]
fn a_hanging_or_crashing_libcuda_ends_in_a_verdict() {
    let program = common::recorded();
    let start = std::time::Instant::now();
    let (text, code) = doctor_with(
        &stand_in("hang", &["HANG"]),
        Some(&program),
        &["--timeout", "2"],
    );
    let took = start.elapsed();
    assert_eq!(code, 1, "{text}");
    assert!(took < std::time::Duration::from_secs(15), "{took:?}");
    assert!(
        text.contains("  - the probe of the CUDA libraries did not end within 2 s while looking up cuMemAlloc at 3020 (legacy) in "),
        "{text}"
    );
    // A process the library started keeps the probe's output open: the verdict still comes.
    let start = std::time::Instant::now();
    let (text, code) = doctor_with(
        &stand_in("hang-fork", &["HANG", "KEEP_PIPES"]),
        Some(&program),
        &["--timeout", "2"],
    );
    let took = start.elapsed();
    assert_eq!(code, 1, "{text}");
    assert!(took < std::time::Duration::from_secs(15), "{took:?}");
    assert!(
        text.contains("did not end within 2 s while looking up cuMemAlloc"),
        "{text}"
    );
    let (text, code) = doctor(&stand_in("crash", &["CRASH"]), Some(&program));
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("  - the probe of the CUDA libraries crashed with signal 11 (SIGSEGV, a bad memory access) while looking up cuMemAlloc at 3020 (legacy) in "),
        "{text}"
    );
    let (json, code) = doctor_json(&stand_in("crash-json", &["CRASH"]), &program);
    assert_eq!(code, 1);
    assert_eq!(json["met"], false);
    assert_eq!(json["schema"], "cuda-driver-table-doctor/1");
    assert!(json["problems"][0]
        .as_str()
        .expect("a problem")
        .contains("crashed with signal 11"));
}

/// A driver whose version cannot be read (the call fails, or answers 0 or a negative number) is
/// never one that meets every requirement.
#[test]
fn an_unknown_driver_version_is_not_met() {
    for (name, defines) in [
        ("version-fails", &["VERSION_STATUS=1"][..]),
        ("version-zero", &["ANSWERED_VERSION=0"]),
        ("version-negative", &["ANSWERED_VERSION=-12000"]),
    ] {
        for binary in [None, Some(common::recorded())] {
            let (text, code) = doctor(&stand_in(name, defines), binary.as_deref());
            assert_eq!(code, 1, "{name}: {text}");
            assert!(!text.contains("meets every requirement"), "{name}: {text}");
            assert!(!text.contains("has a usable CUDA driver"), "{name}: {text}");
            assert!(
                text.contains("  - the driver's version is unknown (cuDriverGetVersion failed, or answered 0 or less)"),
                "{name}: {text}"
            );
        }
    }
}

/// A folder standing for `/` (`CUDA_DRIVER_TABLE_DOCTOR_ROOT`) whose
/// `/proc/driver/nvidia/version` says the kernel module is `version`.
fn root_with_kernel_module(name: &str, version: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("cdt-doctor-{}-{name}-root", std::process::id()));
    let proc = root.join("proc/driver/nvidia");
    std::fs::create_dir_all(&proc).expect("a folder");
    std::fs::write(
        proc.join("version"),
        format!(
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  {version}  Sat May 24 00:00:00 UTC 2025\n\
             GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"
        ),
    )
    .expect("the version file");
    root
}

/// The stand-in installed as a driver package installs it: `libcuda.so.VERSION`, and
/// `libcuda.so.1` a link to it.
fn installed(name: &str, version: &str) -> PathBuf {
    let real = build(name, LIBCUDA_C, &format!("libcuda.so.{version}"), &[]);
    let link = real.with_file_name("libcuda.so.1");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&real, &link).expect("a link");
    link
}

/// A user-space driver of another version than the kernel module: 803 named, with the fix.
#[test]
fn a_kernel_module_of_another_version_is_named() {
    let lib = installed("mismatch", "580.65.06");
    let root = root_with_kernel_module("mismatch", "575.57.08");
    let env = [("CUDA_DRIVER_TABLE_DOCTOR_ROOT", root.as_path())];
    let (text, code) = doctor_env(&lib, None, &[], &env);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!(
            "  - the kernel module is 575.57.08 ({}) and the user-space driver is 580.65.06 (the \
             libcuda loaded): every call fails with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803); after \
             a driver upgrade, reboot",
            root.join("proc/driver/nvidia/version").display()
        )),
        "{text}"
    );
    // The same versions: a note, no problem.
    let root = root_with_kernel_module("match", "580.65.06");
    let env = [("CUDA_DRIVER_TABLE_DOCTOR_ROOT", root.as_path())];
    let (text, code) = doctor_env(&lib, None, &[], &env);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("  the kernel module is 580.65.06 ("),
        "{text}"
    );
    assert!(text.contains("), as the user-space driver\n"), "{text}");
}

/// A forward-compatibility libcuda (in a `compat` folder) is named with what fails where it is not
/// supported; a kernel module of another version is expected with one, not a problem.
#[test]
fn a_forward_compatibility_libcuda_is_named() {
    let lib = build("compat", LIBCUDA_C, "cuda-12.9/compat/libcuda.so.1", &[]);
    let root = root_with_kernel_module("compat", "535.104.05");
    let env = [("CUDA_DRIVER_TABLE_DOCTOR_ROOT", root.as_path())];
    let (text, code) = doctor_env(&lib, None, &[], &env);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(
            "compat/libcuda.so.1 is a forward-compatibility libcuda (the cuda-compat package's)"
        ),
        "{text}"
    );
    assert!(
        text.contains("CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804)"),
        "{text}"
    );
    assert!(
        text.contains("  the kernel module is 535.104.05 ("),
        "{text}"
    );
}

/// A toolkit's stub libcuda, in its `stubs` folder: named as such, with the fix.
#[test]
fn a_toolkit_stub_is_named_by_its_folder() {
    let lib = build(
        "toolkit-stub",
        LIBCUDA_C,
        "cuda/lib64/stubs/libcuda.so",
        &["STUB"],
    );
    let (text, code) = doctor(&lib, None);
    assert_eq!(code, 1, "{text}");
    // One cause, one line: the stub's answer; its folder is said with the fix.
    assert!(
        text.starts_with("This machine does not meet 1 requirement:\n  - no usable libcuda: "),
        "{text}"
    );
    assert!(
        text.contains(&format!("\n  {}", lib.display())) && text.contains("stubs/libcuda.so is a CUDA toolkit's stub libcuda (its stubs folder), for linking only: take that folder out of LD_LIBRARY_PATH"),
        "{text}"
    );
    // A library in a stubs folder that answers as a driver is still named a problem.
    let lib = build("toolkit-stub-answering", LIBCUDA_C, "stubs/libcuda.so", &[]);
    let (text, code) = doctor(&lib, None);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!("\n  - {}", lib.display()))
            && text
                .contains("stubs/libcuda.so is a CUDA toolkit's stub libcuda (its stubs folder)"),
        "{text}"
    );
}

/// An injection library (Nsight's) and WSL2's driver folder are named.
#[test]
fn an_injection_library_and_wsl_are_named() {
    let lib = stand_in("injection", &[]);
    let root = root_with_kernel_module("wsl", "580.65.06");
    let wsl = root.join("usr/lib/wsl/lib");
    std::fs::create_dir_all(&wsl).expect("a folder");
    std::fs::write(wsl.join("libcuda.so.1"), "").expect("a file");
    let injection = Path::new("/opt/nvidia/nsight-systems/target-linux-x64/libToolsInjection64.so");
    let env = [
        ("CUDA_DRIVER_TABLE_DOCTOR_ROOT", root.as_path()),
        ("CUDA_INJECTION64_PATH", injection),
    ];
    let (text, code) = doctor_env(&lib, None, &[], &env);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!(
            "an injection library is loaded into CUDA programs (CUDA_INJECTION64_PATH={})",
            injection.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "WSL2: the Windows driver's libcuda is {} (present); the loader finds it through",
            wsl.join("libcuda.so.1").display()
        )),
        "{text}"
    );
}

/// PTX of an ISA this tool does not know: the driver cannot be confirmed to load it, never "meets
/// every requirement".
#[test]
fn ptx_of_an_unknown_isa_is_not_confirmed() {
    let dir = craft::folder("doctor-unknown-isa");
    let program = craft::library(
        &dir,
        "libunknown.so",
        &[craft::record("app::T", 2, 1, 2000, &[("cuInit", 2000, 0)])],
        &[b".version 99.0\n.target sm_200\n"],
        &[],
    );
    let (text, code) = doctor(&stand_in("unknown-isa", &[]), Some(&program));
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("  - the program embeds PTX of ISA 99.0, newer than this tool knows: it cannot confirm that this driver loads it; update cuda-driver-table-cli"),
        "{text}"
    );
}
