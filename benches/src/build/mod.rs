//! The CPU benchmarks of `BENCHMARKS.md`, on the build machine: `cargo bench-build <what>`
//! (`src/bin/bench-build.rs` calls [`main`]). Each subcommand measures one thing:
//!
//! - `typical` (row 4T, `typical.rs`): the compile time a 4-function table and cudarc add to a
//!   typical application; guard: the table adds at most 0.65× of what cudarc adds.
//! - `empty` (row 4, `empty.rs`): the clean build of a program that is nothing but a table
//!   against the same program on cudarc, driver only and with cudarc's default features; sizes
//!   and peak memory.
//! - `expansion` (row 6, `expansion.rs`, nightly): the attribute's expansion time for a 4-, 40-
//!   and `all`-function table; guards: 10, 15 and 120 ms.
//! - `package` (row 7, `package.rs`): the `.crate` files of the four crates a user downloads,
//!   against cudarc's.
//! - `codegen` (row 5, `codegen.rs`): the generator over every release.
//! - `all`: every one of them, in that order.
//!
//! The source measured is the committed tree (`git archive HEAD`), as others may be editing the
//! working tree; `--at REV` measures the tree of another commit, `--worktree` the working tree.
//! The summary ends with the rows of `BENCHMARKS.md` and is written to `--out` too (default
//! `bench-build/summary.txt` in the workspace's target folder). The exit status is 0 when every
//! guard measured holds, 1 when one fails (the summary is written first, and the message names
//! each failing guard), 2 when something could not be measured or the arguments are wrong.

mod codegen;
mod empty;
mod expansion;
mod package;
mod process;
mod programs;
mod typical;
mod wrapper;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::gpu_report::median;
use clap::{Args, Parser, Subcommand};

use process::{
    capture, cargo, cpu_model, extract, load_average, mem_total, mkdir, short_commit,
    target_directory, TempDir,
};

/// The build-cost and codegen benchmarks (the CPU rows of BENCHMARKS.md), with their guards.
#[derive(Debug, Parser)]
#[command(name = "bench-build")]
pub struct Cli {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Row 4T: the compile time a 4-function table and cudarc add to a typical application
    /// (CPU time of the compiler runs it adds); guard: the table's at most 0.65× cudarc's.
    Typical {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        runs: Runs,
    },
    /// Row 4: a clean build of a program that is nothing but a 4-function table, against cudarc
    /// (driver only, and default features).
    Empty {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        runs: Runs,
        #[command(flatten)]
        baseline: Baseline,
    },
    /// Row 6: the attribute's expansion time for 4, 40 and `all` functions (needs a nightly
    /// toolchain); guards: 10, 15 and 120 ms.
    Expansion {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        runs: Runs,
        #[command(flatten)]
        baseline: Baseline,
    },
    /// Row 7: the size of the four crates a user downloads (`cargo package`), against cudarc's.
    Package {
        #[command(flatten)]
        common: Common,
    },
    /// Row 5: the generator over every release, from the cached wheels.
    Codegen {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        runs: Runs,
    },
    /// Every measurement above: typical, empty, expansion, package, codegen.
    All {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        runs: Runs,
        #[command(flatten)]
        baseline: Baseline,
    },
}

/// What every subcommand takes: the tree measured and where the summary goes.
#[derive(Debug, Args)]
struct Common {
    /// Measure the working tree instead of the committed tree (git archive HEAD).
    #[arg(long, conflicts_with = "at")]
    worktree: bool,
    /// Measure the tree of commit REV instead of HEAD's.
    #[arg(long, value_name = "REV")]
    at: Option<String>,
    /// Where the summary goes too [default: bench-build/summary.txt in the target folder].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct Runs {
    /// Rounds of the builds (or runs of the generator, or expansions of each program).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
}

#[derive(Debug, Args)]
struct Baseline {
    /// Also measure the table programs against commit REV's tree, side by side in the same
    /// rounds.
    #[arg(long, value_name = "REV")]
    baseline: Option<String>,
}

