//! Bindings from a local toolkit: what the build scripts of `cuda-driver-table-sys`,
//! `cuda-driver-table-macros` and `cuda-driver-table` do when their `cuda-local` feature is on.
//!
//! The headers come from the first of `CUDA_DRIVER_TABLE_INCLUDE`, `$CUDA_PATH/include` and
//! `/usr/local/cuda/include` that is set and holds `cuda.h` and `cudaTypedefs.h`; the release
//! number is `CUDA_VERSION` of that `cuda.h`. They go through exactly the code that generates the
//! committed releases ([`emit::parse_release`] with a [`Source::Local`]), and each crate gets the
//! per-release text the committed files give a pinned release, for this one release alone, written
//! into its `OUT_DIR` (nothing in the source tree changes).

use crate::emit::{self, ParsedRelease, Source};
use std::path::{Path, PathBuf};

/// The environment variable naming the include folder to use (highest priority).
pub const INCLUDE_VAR: &str = "CUDA_DRIVER_TABLE_INCLUDE";

/// The environment variable of a CUDA installation; its `include` folder is searched second.
pub const CUDA_PATH_VAR: &str = "CUDA_PATH";

/// The include folder searched last.
pub const DEFAULT_INCLUDE: &str = "/usr/local/cuda/include";

/// The headers a local include folder must hold.
pub const HEADERS: [&str; 2] = ["cuda.h", "cudaTypedefs.h"];

/// The environment variables whose change must rerun a build script (libclang's as well).
pub const ENV_VARS: [&str; 4] = [INCLUDE_VAR, CUDA_PATH_VAR, "LIBCLANG_PATH", "CC"];

/// The include folders to search, in order, each with where it came from. `var` reads an
/// environment variable (a parameter so that tests need not change the process environment).
pub fn candidates(var: &dyn Fn(&str) -> Option<String>) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    match var(INCLUDE_VAR) {
        Some(dir) if !dir.is_empty() => out.push((PathBuf::from(dir), format!("${INCLUDE_VAR}"))),
        _ => {}
    }
    match var(CUDA_PATH_VAR) {
        Some(dir) if !dir.is_empty() => out.push((
            Path::new(&dir).join("include"),
            format!("${CUDA_PATH_VAR}/include"),
        )),
        _ => {}
    }
    out.push((PathBuf::from(DEFAULT_INCLUDE), "the default".to_string()));
    out
}

/// The first candidate that holds both headers, or an error listing every folder searched, in
/// order, with what each lacked, and what to do.
pub fn find_include(var: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    for (dir, origin) in candidates(var) {
        let missing: Vec<&str> = HEADERS
            .iter()
            .copied()
            .filter(|h| !dir.join(h).is_file())
            .collect();
        if missing.is_empty() {
            return Ok(dir);
        }
        let what = if dir.is_dir() {
            format!("has no {}", missing.join(" and "))
        } else {
            "does not exist".to_string()
        };
        tried.push(format!("  {} ({origin}): {what}", dir.display()));
    }
    let unset: Vec<&str> = [INCLUDE_VAR, CUDA_PATH_VAR]
        .into_iter()
        .filter(|v| var(v).is_none_or(|s| s.is_empty()))
        .collect();
    let unset = if unset.is_empty() {
        String::new()
    } else {
        format!(" ({} not set)", unset.join(", "))
    };
    Err(format!(
        "the cuda-local feature needs cuda.h and cudaTypedefs.h of a CUDA toolkit; searched, in order{unset}:\n{}\n\
         Install the toolkit's headers (e.g. the CUDA toolkit, or `pip install nvidia-cuda-runtime` and \
         point at its include folder), then set {INCLUDE_VAR} to the folder holding cuda.h, or {CUDA_PATH_VAR} \
         to the toolkit's root. Or use a pinned release instead: a cuda-XXXXX feature of cuda-driver-table.",
        tried.join("\n")
    ))
}

