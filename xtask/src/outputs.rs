//! The checks that run a program (or read a page cargo wrote) and read what it says: the
//! README's quick check, the installed tool's usage, the example without a driver, a library or
//! a local-toolkit build without what it needs, and two facts of the rendered docs.

use std::path::Path;
use std::process::{Command, Output};

/// What a run printed and how it ended.
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Self {
        Self {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Runs `command` to its end, whatever its status.
pub(crate) fn run(command: &mut Command) -> Result<Run, String> {
    command
        .output()
        .map(Run::from)
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))
}

/// The command of the README's quick check: the `cargo test ...` of its line
/// `| the quick check ... | `cargo test ...` |`.
pub(crate) fn quick_check(readme: &str) -> Result<Vec<String>, String> {
    let command = readme
        .lines()
        .filter(|l| l.starts_with("| the quick check"))
        .find_map(|l| {
            let cell = l.strip_suffix("` |")?.rsplit_once("| `")?.1;
            cell.starts_with("cargo test ").then_some(cell)
        })
        .ok_or("README.md: no quick check (| the quick check ... | `cargo test ...` |) found")?;
    Ok(command.split_whitespace().map(str::to_owned).collect())
}

/// The tool's `--help` starts its usage with `Usage: cuda-driver-table inspect`.
pub(crate) fn cli_help(run: &Run) -> Result<(), String> {
    if run.code == Some(0)
        && run
            .stdout
            .lines()
            .any(|l| l.starts_with("Usage: cuda-driver-table inspect"))
    {
        Ok(())
    } else {
        Err("the installed cuda-driver-table does not print its usage with --help".to_owned())
    }
}

/// `vector_add` without a driver: exit 1, at most two lines, no panic.
pub(crate) fn vector_add_fails_cleanly(run: &Run) -> Result<(), String> {
    let lines = run.stderr.lines().count();
    if run.code != Some(1) || lines > 2 || run.stderr.contains("panicked") {
        return Err(format!(
            "vector_add without a driver: expected exit 1 and at most two lines, got exit {} and {lines} lines:\n{}",
            run.code.map_or("by a signal".to_owned(), |c| c.to_string()),
            run.stderr
        ));
    }
    Ok(())
}

/// `vector_add --driver` without a driver: only libcuda is needed, so the advice is the
/// driver's, with no CUDA runtime in it.
pub(crate) fn vector_add_driver_advice(run: &Run) -> Result<(), String> {
    if !run.stderr.contains("install the NVIDIA driver")
        || run.stderr.to_lowercase().contains("runtime")
    {
        return Err(format!(
            "vector_add --driver without a driver: the advice is not the driver's alone:\n{}",
            run.stderr
        ));
    }
    Ok(())
}

/// `vector_add --help` prints the usage and exits with 0 without loading anything.
pub(crate) fn vector_add_help(run: &Run) -> Result<(), String> {
    if run.code != Some(0)
        || !run
            .stdout
            .lines()
            .any(|l| l.starts_with("usage: vector_add"))
    {
        return Err(format!(
            "vector_add --help: expected the usage, got: {}{}",
            run.stdout, run.stderr
        ));
    }
    Ok(())
}

/// A library built without a release: one error line that says what a library enables.
pub(crate) fn library_without_release(run: &Run) -> Result<(), String> {
    let said = run
        .stderr
        .lines()
        .filter(|l| {
            l.strip_prefix("error: cuda-driver-table: no CUDA release feature is enabled.")
                .and_then(|rest| rest.split_once("A library enables none"))
                .is_some_and(|(_, rest)| rest.contains("[package.metadata.docs.rs]"))
        })
        .count();
    if said != 1 || run.code == Some(0) {
        return Err(format!(
            "{}\ntests/library without a release: expected one error line saying what a library enables, got {said}",
            run.stderr
        ));
    }
    Ok(())
}

/// cuda-local with a release feature as well: the error names both features.
pub(crate) fn local_with_release(run: &Run) -> Result<(), String> {
    if run.code == Some(0)
        || !run
            .stderr
            .contains("the features cuda-local and cuda-13000 are enabled together")
    {
        return Err(format!(
            "{}\ncuda-local with cuda-13000: expected the error naming both features",
            run.stderr
        ));
    }
    Ok(())
}

/// The fake's page shows `CUresult`, never the C tag `cudaError_enum`: the generator names each
/// newtype enum by its typedef, so the signatures read what their code writes.
pub(crate) fn fake_page(page: &Path) -> Result<(), String> {
    let html = std::fs::read_to_string(page)
        .map_err(|e| format!("cannot read {}: {e}", page.display()))?;
    if !html.contains("CUresult") || html.contains("cudaError_enum") {
        return Err(format!(
            "{}: the fake's signatures should show CUresult, not the C tag cudaError_enum",
            page.display()
        ));
    }
    Ok(())
}

/// The fake module's page, as docs.rs builds it, carries its feature's badge.
pub(crate) fn feature_badge(page: &Path) -> Result<(), String> {
    let html = std::fs::read_to_string(page)
        .map_err(|e| format!("cannot read {}: {e}", page.display()))?;
    if !html.contains("Available on <strong>crate feature <code>fake</code></strong> only") {
        return Err(format!(
            "{}: the docs built as docs.rs builds them show no feature badge on the fake module",
            page.display()
        ));
    }
    Ok(())
}

