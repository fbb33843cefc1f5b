//! A sample's command line: `--help` prints its one line of usage and runs nothing; an unknown
//! option or a bad value exits with 64 (`EX_USAGE`, not 2, which says the result differs from
//! the CPU's) and one line naming what is wrong, with the usage. On any machine: nothing reaches
//! the driver.

mod common;

use std::process::{Command, Output};

fn run(sample: &str, args: &[&str]) -> Output {
    Command::new(common::program(sample))
        .args(args)
        .output()
        .expect("the sample starts")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn help_prints_the_usage_and_runs_nothing() {
    let out = run("threadMigration", &["--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "usage: threadMigration [--driver] [--help] [--numthreads=N]\n"
    );
}

#[test]
fn an_unknown_option_is_a_usage_error() {
    let out = run("vectorAddDrv", &["--drvier"]);
    assert_eq!(out.status.code(), Some(64), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "vectorAddDrv: unknown option \"--drvier\"; usage: vectorAddDrv [--driver] [--help]\n"
    );
}

#[test]
fn a_bad_value_is_a_usage_error() {
    let out = run("threadMigration", &["--numthreads=99"]);
    assert_eq!(out.status.code(), Some(64), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "threadMigration: --numthreads=99: give a number of threads from 1 to 15; usage: \
         threadMigration [--driver] [--help] [--numthreads=N]\n"
    );
    let out = run("memMapIPCDrv", &["--child", "0", "x", "2"]);
    assert_eq!(out.status.code(), Some(64), "{}", stderr(&out));
    let line = stderr(&out);
    assert!(
        line.starts_with("memMapIPCDrv (child): expected --child ORDINAL ID N"),
        "{line}"
    );
    assert_eq!(line.lines().count(), 1, "{line}");
}
