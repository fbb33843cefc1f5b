//! Row 4, `bench-build empty`: a clean debug `cargo build` of a program that is nothing but a
//! 4-function table (`examples/build_cost_table.rs`, default features), against the same four
//! calls on cudarc (`examples/build_cost_cudarc.rs`) twice: with cudarc as this crate's manifest
//! pins it (default features off, the driver alone: the least of cudarc such a program builds),
//! and with cudarc's default features (what its README has a user add), the same version and
//! CUDA release. Each in its own temporary project; `cargo fetch` first so downloads are not
//! timed; every build gets a fresh `CARGO_TARGET_DIR` and `CARGO_INCREMENTAL=0` (a dependency
//! from crates.io is never built incrementally; a path dependency would be, which costs time and
//! size). Each round builds every program once, starting at the next one each round, so all see
//! the same machine load; a ratio is the median of the rounds' ratios. Sizes: the sum of
//! `target/debug/deps/*.rlib` of one build of each, and the part of it linked into the program
//! (without the rlibs only proc macros use). Last, one more build of each program through
//! `RUSTC_WRAPPER` (`wrapper.rs`) says which crates the time goes to and how much memory the
//! largest compiler run takes. With `--baseline REV`, each round also builds the table program
//! against the tree of commit REV, next to its counterpart (in turn first and second).

use std::path::Path;

use crate::gpu_report::median;

use super::process::{cargo, load_average, timed};
use super::programs::{
    cudarc_default_dependency, cudarc_dependency, cudarc_version, one, table_dep, App, Sizes,
    CUDARC_MAIN, TABLE_MAIN,
};
use super::wrapper::Units;
use super::{g, list, med, mib, round2};

/// The programs, in the order of [`BuildCost::programs`]: project name, what the summary calls it.
const PROGRAMS: [(&str, &str); 3] = [
    ("table-app", "4-function table"),
    ("cudarc-app", "cudarc, driver only"),
    ("cudarc-default-app", "cudarc, default features"),
];
const TABLE: usize = 0;
const CUDARC: usize = 1;
const CUDARC_DEFAULT: usize = 2;

pub(super) struct BuildCost {
    /// [`PROGRAMS`], then with `--baseline` the table against the baseline tree.
    programs: Vec<Program>,
    /// Of each of [`PROGRAMS`].
    sizes: Vec<Sizes>,
    cudarc_version: String,
    /// The baseline's commit, with `--baseline`.
    baseline: Option<String>,
}

/// One program and what its builds measured.
struct Program {
    app: App,
    /// (wall, CPU) seconds of each build.
    times: Vec<(f64, f64)>,
    /// From the build through `RUSTC_WRAPPER`.
    units: Option<Units>,
}

impl BuildCost {
    pub(super) fn measure(
        src: &Path,
        baseline: Option<(&str, &Path)>,
        work: &Path,
        runs: usize,
    ) -> Result<Self, String> {
        let deps = [
            one("cuda-driver-table", table_dep(src)),
            one("cudarc", cudarc_dependency()?.into()),
            one("cudarc", cudarc_default_dependency()?.into()),
        ];
        let mains = [TABLE_MAIN, CUDARC_MAIN, CUDARC_MAIN];
        let mut apps = Vec::new();
        for ((name, _), (deps, main)) in PROGRAMS.iter().zip(deps.into_iter().zip(mains)) {
            apps.push(App::create(work, (*name).to_owned(), deps, main)?);
        }
        if let Some((commit, tree)) = baseline {
            apps.push(App::create(
                work,
                format!("{}@{commit}", PROGRAMS[TABLE].0),
                one("cuda-driver-table", table_dep(tree)),
                TABLE_MAIN,
            )?);
        }
        let mut programs: Vec<Program> = apps
            .into_iter()
            .map(|app| Program {
                app,
                times: Vec::new(),
                units: None,
            })
            .collect();
        let with_baseline = programs.len() > PROGRAMS.len();
        for i in 1..=runs {
            // Each round starts at the next program; the table and its baseline side by side,
            // in turn first.
            let table: Vec<usize> = match (with_baseline, i % 2) {
                (false, _) => vec![TABLE],
                (true, 1) => vec![TABLE, PROGRAMS.len()],
                (true, _) => vec![PROGRAMS.len(), TABLE],
            };
            let mut groups = [table, vec![CUDARC], vec![CUDARC_DEFAULT]];
            groups.rotate_left(i % PROGRAMS.len());
            for k in groups.into_iter().flatten() {
                let p = &mut programs[k];
                let load = load_average(1);
                let target = p.app.target(i);
                let t = timed(
                    cargo(&p.app.dir)
                        .args(["build", "-q", "--offline"])
                        .env("CARGO_TARGET_DIR", &target),
                )?;
                eprintln!(
                    "bench-build: {} build {i}: {:.2} s wall, {:.2} s CPU (load average before: {load})",
                    p.app.name, t.0, t.1
                );
                p.times.push(round2(t));
                // The last round's builds of the programs are kept for their sizes.
                if i < runs || k >= PROGRAMS.len() {
                    let _ = std::fs::remove_dir_all(&target);
                }
            }
        }
        let mut sizes = Vec::new();
        for p in &programs[..PROGRAMS.len()] {
            let target = p.app.target(runs);
            sizes.push(Sizes::measure(&p.app, &target)?);
            let _ = std::fs::remove_dir_all(&target);
        }
        for p in &mut programs {
            p.units = Some(Units::measure(&p.app, work)?);
        }
        Ok(Self {
            programs,
            sizes,
            cudarc_version: cudarc_version()?,
            baseline: baseline.map(|(c, _)| c.to_owned()),
        })
    }

