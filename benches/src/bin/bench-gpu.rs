//! The GPU benchmarks (rows 1–3 of `BENCHMARKS.md`), run ON THE GPU MACHINE, which has no Rust
//! toolchain: `cargo gpu-stage benches` builds this program with everything it runs into
//! `.gpu/bin/`, and `bash scripts/bench-gpu.sh` runs it there from the repository root.
//!
//! 1. Call overhead: the criterion bench `call_overhead`, run twice (the spread between the two
//!    runs shows the noise); all variants of a function are in one group.
//! 2. Cold start: fresh processes of 9 programs (the table through each backend, cudarc, the same
//!    steps in C and in Rust without a table, empty C and Rust programs), timed by `spawn_timer_c`
//!    (spawn until the first `cuDriverGetVersion` returned; and until the process exited), in two
//!    round-robin passes after 10 warm-ups each: the three that load libcudart (about 184 ms a
//!    process) `BENCH_N` (200) times, the six others (about 2 ms) `BENCH_N_DRIVER` (2000) times.
//! 3. Resolving everything: the criterion bench `resolve_all`, then its paired measurement (a
//!    fresh table's `resolve_all` against the raw loop of its backend, round by round), which the
//!    rows use.
//!
//! Writes to `$OUT` (`./target/bench-gpu-out` when unset) five files (see
//! [`gpu_report::files`]): `bench-gpu.txt` (the summary, ending with the rows of `BENCHMARKS.md`'s
//! table), `bench-gpu.log` (everything the programs printed), `cold-raw.tsv` (every cold-start
//! sample, ns), `criterion.json` (every criterion estimate, ns) and `machine.txt`. Takes about 3
//! minutes; `BENCH_N`, `BENCH_N_DRIVER` and `BENCH_MEASURE` (criterion seconds per benchmark, 2)
//! shorten it;
//! `BENCH_CUDART` names another libcudart than the staged 13.0 (the pipeline check with stand-in
//! libraries uses it).
//!
//! `bench-gpu report DIR` writes the summary again from the files of an earlier run in `DIR`.

use cuda_driver_table_benches::{gpu_report, ENV_CUDART, ENV_LIBCUDA};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: bench-gpu              run the GPU benchmarks (on the GPU machine, from the repository root)
       bench-gpu report DIR   write the summary again from the files of a run in DIR

environment: OUT (output folder, ./target/bench-gpu-out), BENCH_N (cold-start runs of each program
that loads libcudart, 200), BENCH_N_DRIVER (of each other program, 2000), BENCH_MEASURE (criterion
seconds per benchmark, 2), BENCH_CUDART (libcudart, default .gpu/cudart/13.0/libcudart.so.13
beside the staged binaries)";

/// Warm-up rounds of the cold-start measurement.
const COLD_WARMUP: u32 = 10;
/// The cold-start programs: the name in the report, the staged binary, and whether it loads
/// libcudart (those take about 184 ms each, the others about 2 ms).
const COLD_PROGRAMS: [(&str, &str, bool); 9] = [
    ("noop_c", "noop_c", false),
    ("noop_rust", "cold_noop", false),
    ("c_driver", "cold_c", false),
    ("c_cudart", "cold_cudart_c", true),
    ("rust_driver", "cold_raw", false),
    ("rust_cudart", "cold_raw_cudart", true),
    ("table_driver", "cold_driver", false),
    ("table_runtime", "cold_runtime", true),
    ("cudarc", "cold_cudarc", false),
];
/// The process timer (`benches/c/spawn_timer.c`).
const SPAWN_TIMER: &str = "spawn_timer_c";
/// Time limits that keep the whole run under 8 minutes: each criterion run takes 30–40 s.
const COLD_LIMIT: Duration = Duration::from_secs(150);
const CRITERION_LIMIT: Duration = Duration::from_secs(90);

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("bench-gpu: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => measure(),
        ["report", dir] => {
            print!("{}", gpu_report::render_dir(Path::new(dir))?);
            Ok(ExitCode::SUCCESS)
        }
        ["-h" | "--help"] => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(format!("unexpected arguments {args:?}\n\n{USAGE}")),
    }
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{name}={v:?} is not a number")),
        Err(_) => Ok(default),
    }
}

