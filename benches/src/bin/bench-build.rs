//! The CPU benchmarks (rows 4–5 of `BENCHMARKS.md`), on the build machine:
//!
//! ```text
//! cargo run -p cuda-driver-table-benches --bin bench-build -- [--worktree | --at REV] [--baseline REV] [--codegen-only] [--runs N] [--out FILE]
//! ```
//!
//! 4T. The compile time added to a typical application: `examples/build_cost_typical.rs` (clap
//!    derive, serde derive + serde_json, anyhow, thiserror, tracing + tracing-subscriber, with the
//!    dependencies of [`TYPICAL_DEPS`]) built clean, debug, `CARGO_INCREMENTAL=0`, with
//!    `cargo build -j1 --timings` (no two compiler runs share a core) (a) alone, (b) with the
//!    4-function table program as its `cuda` module, (c) with the cudarc program instead; the units
//!    of the `--timings` report that (a) does not build are what (b) and (c) add (the program's own
//!    crate included: it holds the expansion). The row is added(b) / added(c), median of `--runs`
//!    rounds; the peak memory of the largest compiler run each adds comes from one more build
//!    through `RUSTC_WRAPPER` (below). `--typical-only` measures this row alone.
//! 4. Build cost: a clean debug `cargo build` of small programs with a 4-function, a 40-function
//!    and an `all` table (one body, `examples/build_cost_table.rs`, whose attribute's list is
//!    replaced for the 40-function and `all` tables; default features) against the 4-function program on cudarc
//!    (`examples/build_cost_cudarc.rs`, with cudarc as this crate's manifest pins it; cudarc
//!    compiles every function whichever a program calls, so one baseline serves the three). Each in
//!    its own temporary project; `cargo fetch` first so downloads are not timed; every build gets a
//!    fresh `CARGO_TARGET_DIR` and `CARGO_INCREMENTAL=0` (a dependency from crates.io is never
//!    built incrementally; a path dependency would be, which costs time and size); `--runs` rounds
//!    (default 5), each building the four programs in turn, so all see the same machine load; the
//!    median wall time and the median CPU time (user + sys of the build's processes) are reported,
//!    and each table's ratios to cudarc. Size: the sum of `target/debug/deps/*.rlib` of one build
//!    of the 4-function program and of cudarc's, and the part of it linked into the program
//!    (without the rlibs only proc macros use); proc-macro `.so` files are listed apart. Last, one
//!    more build of each program runs every compiler invocation through this program as
//!    `RUSTC_WRAPPER`, which times each one and reads its peak memory, to say which crates the time
//!    goes to and how much memory the largest compiler run takes. With `--baseline REV`, each round
//!    also builds the table programs against the tree of commit REV, each next to its counterpart
//!    (in turn first and second), so that a change is measured against the same machine load.
//! 6. Expansion (`--expansion`, `--expansion-only`): see [`Expansion`]; with `--baseline REV` each
//!    round times each table program against REV's tree too, one after the other.
//! 5. Codegen: `cuda-driver-table-codegen generate --root <tmp>` over every release from the cached
//!    wheels, `--runs` times, median; the generator is built first and the wheels fetched, both
//!    untimed. The output is compared with the committed generated files.
//!
//! The source measured is the committed tree (`git archive HEAD`), as others may be editing the
//! working tree; `--at REV` measures the tree of another commit (an earlier one, to compare with
//! the same programs and method), `--worktree` the working tree. Prints a summary ending with the
//! rows of `BENCHMARKS.md` and writes it to `--out` (default `bench-build/summary.txt` in the
//! workspace's target folder, as `cargo metadata` gives it). `--codegen-only` measures row 5 alone.

use cuda_driver_table_benches::gpu_report::median;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

const USAGE: &str = "\
usage: bench-build [--worktree | --at REV] [--baseline REV] [--codegen-only | --typical-only] [--runs N] [--out FILE]
  --worktree      measure the working tree instead of the committed tree (git archive HEAD)
  --at REV        measure the tree of commit REV instead of HEAD's
  --baseline REV  also build (and with row 6 expand) the table programs against commit REV's
                  tree, in the same rounds
  --codegen-only  only row 5, the generator (no builds of the programs)
  --typical-only  only row 4T, the typical application
  --expansion     also row 6, the macro's expansion time (needs a nightly toolchain: -Z time-passes)
  --expansion-only  only row 6
  --runs N        builds of each program and runs of the generator (5)
  --out FILE      where the summary goes too (bench-build/summary.txt in the target folder)";

/// In wrapper mode (the timing build), the file each compiler run appends a line to.
const UNIT_LOG_VAR: &str = "CDT_BENCH_BUILD_UNIT_LOG";

/// This crate's manifest: the cudarc dependency of the baseline is taken from it, so the pin and
/// features have one home.
const BENCHES_MANIFEST: &str = include_str!("../../Cargo.toml");
/// The table program: the 4-function table as it is, the others with its attribute's list
/// replaced ([`table_program`]).
const TABLE_MAIN: &str = include_str!("../../examples/build_cost_table.rs");
const CUDARC_MAIN: &str = include_str!("../../examples/build_cost_cudarc.rs");
const TYPICAL_MAIN: &str = include_str!("../../examples/build_cost_typical.rs");

