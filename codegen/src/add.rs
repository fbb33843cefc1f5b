//! Adding a release, as text edits of the files that list releases: the release table
//! (`releases.rs`), the `cuda-XXXXX` features of the three crates, and the README's table of
//! supported releases (a block between markers that `generate` writes and `check` compares).
//!
//! The `add-release` command ([`add_release`]) fetches the wheel, checks its `CUDA_VERSION`,
//! applies these edits and runs `generate` with the new table. Each edit is a pure function of the
//! file's text, so that a test can remove a pinned release from copies of the files and add it
//! back.

use crate::pipeline::{ParsedRelease, Source};
use crate::releases::{release_name, Release, RELEASES};
use std::path::Path;

/// The PyPI package that carries the runtime headers of CUDA `major`, as named in `releases.rs`
/// (the constant) and on PyPI.
pub fn package_for(major: u32) -> Option<(&'static str, &'static str)> {
    match major {
        11 => Some(("CU11", "nvidia-cuda-runtime-cu11")),
        12 => Some(("CU12", "nvidia-cuda-runtime-cu12")),
        13.. => Some(("CU13", "nvidia-cuda-runtime")),
        _ => None,
    }
}

/// The release number of a wheel version: `13.6.10` → 13060.
pub fn version_of_wheel(wheel_version: &str) -> Result<u32, String> {
    let mut parts = wheel_version.split('.');
    let number = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
    match (number(parts.next()), number(parts.next())) {
        (Some(major), Some(minor)) if minor < 100 => Ok(major * 1000 + minor * 10),
        _ => Err(format!(
            "{wheel_version:?} is not a wheel version such as 13.0.96 (major.minor.patch)"
        )),
    }
}

/// `CUDA_VERSION` as `cuda.h` defines it (`#define CUDA_VERSION 13000`, or `# define ...`).
pub fn cuda_h_version(cuda_h: &str) -> Option<u32> {
    cuda_h.lines().find_map(|line| {
        let rest = line.trim().strip_prefix('#')?.trim_start();
        let rest = rest.strip_prefix("define")?;
        rest.trim()
            .strip_prefix("CUDA_VERSION")?
            .trim()
            .parse()
            .ok()
    })
}

/// `releases.rs` with `r(version, PACKAGE, "wheel"),` inserted in version order in `RELEASES`.
pub fn insert_release(
    releases_rs: &str,
    version: u32,
    wheel_version: &str,
) -> Result<String, String> {
    let (constant, _) = package_for(version / 1000).ok_or_else(|| {
        format!(
            "no runtime wheel is known for CUDA {}",
            release_name(version)
        )
    })?;
    let start = releases_rs
        .find("pub const RELEASES: &[Release] = &[")
        .ok_or("releases.rs has no RELEASES table")?;
    let end = start
        + releases_rs[start..]
            .find("];")
            .ok_or("the RELEASES table is not closed")?;
    let mut out = String::new();
    let mut placed = false;
    let mut offset = start;
    for line in releases_rs[start..end].split_inclusive('\n') {
        if let Some(v) = line
            .trim()
            .strip_prefix("r(")
            .and_then(|rest| rest.split(',').next())
            .and_then(|v| v.trim().parse::<u32>().ok())
        {
            if v == version {
                return Err(format!(
                    "{} is pinned in releases.rs already",
                    release_name(version)
                ));
            }
            if v > version && !placed {
                out.push_str(&format!(
                    "    r({version}, {constant}, \"{wheel_version}\"),\n"
                ));
                placed = true;
            }
        }
        out.push_str(line);
        offset += line.len();
    }
    debug_assert_eq!(offset, end);
    if !placed {
        out.push_str(&format!(
            "    r({version}, {constant}, \"{wheel_version}\"),\n"
        ));
    }
    Ok(format!(
        "{}{}{}",
        &releases_rs[..start],
        out,
        &releases_rs[end..]
    ))
}