/// The release of the headers in `include`: `#define CUDA_VERSION N` of its `cuda.h`.
pub fn header_version(include: &Path) -> Result<u32, String> {
    let path = include.join("cuda.h");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("define")?;
            rest.trim()
                .strip_prefix("CUDA_VERSION")?
                .trim()
                .parse()
                .ok()
        })
        .next()
        .ok_or_else(|| {
            format!(
                "{} has no `#define CUDA_VERSION <number>`: is it the CUDA driver API header?",
                path.display()
            )
        })
}

/// Loads libclang as bindgen will, so that a missing one is an error saying what to install
/// instead of bindgen's panic.
pub fn check_libclang() -> Result<(), String> {
    clang_sys::load().map_err(|e| {
        let searched = match std::env::var("LIBCLANG_PATH") {
            Ok(dir) => format!("searched LIBCLANG_PATH={dir}"),
            Err(_) => "searched the system library folders (LIBCLANG_PATH is not set)".to_string(),
        };
        format!(
            "the cuda-local feature runs bindgen, which needs libclang, and none could be loaded ({searched}): {e}\n\
             Install it (Debian/Ubuntu: `apt-get install libclang-dev`; Fedora: `dnf install clang-devel`), \
             or set LIBCLANG_PATH to the folder that holds libclang.so."
        )
    })
}

/// Parses the toolkit headers in `include`: the committed generation's path, with a
/// [`Source::Local`] of the version `cuda.h` declares.
pub fn parse(include: &Path) -> Result<ParsedRelease, String> {
    let version = header_version(include)?;
    check_libclang()?;
    emit::parse_release(
        Source::Local {
            version,
            include: include.to_path_buf(),
        },
        include,
    )
    .map_err(|e| {
        format!(
            "generating the bindings of CUDA {version} from {}: {e}",
            include.display()
        )
    })
}

/// The crate a build script generates for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crate {
    /// `cuda-driver-table-sys`: the bindings.
    Sys,
    /// `cuda-driver-table-macros`: the function manifest.
    Macros,
    /// `cuda-driver-table`: the ABI list.
    Runtime,
}

impl Crate {
    /// The file the crate's source includes from `OUT_DIR` under `cfg(feature = "cuda-local")`.
    pub fn file_name(self) -> &'static str {
        match self {
            Crate::Sys => "local_bindings.rs",
            Crate::Macros => "local_manifest.rs",
            Crate::Runtime => "local_abis.rs",
        }
    }

    /// The text of that file for one parsed release.
    pub fn text(self, r: &ParsedRelease) -> String {
        match self {
            Crate::Sys => emit::local_bindings_text(r),
            Crate::Macros => emit::local_manifest_text(r),
            Crate::Runtime => emit::local_abis_text(r),
        }
    }
}

/// What a crate's build script does with `cuda-local` on: finds the headers, tells cargo when to
/// rerun, generates the crate's file into `OUT_DIR`. Any failure exits with the message on
/// stderr (which cargo shows) instead of a panic.
pub fn build_script(krate: Crate) {
    if let Err(e) = run_build_script(krate) {
        eprintln!("error: cuda-driver-table (feature cuda-local): {e}");
        std::process::exit(1);
    }
}

fn run_build_script(krate: Crate) -> Result<(), String> {
    for var in ENV_VARS {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let env = |name: &str| std::env::var(name).ok();
    // The headers of the folder used, and the folders searched before it (a header put there
    // later would change which one is used). A missing path is not named: cargo would rerun always.
    for (dir, _) in candidates(&env) {
        if HEADERS.iter().all(|h| dir.join(h).is_file()) {
            for h in HEADERS {
                println!("cargo::rerun-if-changed={}", dir.join(h).display());
            }
            break;
        }
        if dir.is_dir() {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
    let include = find_include(&env)?;
    let parsed = parse(&include)?;
    let out_dir = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or("OUT_DIR is not set: run this from a cargo build script")?;
    let path = out_dir.join(krate.file_name());
    std::fs::write(&path, krate.text(&parsed))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
