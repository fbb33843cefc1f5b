//! The GPU report: reads what one run of `bench-gpu` left (criterion's estimates, the paired
//! measurement's lines, every cold-start sample) and writes the summary and the rows of
//! `BENCHMARKS.md`'s table (rows 1–3).
//!
//! Parsing and formatting only, no processes: `src/bin/bench-gpu.rs` runs the programs and calls
//! [`render_dir`]; `tests/gpu_report.rs` feeds it a small fixture.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The files of a run's output folder that the report reads (and `bench-gpu` writes).
pub mod files {
    /// The machine, date and binaries, as `key: value` lines.
    pub const MACHINE: &str = "machine.txt";
    /// Every criterion estimate, by run and benchmark id ([`super::Runs`]).
    pub const CRITERION: &str = "criterion.json";
    /// Everything the programs printed; `== criterion RUN` lines start each criterion run.
    pub const LOG: &str = "bench-gpu.log";
    /// Every cold-start sample, as `spawn_timer` writes them.
    pub const COLD: &str = "cold-raw.tsv";
    /// The report.
    pub const REPORT: &str = "bench-gpu.txt";
}

/// The criterion runs: the call-overhead bench twice (the spread shows the noise), then
/// resolve-all once.
pub const CALL_RUNS: [&str; 2] = ["call1", "call2"];
/// The criterion run of the resolve-all bench.
pub const RESOLVE_RUN: &str = "resolve";

/// What the call-overhead goal asks: a generated method or the raw accessor at most this many
/// nanoseconds above a raw function pointer.
pub const CALL_GOAL_NS: f64 = 0.2;
/// What the cold-start goal asks: at most this ratio to the C floor.
pub const COLD_GOAL: f64 = 1.05;
/// What the cold-start goal asks against the same steps written in Rust: the table's own cost,
/// apart from any Rust program's start-up.
pub const COLD_RUST_GOAL: f64 = 1.03;
/// What the resolve-all goal asks: a fresh table's `resolve_all` at most this ratio to a raw loop
/// of the same lookups.
pub const RESOLVE_GOAL: f64 = 1.25;

/// The seed of the bootstrap's random numbers, so a report is reproducible from its files.
const BOOTSTRAP_SEED: u64 = 6;
/// Bootstrap resamples per confidence interval.
const BOOTSTRAP_N: usize = 1000;

/// One benchmark's criterion estimates, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub median: f64,
    pub mean: f64,
    pub mean_lo: f64,
    pub mean_hi: f64,
    pub slope: Option<f64>,
    /// The throughput, in elements per iteration (resolve-all: the functions of one pass).
    pub elements: Option<u64>,
}

/// Criterion's results by run (`call1`, `call2`, `resolve`), then by full benchmark id
/// (`call_overhead/cuDriverGetVersion/raw_pointer`).
pub type Runs = BTreeMap<String, BTreeMap<String, Estimate>>;

/// One line of the paired measurement: the variant's median block time per call, the median of its
/// per-round difference to the raw pointer, and that difference's p10 and p90 (ns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Paired {
    pub ns: f64,
    pub diff: f64,
    pub p10: f64,
    pub p90: f64,
}

/// The paired lines by run, then by (function, variant).
pub type PairedRuns = BTreeMap<String, BTreeMap<(String, String), Paired>>;

/// Cold-start samples by program, then by round: (first call, in-process, whole process) in µs.
pub type Cold = BTreeMap<String, BTreeMap<u32, [f64; 3]>>;

/// One line of the resolve-all bench's paired measurement: a table variant against the raw loop
/// of its backend, over `rounds` rounds of one pass each (ns per pass of `functions` lookups).
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvePaired {
    /// The raw loop it is compared with (`raw_cuGetProcAddress_v2`).
    pub baseline: String,
    pub functions: u64,
    pub rounds: u64,
    /// The median pass of the table and of the raw loop.
    pub ns: f64,
    pub baseline_ns: f64,
    /// The median of the per-round ratios (table / raw loop), its 10th and 90th percentiles.
    pub ratio: f64,
    pub p10: f64,
    pub p90: f64,
}

/// The paired resolve-all lines by table variant (`table_driver`).
pub type ResolvePairedRun = BTreeMap<String, ResolvePaired>;