/// The table programs of row 4: project name, what the summary calls it, the attribute's list
/// (`None`: the program's own).
const TABLES: [(&str, &str, Option<&str>); 3] = [
    ("table-app", "4-function table", None),
    ("table40-app", "40-function table", Some(FORTY)),
    ("tableall-app", "`all` table", Some("all, driver = newest")),
];

/// The 40 common driver functions of the 40-function table.
const FORTY: &str = "cuInit, cuDriverGetVersion, cuDeviceGet, cuDeviceGetCount, cuDeviceGetName, \
cuDeviceGetAttribute, cuDeviceTotalMem, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxCreate, \
cuCtxDestroy, cuCtxGetCurrent, cuCtxSetCurrent, cuCtxSynchronize, cuCtxPushCurrent, cuCtxPopCurrent, \
cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuModuleGetGlobal, cuMemAlloc, cuMemFree, \
cuMemAllocHost, cuMemFreeHost, cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD, cuMemcpyHtoDAsync, \
cuMemcpyDtoHAsync, cuMemsetD8, cuMemsetD32, cuMemGetInfo, cuStreamCreate, cuStreamDestroy, \
cuStreamSynchronize, cuEventCreate, cuEventRecord, cuEventSynchronize, cuEventElapsedTime, cuLaunchKernel, \
driver = newest";

