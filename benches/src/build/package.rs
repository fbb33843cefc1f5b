//! The download size, `bench-build package`: the `.crate` files `cargo package` makes of the four
//! crates a user downloads (the bindings, the runtime's code, the attribute and the crate users
//! name), compressed and unpacked, against cudarc's one `.crate` of the pinned version from
//! cargo's registry cache. The crates a user downloads only with a feature (the fake driver's,
//! the local toolkit's, and the generator it builds) are packaged with them, as cargo resolves
//! the four against them, and listed apart.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::process::{capture, cargo, check};
use super::programs::{cudarc_dependency, cudarc_version, one, App, CUDARC_MAIN};

/// The four crates a user downloads.
pub(super) const PUBLISHED: [&str; 4] = [
    "cuda-driver-table-sys",
    "cuda-driver-table-core",
    "cuda-driver-table-macros",
    "cuda-driver-table",
];
/// Downloaded only with a feature: `fake` (a dev-dependency's), `cuda-local` (with the generator).
const WITH_A_FEATURE: [&str; 3] = [
    "cuda-driver-table-fake",
    "cuda-driver-table-local",
    "cuda-driver-table-codegen",
];

pub(super) struct Package {
    /// Of [`PUBLISHED`], then [`WITH_A_FEATURE`]: name, version, `.crate` bytes, unpacked bytes.
    crates: Vec<(String, String, u64, u64)>,
    /// cudarc's version, `.crate` bytes, unpacked bytes.
    cudarc: (String, u64, u64),
}

impl Package {
    pub(super) fn measure(src: &Path, work: &Path) -> Result<Self, String> {
        let target = work.join("package-target");
        let mut package = cargo(src);
        package
            .args(["package", "-q", "--no-verify", "--allow-dirty"])
            .env("CARGO_TARGET_DIR", &target);
        for name in PUBLISHED.iter().chain(&WITH_A_FEATURE) {
            package.args(["-p", name]);
        }
        check(&mut package)?;
        let mut crates = Vec::new();
        for name in PUBLISHED.iter().chain(&WITH_A_FEATURE) {
            let (version, file) = packaged(&target.join("package"), name)?;
            crates.push((
                (*name).to_owned(),
                version,
                size(&file)?,
                unpacked_size(&file)?,
            ));
        }
        let version = cudarc_version()?;
        let file = match cudarc_crate(&version) {
            Some(file) => file,
            None => {
                // A project that depends on it downloads it into the cache.
                App::create(
                    work,
                    "cudarc-download".to_owned(),
                    one("cudarc", cudarc_dependency()?.into()),
                    CUDARC_MAIN,
                )?;
                cudarc_crate(&version).ok_or_else(|| {
                    format!("cudarc-{version}.crate is not in cargo's registry cache after `cargo fetch`")
                })?
            }
        };
        Ok(Self {
            crates,
            cudarc: (version, size(&file)?, unpacked_size(&file)?),
        })
    }

    /// The `.crate` and unpacked bytes of the four crates together.
    fn four(&self) -> (u64, u64) {
        self.crates[..PUBLISHED.len()]
            .iter()
            .fold((0, 0), |(c, u), k| (c + k.2, u + k.3))
    }

    pub(super) fn report(&self, line: &mut dyn FnMut(String)) {
        line("## Download size (`cargo package --no-verify`, the `.crate` files; unpacked: the sizes `tar -tzv` lists)".to_owned());
        for (k, (name, version, packed, unpacked)) in self.crates.iter().enumerate() {
            let note = if k < PUBLISHED.len() {
                ""
            } else {
                " (only with a feature)"
            };
            line(format!(
                "{name} {version}{note}: {packed} B, unpacked {unpacked} B"
            ));
        }
        let (packed, unpacked) = self.four();
        let (version, cudarc, cudarc_unpacked) = &self.cudarc;
        line(format!(
            "the four together: {packed} B, unpacked {unpacked} B; cudarc {version}: {cudarc} B, unpacked {cudarc_unpacked} B ({:.3}× and {:.3}×)",
            packed as f64 / *cudarc as f64,
            unpacked as f64 / *cudarc_unpacked as f64
        ));
    }

    pub(super) fn row(&self, line: &mut dyn FnMut(String)) {
        let (packed, unpacked) = self.four();
        let (version, cudarc, cudarc_unpacked) = &self.cudarc;
        line(format!(
            "| 7 | download size: the four `.crate` files (unpacked) | {packed} B ({unpacked} B) | cudarc {version}: {cudarc} B ({cudarc_unpacked} B) | **{:.3}×** ({:.3}×) | — | — |",
            packed as f64 / *cudarc as f64,
            unpacked as f64 / *cudarc_unpacked as f64
        ));
    }
}

/// The version and file of the `.crate` that `cargo package` wrote for `name` into `dir`.
fn packaged(dir: &Path, name: &str) -> Result<(String, PathBuf), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    entries
        .flatten()
        .find_map(|e| {
            let file = e.file_name().into_string().ok()?;
            let version = crate_version(&file, name)?;
            Some((version.to_owned(), e.path()))
        })
        .ok_or_else(|| {
            format!(
                "cargo package wrote no {name}-*.crate into {}",
                dir.display()
            )
        })
}

/// `0.1.0` for `cuda-driver-table-0.1.0.crate` and `cuda-driver-table`; `None` for another
/// crate's file (`cuda-driver-table-sys-0.1.0.crate`).
fn crate_version<'a>(file: &'a str, name: &str) -> Option<&'a str> {
    file.strip_prefix(name)?
        .strip_prefix('-')?
        .strip_suffix(".crate")
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
}

/// cudarc's `.crate` of `version` in cargo's registry cache, from any registry.
fn cudarc_crate(version: &str) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let cache = home.join("registry/cache");
    std::fs::read_dir(cache)
        .ok()?
        .flatten()
        .map(|registry| registry.path().join(format!("cudarc-{version}.crate")))
        .find(|file| file.is_file())
}

fn size(file: &Path) -> Result<u64, String> {
    std::fs::metadata(file)
        .map(|m| m.len())
        .map_err(|e| format!("cannot read {}: {e}", file.display()))
}

/// The sum of the sizes of the files in a `.crate` (a gzipped tar), as `tar -tzvf` lists them.
fn unpacked_size(file: &Path) -> Result<u64, String> {
    let listing = capture(Command::new("tar").arg("-tzvf").arg(file))?;
    Ok(listing
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2)?.parse::<u64>().ok())
        .sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crate_s_file_is_told_from_its_neighbours() {
        assert_eq!(
            crate_version("cuda-driver-table-0.1.0.crate", "cuda-driver-table"),
            Some("0.1.0")
        );
        assert_eq!(
            crate_version("cuda-driver-table-sys-0.1.0.crate", "cuda-driver-table"),
            None
        );
        assert_eq!(
            crate_version("cuda-driver-table-sys-0.1.0.crate", "cuda-driver-table-sys"),
            Some("0.1.0")
        );
    }
}