/// What one report is made of.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub machine: String,
    pub runs: Runs,
    pub paired: PairedRuns,
    pub resolve_paired: ResolvePairedRun,
    pub cold: Cold,
}

// --- reading ------------------------------------------------------------------------------------

#[derive(Deserialize)]
struct BenchmarkJson {
    full_id: String,
    throughput: Option<ThroughputJson>,
}

#[derive(Deserialize)]
struct ThroughputJson {
    #[serde(rename = "Elements")]
    elements: Option<u64>,
}

#[derive(Deserialize)]
struct EstimatesJson {
    mean: EstimateJson,
    median: EstimateJson,
    slope: Option<EstimateJson>,
}

#[derive(Deserialize)]
struct EstimateJson {
    point_estimate: f64,
    confidence_interval: IntervalJson,
}

#[derive(Deserialize)]
struct IntervalJson {
    lower_bound: f64,
    upper_bound: f64,
}

/// Reads a criterion output folder (`CRITERION_HOME`): every `.../new/` folder holding
/// `benchmark.json` and `estimates.json`, by the benchmark's full id.
///
/// # Errors
///
/// When a folder cannot be listed or a file cannot be read or parsed.
pub fn read_criterion_home(dir: &Path) -> Result<BTreeMap<String, Estimate>, String> {
    let mut found = BTreeMap::new();
    if dir.exists() {
        walk_criterion(dir, &mut found)?;
    }
    Ok(found)
}

fn walk_criterion(dir: &Path, found: &mut BTreeMap<String, Estimate>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut subdirs = Vec::new();
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            subdirs.push(entry.path());
        }
    }
    subdirs.sort();
    let benchmark = dir.join("benchmark.json");
    if dir.file_name().is_some_and(|n| n == "new") && benchmark.is_file() {
        let b: BenchmarkJson = read_json(&benchmark)?;
        let e: EstimatesJson = read_json(&dir.join("estimates.json"))?;
        found.insert(
            b.full_id,
            Estimate {
                median: e.median.point_estimate,
                mean: e.mean.point_estimate,
                mean_lo: e.mean.confidence_interval.lower_bound,
                mean_hi: e.mean.confidence_interval.upper_bound,
                slope: e.slope.map(|s| s.point_estimate),
                elements: b.throughput.and_then(|t| t.elements),
            },
        );
    }
    for sub in subdirs {
        walk_criterion(&sub, found)?;
    }
    Ok(())
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("cannot parse {}: {e}", path.display()))
}

/// The paired lines of a log (`paired<TAB>function<TAB>variant<TAB>ns<TAB>diff<TAB>p10<TAB>p90`,
/// printed by the `call_overhead` bench), by the criterion run they belong to: the last
/// `== criterion RUN` line above them. Lines that do not parse are left out.
pub fn parse_paired(log: &str) -> PairedRuns {
    let mut paired = PairedRuns::new();
    let mut run: Option<&str> = None;
    for line in log.lines() {
        if let Some(rest) = line.strip_prefix("== criterion ") {
            run = rest.split_whitespace().next();
        } else if let (Some(rest), Some(run)) = (line.strip_prefix("paired\t"), run) {
            let f: Vec<&str> = rest.split('\t').collect();
            let [func, variant, ns, diff, p10, p90] = f[..] else {
                continue;
            };
            let num = |s: &str| s.trim().parse::<f64>().ok();
            let (Some(ns), Some(diff), Some(p10), Some(p90)) =
                (num(ns), num(diff), num(p10), num(p90))
            else {
                continue;
            };
            paired.entry(run.to_owned()).or_default().insert(
                (func.to_owned(), variant.to_owned()),
                Paired { ns, diff, p10, p90 },
            );
        }
    }
    paired
}