/// A crate manifest with the `cuda-{version}` feature added in version order, written like its
/// neighbours (`cuda-13050 = []`, or the runtime's forwarding list with the number replaced).
pub fn insert_feature(cargo_toml: &str, version: u32) -> Result<String, String> {
    let feature_of = |line: &str| -> Option<u32> {
        let name = line.split('=').next()?.trim();
        name.strip_prefix("cuda-")?.parse().ok()
    };
    let lines: Vec<&str> = cargo_toml.split_inclusive('\n').collect();
    let features: Vec<(usize, u32)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| feature_of(l).map(|v| (i, v)))
        .collect();
    if features.iter().any(|(_, v)| *v == version) {
        return Err(format!("cuda-{version} is declared already"));
    }
    let &(template_at, template_version) = features
        .iter()
        .rev()
        .find(|(_, v)| *v < version)
        .or_else(|| features.first())
        .ok_or("the manifest declares no cuda-XXXXX feature to follow")?;
    let new_line = lines[template_at].replace(
        &format!("cuda-{template_version}"),
        &format!("cuda-{version}"),
    );
    let insert_at = if template_version < version {
        template_at + 1
    } else {
        template_at
    };
    let mut out: String = lines[..insert_at].concat();
    out.push_str(&new_line);
    out.push_str(&lines[insert_at..].concat());
    Ok(out)
}

/// Where the README's table of supported releases starts and ends.
pub const README_START: &str =
    "<!-- supported releases: generated by `cuda-driver-table-codegen generate` -->\n";
/// See [`README_START`].
pub const README_END: &str = "<!-- end of supported releases -->\n";

/// A release's functions, ABIs and per-thread twins, as the README's table and `summary` show them.
pub fn counts(p: &ParsedRelease) -> (usize, usize, usize) {
    let f = &p.manifest.functions;
    let abis = f.values().map(|f| f.abis.len()).sum();
    let per_thread = f
        .values()
        .flat_map(|f| &f.abis)
        .filter(|a| a.per_thread.is_some())
        .count();
    (f.len(), abis, per_thread)
}

/// The README's table of supported releases: the wheel and the counts of each.
pub fn readme_table(parsed: &[ParsedRelease]) -> String {
    let mut s = String::from(
        "| CUDA | wheel | functions | ABIs | per-thread twins |\n|---|---|---|---|---|\n",
    );
    for p in parsed {
        let (functions, abis, per_thread) = counts(p);
        let wheel = match &p.source {
            Source::Wheel(r) => format!("{} {}", r.package, r.wheel_version),
            Source::Local { include, .. } => format!("local ({})", include.display()),
        };
        s.push_str(&format!(
            "| {} | {wheel} | {functions} | {abis} | {per_thread} |\n",
            release_name(p.source.version()),
        ));
    }
    s
}

/// `readme` with the text between the markers replaced by `table`.
pub fn replace_readme_table(readme: &str, table: &str) -> Result<String, String> {
    let start = readme
        .find(README_START)
        .ok_or("the README has no supported-releases marker")?
        + README_START.len();
    let end = start
        + readme[start..]
            .find(README_END)
            .ok_or("the README's supported-releases block is not closed")?;
    Ok(format!("{}{table}{}", &readme[..start], &readme[end..]))
}

