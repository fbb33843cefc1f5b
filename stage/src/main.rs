//! `gpu-stage`: builds binaries on this machine and lays them out in `.gpu/` at the workspace root,
//! for a run on a GPU machine that has the NVIDIA driver but no Rust toolchain.
//!
//! ```text
//! cargo gpu-stage [--fresh] tests      the GPU tests and the runtime crate's examples
//! cargo gpu-stage [--fresh] samples    the samples (release) and their CPU tests
//! cargo gpu-stage [--fresh] benches    the GPU benchmarks, their report runner and C programs
//! cargo gpu-stage [--fresh] cargo ARGS any cargo command that builds executables
//! ```
//!
//! (`cargo gpu-stage` is an alias, in `.cargo/config.toml`, of
//! `cargo run -q -p cuda-driver-table-stage --`.) Each call adds to what is staged; `--fresh`
//! starts from an empty `.gpu/`. One run on the GPU machine carries at most 64 MiB: `tests` and
//! `samples` are staged (and carried) one at a time, each with `--fresh`. The layout:
//!
//! - `.gpu/bin/`: every executable cargo reported (debug info stripped when `strip` is there); a
//!   test or bench binary replaces an earlier copy of the same target (their names carry a hash);
//!   `benches/c/NAME.c` is compiled to `NAME_c`;
//! - `.gpu/tests`: the staged test binaries, one a line (bench binaries are not tests);
//! - `.gpu/cudart/RELEASE/libcudart.so.*`: libcudart 11.8, 12.4, 12.9 and 13.0 from the public
//!   wheels whose versions `codegen/src/releases.rs` pins, through the generator's wheel cache;
//! - `.gpu/run.sh`: runs every staged test binary with its arguments (see [`RUN_SH`]).
//!
//! Cargo is run with `--message-format=json-render-diagnostics` and its messages are read with
//! `cargo_metadata`'s types, so which files are executables and which are tests comes from cargo.

use cargo_metadata::{Message, TargetKind};
use cuda_driver_table_codegen::{fetch, releases::Release};
use std::collections::BTreeSet;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

const USAGE: &str = "\
usage: cargo gpu-stage [--fresh] <what>

what:
  tests        cargo test --no-run -p cuda-driver-table-tests --features 'gpu tracing'
                 --test gpu and every other test of tests/ but ui, ui_fake and fake
               cargo test --no-run -p cuda-driver-table-core --lib
               cargo build --release -p cuda-driver-table --examples
  samples      cargo test --no-run -p cuda-driver-table-samples --test '*'
               cargo build --release -p cuda-driver-table-samples --bins
                 (the programs, for their tests and for samples/run-gpu.sh)
  benches      cargo build --release -p cuda-driver-table-benches --example 'cold_*' --bin bench-gpu
               cargo bench --no-run -p cuda-driver-table-benches
               cargo bench --no-run -p cuda-driver-table-benches --features tracing --bench trace_overhead
               cc benches/c/NAME.c -> .gpu/bin/NAME_c
  cargo ARGS   cargo ARGS, staging every executable it builds (e.g. `cargo test --no-run -p X`)

--fresh empties .gpu/ first. Every call also lays libcudart 11.8/12.4/12.9/13.0 in .gpu/cudart/
and writes .gpu/run.sh. On the GPU machine, with .gpu/ carried along: bash .gpu/run.sh [ARGS]";

/// The staging folder, at the workspace root (ignored by git).
const STAGE_DIR: &str = ".gpu";

/// The libcudart releases the GPU tests run against (the matrix of `tests/tests/gpu.rs`); 13.0 is
/// also what the runtime backend's benchmarks load.
const CUDART_RELEASES: [&str; 4] = ["11.8", "12.4", "12.9", "13.0"];