/// Which measurements one invocation makes.
#[derive(Default)]
struct Asked {
    typical: bool,
    empty: bool,
    expansion: bool,
    package: bool,
    codegen: bool,
}

impl What {
    fn parts(&self) -> (&Common, usize, Option<&str>, Asked) {
        let n = |r: &Runs| r.runs as usize;
        match self {
            What::Typical { common, runs } => (
                common,
                n(runs),
                None,
                Asked {
                    typical: true,
                    ..Asked::default()
                },
            ),
            What::Empty {
                common,
                runs,
                baseline,
            } => (
                common,
                n(runs),
                baseline.baseline.as_deref(),
                Asked {
                    empty: true,
                    ..Asked::default()
                },
            ),
            What::Expansion {
                common,
                runs,
                baseline,
            } => (
                common,
                n(runs),
                baseline.baseline.as_deref(),
                Asked {
                    expansion: true,
                    ..Asked::default()
                },
            ),
            What::Package { common } => (
                common,
                1,
                None,
                Asked {
                    package: true,
                    ..Asked::default()
                },
            ),
            What::Codegen { common, runs } => (
                common,
                n(runs),
                None,
                Asked {
                    codegen: true,
                    ..Asked::default()
                },
            ),
            What::All {
                common,
                runs,
                baseline,
            } => (
                common,
                n(runs),
                baseline.baseline.as_deref(),
                Asked {
                    typical: true,
                    empty: true,
                    expansion: true,
                    package: true,
                    codegen: true,
                },
            ),
        }
    }
}

/// A limit a figure must stay within on the machine of record.
pub(crate) struct Guard {
    /// What is measured, as the message names it.
    what: String,
    value: f64,
    limit: f64,
    /// `×` or ` ms`.
    unit: &'static str,
}

impl Guard {
    fn holds(&self) -> bool {
        self.value <= self.limit
    }

    fn describe(&self) -> String {
        format!(
            "{}: {}{} (guard ≤ {}{}): {}",
            self.what,
            g(self.value),
            self.unit,
            g(self.limit),
            self.unit,
            if self.holds() { "holds" } else { "FAILS" }
        )
    }
}

/// `Err` naming every guard that fails.
fn judge(guards: &[Guard]) -> Result<(), String> {
    let failed: Vec<String> = guards
        .iter()
        .filter(|g| !g.holds())
        .map(|g| format!("  {}", g.describe()))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} guard(s) failed:\n{}\nA change that makes a guard fail needs its cost found and taken out (BENCHMARKS.md, \"Guards\"); on a machine slower or busier than the one of record, measure the change beside its parent (--baseline) instead.",
            failed.len(),
            failed.join("\n")
        ))
    }
}

/// `bench-build`: the wrapper mode of the timing builds, or the measurements [`Cli`] asks for.
pub fn main() -> ExitCode {
    if let Some(log) = std::env::var_os(wrapper::UNIT_LOG_VAR) {
        return wrapper::wrap_rustc(Path::new(&log));
    }
    let cli = Cli::parse();
    match run(&cli) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(failed)) => {
            eprintln!("bench-build: {failed}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("bench-build: {e}");
            ExitCode::from(2)
        }
    }
}

