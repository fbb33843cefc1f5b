//! The programs the measurements build, each in a throw-away project of its own: the table
//! program (`examples/build_cost_table.rs`, its attribute's list replaced for the 40-function and
//! `all` tables), the same calls on cudarc (`examples/build_cost_cudarc.rs`), and the typical
//! application (`examples/build_cost_typical.rs`) with either as its `cuda` module.

use std::path::{Path, PathBuf};

use super::process::{capture, cargo, check, mkdir, write};
use super::MIB;

/// This crate's manifest: the cudarc dependency of the baseline is taken from it, so the pin and
/// features have one home.
const BENCHES_MANIFEST: &str = include_str!("../../Cargo.toml");
/// The table program: the 4-function table as it is, the others with its attribute's list
/// replaced ([`table_program`]).
pub(super) const TABLE_MAIN: &str = include_str!("../../examples/build_cost_table.rs");
pub(super) const CUDARC_MAIN: &str = include_str!("../../examples/build_cost_cudarc.rs");
const TYPICAL_MAIN: &str = include_str!("../../examples/build_cost_typical.rs");

/// The table programs of the expansion: project name, what the summary calls it, the
/// attribute's list (`None`: the program's own).
pub(super) const TABLES: [(&str, &str, Option<&str>); 3] = [
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
pub(super) const TYPICAL_DEPS: &str = r#"
clap = { version = "4.5", features = ["derive"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
anyhow = "1"
thiserror = "2"
tracing = "0.1.40"
tracing-subscriber = "0.3"
"#;

/// The typical application's `cuda` module in (a), which (b) and (c) replace.
const NO_CUDA: &str = "mod cuda {\n    pub fn main() {}\n}";

/// The table program with the attribute's list replaced by `list`, or as it is for `None`.
pub(super) fn table_program(list: Option<&str>) -> Result<String, String> {
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
pub(super) fn typical_program(program: Option<&str>) -> Result<String, String> {
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

/// The dependency on the runtime crate of the tree at `tree`, by path with default features.
pub(super) fn table_dep(tree: &Path) -> toml::Value {
    let mut dep = toml::Table::new();
    dep.insert(
        "path".into(),
        tree.join("runtime").display().to_string().into(),
    );
    dep.into()
}

/// A table of one dependency.
pub(super) fn one(name: &str, dep: toml::Value) -> toml::Table {
    let mut deps = toml::Table::new();
    deps.insert(name.into(), dep);
    deps
}

/// cudarc as this crate's manifest declares it (`=0.19.10`, default features off, the driver
/// alone, loaded at run time, CUDA 13.0): the least of cudarc a program of driver calls builds.
pub(super) fn cudarc_dependency() -> Result<toml::Table, String> {
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

/// cudarc as its README has a user add it: the version of [`cudarc_dependency`] with its default
/// features (the driver, runtime, NVRTC, cuBLAS, cuBLASLt and cuRAND) and the same CUDA release.
pub(super) fn cudarc_default_dependency() -> Result<toml::Table, String> {
    let minimal = cudarc_dependency()?;
    let version = minimal
        .get("version")
        .cloned()
        .ok_or("benches/Cargo.toml: cudarc has no version")?;
    let release: Vec<toml::Value> = minimal
        .get("features")
        .and_then(|f| f.as_array())
        .into_iter()
        .flatten()
        .filter(|f| f.as_str().is_some_and(|f| f.starts_with("cuda-")))
        .cloned()
        .collect();
    if release.len() != 1 {
        return Err(
            "benches/Cargo.toml: cudarc's features name no one CUDA release (`cuda-13000`)"
                .to_owned(),
        );
    }
    let mut dep = toml::Table::new();
    dep.insert("version".into(), version);
    dep.insert("features".into(), release.into());
    Ok(dep)
}

/// The version cudarc is pinned at, `0.19.10`.
pub(super) fn cudarc_version() -> Result<String, String> {
    cudarc_dependency()?
        .get("version")
        .and_then(|v| v.as_str())
        .map(|v| v.trim_start_matches('=').to_owned())
        .ok_or_else(|| "benches/Cargo.toml: cudarc has no version".to_owned())
}

/// One throw-away project.
pub(super) struct App {
    pub(super) name: String,
    pub(super) dir: PathBuf,
}

impl App {
    /// Writes `Cargo.toml` (one dependency, its own workspace) and `src/main.rs`, then resolves
    /// and downloads the dependencies, so that no build downloads anything.
    pub(super) fn create(
        work: &Path,
        name: String,
        deps: toml::Table,
        main: &str,
    ) -> Result<Self, String> {
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

    pub(super) fn target(&self, run: usize) -> PathBuf {
        self.dir
            .parent()
            .unwrap_or(&self.dir)
            .join(format!("target-{}-{run}", self.name))
    }
}

/// The sizes of one build, in bytes, and the listing of its artifacts.
pub(super) struct Sizes {
    pub(super) rlibs: u64,
    pub(super) linked: u64,
    pub(super) proc_macros: u64,
    pub(super) executable: u64,
    pub(super) listing: String,
}

impl Sizes {
    pub(super) fn measure(app: &App, target: &Path) -> Result<Self, String> {
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

/// `libquote-0123abcd.rlib` → `quote.rlib`.
fn artifact_name(file: &str) -> String {
    let name = file.strip_prefix("lib").unwrap_or(file);
    match (name.rsplit_once('.'), name.split_once('-')) {
        (Some((_, ext)), Some((stem, _))) => format!("{stem}.{ext}"),
        _ => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_names_lose_prefix_and_hash() {
        assert_eq!(artifact_name("libquote-0123abcd.rlib"), "quote.rlib");
        assert_eq!(
            artifact_name("libcuda_driver_table_macros-ff00.so"),
            "cuda_driver_table_macros.so"
        );
    }

    #[test]
    fn the_cudarc_baselines_come_from_this_crates_manifest() {
        let minimal = cudarc_dependency().unwrap();
        assert!(minimal.get("version").and_then(|v| v.as_str()).is_some());
        assert_eq!(
            minimal.get("default-features").and_then(|v| v.as_bool()),
            Some(false)
        );
        // The default features, the same version and CUDA release.
        let default = cudarc_default_dependency().unwrap();
        assert_eq!(default.get("version"), minimal.get("version"));
        assert_eq!(default.get("default-features"), None);
        let features = default.get("features").and_then(|f| f.as_array()).unwrap();
        assert_eq!(features.len(), 1);
        assert!(minimal
            .get("features")
            .and_then(|f| f.as_array())
            .unwrap()
            .contains(&features[0]));
        assert!(!cudarc_version().unwrap().starts_with('='));
    }

    #[test]
    fn the_40_and_all_tables_replace_the_attribute_s_list() {
        let forty = table_program(Some(FORTY)).unwrap();
        assert!(forty.contains("#[driver_table(cuInit, cuDriverGetVersion,"));
        assert_eq!(table_program(None).unwrap(), TABLE_MAIN);
        let typical = typical_program(Some("fn main() {}")).unwrap();
        assert!(typical.contains("mod cuda {\nfn main() {}\n}"));
    }
}
