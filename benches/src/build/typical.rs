//! Row 4T, `bench-build typical`: the compile time a table and cudarc add to a typical
//! application. Each round builds (a) the typical application alone, (b) with the 4-function
//! table, (c) with cudarc, clean, with this program as `RUSTC_WRAPPER` (`wrapper.rs`), which
//! records each compiler run's CPU time and peak memory; the compiler runs of (b) and (c) that (a)
//! does not have (the program's own crate included: it holds the expansion) are what they add.
//! CPU time, not wall time: on cores that other builds share, a compiler run's wall time grows
//! with their load, its CPU time hardly. The guard is on the median of the rounds' ratios: each
//! round builds the three in turn, so a ratio compares builds of the same stretch of time.

use std::path::Path;

use crate::gpu_report::median;

use super::process::{cargo, load_average, timed};
use super::programs::{
    cudarc_dependency, table_dep, typical_program, App, CUDARC_MAIN, TABLE_MAIN, TYPICAL_DEPS,
};
use super::wrapper::peak_memory;
use super::wrapper::{cpu_units, UNIT_LOG_VAR};
use super::{g, Guard};

/// The guard: the table adds at most this share of what cudarc adds (median of the rounds).
pub(super) const TYPICAL_GUARD: f64 = 0.65;

pub(super) struct Typical {
    /// (a), (b), (c).
    apps: [App; 3],
    /// Per round, the CPU seconds (b) and (c) add.
    added: Vec<(f64, f64)>,
    /// Per round, the CPU seconds of (a)'s compiler runs.
    alone: Vec<f64>,
    /// The compiler runs (b) and (c) add, from the last round: `name version 1.23 s; ...`.
    units: [String; 2],
    /// The largest peak memory of a compiler run that (b) and (c) add, in KiB, and its crate.
    peaks: [(u64, String); 2],
    /// The versions of syn in (a)'s build, as its lock file has them.
    syn: String,
}

/// One compiler run: `package version[ (build script)]`, and its CPU seconds.
type Unit = (String, f64);

impl Typical {
    pub(super) fn measure(src: &Path, work: &Path, runs: usize) -> Result<Self, String> {
        let typical: toml::Table = TYPICAL_DEPS
            .parse()
            .map_err(|e| format!("the typical application's dependencies: {e}"))?;
        let with = |name: &str, dep: toml::Value| {
            let mut deps = typical.clone();
            deps.insert(name.into(), dep);
            deps
        };
        let apps = [
            App::create(
                work,
                "typical-app".to_owned(),
                typical.clone(),
                &typical_program(None)?,
            )?,
            App::create(
                work,
                "typical-table-app".to_owned(),
                with("cuda-driver-table", table_dep(src)),
                &typical_program(Some(TABLE_MAIN))?,
            )?,
            App::create(
                work,
                "typical-cudarc-app".to_owned(),
                with("cudarc", cudarc_dependency()?.into()),
                &typical_program(Some(CUDARC_MAIN))?,
            )?,
        ];
        let lock = std::fs::read_to_string(apps[0].dir.join("Cargo.lock")).unwrap_or_default();
        let syn = lock
            .split("[[package]]")
            .filter(|p| p.contains("name = \"syn\""))
            .filter_map(|p| p.split("version = \"").nth(1)?.split('"').next())
            .collect::<Vec<_>>()
            .join(", ");
        let mut added = Vec::new();
        let mut alone = Vec::new();
        let mut units = [String::new(), String::new()];
        let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let mut logs = Vec::new();
        for i in 1..=runs {
            let mut built: Vec<Vec<Unit>> = Vec::new();
            logs.clear();
            for app in &apps {
                let target = app.target(i);
                let log = target.with_extension("tsv");
                let load = load_average(1);
                let t = timed(
                    cargo(&app.dir)
                        .args(["build", "-q", "--offline"])
                        .env("CARGO_TARGET_DIR", &target)
                        .env("RUSTC_WRAPPER", &me)
                        .env(UNIT_LOG_VAR, &log),
                )?;
                let text = std::fs::read_to_string(&log)
                    .map_err(|e| format!("cannot read {}: {e}", log.display()))?;
                let these = cpu_units(&text);
                eprintln!(
                    "bench-build: {} build {i}: {:.2} s wall, {:.2} s CPU, compiler runs {:.2} s CPU (load average before: {load})",
                    app.name,
                    t.0,
                    t.1,
                    these.iter().map(|u| u.1).sum::<f64>()
                );
                built.push(these);
                logs.push(text);
                let _ = std::fs::remove_dir_all(&target);
            }
            alone.push(built[0].iter().map(|u| u.1).sum());
            let extra = |k: usize| -> Vec<&Unit> {
                built[k]
                    .iter()
                    .filter(|u| !built[0].iter().any(|a| a.0 == u.0))
                    .collect()
            };
            let sum = |k: usize| extra(k).iter().map(|u| u.1).sum::<f64>();
            added.push((sum(1), sum(2)));
            for (k, text) in units.iter_mut().enumerate() {
                let mut list = extra(k + 1);
                list.sort_by(|a, b| b.1.total_cmp(&a.1));
                *text = list
                    .iter()
                    .map(|u| format!("{} {:.2} s", u.0, u.1))
                    .collect::<Vec<_>>()
                    .join("; ");
            }
        }
        // The peak memory of the compiler runs each adds, from the last round, with (a)'s runs
        // left out.
        let names = |log: &str| -> Vec<String> {
            log.lines()
                .filter_map(|l| l.split('\t').next())
                .map(str::to_owned)
                .collect()
        };
        let base = names(&logs[0]);
        let peak = |log: &str| {
            let added: String = log
                .lines()
                .filter(|l| {
                    l.split('\t')
                        .next()
                        .is_some_and(|n| !base.iter().any(|b| b == n))
                })
                .map(|l| format!("{l}\n"))
                .collect();
            peak_memory(&added)
        };
        let peaks = [peak(&logs[1]), peak(&logs[2])];
        Ok(Self {
            apps,
            added,
            alone,
            units,
            peaks,
            syn,
        })
    }