/// The integration tests of `tests/` staged with the GPU tests: every one but `ui` and `ui_fake`
/// (they run the compiler), `fake` and the fake device's (`fake_device`, `fake_soundness`,
/// `fake_order`, `fake_profiles`, `fake_graphs`: they need no driver and hold nothing without its
/// feature), `docs` (it checks the repository's documents against its files, which no driver
/// changes) and `windows` (Windows only; `scripts/windows.sh` runs it under Wine).
const CPU_TESTS_ON_THE_GPU_MACHINE: &[&str] = &[
    "all_functions",
    "crate_option",
    "custom_resolver",
    "driver_option",
    "edition2015",
    "environment_at_start",
    "environment_in_constructors",
    "expand_features",
    "hygiene",
    "kernel_args",
    "lint_attributes",
    "lint_clean",
    "macro_rules_inputs",
    "private_names",
    "readme",
    "smoke",
    "tracing",
    "tracing_out_values",
    "tracing_reentrant",
    "unsupported_ptx",
];

/// The most the device tool carries in one run, for the closing message.
const CARRY_LIMIT_MIB: u32 = 64;

/// What `.gpu/run.sh` holds. Kept thin: the list of binaries is `.gpu/tests`, the rest is the
/// environment the tests read.
const RUN_SH: &str = r#"#!/usr/bin/env bash
# Written by gpu-stage (stage/src/main.rs). Runs every staged test binary listed in .gpu/tests,
# from the repository root; the arguments go to each binary (e.g. --test-threads=1 --nocapture).
set -u
shopt -s nullglob
cd "$(dirname "$0")/.."
# The staged libcudart copies, one subfolder per release, for the runtime crate's library tests
# and the GPU tests' matrix.
export CUDA_DRIVER_TABLE_TEST_CUDART_DIR="$PWD/.gpu/cudart"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
rc=0
while read -r t; do
  [[ -n "$t" ]] || continue
  echo "=== $t"
  ".gpu/bin/$t" "$@" || rc=1
done < .gpu/tests
exit $rc
"#;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gpu-stage: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let fresh = args.first().is_some_and(|a| a == "--fresh");
    if fresh {
        args.remove(0);
    }
    let Some(what) = args.first().cloned() else {
        return Err(USAGE.to_string());
    };
    match what.as_str() {
        "-h" | "--help" => {
            println!("{USAGE}");
            return Ok(());
        }
        "tests" | "samples" | "benches" => {}
        "cargo" if args.len() > 1 => {}
        other => return Err(format!("unknown argument {other:?}\n\n{USAGE}")),
    }
    let root = cuda_driver_table_codegen::workspace_root();
    let mut stage = Stage::open(&root, fresh)?;
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    match what.as_str() {
        "tests" => {
            // The GPU tests, and the CPU suite's test binaries that run without a Rust toolchain
            // (all but the UI tests, which run the compiler, the macro crate's, which as a proc
            // macro links the toolchain's libstd dynamically, and the generator's, which need
            // libclang and the wheels): the CPU suite must pass on a machine with a driver too.
            let mut tests = s(&["test", "--no-run", "-p", "cuda-driver-table-tests"]);
            tests.extend(s(&["--features", "gpu tracing"]));
            for test in CPU_TESTS_ON_THE_GPU_MACHINE.iter().chain(&["gpu"]) {
                tests.extend(s(&["--test", test]));
            }
            stage.cargo(&tests)?;
            stage.cargo(&s(&[
                "test",
                "--no-run",
                "-p",
                "cuda-driver-table-core",
                "--lib",
            ]))?;
            stage.cargo(&s(&[
                "build",
                "--release",
                "-p",
                "cuda-driver-table",
                "--examples",
            ]))?;
        }
        "samples" => {
            // The samples' CPU tests (every sample without its library, the PTX against the
            // kernels, the README's table, the fake device; not the programs' unit tests), then
            // the programs in release, which replace the debug builds the tests came with: the
            // tests run them from beside themselves, and samples/run-gpu.sh runs them on the GPU.
            stage.cargo(&s(&[
                "test",
                "--no-run",
                "-p",
                "cuda-driver-table-samples",
                "--test",
                "*",
            ]))?;
            stage.cargo(&s(&[
                "build",
                "--release",
                "-p",
                "cuda-driver-table-samples",
                "--bins",
            ]))?;
        }
        "benches" => {
            stage.cargo(&s(&[
                "build",
                "--release",
                "-p",
                "cuda-driver-table-benches",
                "--example",
                "cold_*",
                "--bin",
                "bench-gpu",
            ]))?;
            // `cargo bench` also builds the package's binaries (for benches that run them): only
            // the bench binaries are wanted from this one.
            stage.cargo_only(
                &s(&["bench", "--no-run", "-p", "cuda-driver-table-benches"]),
                Some(TargetKind::Bench),
            )?;
            // The tracing feature's cost: a build of its own, since the feature changes every
            // table of the build.
            stage.cargo_only(
                &s(&[
                    "bench",
                    "--no-run",
                    "-p",
                    "cuda-driver-table-benches",
                    "--features",
                    "tracing",
                    "--bench",
                    "trace_overhead",
                ]),
                Some(TargetKind::Bench),
            )?;
            stage.c_programs()?;
        }
        _ => stage.cargo(&args[1..])?,
    }
    stage.cudart()?;
    stage.finish()
}