/// The measurements, the summary, then the guards' verdict (`Ok(Err)`: a guard failed).
fn run(cli: &Cli) -> Result<Result<(), String>, String> {
    let (common, runs, baseline_rev, asked) = cli.what.parts();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("the benches crate has no parent folder")?
        .to_path_buf();
    let work = TempDir::create()?;
    let persist = target_directory(&root)?.join("bench-build");
    mkdir(&persist)?;
    let outfile = common
        .out
        .clone()
        .unwrap_or_else(|| persist.join("summary.txt"));
    let head = short_commit(&root, common.at.as_deref().unwrap_or("HEAD"))?;
    let (src, desc) = if common.worktree {
        (
            root.clone(),
            format!("working tree of {head} (with uncommitted changes)"),
        )
    } else {
        (
            extract(&root, &head, &work.0.join("src"))?,
            format!("commit {head}"),
        )
    };
    let baseline = match baseline_rev {
        Some(rev) => {
            let commit = short_commit(&root, rev)?;
            let tree = extract(&root, &commit, &work.0.join("baseline"))?;
            Some((commit, tree))
        }
        None => None,
    };
    let beside = baseline.as_ref().map(|(c, p)| (c.as_str(), p.as_path()));
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    eprintln!("bench-build: measuring {desc} on {cores} cores, {runs} rounds");
    let typical = if asked.typical {
        eprintln!("bench-build: the typical application, {runs} rounds of three builds");
        Some(typical::Typical::measure(&src, &work.0, runs)?)
    } else {
        None
    };
    let build = if asked.empty {
        Some(empty::BuildCost::measure(&src, beside, &work.0, runs)?)
    } else {
        None
    };
    let expansion = if asked.expansion {
        Some(expansion::Expansion::measure(&src, beside, &work.0, runs)?)
    } else {
        None
    };
    let package = if asked.package {
        Some(package::Package::measure(&src, &work.0)?)
    } else {
        None
    };
    // A generator that fails (no libclang, no network for the wheels) costs row 5 only: the
    // rows above are still written, and the error is said in the summary and returned.
    let codegen = asked
        .codegen
        .then(|| codegen::Codegen::measure(&src, &work.0, &persist, runs));

    // --- summary ---------------------------------------------------------------------------
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let mut s = String::new();
    let mut line = |l: String| {
        s.push_str(&l);
        s.push('\n');
    };
    line(format!("# CPU benchmarks ({}Z, {desc})", &now[..16]));
    line(format!(
        "machine: {}, {cores} cores, {}; {}; {}",
        cpu_model(),
        mem_total(),
        capture(Command::new("rustc").arg("--version"))?,
        capture(cargo(&root).arg("--version"))?
    ));
    line(format!(
        "load average at the end: {} (other work shares these cores)",
        load_average(3)
    ));
    line(String::new());
    if let Some(typical) = &typical {
        typical.report(runs, &mut line);
        line(String::new());
    }
    if let Some(build) = &build {
        build.report(runs, &mut line);
        line(String::new());
    }
    if let Some(expansion) = &expansion {
        expansion.report(runs, &mut line);
        line(String::new());
    }
    if let Some(package) = &package {
        package.report(&mut line);
        line(String::new());
    }
    match &codegen {
        Some(Ok(codegen)) => codegen.report(runs, &mut line),
        Some(Err(e)) => line(format!("## 5. Codegen: not measured: {e}")),
        None => {}
    }
    if codegen.is_some() {
        line(String::new());
    }
    let mut guards = Vec::new();
    if let Some(typical) = &typical {
        guards.extend(typical.guards());
    }
    if let Some(expansion) = &expansion {
        guards.extend(expansion.guards());
    }
    if !guards.is_empty() {
        line("## Guards".to_owned());
        for guard in &guards {
            line(guard.describe());
        }
        line(String::new());
    }
    line("## Rows for BENCHMARKS.md".to_owned());
    if let Some(typical) = &typical {
        typical.row(&mut line);
    }
    if let Some(build) = &build {
        build.rows(&mut line);
    }
    if let Some(Ok(codegen)) = &codegen {
        codegen.row(&mut line);
    }
    if let Some(expansion) = &expansion {
        expansion.row(&mut line);
    }
    if let Some(package) = &package {
        package.row(&mut line);
    }
    print!("{s}");
    if let Some(parent) = outfile.parent() {
        mkdir(parent)?;
    }
    std::fs::write(&outfile, s).map_err(|e| format!("cannot write {}: {e}", outfile.display()))?;
    if let Some(Err(e)) = codegen {
        return Err(format!("row 5 (codegen) was not measured: {e}"));
    }
    Ok(judge(&guards).map_err(|e| format!("{e}\nThe summary is in {}.", outfile.display())))
}