    /// The median seconds (b) and (c) add.
    fn medians(&self) -> (f64, f64) {
        let b: Vec<f64> = self.added.iter().map(|a| a.0).collect();
        let c: Vec<f64> = self.added.iter().map(|a| a.1).collect();
        (median(&b), median(&c))
    }

    /// The median of the rounds' ratios, added(b) / added(c): what the guard holds.
    fn ratio(&self) -> f64 {
        let ratios: Vec<f64> = self.added.iter().map(|(b, c)| b / c).collect();
        median(&ratios)
    }

    pub(super) fn guards(&self) -> Vec<Guard> {
        vec![Guard {
            what: "the compile time a 4-function table adds to the typical application, as a share of cudarc's (median of the rounds' ratios)".to_owned(),
            value: self.ratio(),
            limit: TYPICAL_GUARD,
            unit: "×",
        }]
    }

    pub(super) fn report(&self, runs: usize, line: &mut dyn FnMut(String)) {
        line(format!(
            "## 4T. The compile time added to a typical application (clean debug builds, CARGO_INCREMENTAL=0, the CPU time of each compiler run through RUSTC_WRAPPER, {runs} rounds, median)"
        ));
        line(format!(
            "{}: clap (derive), serde (derive) + serde_json, anyhow, thiserror, tracing + tracing-subscriber; its build: {}-> median {} s of CPU in compiler runs; syn versions: {}",
            self.apps[0].name,
            self.alone.iter().map(|a| format!("{a:.2} ")).collect::<String>(),
            g(median(&self.alone)),
            self.syn
        ));
        let (b, c) = self.medians();
        for (k, median) in [(0, b), (1, c)] {
            line(format!(
                "{} adds: {}-> median {} s of CPU; its compiler runs (last round): {}",
                self.apps[k + 1].name,
                self.added
                    .iter()
                    .map(|a| format!("{:.2} ", if k == 0 { a.0 } else { a.1 }))
                    .collect::<String>(),
                g(median),
                self.units[k]
            ));
            line(format!(
                "{}, largest compiler run it adds: {:.1} MiB peak memory ({})",
                self.apps[k + 1].name,
                self.peaks[k].0 as f64 / 1024.0,
                self.peaks[k].1
            ));
        }
        let ratios: Vec<String> = self
            .added
            .iter()
            .map(|(b, c)| format!("{:.3}", b / c))
            .collect();
        line(format!(
            "added by the table / added by cudarc, by round: {} -> median {:.3}× (guard ≤ {TYPICAL_GUARD}×); ratio of the medians {:.3}×",
            ratios.join(" "),
            self.ratio(),
            b / c
        ));
    }

    pub(super) fn row(&self, line: &mut dyn FnMut(String)) {
        let (b, c) = self.medians();
        let ratio = self.ratio();
        line(format!(
            "| 4T | compile time added to a typical application (clap, serde, serde_json, anyhow, thiserror, tracing; CPU seconds of the compiler runs it adds): 4-function table | {} s | cudarc: {} s | **{ratio:.3}×** (median of {} rounds' ratios) | ≤ {TYPICAL_GUARD}× | {} |",
            g(b),
            g(c),
            self.added.len(),
            if ratio <= TYPICAL_GUARD { "holds" } else { "FAILS" }
        ));
        line(format!(
            "| 4Tm | peak memory of the largest compiler run added to the typical application | {:.1} MiB ({}) | cudarc: {:.1} MiB ({}) | **{:.2}×** | — | — |",
            self.peaks[0].0 as f64 / 1024.0,
            self.peaks[0].1,
            self.peaks[1].0 as f64 / 1024.0,
            self.peaks[1].1,
            self.peaks[0].0 as f64 / self.peaks[1].0 as f64,
        ));
    }
}
