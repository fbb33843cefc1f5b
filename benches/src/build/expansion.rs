//! Row 6, `bench-build expansion`: the macro's expansion time, which a build and an editor pay on
//! every change of a file with a table (the attribute runs unoptimised in a debug build). For an
//! empty program and the three table programs of [`TABLES`], in one project each: one build with
//! the nightly toolchain, then per round `touch src/main.rs` and `cargo +nightly rustc -- -Z
//! time-passes`, whose `macro_expand_crate` line is the time the compiler spent expanding macros
//! in the program's crate (the attribute, and the `macro_rules!` its expansion calls). With
//! `--baseline REV`, each table program also has a project against REV's tree, and each round
//! times the two one after the other (in turn first): a machine's rounds drift by more than a
//! change moves them, so only rounds side by side compare.

use std::path::Path;

use crate::gpu_report::median;

use super::process::{check, nightly_cargo, write};
use super::programs::{one, table_dep, table_program, App, TABLES};
use super::{g, Guard};

/// The guards, in seconds, for the tables of [`TABLES`] (4, 40 and `all` functions): the median
/// expansion time on the machine of record.
pub(super) const EXPANSION_GUARDS: [f64; 3] = [0.010, 0.015, 0.120];

pub(super) struct Expansion {
    /// Per program (empty, then [`TABLES`]), the seconds of each round, and with a baseline the
    /// baseline's seconds of the same rounds.
    times: Vec<(String, Vec<f64>, Option<Vec<f64>>)>,
    /// The baseline's commit, with `--baseline`.
    baseline: Option<String>,
}

/// A project of `main` against the runtime of `tree`, built once with the nightly toolchain.
fn expansion_app(work: &Path, name: String, tree: &Path, main: &str) -> Result<App, String> {
    let app = App::create(work, name, one("cuda-driver-table", table_dep(tree)), main)?;
    check(
        nightly_cargo(&app.dir)
            .args(["build", "-q", "--offline"])
            .env("CARGO_TARGET_DIR", app.target(0)),
    )
    .map_err(|e| {
        format!("the expansion needs a nightly toolchain (`rustup toolchain install nightly`): {e}")
    })?;
    Ok(app)
}

/// One round of `app`: its `macro_expand_crate` time after a touch, in seconds.
fn expansion_round(app: &App, main: &str, what: &str) -> Result<f64, String> {
    write(&app.dir.join("src/main.rs"), main)?;
    let out = nightly_cargo(&app.dir)
        .args(["rustc", "-q", "--offline", "--", "-Z", "time-passes"])
        .env("CARGO_TARGET_DIR", app.target(0))
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let text = String::from_utf8_lossy(&out.stderr);
    macro_expand_crate(&text)
        .ok_or_else(|| format!("no macro_expand_crate in -Z time-passes of {what}:\n{text}"))
}

/// The seconds of the `macro_expand_crate` line of `-Z time-passes`.
fn macro_expand_crate(time_passes: &str) -> Option<f64> {
    time_passes
        .lines()
        .find(|l| l.ends_with("macro_expand_crate"))
        .and_then(|l| l.strip_prefix("time:"))
        .and_then(|l| l.split(';').next())
        .and_then(|t| t.trim().parse::<f64>().ok())
}

impl Expansion {
    pub(super) fn measure(
        src: &Path,
        baseline: Option<(&str, &Path)>,
        work: &Path,
        runs: usize,
    ) -> Result<Self, String> {
        let mut programs = vec![("empty".to_owned(), "fn main() {}\n".to_owned(), false)];
        for (name, what, list) in TABLES {
            programs.push((format!("{name} ({what})"), table_program(list)?, true));
        }
        let mut times = Vec::new();
        for (k, (what, main, is_table)) in programs.into_iter().enumerate() {
            let app = expansion_app(work, format!("expansion-{k}"), src, &main)?;
            let beside = match baseline {
                Some((commit, tree)) if is_table => Some(expansion_app(
                    work,
                    format!("expansion-{k}@{commit}"),
                    tree,
                    &main,
                )?),
                _ => None,
            };
            let (mut secs, mut base) = (Vec::new(), Vec::new());
            let baseline_round = |base: &mut Vec<f64>| -> Result<(), String> {
                if let Some(b) = &beside {
                    base.push(expansion_round(b, &main, &what)?);
                }
                Ok(())
            };
            for round in 0..runs {
                // The baseline first in every other round.
                if round % 2 == 1 {
                    baseline_round(&mut base)?;
                }
                secs.push(expansion_round(&app, &main, &what)?);
                if round % 2 == 0 {
                    baseline_round(&mut base)?;
                }
            }
            eprintln!("bench-build: expansion of {what}: {secs:?} s");
            if beside.is_some() {
                eprintln!("bench-build: the baseline's, the same rounds: {base:?} s");
            }
            let _ = std::fs::remove_dir_all(app.target(0));
            if let Some(b) = &beside {
                let _ = std::fs::remove_dir_all(b.target(0));
            }
            times.push((what, secs, beside.map(|_| base)));
        }
        Ok(Self {
            times,
            baseline: baseline.map(|(c, _)| c.to_owned()),
        })
    }