/// Fetches the wheel, checks its `cuda.h`, edits the release table, the features and (through
/// `generate`, run again so that it is built with the new table) every generated file and the
/// README.
pub fn add_release(root: &Path, wheel: &str) -> Result<(), String> {
    let version = version_of_wheel(wheel)?;
    let (_, package) = package_for(version / 1000).ok_or_else(|| {
        format!(
            "no runtime wheel is known for CUDA {}",
            release_name(version)
        )
    })?;
    if RELEASES.iter().any(|r| r.version == version) {
        return Err(format!(
            "{} is pinned in releases.rs already",
            release_name(version)
        ));
    }
    // A `Release` names its wheel with a `'static` string, as the table does; this one lives
    // until the process ends.
    let release = Release {
        version,
        package,
        wheel_version: Box::leak(wheel.to_owned().into_boxed_str()),
    };
    let unpacked = crate::fetch::fetch(&release)?;
    let cuda_h = unpacked.include.join("cuda.h");
    let text = std::fs::read_to_string(&cuda_h)
        .map_err(|e| format!("cannot read {}: {e}", cuda_h.display()))?;
    match cuda_h_version(&text) {
        Some(v) if v == version => {}
        other => {
            return Err(format!(
                "{} says CUDA_VERSION {other:?}, but the wheel version {wheel} means {version}",
                cuda_h.display()
            ))
        }
    }
    let edit = |rel: &str, f: &dyn Fn(&str) -> Result<String, String>| -> Result<(), String> {
        let path = root.join(rel);
        let old = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let new = f(&old).map_err(|e| format!("{rel}: {e}"))?;
        std::fs::write(&path, new).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("edited {rel}");
        Ok(())
    };
    edit("codegen/src/releases.rs", &|t| {
        insert_release(t, version, wheel)
    })?;
    for manifest in crate::emit::FEATURE_MANIFESTS {
        edit(manifest, &|t| insert_feature(t, version))?;
    }
    // `generate` again, compiled with the edited table.
    let status =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args([
                "run",
                "-q",
                "-p",
                "cuda-driver-table-codegen",
                "--release",
                "--",
                "generate",
            ])
            .current_dir(root)
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "generate failed ({status}); the edits above are in place"
        ));
    }
    println!(
        "added CUDA {}: review `git diff`, then run `bash scripts/test.sh`",
        release_name(version)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RELEASES_RS: &str = "pub const RELEASES: &[Release] = &[\n    r(13000, CU13, \"13.0.96\"),\n    r(13050, CU13, \"13.5.37\"),\n];\n";

    #[test]
    fn a_release_goes_in_version_order() {
        let added = insert_release(RELEASES_RS, 13030, "13.3.29").unwrap();
        assert_eq!(
            added,
            "pub const RELEASES: &[Release] = &[\n    r(13000, CU13, \"13.0.96\"),\n    r(13030, CU13, \"13.3.29\"),\n    r(13050, CU13, \"13.5.37\"),\n];\n"
        );
        let last = insert_release(RELEASES_RS, 13060, "13.6.1").unwrap();
        assert!(last
            .ends_with("    r(13050, CU13, \"13.5.37\"),\n    r(13060, CU13, \"13.6.1\"),\n];\n"));
        assert!(insert_release(RELEASES_RS, 13050, "13.5.37").is_err());
        assert!(insert_release(RELEASES_RS, 10020, "10.2.1").is_err());
    }

    #[test]
    fn a_feature_is_written_like_its_neighbour() {
        let runtime = "[features]\ndefault = [\"cuda-13000\"]\ncuda-13000 = [\"m/cuda-13000\", \"s/cuda-13000\"]\ncuda-13050 = [\"m/cuda-13050\", \"s/cuda-13050\"]\n\n[dependencies]\n";
        assert_eq!(
            insert_feature(runtime, 13060).unwrap(),
            "[features]\ndefault = [\"cuda-13000\"]\ncuda-13000 = [\"m/cuda-13000\", \"s/cuda-13000\"]\ncuda-13050 = [\"m/cuda-13050\", \"s/cuda-13050\"]\ncuda-13060 = [\"m/cuda-13060\", \"s/cuda-13060\"]\n\n[dependencies]\n"
        );
        let sys = "[features]\ncuda-12090 = []\ncuda-13000 = []\n";
        assert_eq!(
            insert_feature(sys, 12080).unwrap(),
            "[features]\ncuda-12080 = []\ncuda-12090 = []\ncuda-13000 = []\n"
        );
        assert!(insert_feature(sys, 13000).is_err());
    }

    #[test]
    fn versions_of_wheels_and_headers() {
        assert_eq!(version_of_wheel("13.6.10"), Ok(13060));
        assert_eq!(version_of_wheel("12.9.79"), Ok(12090));
        assert!(version_of_wheel("thirteen").is_err());
        assert_eq!(
            cuda_h_version("#ifndef X\n#define CUDA_VERSION 13000\n#define CUDA_VERSION_X 1\n"),
            Some(13000)
        );
        assert_eq!(cuda_h_version("#define CUDA_VERSIONS 1\n"), None);
        assert_eq!(
            cuda_h_version("#  define CUDA_VERSION 12090\n"),
            Some(12090)
        );
    }

    #[test]
    fn the_readme_block_is_replaced_between_its_markers() {
        let readme = format!("# x\n{README_START}old\n{README_END}tail\n");
        assert_eq!(
            replace_readme_table(&readme, "new\n").unwrap(),
            format!("# x\n{README_START}new\n{README_END}tail\n")
        );
        assert!(replace_readme_table("no markers", "x").is_err());
    }
}
