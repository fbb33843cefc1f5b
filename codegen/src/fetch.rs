//! Fetches the headers (and libcudart) of one CUDA release from its public wheel into a cache
//! folder outside the repository. Uses `python3 -m pip download --no-deps` and Python's `zipfile`,
//! so nothing but a Python with pip is needed. Never writes into the repository.

use crate::releases::{Release, CUDART_TEST_RELEASES, RELEASES};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cache folder: `$CUDA_DRIVER_TABLE_CACHE`, else `$XDG_CACHE_HOME/cuda-driver-table`,
/// else `$HOME/.cache/cuda-driver-table`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CUDA_DRIVER_TABLE_CACHE") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("cuda-driver-table")
}

/// Fetches the wheels of the releases the runtime crate's library tests load
/// ([`CUDART_TEST_RELEASES`]) and links their libcudart as `dir/<release>/<file>`
/// (`dir/12.9/libcudart.so.12`, ...). Returns each link with the library it points at.
pub fn link_cudart(dir: &Path) -> Result<Vec<(PathBuf, PathBuf)>, String> {
    let mut out = Vec::new();
    for version in CUDART_TEST_RELEASES {
        let r = RELEASES
            .iter()
            .find(|r| r.version == *version)
            .ok_or_else(|| format!("release {version} is not pinned in releases.rs"))?;
        let lib = fetch(r)?.lib.join(r.cudart_file());
        if !lib.is_file() {
            return Err(format!(
                "the wheel {} has no {}",
                r.requirement(),
                lib.display()
            ));
        }
        let link_dir = dir.join(r.name());
        std::fs::create_dir_all(&link_dir)
            .map_err(|e| format!("cannot create {}: {e}", link_dir.display()))?;
        let link = link_dir.join(r.cudart_file());
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&lib, &link)
            .map_err(|e| format!("cannot link {}: {e}", link.display()))?;
        out.push((link, lib));
    }
    Ok(out)
}

/// A release's unpacked wheel: `include/` with the headers and `lib/` with libcudart.
#[derive(Clone, Debug)]
pub struct Unpacked {
    pub include: PathBuf,
    pub lib: PathBuf,
}

/// Returns the unpacked headers of `release`, downloading and unpacking the wheel when the cache
/// does not hold it yet.
pub fn fetch(release: &Release) -> Result<Unpacked, String> {
    let root = cache_dir();
    let dir = root.join("releases").join(release.wheel_version);
    let unpacked = Unpacked {
        include: dir.join("include"),
        lib: dir.join("lib"),
    };
    if unpacked.include.join("cudaTypedefs.h").is_file() {
        return Ok(unpacked);
    }
    let wheels = root.join("wheels");
    std::fs::create_dir_all(&wheels)
        .map_err(|e| format!("cannot create {}: {e}", wheels.display()))?;
    let wheel = match find_wheel(&wheels, release) {
        Some(w) => w,
        None => {
            download(release, &wheels)?;
            find_wheel(&wheels, release).ok_or_else(|| {
                format!(
                    "pip reported success but no wheel of {} is in {}",
                    release.requirement(),
                    wheels.display()
                )
            })?
        }
    };
    unpack(&wheel, release.wheel_prefix(), &dir)?;
    Ok(unpacked)
}

fn find_wheel(dir: &Path, release: &Release) -> Option<PathBuf> {
    let stem = format!(
        "{}-{}-",
        release.package.replace('-', "_"),
        release.wheel_version
    );
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&stem) && n.ends_with(".whl"))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

fn download(release: &Release, dest: &Path) -> Result<(), String> {
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--only-binary=:all:",
        ])
        .args([
            "--platform",
            "manylinux2014_x86_64",
            "--platform",
            "manylinux_2_17_x86_64",
        ])
        .args([
            "--platform",
            "manylinux1_x86_64",
            "--python-version",
            "3.11",
            "-d",
        ])
        .arg(dest)
        .arg(release.requirement())
        .status()
        .map_err(|e| format!("cannot run python3 -m pip: {e}; install Python 3 with pip"))?;
    if !status.success() {
        return Err(format!(
            "`python3 -m pip download {}` failed ({status}); check the network or the wheel pin in codegen/src/releases.rs",
            release.requirement()
        ));
    }
    Ok(())
}

const UNPACK: &str = r#"
import os, sys, zipfile
whl, prefix, dst = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = dst + ".partial"
with zipfile.ZipFile(whl) as z:
    for name in z.namelist():
        for sub in ("include/", "lib/"):
            if name.startswith(prefix + "/" + sub) and not name.endswith("/"):
                rel = name[len(prefix) + 1:]
                if sub == "include/" and os.path.basename(rel) not in ("cuda.h", "cudaTypedefs.h"):
                    continue
                if sub == "lib/" and "libcudart.so" not in rel:
                    continue
                out = os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with open(out, "wb") as f:
                    f.write(z.read(name))
os.replace(tmp, dst)
"#;

fn unpack(wheel: &Path, prefix: &str, dest: &Path) -> Result<(), String> {
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let partial = PathBuf::from(format!("{}.partial", dest.display()));
    let _ = std::fs::remove_dir_all(&partial);
    let _ = std::fs::remove_dir_all(dest);
    let status = Command::new("python3")
        .arg("-c")
        .arg(UNPACK)
        .arg(wheel)
        .arg(prefix)
        .arg(dest)
        .status()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if !status.success() || !dest.join("include/cudaTypedefs.h").is_file() {
        return Err(format!(
            "unpacking {} did not yield include/cuda.h and include/cudaTypedefs.h",
            wheel.display()
        ));
    }
    Ok(())
}