    /// The median milliseconds of the tables of [`TABLES`].
    fn table_ms(&self) -> Vec<f64> {
        self.times
            .iter()
            .skip(1)
            .map(|(_, s, _)| median(s) * 1e3)
            .collect()
    }

    pub(super) fn guards(&self) -> Vec<Guard> {
        self.table_ms()
            .into_iter()
            .zip(EXPANSION_GUARDS)
            .zip(TABLES)
            .map(|((ms, guard), (_, what, _))| Guard {
                what: format!("the expansion time of the {what} (median)"),
                value: ms,
                limit: guard * 1e3,
                unit: " ms",
            })
            .collect()
    }

    pub(super) fn report(&self, runs: usize, line: &mut dyn FnMut(String)) {
        line(format!(
            "## 6. Expansion time (nightly `-Z time-passes`, `macro_expand_crate` after a touch, {runs} rounds, median)"
        ));
        let rounds = |secs: &[f64]| {
            format!(
                "{}-> median {} ms",
                secs.iter()
                    .map(|s| format!("{:.1} ", s * 1e3))
                    .collect::<String>(),
                g(median(secs) * 1e3)
            )
        };
        for (what, secs, base) in &self.times {
            line(format!("{what}: {}", rounds(secs)));
            if let (Some(base), Some(commit)) = (base, &self.baseline) {
                let faster = secs.iter().zip(base).filter(|(s, b)| s < b).count();
                let slower = secs.iter().zip(base).filter(|(s, b)| s > b).count();
                line(format!(
                    "  {commit}, the same rounds: {}; of {} rounds this tree was faster in {faster}, slower in {slower}",
                    rounds(base),
                    secs.len()
                ));
            }
        }
    }

    pub(super) fn row(&self, line: &mut dyn FnMut(String)) {
        let ms = |secs: &[f64]| median(secs) * 1e3;
        let empty = self.times.first().map_or(0.0, |(_, s, _)| ms(s));
        let tables = self.table_ms();
        let shown: Vec<String> = tables.iter().map(|t| g(*t)).collect();
        let guards: Vec<String> = EXPANSION_GUARDS.iter().map(|s| g(s * 1e3)).collect();
        let holds = self.guards().iter().all(Guard::holds);
        let beside = match &self.baseline {
            Some(commit) => {
                let base: Vec<String> = self
                    .times
                    .iter()
                    .skip(1)
                    .filter_map(|(_, _, b)| b.as_deref().map(|b| g(ms(b))))
                    .collect();
                format!("; {commit} in the same rounds: {} ms", base.join(" / "))
            }
            None => String::new(),
        };
        line(format!(
            "| 6 | expansion time of a 4-function / 40-function / `all` table (`macro_expand_crate`) | {} ms | empty program: {} ms{beside} | — | ≤ {} ms | {} |",
            shown.join(" / "),
            g(empty),
            guards.join(" / "),
            if holds { "holds" } else { "FAILS" }
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expansion_is_read_from_time_passes() {
        let text = "time:   0.001; rss:   40MB ->   41MB (   +1MB)\tparse_crate\ntime:   0.106; rss:   41MB ->  120MB (  +79MB)\tmacro_expand_crate\n";
        assert_eq!(macro_expand_crate(text), Some(0.106));
        assert_eq!(macro_expand_crate("time: 0.1; parse_crate\n"), None);
    }
}
