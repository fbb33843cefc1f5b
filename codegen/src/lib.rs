//! Generates the committed bindings and function manifests of `cuda-driver-table` from NVIDIA's
//! `cuda.h` and `cudaTypedefs.h`, one set per CUDA release, through bindgen.
//!
//! The pipeline: [`fetch`] the wheel's headers into a cache, run bindgen and split its output
//! ([`parse`]), derive the [`manifest`] from the parsed typedefs and declarations (both put
//! together release by release in [`pipeline`]), and write the files ([`emit`]) and the README's
//! table of releases ([`add`]). [`check`] regenerates into memory and compares with what is
//! committed.

pub mod add;
pub mod doc;
pub mod docs_file;
pub mod emit;
pub mod fetch;
pub mod layout;
pub mod local;
pub mod manifest;
pub mod outputs;
pub mod parse;
pub mod pipeline;
pub mod releases;

use pipeline::ParsedRelease;
use std::path::{Path, PathBuf};

/// The workspace root this crate sits in.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Every generated file. `parsed` must hold every release the crates support (the pinned ones,
/// plus a local one being added): the bindings, the function records and the ABI lists of all
/// releases share one file each, where each fact is written once with the releases that have it.
pub fn files(parsed: &[ParsedRelease]) -> Vec<(PathBuf, String)> {
    let all: Vec<&ParsedRelease> = parsed.iter().collect();
    let records = emit::Records::collect(&all);
    let versions: Vec<u32> = parsed.iter().map(|p| p.source.version()).collect();
    let mut out = emit::select_files(&versions);
    out.push((
        PathBuf::from(emit::BINDINGS_PATH),
        emit::bindings_text(&all),
    ));
    out.push((
        PathBuf::from(emit::MANIFEST_PATH),
        records.manifest_text(&all),
    ));
    out.push((PathBuf::from(emit::DOCS_PATH), records.docs_text(&all)));
    out.push((PathBuf::from(emit::ABIS_PATH), emit::abis_file(&all)));
    out.push((
        PathBuf::from(emit::CU_RESULTS_PATH),
        emit::cu_results_file(&all),
    ));
    out
}

/// Writes files under `root`, and removes the files of the generated folders that are no longer
/// generated (a renamed or merged file).
pub fn write(root: &Path, files: &[(PathBuf, String)]) -> Result<(), String> {
    for (rel, text) in files {
        let path = root.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    for rel in stale(root, files) {
        let path = root.join(&rel);
        std::fs::remove_file(&path)
            .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
    }
    Ok(())
}

/// Files in the generated folders that `files` does not contain.
fn stale(root: &Path, files: &[(PathBuf, String)]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in GENERATED_DIRS {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut names: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| Path::new(dir).join(e.file_name()))
            .collect();
        names.sort();
        out.extend(
            names
                .into_iter()
                .filter(|rel| !files.iter().any(|(p, _)| p == rel)),
        );
    }
    out
}

/// The generated folders, relative to the root.
pub const GENERATED_DIRS: &[&str] = &[
    "sys/src/generated",
    "core/src/generated",
    "macros/src/generated",
];

/// The README under `root` with its table of supported releases made from `parsed`.
pub fn readme(root: &Path, parsed: &[ParsedRelease]) -> Result<String, String> {
    let path = root.join("README.md");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    add::replace_readme_table(&text, &add::readme_table(parsed))
}

/// Writes the README under `root` with its table of supported releases made from `parsed`, and
/// returns `true`; returns `false` when `root` has no README.md (a folder the files are generated
/// into to be measured or compared, not a workspace), which is left so.
pub fn write_readme(root: &Path, parsed: &[ParsedRelease]) -> Result<bool, String> {
    if !root.join("README.md").exists() {
        return Ok(false);
    }
    let text = readme(root, parsed)?;
    std::fs::write(root.join("README.md"), text)
        .map_err(|e| format!("cannot write README.md: {e}"))?;
    Ok(true)
}

/// Compares freshly generated files, and the README's table of the releases `parsed`, with those
/// under `root`; returns one line per difference (changed, missing, a committed generated file
/// that nothing generates any more, a `Cargo.toml` whose features are not the pinned releases).
pub fn check(
    root: &Path,
    files: &[(PathBuf, String)],
    parsed: &[ParsedRelease],
) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let readme = readme(root, parsed)?;
    if std::fs::read_to_string(root.join("README.md")).ok() != Some(readme) {
        problems
            .push("README.md's table of supported releases differs from the releases".to_string());
    }
    for (rel, text) in files {
        match std::fs::read_to_string(root.join(rel)) {
            Ok(old) if old == *text => {}
            Ok(old) => {
                let line = old
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or_else(|| old.lines().count().min(text.lines().count()));
                problems.push(format!(
                    "{} differs (first at line {})",
                    rel.display(),
                    line + 1
                ));
            }
            Err(_) => problems.push(format!("{} is missing", rel.display())),
        }
    }
    let pinned: Vec<u32> = releases::RELEASES.iter().map(|r| r.version).collect();
    for manifest in emit::FEATURE_MANIFESTS {
        let text = std::fs::read_to_string(root.join(manifest)).unwrap_or_default();
        let mut declared = emit::declared_features(&text);
        declared.sort_unstable();
        if declared != pinned {
            problems.push(format!(
                "{manifest} declares the cuda-XXXXX features {declared:?}, but the pinned releases are {pinned:?}: declare one per release"
            ));
        }
        let unforwarded = emit::unforwarded_features(&text);
        if emit::LOCAL_FORWARDING_MANIFESTS.contains(&manifest) && !unforwarded.is_empty() {
            problems.push(format!(
                "{manifest} does not pass the features {unforwarded:?} on to cuda-driver-table-local: write `cuda-NNNNN = [\"cuda-driver-table-local?/cuda-NNNNN\"]`"
            ));
        }
        if emit::DEFAULT_FEATURE_MANIFESTS.contains(&manifest) {
            let default = emit::default_features(&text);
            if default != [releases::DEFAULT_RELEASE] {
                problems.push(format!(
                    "{manifest} enables {default:?} by default, but releases.rs says the default release is {}",
                    releases::DEFAULT_RELEASE
                ));
            }
        }
    }
    for rel in stale(root, files) {
        problems.push(format!("{} is not generated by any release", rel.display()));
    }
    Ok(problems)
}
