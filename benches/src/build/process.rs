//! Running the commands a measurement times: `cargo` without the caller's settings that would
//! change what is measured, wall and CPU time of a child, the trees measured (`git archive`), and
//! what the summary says about the machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// `abc1234` for a revision.
pub(super) fn short_commit(root: &Path, rev: &str) -> Result<String, String> {
    capture(
        Command::new("git")
            .args(["rev-parse", "--short", &format!("{rev}^{{commit}}")])
            .current_dir(root),
    )
}

/// The tree of `commit` in the new folder `dir` (`git archive`). Files get the time of extraction,
/// not the commit's, so that cargo rebuilds what a reused target folder holds from another tree.
pub(super) fn extract(root: &Path, commit: &str, dir: &Path) -> Result<PathBuf, String> {
    mkdir(dir)?;
    let tar = dir.with_extension("tar");
    check(
        Command::new("git")
            .args(["archive", "--format=tar", "-o"])
            .arg(&tar)
            .arg(commit)
            .current_dir(root),
    )?;
    check(Command::new("tar").arg("-xmf").arg(&tar).arg("-C").arg(dir))?;
    Ok(dir.to_path_buf())
}

/// The workspace's target folder as cargo resolves it (`CARGO_TARGET_DIR`, `build.target-dir`,
/// or `target/` at the root): `target_directory` of `cargo metadata`.
pub(super) fn target_directory(root: &Path) -> Result<PathBuf, String> {
    let json = capture(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args([
                "metadata",
                "--format-version",
                "1",
                "--no-deps",
                "--offline",
            ])
            .current_dir(root),
    )?;
    let metadata: serde_json::Value =
        serde_json::from_str(&json).map_err(|e| format!("cargo metadata: {e}"))?;
    metadata
        .get("target_directory")
        .and_then(|d| d.as_str())
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata gave no target_directory".to_owned())
}

/// `cargo` in `dir`, without the settings of the calling environment that would change what is
/// measured (a wrapper such as sccache, a shared target folder, incremental builds, profile
/// settings such as `CARGO_PROFILE_DEV_DEBUG`, compiler flags, and the make jobserver of a
/// calling cargo): the build a user's `cargo build` makes.
pub(super) fn cargo(dir: &Path) -> Command {
    cargo_of(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())),
        dir,
    )
}

/// `cargo +nightly` through rustup's proxy, set up as [`cargo`].
pub(super) fn nightly_cargo(dir: &Path) -> Command {
    let mut c = Command::new("cargo");
    c.arg("+nightly");
    cargo_of(c, dir)
}

fn cargo_of(mut c: Command, dir: &Path) -> Command {
    for (name, _) in std::env::vars_os() {
        if name
            .to_str()
            .is_some_and(|n| n.starts_with("CARGO_PROFILE_"))
        {
            c.env_remove(name);
        }
    }
    c.current_dir(dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_BUILD_RUSTC_WRAPPER")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_MAKEFLAGS")
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS");
    c
}

/// Runs a command to its end: wall seconds and CPU seconds (user + sys of it and the processes
/// it waited for, from `getrusage(RUSAGE_CHILDREN)` before and after).
pub(super) fn timed(command: &mut Command) -> Result<(f64, f64), String> {
    let before = children_cpu();
    let start = Instant::now();
    check(command)?;
    let wall = start.elapsed().as_secs_f64();
    Ok((wall, children_cpu() - before))
}

/// [`timed`] for a command whose stderr goes to `log`: when it fails, the error carries what it
/// said there.
pub(super) fn timed_logged(command: &mut Command, log: &Path) -> Result<(f64, f64), String> {
    timed(command).map_err(|e| {
        let said = std::fs::read_to_string(log).unwrap_or_default();
        if said.trim().is_empty() {
            format!("{e}; it wrote nothing to stderr")
        } else {
            format!("{e}; its stderr:\n{}", said.trim_end())
        }
    })
}

/// The largest peak resident set, in KiB, of the child processes that have ended and been waited
/// for (Linux counts `ru_maxrss` in KiB).
pub(super) fn children_peak_kib() -> u64 {
    // SAFETY: `rusage` is a plain C struct for which all zero bytes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable `struct rusage`; RUSAGE_CHILDREN is a valid `who`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    if rc != 0 {
        return 0;
    }
    u64::try_from(usage.ru_maxrss).unwrap_or(0)
}

/// User + system seconds of every child process that has ended and been waited for.
pub(super) fn children_cpu() -> f64 {
    // SAFETY: `rusage` is a plain C struct for which all zero bytes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable `struct rusage`; RUSAGE_CHILDREN is a valid `who`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    if rc != 0 {
        return f64::NAN;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

pub(super) fn check(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed ({status})"))
    }
}

pub(super) fn capture(command: &mut Command) -> Result<String, String> {
    let out = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    if !out.status.success() {
        return Err(format!("{command:?} failed ({})", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

pub(super) fn mkdir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

pub(super) fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

pub(super) fn load_average(fields: usize) -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(fields)
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or_else(String::new, |(_, m)| m.trim().to_owned())
}

pub(super) fn mem_total() -> String {
    let kib: f64 = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    format!("{:.0} GiB", kib / 1_048_576.0)
}

/// A temporary folder, removed at the end.
pub(super) struct TempDir(pub(super) PathBuf);

impl TempDir {
    pub(super) fn create() -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!("bench-build.{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        mkdir(&dir)?;
        Ok(Self(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measured_cargo_drops_the_caller_s_build_settings() {
        let c = cargo(Path::new("."));
        let removed: Vec<_> = c
            .get_envs()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        for name in [
            "RUSTC_WRAPPER",
            "CARGO_TARGET_DIR",
            "RUSTFLAGS",
            "CARGO_MAKEFLAGS",
        ] {
            assert!(removed.iter().any(|r| r == name), "{name} is passed on");
        }
        // Every profile setting of this process, e.g. the test command's CARGO_PROFILE_DEV_DEBUG.
        for (name, _) in std::env::vars() {
            if name.starts_with("CARGO_PROFILE_") {
                assert!(removed.contains(&name), "{name} is passed on");
            }
        }
        assert_eq!(
            c.get_envs().find(|(k, _)| *k == "CARGO_INCREMENTAL"),
            Some((
                std::ffi::OsStr::new("CARGO_INCREMENTAL"),
                Some(std::ffi::OsStr::new("0"))
            ))
        );
    }

    #[test]
    fn a_failing_command_s_stderr_is_in_the_error() {
        let log = std::env::temp_dir().join(format!("bench-build-test.{}.log", std::process::id()));
        let stderr = std::fs::File::create(&log).unwrap();
        let err = timed_logged(
            Command::new("sh")
                .args(["-c", "echo 'cannot read README.md' >&2; exit 1"])
                .stderr(stderr),
            &log,
        )
        .unwrap_err();
        let _ = std::fs::remove_file(&log);
        assert!(err.contains("failed"), "{err}");
        assert!(err.ends_with("its stderr:\ncannot read README.md"), "{err}");
    }
}