/// The resolve-all bench's paired lines
/// (`resolve_paired<TAB>variant<TAB>baseline<TAB>functions<TAB>rounds<TAB>ns<TAB>baseline ns<TAB>ratio<TAB>p10<TAB>p90`)
/// of the criterion run [`RESOLVE_RUN`] (the last `== criterion RUN` line above them names it).
/// Lines that do not parse are left out.
pub fn parse_resolve_paired(log: &str) -> ResolvePairedRun {
    let mut paired = ResolvePairedRun::new();
    let mut run: Option<&str> = None;
    for line in log.lines() {
        if let Some(rest) = line.strip_prefix("== criterion ") {
            run = rest.split_whitespace().next();
        } else if let (Some(rest), Some(RESOLVE_RUN)) = (line.strip_prefix("resolve_paired\t"), run)
        {
            let f: Vec<&str> = rest.split('\t').collect();
            let [variant, baseline, functions, rounds, ns, baseline_ns, ratio, p10, p90] = f[..]
            else {
                continue;
            };
            let num = |s: &str| s.trim().parse::<f64>().ok();
            let int = |s: &str| s.trim().parse::<u64>().ok();
            let (
                Some(functions),
                Some(rounds),
                Some(ns),
                Some(baseline_ns),
                Some(ratio),
                Some(p10),
                Some(p90),
            ) = (
                int(functions),
                int(rounds),
                num(ns),
                num(baseline_ns),
                num(ratio),
                num(p10),
                num(p90),
            )
            else {
                continue;
            };
            paired.insert(
                variant.to_owned(),
                ResolvePaired {
                    baseline: baseline.to_owned(),
                    functions,
                    rounds,
                    ns,
                    baseline_ns,
                    ratio,
                    p10,
                    p90,
                },
            );
        }
    }
    paired
}

/// `spawn_timer`'s raw samples: a header line, then `name round first_ns inproc_ns whole_ns`
/// (tab-separated); a line cut short by the time limit is left out.
pub fn parse_cold(tsv: &str) -> Cold {
    let mut cold = Cold::new();
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let [name, round, first, inproc, whole] = f[..] else {
            continue;
        };
        let us = |s: &str| s.trim().parse::<i64>().ok().map(|ns| ns as f64 / 1e3);
        let (Ok(round), Some(first), Some(inproc), Some(whole)) = (
            round.trim().parse::<u32>(),
            us(first),
            us(inproc),
            us(whole),
        ) else {
            continue;
        };
        cold.entry(name.to_owned())
            .or_default()
            .insert(round, [first, inproc, whole]);
    }
    cold
}