/// `.gpu/` and the list of test binaries staged in it.
struct Stage {
    root: PathBuf,
    dir: PathBuf,
    tests: BTreeSet<String>,
    warned_strip: bool,
}

impl Stage {
    fn open(root: &Path, fresh: bool) -> Result<Self, String> {
        let dir = root.join(STAGE_DIR);
        if fresh && dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| format!("cannot empty {}: {e}", dir.display()))?;
        }
        for sub in ["bin", "cudart"] {
            let d = dir.join(sub);
            std::fs::create_dir_all(&d)
                .map_err(|e| format!("cannot create {}: {e}", d.display()))?;
        }
        let tests = match std::fs::read_to_string(dir.join("tests")) {
            Ok(text) => text.split_whitespace().map(str::to_owned).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeSet::new(),
            Err(e) => return Err(format!("cannot read {}/tests: {e}", dir.display())),
        };
        Ok(Self {
            root: root.to_path_buf(),
            dir,
            tests,
            warned_strip: false,
        })
    }

    fn bin(&self) -> PathBuf {
        self.dir.join("bin")
    }

    /// Runs `cargo ARGS --message-format=json-render-diagnostics` at the workspace root (the
    /// diagnostics still reach the terminal) and stages every executable it reports.
    fn cargo(&mut self, args: &[String]) -> Result<(), String> {
        self.cargo_only(args, None)
    }

    /// [`Self::cargo`], staging only the executables of targets of kind `only` when given.
    fn cargo_only(&mut self, args: &[String], only: Option<TargetKind>) -> Result<(), String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        eprintln!("gpu-stage: cargo {}", args.join(" "));
        let mut child = Command::new(&cargo)
            .args(args)
            .arg("--message-format=json-render-diagnostics")
            .current_dir(&self.root)
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", Path::new(&cargo).display()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or("cargo's standard output was not captured")?;
        let mut staged = 0;
        for message in Message::parse_stream(BufReader::new(stdout)) {
            let message = message.map_err(|e| format!("cannot read cargo's messages: {e}"))?;
            let Message::CompilerArtifact(artifact) = message else {
                continue;
            };
            let Some(exe) = artifact.executable else {
                continue;
            };
            if only
                .as_ref()
                .is_some_and(|k| !artifact.target.kind.contains(k))
            {
                continue;
            }
            let is_test =
                artifact.profile.test && !artifact.target.kind.contains(&TargetKind::Bench);
            self.stage_executable(exe.as_std_path(), is_test)?;
            staged += 1;
        }
        let status = child
            .wait()
            .map_err(|e| format!("cannot wait for cargo: {e}"))?;
        if !status.success() {
            return Err(format!("`cargo {}` failed ({status})", args.join(" ")));
        }
        if staged == 0 {
            eprintln!("gpu-stage: `cargo {}` built no executable", args.join(" "));
        }
        Ok(())
    }

    /// Copies one executable into `.gpu/bin/`, replacing earlier copies of the same target.
    fn stage_executable(&mut self, exe: &Path, is_test: bool) -> Result<(), String> {
        let name = exe
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("{} has no usable file name", exe.display()))?
            .to_owned();
        if let Some(target) = without_hash(&name) {
            self.remove_other_builds(target, &name)?;
        }
        let dst = self.bin().join(&name);
        // A copy, not a link: links travel as links and what they point to stays behind.
        std::fs::copy(exe, &dst)
            .map_err(|e| format!("cannot copy {} to {}: {e}", exe.display(), dst.display()))?;
        self.strip(&dst);
        if is_test {
            self.tests.insert(name);
        }
        println!("staged {}", self.relative(&dst));
        Ok(())
    }

    /// Removes `.gpu/bin/TARGET-<hash>` files other than `keep` (earlier builds of one target).
    fn remove_other_builds(&mut self, target: &str, keep: &str) -> Result<(), String> {
        let bin = self.bin();
        let entries =
            std::fs::read_dir(&bin).map_err(|e| format!("cannot list {}: {e}", bin.display()))?;
        for entry in entries.flatten() {
            let Some(other) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if other != keep && without_hash(&other) == Some(target) {
                std::fs::remove_file(entry.path())
                    .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
                self.tests.remove(&other);
            }
        }
        Ok(())
    }

    /// `strip --strip-debug`: the debug info of test binaries is most of their size. Without
    /// `strip`, the binary stays as it is (larger, still correct).
    fn strip(&mut self, path: &Path) {
        let ok = Command::new("strip")
            .arg("--strip-debug")
            .arg(path)
            .status()
            .is_ok_and(|s| s.success());
        if !ok && !self.warned_strip {
            eprintln!("gpu-stage: `strip --strip-debug` failed or is missing; binaries keep their debug info");
            self.warned_strip = true;
        }
    }

    /// Compiles each `benches/c/NAME.c` to `.gpu/bin/NAME_c` (they need only libc and libdl, so
    /// nothing is compiled on the GPU machine).
    fn c_programs(&mut self) -> Result<(), String> {
        let dir = self.root.join("benches/c");
        let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "c"))
            .collect();
        sources.sort();
        let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
        for src in sources {
            let stem = src
                .file_stem()
                .and_then(|s| s.to_str())
                .ok_or_else(|| format!("{} has no usable name", src.display()))?;
            let dst = self.bin().join(format!("{stem}_c"));
            let status = Command::new(&cc)
                .args(["-O2", "-Wall", "-Wextra", "-o"])
                .arg(&dst)
                .arg(&src)
                .arg("-ldl")
                .status()
                .map_err(|e| {
                    format!(
                        "cannot run the C compiler {}: {e} (install gcc, or set CC)",
                        Path::new(&cc).display()
                    )
                })?;
            if !status.success() {
                return Err(format!("compiling {} failed ({status})", src.display()));
            }
            println!("staged {}", self.relative(&dst));
        }
        Ok(())
    }

    /// Lays `.gpu/cudart/RELEASE/libcudart.so.*` from the wheels the generator pins, downloading
    /// the wheels into its cache when needed; a release already staged is left as it is.
    fn cudart(&self) -> Result<(), String> {
        for name in CUDART_RELEASES {
            let dst = self.dir.join("cudart").join(name);
            if !libcudart_files(&dst).is_empty() {
                continue;
            }
            let release = Release::find(name)
                .ok_or_else(|| format!("codegen/src/releases.rs has no CUDA {name}"))?;
            let unpacked = fetch::fetch(release)
                .map_err(|e| format!("libcudart {name} (for .gpu/cudart): {e}"))?;
            let files = libcudart_files(&unpacked.lib);
            if files.is_empty() {
                return Err(format!(
                    "the {} wheel has no libcudart.so.* in {}",
                    release.requirement(),
                    unpacked.lib.display()
                ));
            }
            std::fs::create_dir_all(&dst)
                .map_err(|e| format!("cannot create {}: {e}", dst.display()))?;
            for file in files {
                let to = dst.join(file.file_name().unwrap_or_default());
                std::fs::copy(&file, &to).map_err(|e| {
                    format!("cannot copy {} to {}: {e}", file.display(), to.display())
                })?;
                println!("staged {}", self.relative(&to));
            }
        }
        Ok(())
    }

    /// Writes `.gpu/tests` (the test binaries still staged) and `.gpu/run.sh` and says how much
    /// would be carried.
    fn finish(&mut self) -> Result<(), String> {
        let bin = self.bin();
        self.tests.retain(|t| bin.join(t).is_file());
        let list: String = self.tests.iter().map(|t| format!("{t}\n")).collect();
        let tests = self.dir.join("tests");
        std::fs::write(&tests, list)
            .map_err(|e| format!("cannot write {}: {e}", tests.display()))?;
        let run = self.dir.join("run.sh");
        std::fs::write(&run, RUN_SH).map_err(|e| format!("cannot write {}: {e}", run.display()))?;
        make_executable(&run)?;
        let mib = dir_size(&self.dir) as f64 / (1024.0 * 1024.0);
        eprintln!(
            "gpu-stage: {STAGE_DIR}/ holds {mib:.1} MiB (at most {CARRY_LIMIT_MIB} MiB can be carried); \
             {} test binaries in {STAGE_DIR}/tests",
            self.tests.len()
        );
        if mib > f64::from(CARRY_LIMIT_MIB) {
            eprintln!(
                "gpu-stage: warning: that is more than one run carries; stage one part at a time, \
                 each with --fresh (`cargo gpu-stage --fresh tests`, then `--fresh samples`)"
            );
        }
        eprintln!(
            "gpu-stage: on the GPU machine, from the repository root with {STAGE_DIR}/ carried: \
             bash {STAGE_DIR}/run.sh [ARGS]"
        );
        Ok(())
    }

    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// `gpu` for `gpu-0123456789abcdef` (cargo's test and bench binaries), `None` for other names.