const MIB: f64 = 1024.0 * 1024.0;

fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / MIB)
}

/// A number as the summary shows medians: at most 3 decimals, no trailing zeros.
fn g(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn round2((w, c): (f64, f64)) -> (f64, f64) {
    ((w * 100.0).round() / 100.0, (c * 100.0).round() / 100.0)
}

/// The median of the wall (`k` = 0) or CPU (`k` = 1) times.
fn med(v: &[(f64, f64)], k: usize) -> f64 {
    median(
        &v.iter()
            .map(|t| if k == 0 { t.0 } else { t.1 })
            .collect::<Vec<_>>(),
    )
}

/// The wall (`k` = 0) or CPU (`k` = 1) times, `1.23 4.56 `.
fn list(v: &[(f64, f64)], k: usize) -> String {
    v.iter()
        .map(|t| format!("{:.2} ", if k == 0 { t.0 } else { t.1 }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_arguments_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn medians_print_without_trailing_zeros() {
        assert_eq!(g(4.43), "4.43");
        assert_eq!(g(4.465), "4.465");
        assert_eq!(g(5.0), "5");
    }

    #[test]
    fn a_failing_guard_is_named_and_a_holding_one_is_not() {
        let guard = |what: &str, value: f64| Guard {
            what: what.to_owned(),
            value,
            limit: 0.65,
            unit: "×",
        };
        assert_eq!(judge(&[guard("typical", 0.65)]), Ok(()));
        let err = judge(&[guard("typical", 0.64), guard("the `all` table", 0.7)]).unwrap_err();
        assert!(
            err.starts_with("1 guard(s) failed:\n  the `all` table: 0.7× (guard ≤ 0.65×): FAILS"),
            "{err}"
        );
        assert!(!err.contains("typical"), "{err}");
    }

    #[test]
    fn the_guards_are_the_ones_benchmarks_md_states() {
        let doc = include_str!("../../../BENCHMARKS.md");
        let typical = format!("≤ {}×", typical::TYPICAL_GUARD);
        let expansion = format!(
            "≤ {} ms",
            expansion::EXPANSION_GUARDS.map(|s| g(s * 1e3)).join(" / ")
        );
        for guard in [typical, expansion] {
            assert!(
                doc.contains(&guard),
                "BENCHMARKS.md does not state the guard {guard}"
            );
        }
    }

    #[test]
    fn every_bench_build_command_the_docs_show_parses() {
        let mut seen = 0;
        for (file, doc) in [
            ("BENCHMARKS.md", include_str!("../../../BENCHMARKS.md")),
            ("README.md", include_str!("../../../README.md")),
        ] {
            for command in doc.split("cargo bench-build").skip(1) {
                // Up to the end of the code span or line.
                let end = command.find(['`', '#', '\n', ')']).unwrap_or(command.len());
                let args = command[..end].split_whitespace();
                if args.clone().next().is_none() {
                    // The tool named, not a command.
                    continue;
                }
                let parsed =
                    Cli::try_parse_from(std::iter::once("bench-build").chain(args.clone()));
                let help = parsed
                    .as_ref()
                    .is_err_and(|e| e.kind() == clap::error::ErrorKind::DisplayHelp);
                assert!(
                    parsed.is_ok() || help,
                    "{file}: `cargo bench-build{}` does not parse: {}",
                    &command[..end],
                    parsed.unwrap_err()
                );
                seen += 1;
            }
        }
        assert!(seen >= 5, "only {seen} commands found");
    }

    #[test]
    fn worktree_and_at_are_two_sources() {
        let err = Cli::try_parse_from(["bench-build", "typical", "--worktree", "--at", "HEAD"])
            .unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::ArgumentConflict);
        assert!(Cli::try_parse_from(["bench-build", "typical", "--runs", "0"]).is_err());
        assert!(Cli::try_parse_from(["bench-build", "package", "--runs", "2"]).is_err());
    }
}