/// The dependencies of the typical application (`examples/build_cost_typical.rs`), with their
/// default features, as such an application declares them.
const TYPICAL_DEPS: &str = r#"
clap = { version = "4.5", features = ["derive"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
anyhow = "1"
thiserror = "2"
tracing = "0.1.40"
tracing-subscriber = "0.3"
"#;

/// What the typical-application row asks: the table adds at most this share of what cudarc adds.
const TYPICAL_GOAL: f64 = 0.45;

/// The typical application's `cuda` module in (a), which (b) and (c) replace.
const NO_CUDA: &str = "mod cuda {\n    pub fn main() {}\n}";

/// The table program with the attribute's list replaced by `list`, or as it is for `None`.
fn table_program(list: Option<&str>) -> Result<String, String> {
    let Some(list) = list else {
        return Ok(TABLE_MAIN.to_owned());
    };
    let start = TABLE_MAIN
        .find("#[driver_table(")
        .map(|i| i + "#[driver_table(".len());
    let end = start.and_then(|start| TABLE_MAIN[start..].find(")]").map(|n| start + n));
    match (start, end) {
        (Some(start), Some(end)) => Ok(format!(
            "{}{list}{}",
            &TABLE_MAIN[..start],
            &TABLE_MAIN[end..]
        )),
        _ => Err("examples/build_cost_table.rs has no `#[driver_table(...)]`".to_owned()),
    }
}

/// The typical application with `program` (the table's or cudarc's) as its `cuda` module, or as
/// it is for `None`.
fn typical_program(program: Option<&str>) -> Result<String, String> {
    if !TYPICAL_MAIN.contains(NO_CUDA) {
        return Err(format!(
            "examples/build_cost_typical.rs has no `{NO_CUDA}` for the CUDA part"
        ));
    }
    Ok(match program {
        Some(program) => TYPICAL_MAIN.replace(NO_CUDA, &format!("mod cuda {{\n{program}\n}}")),
        None => TYPICAL_MAIN.to_owned(),
    })
}

/// Folders the generator writes to, checked for committed files it no longer generates.
const GENERATED_DIRS: [&str; 3] = [
    "sys/src/generated",
    "core/src/generated",
    "macros/src/generated",
];

fn main() -> ExitCode {
    if let Some(log) = std::env::var_os(UNIT_LOG_VAR) {
        return wrap_rustc(Path::new(&log));
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-build: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Args {
    worktree: bool,
    at: Option<String>,
    baseline: Option<String>,
    runs: usize,
    out: Option<PathBuf>,
    codegen_only: bool,
    typical_only: bool,
    expansion: bool,
    expansion_only: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        worktree: false,
        at: None,
        baseline: None,
        runs: 5,
        out: None,
        codegen_only: false,
        typical_only: false,
        expansion: false,
        expansion_only: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--worktree" => args.worktree = true,
            "--at" => args.at = Some(it.next().ok_or("--at needs a commit")?),
            "--baseline" => args.baseline = Some(it.next().ok_or("--baseline needs a commit")?),
            "--codegen-only" => args.codegen_only = true,
            "--typical-only" => args.typical_only = true,
            "--expansion" => args.expansion = true,
            "--expansion-only" => args.expansion_only = true,
            "--runs" => {
                let v = it.next().ok_or("--runs needs a number")?;
                args.runs = v
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("--runs takes a number above 0, not {v:?}"))?;
            }
            "--out" => args.out = Some(it.next().ok_or("--out needs a file")?.into()),
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument {other:?}\n\n{USAGE}")),
        }
    }
    if args.worktree && args.at.is_some() {
        return Err(format!(
            "--worktree and --at are two sources: give one\n\n{USAGE}"
        ));
    }
    Ok(args)
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("the benches crate has no parent folder")?
        .to_path_buf();
    let work = TempDir::create()?;
    let persist = target_directory(&root)?.join("bench-build");
    mkdir(&persist)?;
    let outfile = args
        .out
        .clone()
        .unwrap_or_else(|| persist.join("summary.txt"));
    let head = short_commit(&root, args.at.as_deref().unwrap_or("HEAD"))?;
    let (src, desc) = if args.worktree {
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
    let baseline = match &args.baseline {
        Some(rev) => {
            let commit = short_commit(&root, rev)?;
            let tree = extract(&root, &commit, &work.0.join("baseline"))?;
            Some((commit, tree))
        }
        None => None,
    };
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let only = args.codegen_only || args.typical_only || args.expansion_only;
    let expansion = if args.expansion || args.expansion_only {
        Some(Expansion::measure(
            &src,
            baseline.as_ref().map(|(c, p)| (c.as_str(), p.as_path())),
            &work.0,
            args.runs,
        )?)
    } else {
        None
    };
    let build = if only {
        None
    } else {
        eprintln!(
            "bench-build: measuring {desc} on {cores} cores; {} rounds of the builds{}",
            args.runs,
            baseline
                .as_ref()
                .map(|(c, _)| format!(", with the tables of commit {c} beside them"))
                .unwrap_or_default()
        );
        Some(BuildCost::measure(
            &src,
            baseline.as_ref().map(|(c, p)| (c.as_str(), p.as_path())),
            &work.0,
            args.runs,
        )?)
    };
    let typical = if args.codegen_only || args.expansion_only {
        None
    } else {
        eprintln!(
            "bench-build: the typical application, {} rounds of three builds with -j1",
            args.runs
        );
        Some(Typical::measure(&src, &work.0, args.runs)?)
    };
    // A generator that fails (no libclang, no network for the wheels) costs row 5 only: the
    // build rows above are still written, and the error is said in the summary and returned.
    let codegen = if args.typical_only || args.expansion_only {
        Err("not asked for".to_owned())
    } else {
        Codegen::measure(&src, &work.0, &persist, args.runs)
    };

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
        typical.report(args.runs, &mut line);
        line(String::new());
    }
    if let Some(expansion) = &expansion {
        expansion.report(args.runs, &mut line);
        line(String::new());
    }
    if let Some(build) = &build {
        build.report(args.runs, &mut line);
        line(String::new());
    }
    match &codegen {
        Ok(codegen) => codegen.report(args.runs, &mut line),
        Err(e) => line(format!("## 5. Codegen: not measured: {e}")),
    }
    line(String::new());
    line("## Rows for BENCHMARKS.md".to_owned());
    if let Some(typical) = &typical {
        typical.row(&mut line);
    }
    if let Some(expansion) = &expansion {
        expansion.row(&mut line);
    }
    if let Some(build) = &build {
        build.rows(&mut line);
    }
    if let Ok(codegen) = &codegen {
        codegen.row(&mut line);
    }
    print!("{s}");
    if let Some(parent) = outfile.parent() {
        mkdir(parent)?;
    }
    std::fs::write(&outfile, s).map_err(|e| format!("cannot write {}: {e}", outfile.display()))?;
    if args.typical_only || args.expansion_only {
        return Ok(());
    }
    codegen
        .map(drop)
        .map_err(|e| format!("row 5 (codegen) was not measured: {e}"))
}

/// `abc1234` for a revision.
fn short_commit(root: &Path, rev: &str) -> Result<String, String> {
    capture(
        Command::new("git")
            .args(["rev-parse", "--short", &format!("{rev}^{{commit}}")])
            .current_dir(root),
    )
}

/// The tree of `commit` in the new folder `dir` (`git archive`). Files get the time of extraction,
/// not the commit's, so that cargo rebuilds what a reused target folder holds from another tree.
fn extract(root: &Path, commit: &str, dir: &Path) -> Result<PathBuf, String> {
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
fn target_directory(root: &Path) -> Result<PathBuf, String> {
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

/// Row 4: the clean builds of the programs, their sizes, the slowest compiler runs and the
/// largest one's memory.
struct BuildCost {
    /// The tables of [`TABLES`] in order, then cudarc's, then with `--baseline` the tables again
    /// against the baseline tree.
    programs: Vec<Program>,
    /// The 4-function program's and cudarc's.
    sizes: [Sizes; 2],
    cudarc_version: String,
    /// The baseline's commit, with `--baseline`.
    baseline: Option<String>,
}

/// One program of row 4 and what its builds measured.
struct Program {
    app: App,
    /// (wall, CPU) seconds of each build.
    times: Vec<(f64, f64)>,
    /// From the build through `RUSTC_WRAPPER`.
    units: Option<Units>,
}

impl BuildCost {
    fn measure(
        src: &Path,
        baseline: Option<(&str, &Path)>,
        work: &Path,
        runs: usize,
    ) -> Result<Self, String> {
        let cudarc = cudarc_dependency()?;
        let cudarc_version = cudarc
            .get("version")
            .and_then(|v| v.as_str())
            .unwrap_or("?")
            .to_owned();
        let mut apps = Vec::new();
        for (name, _, list) in TABLES {
            apps.push(App::create(
                work,
                name.to_owned(),
                one("cuda-driver-table", table_dep(src)),
                &table_program(list)?,
            )?);
        }
        apps.push(App::create(
            work,
            "cudarc-app".to_owned(),
            one("cudarc", cudarc.into()),
            CUDARC_MAIN,
        )?);
        if let Some((commit, tree)) = baseline {
            for (name, _, list) in TABLES {
                apps.push(App::create(
                    work,
                    format!("{name}@{commit}"),
                    one("cuda-driver-table", table_dep(tree)),
                    &table_program(list)?,
                )?);
            }
        }
        let mut programs: Vec<Program> = apps
            .into_iter()
            .map(|app| Program {
                app,
                times: Vec::new(),
                units: None,
            })
            .collect();
        let cudarc_at = TABLES.len();
        for i in 1..=runs {
            // Each table next to its baseline (first and second in turn), then cudarc.
            let mut order = Vec::new();
            for k in 0..TABLES.len() {
                let pair = [k, cudarc_at + 1 + k];
                if programs.len() > cudarc_at + 1 {
                    order.extend(if i % 2 == 1 { pair } else { [pair[1], pair[0]] });
                } else {
                    order.push(k);
                }
            }
            order.push(cudarc_at);
            for k in order {
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
                // The last round's 4-function and cudarc builds are kept for their sizes.
                if i < runs || (k != 0 && k != cudarc_at) {
                    let _ = std::fs::remove_dir_all(&target);
                }
            }
        }
        let sizes = [
            Sizes::measure(&programs[0].app, &programs[0].app.target(runs))?,
            Sizes::measure(
                &programs[cudarc_at].app,
                &programs[cudarc_at].app.target(runs),
            )?,
        ];
        for p in &mut programs {
            p.units = Some(Units::measure(&p.app, work)?);
        }
        Ok(Self {
            programs,
            sizes,
            cudarc_version,
            baseline: baseline.map(|(c, _)| c.to_owned()),
        })
    }

    /// The median (wall, CPU) of program `k`.
    fn medians(&self, k: usize) -> (f64, f64) {
        let t = &self.programs[k].times;
        (med(t, 0), med(t, 1))
    }

    /// The index of cudarc's program.
    fn cudarc(&self) -> usize {
        TABLES.len()
    }

    fn report(&self, runs: usize, line: &mut dyn FnMut(String)) {
        let (st, sc) = (&self.sizes[0], &self.sizes[1]);
        line(format!(
            "## 4. Build cost (clean debug build, CARGO_INCREMENTAL=0, {runs} rounds of the {} programs in turn, median)",
            self.programs.len()
        ));
        let c = self.cudarc();
        let (wc, cc) = self.medians(c);
        for (k, p) in self.programs.iter().enumerate() {
            let times = &p.times;
            let (w, cpu) = self.medians(k);
            let what = TABLES.get(k % (c + 1)).map_or_else(
                || format!("cudarc {}", self.cudarc_version),
                |t| t.1.to_owned(),
            );
            let ratios = if k == c {
                String::new()
            } else {
                format!(" ({:.3}× cudarc)", w / wc)
            };
            let cpu_ratio = if k == c {
                String::new()
            } else {
                format!(" ({:.3}×)", cpu / cc)
            };
            line(format!(
                "{:<40} wall {}-> {} s{ratios}; CPU {}-> {} s{cpu_ratio}",
                format!("{} ({what}):", p.app.name),
                list(times, 0),
                g(w),
                list(times, 1),
                g(cpu),
            ));
        }
        if let Some(commit) = &self.baseline {
            for (k, (name, _, _)) in TABLES.iter().enumerate() {
                let (w, cpu) = self.medians(k);
                let (wb, cpub) = self.medians(c + 1 + k);
                line(format!(
                    "{name} against commit {commit}: wall {:+.1}%, CPU {:+.1}% (ratio to cudarc {:.3}× -> {:.3}× wall, {:.3}× -> {:.3}× CPU)",
                    100.0 * (w / wb - 1.0),
                    100.0 * (cpu / cpub - 1.0),
                    wb / wc,
                    w / wc,
                    cpub / cc,
                    cpu / cc
                ));
            }
        }
        line(format!(
            "all dependency rlibs:  table-app {}, cudarc-app {}",
            mib(st.rlibs),
            mib(sc.rlibs)
        ));
        line(format!(
            "rlibs linked into the program: table-app {}, cudarc-app {}",
            mib(st.linked),
            mib(sc.linked)
        ));
        line(format!(
            "proc-macro .so (host only, not linked): table-app {}, cudarc-app {}",
            mib(st.proc_macros),
            mib(sc.proc_macros)
        ));
        line(format!(
            "debug executables: table-app {}, cudarc-app {}",
            mib(st.executable),
            mib(sc.executable)
        ));
        line(format!("table-app artifacts:  {}", st.listing));
        line(format!("cudarc-app artifacts: {}", sc.listing));
        for p in &self.programs {
            let Some(units) = &p.units else { continue };
            line(format!(
                "{}, slowest compiler runs (one more build, through RUSTC_WRAPPER): {}",
                p.app.name, units.slowest
            ));
            line(format!(
                "{}, largest compiler run: {:.1} MiB peak memory ({})",
                p.app.name,
                units.peak_kib as f64 / 1024.0,
                units.peak_unit
            ));
        }
    }

    /// Peak memory of program `k`'s largest compiler run, in MiB.
    fn peak_mib(&self, k: usize) -> f64 {
        self.programs[k]
            .units
            .as_ref()
            .map_or(0.0, |u| u.peak_kib as f64 / 1024.0)
    }

    fn rows(&self, line: &mut dyn FnMut(String)) {
        let c = self.cudarc();
        let (wc, cc) = self.medians(c);
        let (st, sc) = (&self.sizes[0], &self.sizes[1]);
        // (wall row, CPU row, program, goal): a program that is nothing but the table has no goal
        // (it pays for syn, quote and proc-macro2, which a typical application builds anyway:
        // row 4T).
        let time_rows: [(&str, &str, usize, Option<f64>); 3] = [
            ("4a", "4b", 0, None),
            ("4e", "4f", 1, None),
            ("4g", "4h", 2, None),
        ];
        for (wall_row, cpu_row, k, goal) in time_rows {
            let (wt, ct) = self.medians(k);
            let (r_time, r_cpu) = (wt / wc, ct / cc);
            let (goal_text, cpu_goal_text) = match goal {
                Some(goal) => (format!("≤ {goal}×"), format!("(≤ {goal}×)")),
                None => ("—".to_owned(), "—".to_owned()),
            };
            let verdict_of = |r: f64| goal.map_or_else(|| "—".to_owned(), |goal| verdict(r, goal));
            line(format!(
                "| {wall_row} | build time: clean debug build, {} (wall) | {} s | cudarc: {} s | **{r_time:.3}×** | {goal_text} | {} |",
                TABLES[k].1, g(wt), g(wc), verdict_of(r_time)
            ));
            line(format!(
                "| {cpu_row} | build time: the same builds, CPU time (user + sys) | {} s | cudarc: {} s | **{r_cpu:.3}×** | {cpu_goal_text} | {} |",
                g(ct), g(cc), verdict_of(r_cpu)
            ));
            if k == 0 {
                let r_rlib = st.rlibs as f64 / sc.rlibs as f64;
                let r_link = st.linked as f64 / sc.linked as f64;
                line(format!(
                    "| 4c | size of all dependency rlibs | {} | cudarc: {} | **{r_rlib:.3}×** | — | — |",
                    mib(st.rlibs), mib(sc.rlibs)
                ));
                line(format!(
                    "| 4d | size of the rlibs linked into the program | {} | cudarc: {} | **{r_link:.3}×** | — | — |",
                    mib(st.linked), mib(sc.linked)
                ));
            }
        }
        let peaks: Vec<String> = (0..c).map(|k| format!("{:.1}", self.peak_mib(k))).collect();
        line(format!(
            "| 4i | peak memory of the largest compiler run: 4-function / 40-function / `all` table | {} MiB | cudarc: {:.1} MiB | — | — | — |",
            peaks.join(" / "),
            self.peak_mib(c)
        ));
    }
}

/// Row 4T: the compile time a table and cudarc add to a typical application. Each round builds
/// (a) the typical application alone, (b) with the 4-function table, (c) with cudarc, clean, with
/// `cargo build -j1 --timings` so that no two compiler runs share a core; what (b) and (c) build
/// beyond (a) (the program's own crate included: it holds the expansion) is what they add.
struct Typical {
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
    fn measure(src: &Path, work: &Path, runs: usize) -> Result<Self, String> {
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

    fn medians(&self) -> (f64, f64) {
        let b: Vec<f64> = self.added.iter().map(|a| a.0).collect();
        let c: Vec<f64> = self.added.iter().map(|a| a.1).collect();
        (median(&b), median(&c))
    }

    fn report(&self, runs: usize, line: &mut dyn FnMut(String)) {
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
        line(format!(
            "added by the table / added by cudarc: {:.3}× (goal ≤ {TYPICAL_GOAL}×)",
            b / c
        ));
    }

    fn row(&self, line: &mut dyn FnMut(String)) {
        let (b, c) = self.medians();
        let ratio = b / c;
        line(format!(
            "| 4T | compile time added to a typical application (clap, serde, serde_json, anyhow, thiserror, tracing; `-j1 --timings`, the units it adds): 4-function table | {} s | cudarc: {} s | **{ratio:.3}×** | ≤ {TYPICAL_GOAL}× | {} |",
            g(b),
            g(c),
            verdict(ratio, TYPICAL_GOAL)
        ));
        line(format!(
            "| 4Tm | peak memory of the largest compiler run added to the typical application | {:.1} MiB | cudarc: {:.1} MiB | — | ≤ cudarc | {} |",
            self.peaks[0].0 as f64 / 1024.0,
            self.peaks[1].0 as f64 / 1024.0,
            if self.peaks[0].0 <= self.peaks[1].0 { "yes" } else { "no" }
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

/// Row 6: the macro's expansion time, which a build and an editor pay on every change of a file
/// with a table (the attribute runs unoptimised in a debug build). For an empty program and the
/// three table programs of row 4, in one project each: one build with the nightly toolchain,
/// then per round `touch src/main.rs` and `cargo +nightly rustc -- -Z time-passes`, whose
/// `macro_expand_crate` line is the time the compiler spent expanding macros in the program's
/// crate (the attribute, and the `macro_rules!` its expansion calls). With `--baseline REV`, each
/// table program also has a project against REV's tree, and each round times the two one after
/// the other (in turn first): a machine's rounds drift by more than a change moves them, so only
/// rounds side by side compare.
struct Expansion {
    /// Per program (empty, then [`TABLES`]), the seconds of each round, and with a baseline the
    /// baseline's seconds of the same rounds.
    times: Vec<(String, Vec<f64>, Option<Vec<f64>>)>,
    /// The baseline's commit, with `--baseline`.
    baseline: Option<String>,
}

/// What the expansion goal asks, in seconds, for the tables of [`TABLES`].
const EXPANSION_GOALS: [f64; 3] = [0.010, 0.015, 0.060];

/// A project of `main` against the runtime of `tree`, built once with the nightly toolchain.
fn expansion_app(work: &Path, name: String, tree: &Path, main: &str) -> Result<App, String> {
    let app = App::create(work, name, one("cuda-driver-table", table_dep(tree)), main)?;
    check(
        nightly_cargo(&app.dir)
            .args(["build", "-q", "--offline"])
            .env("CARGO_TARGET_DIR", app.target(0)),
    )
    .map_err(|e| {
        format!("row 6 needs a nightly toolchain (`rustup toolchain install nightly`): {e}")
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
    text.lines()
        .find(|l| l.ends_with("macro_expand_crate"))
        .and_then(|l| l.strip_prefix("time:"))
        .and_then(|l| l.split(';').next())
        .and_then(|t| t.trim().parse::<f64>().ok())
        .ok_or_else(|| format!("no macro_expand_crate in -Z time-passes of {what}:\n{text}"))
}

impl Expansion {
    fn measure(
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

    fn report(&self, runs: usize, line: &mut dyn FnMut(String)) {
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

    fn row(&self, line: &mut dyn FnMut(String)) {
        let ms = |secs: &[f64]| median(secs) * 1e3;
        let empty = self.times.first().map_or(0.0, |(_, s, _)| ms(s));
        let tables: Vec<f64> = self.times.iter().skip(1).map(|(_, s, _)| ms(s)).collect();
        let shown: Vec<String> = tables.iter().map(|t| g(*t)).collect();
        let goals: Vec<String> = EXPANSION_GOALS.iter().map(|s| g(s * 1e3)).collect();
        let met = tables
            .iter()
            .zip(EXPANSION_GOALS)
            .all(|(t, goal)| *t <= goal * 1e3);
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
            goals.join(" / "),
            if met { "yes" } else { "no" }
        ));
    }
}

/// What the build of one program through `RUSTC_WRAPPER` says about its compiler runs.
struct Units {
    /// The eight longest, `crate version N.N s; ...`.
    slowest: String,
    /// The largest peak memory (resident set) of one run, in KiB, and which crate it compiled.
    peak_kib: u64,
    peak_unit: String,
}

impl Units {
    /// One more clean build of `app`, with this program as `RUSTC_WRAPPER`.
    fn measure(app: &App, work: &Path) -> Result<Self, String> {
        let text = Self::log(app, work)?;
        let (peak_kib, peak_unit) = peak_memory(&text);
        Ok(Self {
            slowest: format_units(&text),
            peak_kib,
            peak_unit,
        })
    }

    /// The lines the wrapper writes for one more clean build of `app` (see [`wrap_rustc`]).
    fn log(app: &App, work: &Path) -> Result<String, String> {
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
}

/// Row 5: the generator's `generate` into an empty folder, and how its output compares with the
/// committed files.
struct Codegen {
    times: Vec<(f64, f64)>,
    /// The number of releases, as the generator says it.
    releases: String,
    compare: String,
}

impl Codegen {
    fn measure(src: &Path, work: &Path, persist: &Path, runs: usize) -> Result<Self, String> {
        eprintln!("bench-build: building the generator (release) and fetching the wheels, untimed");
        let cg_target = persist.join("codegen-target");
        check(
            cargo(src)
                .args([
                    "build",
                    "-q",
                    "--release",
                    "-p",
                    "cuda-driver-table-codegen",
                ])
                .env("CARGO_TARGET_DIR", &cg_target),
        )?;
        let cg = cg_target.join("release/cuda-driver-table-codegen");
        check(Command::new(&cg).arg("fetch").stdout(Stdio::null()))?;
        let mut times = Vec::new();
        let mut said = String::new();
        for i in 1..=runs {
            let out = work.join(format!("codegen-{i}"));
            mkdir(&out)?;
            let log = work.join(format!("codegen-{i}.log"));
            let load = load_average(1);
            let stderr = std::fs::File::create(&log)
                .map_err(|e| format!("cannot create {}: {e}", log.display()))?;
            let t = timed_logged(
                Command::new(&cg)
                    .arg("generate")
                    .arg("--root")
                    .arg(&out)
                    .stderr(stderr),
                &log,
            )?;
            said = std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .last()
                .unwrap_or("")
                .to_owned();
            eprintln!(
                "bench-build: codegen run {i}: {:.2} s wall, {:.2} s CPU (load average before: {load}; it says: {said})",
                t.0, t.1
            );
            times.push(round2(t));
        }
        let compare = compare_generated(&work.join("codegen-1"), src)?;
        // "generated 53 files for 17 release(s) in 12.3 s": the number of releases.
        let releases = said
            .split_once(" for ")
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .unwrap_or("all")
            .to_owned();
        Ok(Self {
            times,
            releases,
            compare,
        })
    }

    fn report(&self, runs: usize, line: &mut dyn FnMut(String)) {
        line(format!(
            "## 5. Codegen (generate, {} releases, {runs} runs, median)",
            self.releases
        ));
        line(format!(
            "wall: {}-> median {} s; CPU: {}-> median {} s",
            list(&self.times, 0),
            g(med(&self.times, 0)),
            list(&self.times, 1),
            g(med(&self.times, 1))
        ));
        line(self.compare.clone());
    }

    fn row(&self, line: &mut dyn FnMut(String)) {
        line(format!(
            "| 5 | codegen: `generate` of all {} releases from cached wheels | {} s wall ({} s CPU) | — | — | — | — |",
            self.releases,
            g(med(&self.times, 0)),
            g(med(&self.times, 1))
        ));
    }
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

/// One throw-away project.
struct App {
    name: String,
    dir: PathBuf,
}

impl App {
    /// Writes `Cargo.toml` (one dependency, its own workspace) and `src/main.rs`, then resolves
    /// and downloads the dependencies, so that no build downloads anything.
    fn create(work: &Path, name: String, deps: toml::Table, main: &str) -> Result<Self, String> {
        let dir = work.join(&name);
        mkdir(&dir.join("src"))?;
        let mut package = toml::Table::new();
        // `table-app@abc1234` (a baseline's program) as a package name cargo takes.
        package.insert("name".into(), name.replace('@', "-at-").into());
        package.insert("version".into(), "0.1.0".into());
        package.insert("edition".into(), "2021".into());
        package.insert("publish".into(), false.into());
        let mut manifest = toml::Table::new();
        manifest.insert("package".into(), package.into());
        manifest.insert("dependencies".into(), deps.into());
        manifest.insert("workspace".into(), toml::Table::new().into());
        let text = toml::to_string(&manifest).map_err(|e| format!("{name}/Cargo.toml: {e}"))?;
        write(&dir.join("Cargo.toml"), &text)?;
        write(&dir.join("src/main.rs"), main)?;
        check(cargo(&dir).args(["generate-lockfile", "-q"]))?;
        check(cargo(&dir).args(["fetch", "-q"]))?;
        Ok(Self { name, dir })
    }

    fn target(&self, run: usize) -> PathBuf {
        self.dir
            .parent()
            .unwrap_or(&self.dir)
            .join(format!("target-{}-{run}", self.name))
    }
}

/// The sizes of one build, in bytes, and the listing of its artifacts.
struct Sizes {
    rlibs: u64,
    linked: u64,
    proc_macros: u64,
    executable: u64,
    listing: String,
}

impl Sizes {
    fn measure(app: &App, target: &Path) -> Result<Self, String> {
        let deps = target.join("debug/deps");
        let mut files: Vec<(u64, String)> = std::fs::read_dir(&deps)
            .map_err(|e| format!("cannot list {}: {e}", deps.display()))?
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_owned();
                Some((e.metadata().ok()?.len(), name))
            })
            .collect();
        files.sort_by(|a, b| b.cmp(a));
        let sum = |ext: &str| -> u64 {
            files
                .iter()
                .filter(|(_, n)| n.ends_with(ext))
                .map(|(s, _)| s)
                .sum()
        };
        // The libraries reachable without going through a proc macro are the ones linked.
        let tree = capture(cargo(&app.dir).args([
            "tree",
            "-q",
            "--offline",
            "-e",
            "no-proc-macro",
            "--prefix",
            "none",
            "--format",
            "{lib}",
        ]))?;
        let libs: std::collections::BTreeSet<&str> = tree
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let linked = files
            .iter()
            .filter(|(_, n)| {
                n.strip_prefix("lib")
                    .and_then(|n| n.strip_suffix(".rlib"))
                    .and_then(|n| n.rsplit_once('-'))
                    .is_some_and(|(lib, _)| libs.contains(lib))
            })
            .map(|(s, _)| s)
            .sum();
        let listing = files
            .iter()
            .filter(|(_, n)| n.ends_with(".rlib") || n.ends_with(".so"))
            .map(|(s, n)| format!("{} {:.2} MiB; ", artifact_name(n), *s as f64 / MIB))
            .collect();
        let exe = target.join("debug").join(&app.name);
        let executable = std::fs::metadata(&exe)
            .map_err(|e| format!("cannot read {}: {e}", exe.display()))?
            .len();
        Ok(Self {
            rlibs: sum(".rlib"),
            linked,
            proc_macros: sum(".so"),
            executable,
            listing,
        })
    }
}

const MIB: f64 = 1024.0 * 1024.0;

fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / MIB)
}

/// `libquote-0123abcd.rlib` → `quote.rlib`.
fn artifact_name(file: &str) -> String {
    let name = file.strip_prefix("lib").unwrap_or(file);
    match (name.rsplit_once('.'), name.split_once('-')) {
        (Some((_, ext)), Some((stem, _))) => format!("{stem}.{ext}"),
        _ => name.to_owned(),
    }
}

/// A number as the summary shows medians: at most 3 decimals, no trailing zeros.
fn g(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn verdict(ratio: f64, goal: f64) -> String {
    if ratio <= goal {
        "yes".to_owned()
    } else {
        format!("no: {:.1}× the goal", ratio / goal)
    }
}

fn round2((w, c): (f64, f64)) -> (f64, f64) {
    ((w * 100.0).round() / 100.0, (c * 100.0).round() / 100.0)
}

/// The dependency on the runtime crate of the tree at `tree`, by path with default features.
fn table_dep(tree: &Path) -> toml::Value {
    let mut dep = toml::Table::new();
    dep.insert(
        "path".into(),
        tree.join("runtime").display().to_string().into(),
    );
    dep.into()
}

/// A table of one dependency.
fn one(name: &str, dep: toml::Value) -> toml::Table {
    let mut deps = toml::Table::new();
    deps.insert(name.into(), dep);
    deps
}

/// cudarc as this crate's manifest declares it (`=0.19.10`, its features).
fn cudarc_dependency() -> Result<toml::Table, String> {
    let manifest: toml::Table = BENCHES_MANIFEST
        .parse()
        .map_err(|e| format!("benches/Cargo.toml: {e}"))?;
    manifest
        .get("dependencies")
        .and_then(|d| d.get("cudarc"))
        .and_then(|c| c.as_table())
        .cloned()
        .ok_or_else(|| "benches/Cargo.toml has no `cudarc = { ... }` dependency".to_owned())
}

/// `name<TAB>seconds<TAB>peak KiB` lines → the eight longest, `name 1.2 s; ...`.
fn format_units(log: &str) -> String {
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

/// The largest peak memory of the log's lines, in KiB, and its crate: `(0, "none recorded")` when
/// no line has one.
fn peak_memory(log: &str) -> (u64, String) {
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
/// then appends `package version[ (build script)]<TAB>seconds<TAB>peak KiB` to the log for a crate
/// compile (not for cargo's `-vV` and `--print` probes). The peak is the compiler's resident set
/// at its largest (`ru_maxrss` of this process's only child).
fn wrap_rustc(log: &Path) -> ExitCode {
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
                "{package} {version}{what}\t{secs:.3}\t{}\n",
                children_peak_kib()
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

/// "N files written; M of them differ from the committed files[; committed but not generated
/// by this generator: ...]".
fn compare_generated(generated: &Path, src: &Path) -> Result<String, String> {
    let mut files = Vec::new();
    list_files(generated, Path::new(""), &mut files)?;
    let differ = files
        .iter()
        .filter(|rel| std::fs::read(generated.join(rel)).ok() != std::fs::read(src.join(rel)).ok())
        .count();
    let mut extra = Vec::new();
    for dir in GENERATED_DIRS {
        let mut committed = Vec::new();
        if src.join(dir).is_dir() {
            list_files(&src.join(dir), Path::new(dir), &mut committed)?;
        }
        extra.extend(
            committed
                .into_iter()
                .filter(|rel| !generated.join(rel).exists()),
        );
    }
    let mut text = format!(
        "{} files written; {differ} of them differ from the committed files",
        files.len()
    );
    if !extra.is_empty() {
        let names: Vec<String> = extra.iter().map(|p| p.display().to_string()).collect();
        text.push_str(&format!(
            "; committed but not generated by this generator: {}",
            names.join(" ")
        ));
    }
    Ok(text)
}

fn list_files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let r = rel.join(e.file_name());
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            list_files(&e.path(), &r, out)?;
        } else {
            out.push(r);
        }
    }
    Ok(())
}

/// `cargo` in `dir`, without the settings of the calling environment that would change what is
/// measured (a wrapper such as sccache, a shared target folder, incremental builds, and the make
/// jobserver of a calling cargo).
fn cargo(dir: &Path) -> Command {
    cargo_of(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())),
        dir,
    )
}

/// `cargo +nightly` through rustup's proxy, set up as [`cargo`].
fn nightly_cargo(dir: &Path) -> Command {
    let mut c = Command::new("cargo");
    c.arg("+nightly");
    cargo_of(c, dir)
}

fn cargo_of(mut c: Command, dir: &Path) -> Command {
    c.current_dir(dir)
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
fn timed(command: &mut Command) -> Result<(f64, f64), String> {
    let before = children_cpu();
    let start = Instant::now();
    check(command)?;
    let wall = start.elapsed().as_secs_f64();
    Ok((wall, children_cpu() - before))
}

/// [`timed`] for a command whose stderr goes to `log`: when it fails, the error carries what it
/// said there.
fn timed_logged(command: &mut Command, log: &Path) -> Result<(f64, f64), String> {
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
fn children_peak_kib() -> u64 {
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
fn children_cpu() -> f64 {
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

fn check(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed ({status})"))
    }
}

fn capture(command: &mut Command) -> Result<String, String> {
    let out = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    if !out.status.success() {
        return Err(format!("{command:?} failed ({})", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn mkdir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn load_average(fields: usize) -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(fields)
        .collect::<Vec<_>>()
        .join(" ")
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or_else(String::new, |(_, m)| m.trim().to_owned())
}

fn mem_total() -> String {
    let kib: f64 = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    format!("{:.0} GiB", kib / 1_048_576.0)
}

/// A temporary folder, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn create() -> Result<Self, String> {
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

    #[test]
    fn artifact_names_lose_prefix_and_hash() {
        assert_eq!(artifact_name("libquote-0123abcd.rlib"), "quote.rlib");
        assert_eq!(
            artifact_name("libcuda_driver_table_macros-ff00.so"),
            "cuda_driver_table_macros.so"
        );
    }

    #[test]
    fn medians_print_without_trailing_zeros() {
        assert_eq!(g(4.43), "4.43");
        assert_eq!(g(4.465), "4.465");
        assert_eq!(g(5.0), "5");
    }

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
    }

    #[test]
    fn the_cudarc_baseline_comes_from_this_crates_manifest() {
        let dep = cudarc_dependency().unwrap();
        assert!(dep.get("version").and_then(|v| v.as_str()).is_some());
        assert_eq!(
            dep.get("default-features").and_then(|v| v.as_bool()),
            Some(false)
        );
    }
}