/// Reads the files of an output folder (see [`files`]); a missing log or sample file counts as
/// empty (those measurements then show as "not measured").
///
/// # Errors
///
/// When `machine.txt` or `criterion.json` is missing or does not parse.
pub fn read_dir(out: &Path) -> Result<Inputs, String> {
    let machine = std::fs::read_to_string(out.join(files::MACHINE))
        .map_err(|e| format!("cannot read {}: {e}", out.join(files::MACHINE).display()))?;
    let runs: Runs = read_json(&out.join(files::CRITERION))?;
    let optional = |name: &str| {
        std::fs::read(out.join(name))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let log = optional(files::LOG);
    Ok(Inputs {
        machine,
        runs,
        paired: parse_paired(&log),
        resolve_paired: parse_resolve_paired(&log),
        cold: parse_cold(&optional(files::COLD)),
    })
}

/// [`read_dir`] then [`render`].
///
/// # Errors
///
/// As [`read_dir`].
pub fn render_dir(out: &Path) -> Result<String, String> {
    Ok(render(&read_dir(out)?))
}

// --- statistics ---------------------------------------------------------------------------------

/// The median; the mean of the two middle values for an even count.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The nearest-rank quantile (`spawn_timer.c` uses the same rule).
pub fn quantile(xs: &[f64], p: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    v[(p * (v.len() - 1) as f64 + 0.5) as usize]
}

/// Median(a) / median(b) over the rounds both ran in, of sample field `k`, with a 95% bootstrap
/// interval (resampling rounds, so each resample keeps the pairing).
fn ratio_ci(cold: &Cold, a: &str, b: &str, k: usize) -> Option<(f64, f64, f64)> {
    let (sa, sb) = (cold.get(a)?, cold.get(b)?);
    let common: Vec<u32> = sa.keys().filter(|r| sb.contains_key(r)).copied().collect();
    if common.is_empty() {
        return None;
    }
    let ratio = |rounds: &[u32]| {
        let xa: Vec<f64> = rounds.iter().map(|r| sa[r][k]).collect();
        let xb: Vec<f64> = rounds.iter().map(|r| sb[r][k]).collect();
        median(&xa) / median(&xb)
    };
    let point = ratio(&common);
    let mut rng = fastrand::Rng::with_seed(BOOTSTRAP_SEED);
    let mut boots: Vec<f64> = (0..BOOTSTRAP_N)
        .map(|_| {
            let pick: Vec<u32> = (0..common.len())
                .map(|_| common[rng.usize(..common.len())])
                .collect();
            ratio(&pick)
        })
        .collect();
    boots.sort_by(f64::total_cmp);
    Some((
        point,
        boots[BOOTSTRAP_N * 25 / 1000],
        boots[BOOTSTRAP_N * 975 / 1000 - 1],
    ))
}

// --- formatting ---------------------------------------------------------------------------------

fn verdict(ok: bool, miss: &str) -> String {
    if ok {
        "yes".to_owned()
    } else {
        format!("no: {miss}")
    }
}

/// The variants of the call-overhead bench, with their labels in the table.
const CALL_VARIANTS: [(&str, &str); 4] = [
    ("method_driver", "generated method, driver backend"),
    ("method_runtime", "generated method, runtime backend"),
    ("accessor", "raw accessor `pfn_*()` + call"),
    ("cudarc", "cudarc `driver::sys`"),
];

/// The cold-start programs, in the order of the summary table.
const COLD_PROGRAMS: [&str; 9] = [
    "noop_c",
    "noop_rust",
    "c_driver",
    "rust_driver",
    "table_driver",
    "c_cudart",
    "rust_cudart",
    "table_runtime",
    "cudarc",
];

/// The resolve-all variants, in the order of the summary.
const RESOLVE_VARIANTS: [&str; 5] = [
    "table_driver",
    "table_runtime",
    "raw_cuGetProcAddress_v2",
    "raw_cudaGetDriverEntryPointByVersion",
    "dlsym_exports",
];

/// The tables of the resolve-all bench's paired measurement.
const RESOLVE_TABLES: [&str; 2] = ["table_driver", "table_runtime"];

/// The whole report: machine, the three sections, then the rows for `BENCHMARKS.md`.
pub fn render(inputs: &Inputs) -> String {
    let mut out = String::new();
    let mut rows = Vec::new();
    let _ = writeln!(out, "# GPU benchmarks of cuda-driver-table");
    let _ = writeln!(out, "{}", inputs.machine.trim_end());
    let _ = writeln!(out);
    call_overhead(&mut out, &mut rows, inputs);
    cold_start(&mut out, &mut rows, &inputs.cold);
    resolve_all(&mut out, &mut rows, inputs);
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "## Rows for BENCHMARKS.md (replace the 'pending GPU run' rows)"
    );
    for row in rows {
        let _ = writeln!(out, "{row}");
    }
    out
}

