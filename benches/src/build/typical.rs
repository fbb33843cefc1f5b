//! Row 4T, `bench-build typical`: the compile time a table and cudarc add to a typical
//! application. Each round builds (a) the typical application alone, (b) with the 4-function
//! table, (c) with cudarc, clean, with `cargo build -j1 --timings` so that no two compiler runs
//! share a core; what (b) and (c) build beyond (a) (the program's own crate included: it holds
//! the expansion) is what they add. The guard is on the median of the rounds' ratios: each round
//! builds the three in turn, so a ratio compares builds that saw the same machine load.

use std::path::Path;

use crate::gpu_report::median;

use super::process::{cargo, load_average, timed};
use super::programs::{
    cudarc_dependency, table_dep, typical_program, App, CUDARC_MAIN, TABLE_MAIN, TYPICAL_DEPS,
};
use super::wrapper::{peak_memory, Units};
use super::{g, Guard};

/// The guard: the table adds at most this share of what cudarc adds (median of the rounds).
pub(super) const TYPICAL_GUARD: f64 = 0.65;

pub(super) struct Typical {
    /// (a), (b), (c).
    apps: [App; 3],
    /// Per round, the seconds (b) and (c) add.
    added: Vec<(f64, f64)>,
    /// Per round, the seconds of (a)'s whole build (the sum of its units).
    alone: Vec<f64>,
    /// The units (b) and (c) add, from the last round: `name version 1.23 s; ...`.
    units: [String; 2],
    /// The largest peak memory of a compiler run that (b) and (c) add, in KiB, and its crate.
    peaks: [(u64, String); 2],
    /// The versions of syn in (a)'s build, as its lock file has them.
    syn: String,
}

/// One unit of a `--timings` build: `name version target mode`, and its seconds.
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
        for i in 1..=runs {
            let mut built: Vec<Vec<Unit>> = Vec::new();
            for app in &apps {
                let target = app.target(i);
                let load = load_average(1);
                let t = timed(
                    cargo(&app.dir)
                        .args(["build", "-q", "--offline", "-j1", "--timings"])
                        .env("CARGO_TARGET_DIR", &target),
                )?;
                let html = target.join("cargo-timings/cargo-timing.html");
                let text = std::fs::read_to_string(&html)
                    .map_err(|e| format!("cannot read {}: {e}", html.display()))?;
                let these = timing_units(&text)?;
                eprintln!(
                    "bench-build: {} build {i}: {:.2} s wall, {:.2} s CPU, units {:.2} s (load average before: {load})",
                    app.name,
                    t.0,
                    t.1,
                    these.iter().map(|u| u.1).sum::<f64>()
                );
                built.push(these);
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
        // The peak memory of the compiler runs each adds: one more build each, through the
        // wrapper, with (a)'s units left out.
        let logs: Vec<String> = apps
            .iter()
            .map(|app| Units::log(app, work))
            .collect::<Result<_, _>>()?;
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
            "## 4T. The compile time added to a typical application (clean debug builds, CARGO_INCREMENTAL=0, `cargo build -j1 --timings`, {runs} rounds, median)"
        ));
        line(format!(
            "{}: clap (derive), serde (derive) + serde_json, anyhow, thiserror, tracing + tracing-subscriber; its build: {}-> median {} s of compiler runs; syn versions: {}",
            self.apps[0].name,
            self.alone.iter().map(|a| format!("{a:.2} ")).collect::<String>(),
            g(median(&self.alone)),
            self.syn
        ));
        let (b, c) = self.medians();
        for (k, median) in [(0, b), (1, c)] {
            line(format!(
                "{} adds: {}-> median {} s; units (last round): {}",
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
            "| 4T | compile time added to a typical application (clap, serde, serde_json, anyhow, thiserror, tracing; `-j1 --timings`, the units it adds): 4-function table | {} s | cudarc: {} s | **{ratio:.3}×** (median of {} rounds' ratios) | ≤ {TYPICAL_GUARD}× | {} |",
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

/// The units of a `cargo build --timings` report (`cargo-timing.html`, whose `UNIT_DATA` is a
/// JSON list): `name version target mode` and the seconds of each.
fn timing_units(html: &str) -> Result<Vec<Unit>, String> {
    let json = html
        .split_once("const UNIT_DATA = ")
        .and_then(|(_, rest)| rest.split_once(";\n"))
        .map(|(json, _)| json)
        .ok_or("the --timings report has no UNIT_DATA")?;
    let units: Vec<serde_json::Value> =
        serde_json::from_str(json).map_err(|e| format!("the --timings UNIT_DATA: {e}"))?;
    Ok(units
        .iter()
        .map(|u| {
            let field = |k: &str| u.get(k).and_then(|v| v.as_str()).unwrap_or("").trim();
            let name = format!(
                "{} {}{}",
                field("name"),
                field("version"),
                match field("target") {
                    "" => String::new(),
                    t => format!(" ({t})"),
                }
            );
            (
                name,
                u.get("duration").and_then(|d| d.as_f64()).unwrap_or(0.0),
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_units_read_the_report_s_unit_data() {
        let html = "<script>\nconst UNIT_DATA = [{\"name\":\"syn\",\"version\":\"2.0.1\",\"target\":\"\",\"duration\":1.5},{\"name\":\"app\",\"version\":\"0.1.0\",\"target\":\" bin \\\"app\\\"\",\"duration\":0.25}];\nconst X = 1;";
        assert_eq!(
            timing_units(html).unwrap(),
            vec![
                ("syn 2.0.1".to_owned(), 1.5),
                ("app 0.1.0 (bin \"app\")".to_owned(), 0.25)
            ]
        );
        assert!(timing_units("<html></html>").is_err());
    }
}