fn measure() -> Result<ExitCode, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("no current folder: {e}"))?;
    let out =
        std::env::var_os("OUT").map_or_else(|| cwd.join("target/bench-gpu-out"), PathBuf::from);
    let n: u32 = env_number("BENCH_N", 200)?;
    let n_driver: u32 = env_number("BENCH_N_DRIVER", 2000)?;
    let measure: u32 = env_number("BENCH_MEASURE", 2)?;
    // The staged binaries sit beside this one.
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let bin = exe
        .parent()
        .ok_or("this program has no folder")?
        .to_path_buf();
    // The staged libcudart 13.0: `.gpu/cudart/13.0/` beside `.gpu/bin/`.
    let staged = bin
        .parent()
        .unwrap_or(&bin)
        .join("cudart/13.0/libcudart.so.13");
    let cudart = std::env::var_os("BENCH_CUDART").map_or(staged, PathBuf::from);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let log = Log::create(&out.join(gpu_report::files::LOG))?;

    let call = newest(&bin, "call_overhead");
    let resolve = newest(&bin, "resolve_all");
    let mut missing: Vec<String> = std::iter::once(SPAWN_TIMER)
        .chain(COLD_PROGRAMS.iter().map(|(_, b, _)| *b))
        .filter(|b| !bin.join(b).is_file())
        .map(str::to_owned)
        .collect();
    if call.is_none() {
        missing.push("call_overhead-*".into());
    }
    if resolve.is_none() {
        missing.push("resolve_all-*".into());
    }
    if !cudart.is_file() {
        missing.push(cudart.display().to_string());
    }
    let (Some(call), Some(resolve), true) = (call, resolve, missing.is_empty()) else {
        log.error(&format!(
            "bench-gpu: not staged in {}: {}; run `cargo gpu-stage benches` on the build machine and carry .gpu",
            bin.display(),
            missing.join(" ")
        ));
        return Ok(ExitCode::from(2));
    };

    let machine = machine(&cudart, &[&call, &resolve], &cwd);
    std::fs::write(out.join(gpu_report::files::MACHINE), &machine)
        .map_err(|e| format!("cannot write machine.txt: {e}"))?;
    for line in machine.lines() {
        log.raw(line);
    }

    let work = WorkDir::create()?;
    let env = |mut c: Command| {
        c.env(ENV_CUDART, &cudart).env_remove(ENV_LIBCUDA);
        c
    };
    let start = Instant::now();
    // Two passes, each round-robin over its programs: the libcudart programs `BENCH_N` times, the
    // others (about 2 ms a process) `BENCH_N_DRIVER` times, which narrows the intervals of the
    // driver-backend rows where the differences are a few per cent. Every ratio pairs programs of
    // one pass. Both passes' samples go to one file.
    let raw = out.join(gpu_report::files::COLD);
    let mut samples = String::new();
    for (cudart_pass, runs) in [(true, n), (false, n_driver)] {
        let programs: Vec<_> = COLD_PROGRAMS
            .iter()
            .filter(|p| p.2 == cudart_pass)
            .collect();
        let names: Vec<&str> = programs.iter().map(|p| p.0).collect();
        log.line(&format!(
            "cold start: {runs} runs of each of {}, {COLD_WARMUP} warm-ups, round-robin",
            names.join(" ")
        ));
        let pass_raw = work.0.join("cold-pass.tsv");
        let mut timer = env(Command::new(bin.join(SPAWN_TIMER)));
        timer
            .env("SPAWN_TIMER_RAW", &pass_raw)
            .arg(runs.to_string())
            .arg(COLD_WARMUP.to_string());
        for (name, program, _) in &programs {
            timer.arg(format!("{name}={}", bin.join(program).display()));
        }
        let ran = log.run(timer, COLD_LIMIT, "spawn_timer");
        // What the pass measured is kept even when it ran out of time.
        let text = std::fs::read_to_string(&pass_raw).unwrap_or_default();
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
        if samples.is_empty() && !header.is_empty() {
            samples.push_str(header);
            samples.push('\n');
        }
        for line in lines {
            samples.push_str(line);
            samples.push('\n');
        }
        std::fs::write(&raw, &samples)
            .map_err(|e| format!("cannot write {}: {e}", raw.display()))?;
        ran?;
    }
    log.line(&format!(
        "cold start done in {} s",
        start.elapsed().as_secs()
    ));

    let mut criterion_homes = Vec::new();
    let runs = gpu_report::CALL_RUNS
        .iter()
        .map(|r| (*r, &call, measure))
        .chain([(gpu_report::RESOLVE_RUN, &resolve, measure + 1)]);
    for (name, binary, seconds) in runs {
        log.line(&format!("criterion {name}"));
        let home = work.0.join(name);
        let mut c = env(Command::new(binary));
        c.env("CRITERION_HOME", &home).args([
            "--bench",
            "--noplot",
            "--warm-up-time",
            "1",
            "--measurement-time",
            &seconds.to_string(),
        ]);
        log.run(c, CRITERION_LIMIT, name)?;
        criterion_homes.push((name, home));
    }
    log.line(&format!("all done in {} s", start.elapsed().as_secs()));

    let mut runs = gpu_report::Runs::new();
    for (name, home) in criterion_homes {
        runs.insert(name.to_owned(), gpu_report::read_criterion_home(&home)?);
    }
    let json = serde_json::to_string_pretty(&runs).map_err(|e| format!("criterion.json: {e}"))?;
    std::fs::write(out.join(gpu_report::files::CRITERION), json)
        .map_err(|e| format!("cannot write criterion.json: {e}"))?;

    let report = gpu_report::render_dir(&out)?;
    print!("{report}");
    let path = out.join(gpu_report::files::REPORT);
    std::fs::write(&path, report).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    log.line(&format!("summary written to {}", path.display()));
    Ok(ExitCode::SUCCESS)
}