fn call_overhead(out: &mut String, rows: &mut Vec<String>, inputs: &Inputs) {
    let _ = writeln!(out, "## 1. Call overhead (ns per call; run 1 / run 2)");
    let _ = writeln!(
        out,
        "criterion: median per call; paired: median over 300 rounds of (variant - raw pointer), p10..p90"
    );
    let get = |run: &str, func: &str, v: &str| {
        inputs
            .runs
            .get(run)
            .and_then(|r| r.get(&format!("call_overhead/{func}/{v}")))
            .map(|e| e.median)
    };
    for (fi, func) in ["cuDriverGetVersion", "cuCtxGetCurrent"].iter().enumerate() {
        let raw: Vec<Option<f64>> = CALL_RUNS
            .iter()
            .map(|r| get(r, func, "raw_pointer"))
            .collect();
        let raw_text: Vec<String> = raw
            .iter()
            .map(|x| x.map_or("-".to_owned(), |x| format!("{x:.3}")))
            .collect();
        let _ = writeln!(out, "{func}: raw pointer {} ns", raw_text.join(" / "));
        for (vi, (v, label)) in CALL_VARIANTS.iter().enumerate() {
            let letters = if fi == 0 { b"abcd" } else { b"efgh" };
            let rid = format!("1{}", letters[vi] as char);
            let ours: Vec<Option<f64>> = CALL_RUNS.iter().map(|r| get(r, func, v)).collect();
            let pd: Option<Vec<Paired>> = CALL_RUNS
                .iter()
                .map(|r| {
                    inputs
                        .paired
                        .get(*r)
                        .and_then(|m| m.get(&(func.to_string(), v.to_string())))
                        .copied()
                })
                .collect();
            let (Some(o), Some(r)) = (
                ours.iter().copied().collect::<Option<Vec<f64>>>(),
                raw.iter().copied().collect::<Option<Vec<f64>>>(),
            ) else {
                let _ = writeln!(out, "  {v}: not measured");
                rows.push(format!(
                    "| {rid} | call `{func}`: {label} | not measured | | | | |"
                ));
                continue;
            };
            let d: Vec<f64> = o.iter().zip(&r).map(|(o, r)| o - r).collect();
            let q: Vec<f64> = o.iter().zip(&r).map(|(o, r)| o / r).collect();
            let mut line = format!(
                "  {v:15} criterion {:7.3} / {:7.3} ns, diff {:+.3} / {:+.3} ns, ratio {:.3} / {:.3}",
                o[0], o[1], d[0], d[1], q[0], q[1]
            );
            if let Some(pd) = &pd {
                let parts: Vec<String> = pd
                    .iter()
                    .map(|p| format!("{:+.3} ({:+.2}..{:+.2})", p.diff, p.p10, p.p90))
                    .collect();
                let _ = write!(line, "; paired diff {} ns", parts.join(" / "));
            }
            let _ = writeln!(out, "{line}");
            // The verdict uses the paired differences (drift cancels) where there are any.
            let est: Vec<f64> = pd
                .as_ref()
                .map_or_else(|| d.clone(), |pd| pd.iter().map(|p| p.diff).collect());
            let mean = est.iter().sum::<f64>() / est.len() as f64;
            let (goal, met) = if *v == "cudarc" {
                ("—".to_owned(), "—".to_owned())
            } else {
                let mut met = verdict(
                    mean <= CALL_GOAL_NS,
                    &format!("{:.2} ns over", mean - CALL_GOAL_NS),
                );
                let spread = (est[0] - est[1]).abs();
                if spread > CALL_GOAL_NS {
                    let _ = write!(met, " (the runs differ by {spread:.2} ns)");
                }
                (format!("≤ +{CALL_GOAL_NS} ns"), met)
            };
            let pcell = pd.as_ref().map_or_else(String::new, |pd| {
                let parts: Vec<String> = pd.iter().map(|p| format!("{:+.2}", p.diff)).collect();
                format!("{} ns paired; ", parts.join(" / "))
            });
            rows.push(format!(
                "| {rid} | call `{func}`: {label} | {:.2} / {:.2} ns | raw pointer: {:.2} / {:.2} ns \
                 | **{pcell}{:+.2} / {:+.2} ns criterion** ({:.2}× / {:.2}×) | {goal} | {met} |",
                o[0], o[1], r[0], r[1], d[0], d[1], q[0], q[1]
            ));
        }
    }
    let _ = writeln!(out);
}

