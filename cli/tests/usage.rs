//! The tool's arguments: `--help` and `--version` on standard output with exit code 0, each
//! command's own help, the options each command takes, and errors that name the argument (exit
//! code 2), a non-UTF-8 argument included.

use std::ffi::OsStr;
use std::process::Command;

/// The tool run with `args` and a libcuda that does not exist (so that `doctor` finds no driver on
/// any machine): standard output, standard error, exit code.
fn run<S: AsRef<OsStr>>(args: &[S]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .args(args)
        .env(
            "CUDA_DRIVER_TABLE_LIBCUDA",
            "/nonexistent/cuda-driver-table-test/libcuda.so.1",
        )
        .env(
            "CUDA_DRIVER_TABLE_CUDART",
            "/nonexistent/cuda-driver-table-test/libcudart.so",
        )
        .output()
        .expect("the tool runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().expect("an exit code"),
    )
}

#[test]
fn help_and_version_go_to_standard_output_with_0() {
    let (out, err, code) = run(&["--help"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    // scripts/test.sh checks the installed tool with this line.
    assert!(
        out.lines()
            .any(|l| l.starts_with("Usage: cuda-driver-table inspect [--json] BINARY")),
        "{out}"
    );
    assert!(
        out.contains("cuda-driver-table doctor [--json] [-v] [BINARY]"),
        "{out}"
    );
    assert!(out.contains("Exit codes: 0"), "{out}");
    let (out, err, code) = run(&["-h"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(out.contains("Usage: cuda-driver-table inspect"), "{out}");

    let (out, err, code) = run(&["--version"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_eq!(
        out.trim_end(),
        format!("cuda-driver-table {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn each_command_has_its_own_help() {
    for command in ["inspect", "doctor"] {
        let (out, err, code) = run(&[command, "--help"]);
        assert_eq!((code, err.as_str()), (0, ""), "{command}: {out}");
        assert!(
            out.contains(&format!("Usage: cuda-driver-table {command} [OPTIONS]")),
            "{command}: {out}"
        );
        assert!(out.contains("--json"), "{command}: {out}");
        assert!(!out.contains("cannot read"), "{command}: {out}");
    }
    let (out, _, _) = run(&["help", "doctor"]);
    assert!(out.contains("-v, --verbose"), "{out}");
}

#[test]
fn doctor_takes_verbose_and_json() {
    for args in [
        &["doctor", "--verbose"][..],
        &["doctor", "-v"],
        &["doctor", "--json", "-v"],
    ] {
        let (out, err, code) = run(args);
        // No driver here (the libcuda named does not exist): a verdict, not a usage error.
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert_eq!(err, "", "{args:?}");
        assert!(out.contains("no usable libcuda"), "{args:?}: {out}");
    }
    let (out, _, _) = run(&["doctor", "--json", "--verbose"]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(json["met"], false);
}

#[test]
fn usage_errors_name_the_argument_and_exit_with_2() {
    let (out, err, code) = run::<&str>(&[]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("Usage: cuda-driver-table inspect"), "{err}");

    let (_, err, code) = run(&["frobnicate"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unrecognized subcommand 'frobnicate'"),
        "{err}"
    );

    let (_, err, code) = run(&["inspect"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the following required arguments were not provided")
            && err.contains("<BINARY>"),
        "{err}"
    );

    let (_, err, code) = run(&["inspect", "--jsn", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("unexpected argument '--jsn'"), "{err}");
    assert!(
        err.contains("'--json'"),
        "the near name is suggested: {err}"
    );

    let (_, err, code) = run(&["doctor", "a", "b"]);
    assert_eq!(code, 2);
    assert!(err.contains("unexpected argument 'b'"), "{err}");

    let (_, err, code) = run(&["inspect", "/nonexistent/program"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read /nonexistent/program"), "{err}");
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let (_, err, code) = run(&["doctor", source]);
    assert_eq!(code, 2);
    assert!(err.contains("is not an ELF or PE file"), "{err}");
}

/// A file name that is not UTF-8 is a file name like any other; as a command it is an unknown
/// one.
#[cfg(unix)]
#[test]
fn a_non_utf8_argument_is_taken_as_it_is() {
    use std::os::unix::ffi::OsStrExt;
    let name = OsStr::from_bytes(b"/nonexistent/\xff\xfe-program");
    let (_, err, code) = run(&[OsStr::new("inspect"), name]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read /nonexistent/") && err.contains("-program"),
        "{err}"
    );
    let (_, err, code) = run(&[OsStr::from_bytes(b"\xff")]);
    assert_eq!(code, 2);
    assert!(err.contains("unrecognized subcommand"), "{err}");
    assert!(!err.contains("no command given"), "{err}");
}

/// An error naming a file prints its name escaped, as every report does.
#[cfg(unix)]
#[test]
fn an_error_naming_a_file_escapes_its_name() {
    let (_, err, code) = run(&["inspect", "/nonexistent/x\u{1b}[31mred"]);
    assert_eq!(code, 2);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(
        err.contains("cannot read /nonexistent/x\\u{1b}[31mred"),
        "{err}"
    );
}