/// The newest `.gpu/bin/NAME-<hash>` (a criterion bench binary).
fn newest(bin: &Path, name: &str) -> Option<PathBuf> {
    let prefix = format!("{name}-");
    std::fs::read_dir(bin)
        .ok()?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(&prefix))
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, p)| p)
}

/// The machine, the date and what runs, as `key: value` lines.
fn machine(cudart: &Path, binaries: &[&Path], cwd: &Path) -> String {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let gpu = match Command::new("nvidia-smi")
        .args([
            "--query-gpu=name,driver_version,clocks.sm,clocks.mem",
            "--format=csv,noheader",
        ])
        .output()
    {
        Ok(o) => {
            let text = [o.stdout, o.stderr].concat();
            String::from_utf8_lossy(&text)
                .lines()
                .next()
                .unwrap_or("")
                .to_owned()
        }
        Err(e) => format!("nvidia-smi: {e}"),
    };
    let cpuinfo = read("/proc/cpuinfo");
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("", |(_, m)| m.trim());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = read("/proc/sys/kernel/osrelease");
    let loadavg = read("/proc/loadavg");
    let load: Vec<&str> = loadavg.split_whitespace().take(3).collect();
    // `ldconfig -p` lists the loader's cache; the driver library is what matters here.
    let mut libcuda: Vec<String> = Command::new("ldconfig")
        .arg("-p")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .filter(|w| w.starts_with("libcuda.so"))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    libcuda.sort();
    libcuda.dedup();
    let shown = |p: &Path| p.strip_prefix(cwd).unwrap_or(p).display().to_string();
    let binaries: Vec<String> = binaries.iter().map(|p| shown(p)).collect();
    format!(
        "date: {}\ngpu: {gpu}\ncpu: {model}, {cores} cores; kernel {}\nload average: {}\n\
         libcuda on the loader path: {}\nlibcudart: {}\nbinaries: {}\n",
        humantime::format_rfc3339_seconds(std::time::SystemTime::now()),
        kernel.trim(),
        load.join(" "),
        libcuda.join(" "),
        shown(cudart),
        binaries.join(" ")
    )
}

/// `bench-gpu.log`, and the terminal: every line goes to both.
struct Log {
    file: File,
}

impl Log {
    fn create(path: &Path) -> Result<Self, String> {
        let file =
            File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(Self { file })
    }

    /// A line of this program's own: `== TEXT`.
    fn line(&self, text: &str) {
        self.raw(&format!("== {text}"));
    }

    /// A line that says why nothing was measured: to standard error and the log.
    fn error(&self, text: &str) {
        eprintln!("{text}");
        let _ = writeln!(&self.file, "{text}");
    }

    fn raw(&self, text: &str) {
        println!("{text}");
        // The log is a record; a write that fails should not stop the measurement.
        let _ = writeln!(&self.file, "{text}");
    }

    /// Runs `command` with its standard output and error, merged, going to the log and the
    /// terminal; kills it after `limit`. A failure is logged, not returned: the report shows
    /// what was measured.
    fn run(&self, mut command: Command, limit: Duration, what: &str) -> Result<(), String> {
        let (reader, writer) = std::io::pipe().map_err(|e| format!("cannot make a pipe: {e}"))?;
        let writer2 = writer
            .try_clone()
            .map_err(|e| format!("cannot make a pipe: {e}"))?;
        command.stdout(writer).stderr(writer2);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run {what}: {e}"))?;
        // Our copies of the pipe's writing end must close, or the reader never sees its end.
        drop(command);
        let file = self
            .file
            .try_clone()
            .map_err(|e| format!("cannot share the log: {e}"))?;
        let copier = std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            let mut buf = Vec::new();
            let stdout = std::io::stdout();
            while reader.read_until(b'\n', &mut buf).is_ok_and(|n| n > 0) {
                let _ = stdout.lock().write_all(&buf);
                let _ = (&file).write_all(&buf);
                buf.clear();
            }
        });
        let deadline = Instant::now() + limit;
        let status: Option<ExitStatus> = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(format!("cannot wait for {what}: {e}")),
            }
        };
        let _ = copier.join();
        match status {
            Some(s) if s.success() => {}
            Some(s) => self.line(&format!("{what} ended with {s}")),
            None => self.line(&format!(
                "{what} stopped after {} s (the time limit)",
                limit.as_secs()
            )),
        }
        Ok(())
    }
}

/// A temporary folder for the criterion output (only its estimates are kept, in
/// `criterion.json`), removed at the end.
struct WorkDir(PathBuf);

impl WorkDir {
    fn create() -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!("bench-gpu-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Self(dir))
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