/// What `scripts/doc_links.py` must say of the pages [`PLANTED`] was put into: one line for
/// each kind of broken link.
pub(crate) const PLANTED_FOUND: [&str; 3] = [
    "links to no/such/page.html, which does not exist",
    "the unresolved link [`hidden_macro!`]",
    "the unresolved link [no-such-reference]",
];

/// A link to a missing page, a link to a hidden macro and a reference without its definition, put
/// before `</main>` of a rendered page.
pub(crate) const PLANTED: &str =
    "<a href=\"no/such/page.html\">x</a> [<code>hidden_macro!</code>] [no-such-reference]";

/// `doc_links.py` over pages with [`PLANTED`] in them exits with 1 and names each kind.
pub(crate) fn planted_found(run: &Run) -> Result<(), String> {
    let missed: Vec<&str> = PLANTED_FOUND
        .iter()
        .copied()
        .filter(|expected| !run.stdout.contains(expected))
        .collect();
    if run.code != Some(1) || !missed.is_empty() {
        return Err(format!(
            "{}\ndoc_links.py missed a planted broken link: expected exit 1 and {}",
            run.stdout,
            missed.join("; ")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(code: i32, stdout: &str, stderr: &str) -> Run {
        Run {
            code: Some(code),
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
        }
    }

    #[test]
    fn the_quick_check_is_read_from_the_readme_s_table() {
        let readme = "| what | command |\n|---|---|\n| the quick check (a minute) | `cargo test -p cuda-driver-table` |\n";
        assert_eq!(
            quick_check(readme).unwrap(),
            ["cargo", "test", "-p", "cuda-driver-table"]
        );
        assert!(quick_check("| the quick check | `make test` |\n").is_err());
        assert!(quick_check("no table\n").is_err());
    }

    #[test]
    fn the_tool_s_help_must_show_its_usage() {
        assert!(cli_help(&ran(0, "Usage: cuda-driver-table inspect [OPTIONS]\n", "")).is_ok());
        assert!(cli_help(&ran(0, "cuda-driver-table 0.1.0\n", "")).is_err());
        assert!(cli_help(&ran(2, "Usage: cuda-driver-table inspect\n", "")).is_err());
    }

    #[test]
    fn vector_add_must_fail_in_two_lines_without_a_panic() {
        assert!(
            vector_add_fails_cleanly(&ran(1, "", "error: no libcuda\nhint: install\n")).is_ok()
        );
        assert!(vector_add_fails_cleanly(&ran(101, "", "thread 'main' panicked at x\n")).is_err());
        assert!(vector_add_fails_cleanly(&ran(1, "", "a\nb\nc\n")).is_err());
        assert!(vector_add_fails_cleanly(&ran(1, "", "panicked\n")).is_err());
        let driver = "error: no libcuda.so.1: install the NVIDIA driver\n";
        assert!(vector_add_driver_advice(&ran(1, "", driver)).is_ok());
        let both = "error: install the NVIDIA driver, or the CUDA Runtime\n";
        assert!(vector_add_driver_advice(&ran(1, "", both)).is_err());
        assert!(vector_add_help(&ran(0, "usage: vector_add [--driver]\n", "")).is_ok());
        assert!(vector_add_help(&ran(1, "usage: vector_add [--driver]\n", "")).is_err());
    }

    #[test]
    fn build_errors_must_say_what_to_enable() {
        let one = "error: cuda-driver-table: no CUDA release feature is enabled. A library enables none; see [package.metadata.docs.rs]\n";
        assert!(library_without_release(&ran(101, "", one)).is_ok());
        assert!(library_without_release(&ran(101, "", &one.repeat(2))).is_err());
        assert!(
            library_without_release(&ran(101, "", "error[E0432]: unresolved import\n")).is_err()
        );
        let local = "error: the features cuda-local and cuda-13000 are enabled together\n";
        assert!(local_with_release(&ran(101, "", local)).is_ok());
        assert!(local_with_release(&ran(0, "", local)).is_err());
        assert!(local_with_release(&ran(101, "", "error: no cuda.h\n")).is_err());
    }

    #[test]
    fn every_planted_kind_must_be_found() {
        let all = PLANTED_FOUND.join("\n");
        assert!(planted_found(&ran(1, &all, "")).is_ok());
        assert!(planted_found(&ran(0, &all, "")).is_err());
        assert!(planted_found(&ran(1, PLANTED_FOUND[0], "")).is_err());
    }

    #[test]
    fn the_pages_must_show_typedef_names_and_the_badge() {
        let dir = std::env::temp_dir().join(format!("xtask-test.{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let page = dir.join("page.html");
        std::fs::write(&page, "<code>CUresult</code>").unwrap();
        assert!(fake_page(&page).is_ok());
        std::fs::write(&page, "<code>CUresult</code> cudaError_enum").unwrap();
        assert!(fake_page(&page).is_err());
        assert!(feature_badge(&page).is_err());
        std::fs::write(
            &page,
            "Available on <strong>crate feature <code>fake</code></strong> only",
        )
        .unwrap();
        assert!(feature_badge(&page).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
        assert!(fake_page(&dir.join("none.html")).is_err());
    }
}