fn cold_start(out: &mut String, rows: &mut Vec<String>, cold: &Cold) {
    let _ = writeln!(
        out,
        "## 2. Cold start (µs; first = spawn until the first cuDriverGetVersion returned)"
    );
    let _ = writeln!(
        out,
        "{:14} {:>5} {:>10} {:>9} {:>9} {:>10} {:>10}",
        "program", "runs", "first med", "p10", "p90", "in-process", "whole med"
    );
    let field = |name: &str, k: usize| -> Vec<f64> {
        cold.get(name)
            .map(|s| s.values().map(|v| v[k]).collect())
            .unwrap_or_default()
    };
    for n in COLD_PROGRAMS {
        if !cold.contains_key(n) {
            let _ = writeln!(out, "{n:14} not measured");
            continue;
        }
        let (f, p, w) = (field(n, 0), field(n, 1), field(n, 2));
        let _ = writeln!(
            out,
            "{n:14} {:5} {:10.1} {:9.1} {:9.1} {:10.1} {:10.1}",
            f.len(),
            median(&f),
            quantile(&f, 0.1),
            quantile(&f, 0.9),
            median(&p),
            median(&w)
        );
    }
    let _ = writeln!(
        out,
        "(first: spawn until the first call returned; in-process: main entered until then; whole: spawn until exit)"
    );
    let _ = writeln!(out, "ratios of medians (paired by round):");
    let mut row = |rid: &str, label: &str, a: &str, b: &str, bname: &str, goal: Option<f64>| {
        let (Some((r, lo, hi)), Some((rw, _, _))) =
            (ratio_ci(cold, a, b, 0), ratio_ci(cold, a, b, 2))
        else {
            rows.push(format!(
                "| {rid} | cold start: {label} | not measured | | | | |"
            ));
            return;
        };
        let ma = median(&field(a, 0));
        let mb = median(&field(b, 0));
        // An empty program makes no call: its in-process time means nothing.
        let inproc = if a == "noop_rust" {
            String::new()
        } else {
            ratio_ci(cold, a, b, 1).map_or_else(String::new, |(rp, _, _)| {
                format!(
                    "; in-process {:.0} vs {:.0} µs = {rp:.3}×",
                    median(&field(a, 1)),
                    median(&field(b, 1))
                )
            })
        };
        let _ = writeln!(
            out,
            "  {a} / {b}: {r:.3} (95% CI {lo:.3}..{hi:.3}); whole process {rw:.3}{inproc}"
        );
        let (goal_cell, met) = match goal {
            Some(g) => (
                format!("≤ {g:.2}×"),
                verdict(
                    r <= g,
                    &format!("{:.1}% over the goal", (r / g - 1.0) * 100.0),
                ),
            ),
            None => ("—".to_owned(), "—".to_owned()),
        };
        rows.push(format!(
            "| {rid} | cold start: {label} | {:.2} ms | {bname}: {:.2} ms | **{r:.3}×** \
             (95% CI {lo:.3}–{hi:.3}; whole process {rw:.3}×{inproc}) | {goal_cell} | {met} |",
            ma / 1e3,
            mb / 1e3
        ));
    };
    let g = Some(COLD_GOAL);
    row(
        "2a",
        "driver backend, 2-function table",
        "table_driver",
        "c_driver",
        "C floor (`cold.c`)",
        g,
    );
    row(
        "2b",
        "runtime backend, 2-function table",
        "table_runtime",
        "c_cudart",
        "C floor (`cold_cudart.c`)",
        g,
    );
    row(
        "2c",
        "driver backend against the same steps in Rust",
        "table_driver",
        "rust_driver",
        "Rust floor (`cold_raw.rs`)",
        Some(COLD_RUST_GOAL),
    );
    row(
        "2d",
        "runtime backend against the same steps in Rust",
        "table_runtime",
        "rust_cudart",
        "Rust floor (`cold_raw_cudart.rs`)",
        Some(COLD_RUST_GOAL),
    );
    row(
        "2e",
        "cudarc",
        "cudarc",
        "c_driver",
        "C floor (`cold.c`)",
        None,
    );
    row(
        "2f",
        "cudarc against the driver backend",
        "cudarc",
        "table_driver",
        "driver backend",
        None,
    );
    row(
        "2g",
        "empty Rust program (no CUDA)",
        "noop_rust",
        "noop_c",
        "empty C program",
        None,
    );
    let _ = writeln!(out);
}