    /// The median (wall, CPU) of program `k`.
    fn medians(&self, k: usize) -> (f64, f64) {
        let t = &self.programs[k].times;
        (med(t, 0), med(t, 1))
    }

    /// The median over the rounds of program `k`'s (wall, CPU) ratio to program `to`'s.
    fn ratios(&self, k: usize, to: usize) -> (f64, f64) {
        let pairs = self.programs[k].times.iter().zip(&self.programs[to].times);
        let wall: Vec<f64> = pairs.clone().map(|(a, b)| a.0 / b.0).collect();
        let cpu: Vec<f64> = pairs.map(|(a, b)| a.1 / b.1).collect();
        (median(&wall), median(&cpu))
    }

    /// Peak memory of program `k`'s largest compiler run, in MiB.
    fn peak_mib(&self, k: usize) -> f64 {
        self.programs[k].units.as_ref().map_or(0.0, Units::peak_mib)
    }

    pub(super) fn report(&self, runs: usize, line: &mut dyn FnMut(String)) {
        line(format!(
            "## 4. Build cost of a program that is nothing but a table (clean debug build, CARGO_INCREMENTAL=0, {runs} rounds of the {} programs, each round starting at the next, median; cudarc {})",
            self.programs.len(),
            self.cudarc_version
        ));
        for (k, p) in self.programs.iter().enumerate() {
            let (w, cpu) = self.medians(k);
            let what = PROGRAMS.get(k).map_or("4-function table", |p| p.1);
            let against = |to: usize| {
                let (rw, rc) = self.ratios(k, to);
                format!(
                    "; against {}: {rw:.3}× wall, {rc:.3}× CPU",
                    self.programs[to].app.name
                )
            };
            let ratios = if k == CUDARC || k == CUDARC_DEFAULT {
                String::new()
            } else {
                against(CUDARC) + &against(CUDARC_DEFAULT)
            };
            line(format!(
                "{:<40} wall {}-> {} s; CPU {}-> {} s{ratios}",
                format!("{} ({what}):", p.app.name),
                list(&p.times, 0),
                g(w),
                list(&p.times, 1),
                g(cpu),
            ));
        }
        if let Some(commit) = &self.baseline {
            let (rw, rc) = self.ratios(TABLE, PROGRAMS.len());
            line(format!(
                "the table against commit {commit}, the same rounds: {:+.1}% wall, {:+.1}% CPU (median of the rounds' ratios)",
                100.0 * (rw - 1.0),
                100.0 * (rc - 1.0),
            ));
        }
        for (what, size) in [
            (
                "all dependency rlibs",
                (|s: &Sizes| s.rlibs) as fn(&Sizes) -> u64,
            ),
            ("rlibs linked into the program", |s| s.linked),
            ("proc-macro .so (host only, not linked)", |s| s.proc_macros),
            ("debug executables", |s| s.executable),
        ] {
            let each: Vec<String> = self
                .sizes
                .iter()
                .zip(PROGRAMS)
                .map(|(s, (name, _))| format!("{name} {}", mib(size(s))))
                .collect();
            line(format!("{what}: {}", each.join(", ")));
        }
        for (s, (name, _)) in self.sizes.iter().zip(PROGRAMS) {
            line(format!("{name} artifacts: {}", s.listing));
        }
        for p in &self.programs {
            let Some(units) = &p.units else { continue };
            line(format!(
                "{}, slowest compiler runs (one more build, through RUSTC_WRAPPER): {}",
                p.app.name, units.slowest
            ));
            line(format!(
                "{}, largest compiler run: {:.1} MiB peak memory ({})",
                p.app.name,
                units.peak_mib(),
                units.peak_unit
            ));
        }
    }

    pub(super) fn rows(&self, line: &mut dyn FnMut(String)) {
        let (wt, ct) = self.medians(TABLE);
        let (st, sc) = (&self.sizes[TABLE], &self.sizes[CUDARC]);
        for (row, to) in [("4a", CUDARC), ("4b", CUDARC_DEFAULT)] {
            let (wc, cc) = self.medians(to);
            let (rw, rc) = self.ratios(TABLE, to);
            let what = PROGRAMS[to].1;
            // CPU time first: on shared cores the wall time follows the others' load.
            line(format!(
                "| {row} | clean debug build of a program that is nothing but a 4-function table, CPU time (user + sys) | {} s | {what}: {} s | **{rc:.3}×** (wall {} against {} s, {rw:.3}×) | — | — |",
                g(ct), g(cc), g(wt), g(wc)
            ));
        }
        line(format!(
            "| 4c | size of all dependency rlibs | {} | cudarc, driver only: {} | **{:.3}×** | — | — |",
            mib(st.rlibs), mib(sc.rlibs), st.rlibs as f64 / sc.rlibs as f64
        ));
        line(format!(
            "| 4d | size of the rlibs linked into the program | {} | cudarc, driver only: {} | **{:.3}×** | — | — |",
            mib(st.linked), mib(sc.linked), st.linked as f64 / sc.linked as f64
        ));
        line(format!(
            "| 4i | peak memory of the largest compiler run | {:.1} MiB | cudarc, driver only / default features: {:.1} / {:.1} MiB | **{:.2}× / {:.2}×** | — | — |",
            self.peak_mib(TABLE),
            self.peak_mib(CUDARC),
            self.peak_mib(CUDARC_DEFAULT),
            self.peak_mib(TABLE) / self.peak_mib(CUDARC),
            self.peak_mib(TABLE) / self.peak_mib(CUDARC_DEFAULT),
        ));
    }
}
