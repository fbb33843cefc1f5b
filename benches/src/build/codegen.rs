//! Row 5, `bench-build codegen`: the generator's `generate` of every release into an empty
//! folder from the cached wheels, `--runs` times, median; the generator is built first (release)
//! and the wheels fetched, both untimed. The output is compared with the committed generated files.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::process::{cargo, check, load_average, mkdir, timed_logged};
use super::{g, list, med, round2};

/// Folders the generator writes to, checked for committed files it no longer generates.
const GENERATED_DIRS: [&str; 3] = [
    "sys/src/generated",
    "core/src/generated",
    "macros/src/generated",
];

/// Row 5: the generator's `generate` into an empty folder, and how its output compares with the
/// committed files.
pub(super) struct Codegen {
    times: Vec<(f64, f64)>,
    /// The number of releases, as the generator says it.
    releases: String,
    compare: String,
}

impl Codegen {
    pub(super) fn measure(
        src: &Path,
        work: &Path,
        persist: &Path,
        runs: usize,
    ) -> Result<Self, String> {
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

    pub(super) fn report(&self, runs: usize, line: &mut dyn FnMut(String)) {
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

    pub(super) fn row(&self, line: &mut dyn FnMut(String)) {
        line(format!(
            "| 5 | codegen: `generate` of all {} releases from cached wheels | {} s wall ({} s CPU) | — | — | — | — |",
            self.releases,
            g(med(&self.times, 0)),
            g(med(&self.times, 1))
        ));
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