fn resolve_all(out: &mut String, rows: &mut Vec<String>, inputs: &Inputs) {
    let _ = writeln!(
        out,
        "## 3. Resolving every function of the CUDA 13.0 manifest (criterion median per pass)"
    );
    let rv = |v: &str| -> Option<(f64, u64)> {
        let e = inputs
            .runs
            .get(RESOLVE_RUN)?
            .get(&format!("resolve_all/all/{v}"))?;
        Some((e.median, e.elements.filter(|&n| n > 0)?))
    };
    for v in RESOLVE_VARIANTS {
        let _ = match rv(v) {
            None => writeln!(out, "  {v:38} not measured"),
            Some((t, n)) => writeln!(
                out,
                "  {v:38} {:9.1} µs for {n} functions = {:6.1} ns each",
                t / 1e3,
                t / n as f64
            ),
        };
    }
    let _ = writeln!(
        out,
        "paired: a fresh table's pass against its backend's raw loop in each round (alternating \
         which runs first); median of the per-round ratios, p10..p90"
    );
    for table in RESOLVE_TABLES {
        let _ = match inputs.resolve_paired.get(table) {
            None => writeln!(out, "  {table}: not measured"),
            Some(p) => writeln!(
                out,
                "  {table} / {}: {:.3} ({:.3}..{:.3}) over {} rounds; medians {:.1} vs {:.1} µs",
                p.baseline,
                p.ratio,
                p.p10,
                p.p90,
                p.rounds,
                p.ns / 1e3,
                p.baseline_ns / 1e3
            ),
        };
    }
    let mut row = |rid: &str, label: &str, a: &str, b: &str, bname: &str, goal: bool| {
        let criterion = match (rv(a), rv(b)) {
            (Some((ta, na)), Some((tb, nb))) => Some((ta, na, tb, nb)),
            _ => None,
        };
        let paired = inputs
            .resolve_paired
            .get(a)
            .filter(|p| p.baseline == b && p.functions > 0);
        match (paired, criterion) {
            (Some(p), criterion) => {
                let n = p.functions as f64;
                let (goal_cell, mut met) = judge(goal, p.ratio);
                if goal && p.ratio <= RESOLVE_GOAL && p.p90 > RESOLVE_GOAL {
                    let _ = write!(met, " (its p90, {:.2}×, is over the goal)", p.p90);
                }
                let crit = criterion.map_or_else(String::new, |(ta, na, tb, nb)| {
                    format!("; criterion {:.2}×", (ta / na as f64) / (tb / nb as f64))
                });
                rows.push(format!(
                    "| {rid} | resolve all: {label} | {:.1} µs ({} fns, {:.0} ns each) | \
                     {bname}: {:.1} µs ({:.0} ns each) | **{:.2}×** per function (paired median \
                     over {} rounds, p10–p90 {:.2}–{:.2}×{crit}) | {goal_cell} | {met} |",
                    p.ns / 1e3,
                    p.functions,
                    p.ns / n,
                    p.baseline_ns / 1e3,
                    p.baseline_ns / n,
                    p.ratio,
                    p.rounds,
                    p.p10,
                    p.p90
                ));
            }
            (None, Some((ta, na, tb, nb))) => {
                let (ea, eb) = (ta / na as f64, tb / nb as f64);
                let (goal_cell, met) = judge(goal, ea / eb);
                rows.push(format!(
                    "| {rid} | resolve all: {label} | {:.1} µs ({na} fns, {ea:.0} ns each) | \
                     {bname}: {:.1} µs ({eb:.0} ns each) | **{:.2}×** per function (criterion) \
                     | {goal_cell} | {met} |",
                    ta / 1e3,
                    tb / 1e3,
                    ea / eb
                ));
            }
            (None, None) => rows.push(format!(
                "| {rid} | resolve all: {label} | not measured | | | | |"
            )),
        }
    };
    row(
        "3a",
        "driver backend, fresh `#[driver_table(all, driver = newest)]`",
        "table_driver",
        "raw_cuGetProcAddress_v2",
        "`cuGetProcAddress_v2` loop",
        true,
    );
    row(
        "3b",
        "runtime backend, fresh `#[driver_table(all, driver = newest)]`",
        "table_runtime",
        "raw_cudaGetDriverEntryPointByVersion",
        "`cudaGetDriverEntryPointByVersion` loop",
        true,
    );
    row(
        "3c",
        "`dlsym` of every exported name (how cudarc finds a function)",
        "dlsym_exports",
        "raw_cuGetProcAddress_v2",
        "`cuGetProcAddress_v2` loop",
        false,
    );
}

/// The goal and verdict cells of a resolve-all row with `ratio` (`goal`: whether the row has the
/// goal).
fn judge(goal: bool, ratio: f64) -> (String, String) {
    if !goal {
        return ("—".to_owned(), "—".to_owned());
    }
    (
        format!("≤ {RESOLVE_GOAL:.2}×"),
        verdict(
            ratio <= RESOLVE_GOAL,
            &format!("{:.1}% over the goal", (ratio / RESOLVE_GOAL - 1.0) * 100.0),
        ),
    )
}
