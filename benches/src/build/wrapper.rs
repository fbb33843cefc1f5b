//! The timing build: one more clean build of a program with `bench-build` itself as
//! `RUSTC_WRAPPER`, which times each compiler run and reads its peak memory, to say which crates
//! the time goes to and how much memory the largest compiler run takes.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

use super::process::{cargo, check, children_cpu, children_peak_kib};
use super::programs::App;

/// In wrapper mode (the timing build), the file each compiler run appends a line to.
pub(super) const UNIT_LOG_VAR: &str = "CDT_BENCH_BUILD_UNIT_LOG";

/// What the build of one program through `RUSTC_WRAPPER` says about its compiler runs.
pub(super) struct Units {
    /// The eight longest, `crate version N.N s; ...`.
    pub(super) slowest: String,
    /// The largest peak memory (resident set) of one run, in KiB, and which crate it compiled.
    pub(super) peak_kib: u64,
    pub(super) peak_unit: String,
}

impl Units {
    /// One more clean build of `app`, with this program as `RUSTC_WRAPPER`.
    pub(super) fn measure(app: &App, work: &Path) -> Result<Self, String> {
        let text = Self::log(app, work)?;
        let (peak_kib, peak_unit) = peak_memory(&text);
        Ok(Self {
            slowest: format_units(&text),
            peak_kib,
            peak_unit,
        })
    }

    /// The lines the wrapper writes for one more clean build of `app` (see [`wrap_rustc`]).
    pub(super) fn log(app: &App, work: &Path) -> Result<String, String> {
        let log = work.join(format!("units-{}.tsv", app.name));
        let target = work.join(format!("target-timings-{}", app.name));
        let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        check(
            cargo(&app.dir)
                .args(["build", "-q", "--offline"])
                .env("CARGO_TARGET_DIR", &target)
                .env("RUSTC_WRAPPER", me)
                .env(UNIT_LOG_VAR, &log),
        )?;
        let _ = std::fs::remove_dir_all(&target);
        Ok(std::fs::read_to_string(&log).unwrap_or_default())
    }

    /// The peak memory in MiB.
    pub(super) fn peak_mib(&self) -> f64 {
        self.peak_kib as f64 / 1024.0
    }
}

/// `name<TAB>seconds<TAB>peak KiB` lines → the eight longest, `name 1.2 s; ...`.
pub(super) fn format_units(log: &str) -> String {
    let mut units: Vec<(f64, &str)> = log
        .lines()
        .filter_map(|l| {
            let mut fields = l.split('\t');
            let name = fields.next()?;
            Some((fields.next()?.parse().ok()?, name))
        })
        .collect();
    if units.is_empty() {
        return "(no compiler runs recorded)".to_owned();
    }
    units.sort_by(|a, b| b.0.total_cmp(&a.0));
    units
        .iter()
        .take(8)
        .map(|(s, n)| format!("{n} {s:.1} s"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `name<TAB>seconds<TAB>peak KiB<TAB>CPU seconds` lines → each compiler run's name and CPU
/// seconds.
pub(super) fn cpu_units(log: &str) -> Vec<(String, f64)> {
    log.lines()
        .filter_map(|l| {
            let mut fields = l.split('\t');
            let name = fields.next()?;
            Some((name.to_owned(), fields.nth(2)?.parse().ok()?))
        })
        .collect()
}

/// The largest peak memory of the log's lines, in KiB, and its crate: `(0, "none recorded")` when
/// no line has one.
pub(super) fn peak_memory(log: &str) -> (u64, String) {
    log.lines()
        .filter_map(|l| {
            let mut fields = l.split('\t');
            let name = fields.next()?;
            let kib: u64 = fields.nth(1)?.parse().ok()?;
            Some((kib, name.to_owned()))
        })
        .max()
        .unwrap_or_else(|| (0, "none recorded".to_owned()))
}

/// Wrapper mode: `bench-build RUSTC ARGS...` as cargo calls a `RUSTC_WRAPPER`. Runs the compiler,
/// then appends `package version[ (build script)]<TAB>seconds<TAB>peak KiB<TAB>CPU seconds` to
/// the log for a crate compile (not for cargo's `-vV` and `--print` probes). The peak is the
/// compiler's resident set at its largest (`ru_maxrss` of this process's only child), the CPU
/// time its user + system time: unlike the wall time, it hardly grows when other work shares the
/// cores.
pub(super) fn wrap_rustc(log: &Path) -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(rustc) = args.next() else {
        eprintln!("bench-build: {UNIT_LOG_VAR} is set but no compiler was given");
        return ExitCode::FAILURE;
    };
    let args: Vec<_> = args.collect();
    let start = Instant::now();
    let status = Command::new(&rustc).args(&args).status();
    let secs = start.elapsed().as_secs_f64();
    let crate_name = args
        .iter()
        .position(|a| a == "--crate-name")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.to_str());
    if let (Some(crate_name), Ok(package)) = (crate_name, std::env::var("CARGO_PKG_NAME")) {
        if crate_name != "___" {
            let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
            let what = if crate_name == "build_script_build" {
                " (build script)"
            } else {
                ""
            };
            let line = format!(
                "{package} {version}{what}\t{secs:.3}\t{}\t{:.3}\n",
                children_peak_kib(),
                children_cpu()
            );
            // One short append per compiler run: lines from parallel runs do not interleave.
            let appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()));
            if let Err(e) = appended {
                eprintln!("bench-build: cannot append to {}: {e}", log.display());
            }
        }
    }
    match status {
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(0, 255) as u8)),
        Err(e) => {
            eprintln!(
                "bench-build: cannot run {}: {e}",
                Path::new(&rustc).display()
            );
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slowest_units_come_first() {
        let log = "quote 1.0.47\t0.3\t51200\nproc-macro2 1.0.107 (build script)\t0.25\t40000\ncuda-driver-table 0.1.0\t1.31\t204800\nbad line\n";
        assert_eq!(
            format_units(log),
            "cuda-driver-table 0.1.0 1.3 s; quote 1.0.47 0.3 s; proc-macro2 1.0.107 (build script) 0.2 s"
        );
        assert_eq!(format_units(""), "(no compiler runs recorded)");
        assert_eq!(
            peak_memory(log),
            (204800, "cuda-driver-table 0.1.0".to_owned())
        );
        assert_eq!(peak_memory("x\t0.1\n"), (0, "none recorded".to_owned()));
        assert_eq!(
            cpu_units("syn 2.0.1\t3.2\t51200\t2.95\nold line\t0.3\t100\n"),
            [("syn 2.0.1".to_owned(), 2.95)]
        );
    }
}