fn without_hash(name: &str) -> Option<&str> {
    let (target, hash) = name.rsplit_once('-')?;
    (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then_some(target)
}

/// The `libcudart.so.*` files (not links, not `libcudart_static`) of a folder, sorted.
fn libcudart_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.starts_with("libcudart.so."))
        })
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make {} executable: {e}", path.display()))
}

/// Bytes of every file under `dir` (links not followed).
fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new file in `tests/tests/` is staged for the GPU machine unless it is a UI test or the
    /// fake driver's: the list above must name every other one.
    #[test]
    fn every_integration_test_but_ui_is_staged() {
        let dir = cuda_driver_table_codegen::workspace_root().join("tests/tests");
        let mut found: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_suffix(".rs").map(str::to_owned)
            })
            .filter(|n| {
                ![
                    "ui",
                    "ui_fake",
                    "fake",
                    "fake_device",
                    "fake_soundness",
                    "fake_order",
                    "fake_profiles",
                    "fake_graphs",
                    "docs",
                    "gpu",
                    "windows",
                ]
                .contains(&n.as_str())
            })
            .collect();
        found.sort();
        assert_eq!(found, CPU_TESTS_ON_THE_GPU_MACHINE);
    }

    #[test]
    fn a_hash_suffix_names_the_target() {
        assert_eq!(without_hash("gpu-0123456789abcdef"), Some("gpu"));
        assert_eq!(
            without_hash("call_overhead-fedcba9876543210"),
            Some("call_overhead")
        );
        assert_eq!(without_hash("cold_driver"), None);
        assert_eq!(without_hash("bench-gpu"), None);
        assert_eq!(without_hash("x-0123456789abcdeg"), None);
    }

    #[test]
    fn run_sh_is_thin_and_points_inside_the_repository() {
        assert!(RUN_SH.starts_with("#!/usr/bin/env bash\n"));
        assert!(RUN_SH.contains("CUDA_DRIVER_TABLE_TEST_CUDART_DIR=\"$PWD/.gpu/cudart\""));
        assert!(!RUN_SH.contains("../"));
        assert!(RUN_SH.lines().count() < 30);
    }
}
