//! Bindings from a local toolkit: what the build script of `cuda-driver-table-local` does when the
//! `cuda-local` feature of `cuda-driver-table` is on (it enables the feature of the same name of
//! `cuda-driver-table-sys`, `-macros` and `-local`).
//!
//! The headers come from `CUDA_DRIVER_TABLE_INCLUDE` when it is set (that folder alone), or else
//! from the first of `$CUDA_PATH/include` and `/usr/local/cuda/include` that holds `cuda.h` and
//! `cudaTypedefs.h`; the release number is `CUDA_VERSION` of that `cuda.h`. A release feature
//! enabled with `cuda-local` is reported before anything is searched. The headers go through
//! exactly the code that generates the committed releases ([`pipeline::parse_release`] with a
//! [`Source::Local`]), once per build, into the `OUT_DIR` of `cuda-driver-table-local` (nothing in
//! the source tree changes), where each crate finds the per-release text the committed files give
//! it for a pinned release, for this one release alone.

use crate::emit;
use crate::parse;
use crate::pipeline::{self, ParsedRelease, Source};
use crate::releases::RELEASES;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The environment variable naming the include folder to use. When it is set, it is the only
/// folder used: a build never falls back to other headers, which may be of another release.
pub const INCLUDE_VAR: &str = "CUDA_DRIVER_TABLE_INCLUDE";

/// The environment variable of a CUDA installation; its `include` folder is searched first when
/// [`INCLUDE_VAR`] is not set.
pub const CUDA_PATH_VAR: &str = "CUDA_PATH";

/// The include folder searched last.
pub const DEFAULT_INCLUDE: &str = "/usr/local/cuda/include";

/// The headers a local include folder must hold.
pub const HEADERS: [&str; 2] = ["cuda.h", "cudaTypedefs.h"];

/// The environment variables whose change must rerun a build script (libclang's as well).
pub const ENV_VARS: [&str; 4] = [INCLUDE_VAR, CUDA_PATH_VAR, "LIBCLANG_PATH", "CC"];

/// Reads an environment variable. A parameter of the functions below, so that tests need not
/// change the process environment; a build script passes [`process_env`].
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment as an [`Env`]. A value that is not UTF-8 is read lossily rather than
/// as unset: a folder that cannot exist is reported, where unset would search other folders.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// The release features (`cuda-XXXXX`) cargo has enabled on the crate being built, besides
/// `cuda-local` (`CARGO_FEATURE_CUDA_13000`, ... of the pinned releases).
pub fn enabled_releases(var: Env) -> Vec<u32> {
    RELEASES
        .iter()
        .map(|r| r.version)
        .filter(|v| var(&format!("CARGO_FEATURE_CUDA_{v}")).is_some())
        .collect()
}

/// The include folders to search, in order, each with where it came from:
/// `$CUDA_DRIVER_TABLE_INCLUDE` alone when it is set, or else `$CUDA_PATH/include` (when set) and
/// [`DEFAULT_INCLUDE`]. A variable that is set but empty, or relative, is an error: each build
/// script would read a relative path from its own crate's folder.
pub fn candidates(var: Env) -> Result<Vec<(PathBuf, String)>, String> {
    if let Some(dir) = var(INCLUDE_VAR) {
        if dir.is_empty() {
            return Err(format!(
                "{INCLUDE_VAR} is set but empty. Set it to the folder that holds cuda.h and \
                 cudaTypedefs.h, or unset it to search ${CUDA_PATH_VAR}/include and {DEFAULT_INCLUDE}."
            ));
        }
        let dir = absolute(var, INCLUDE_VAR, &dir)?;
        return Ok(vec![(dir, format!("${INCLUDE_VAR}"))]);
    }
    let mut out = Vec::new();
    match var(CUDA_PATH_VAR) {
        Some(dir) if !dir.is_empty() => out.push((
            absolute(var, CUDA_PATH_VAR, &dir)?.join("include"),
            format!("${CUDA_PATH_VAR}/include"),
        )),
        _ => {}
    }
    out.push((PathBuf::from(DEFAULT_INCLUDE), "the default".to_string()));
    Ok(out)
}

/// `value` of the variable `name` as a path, refused when relative: cargo runs each build script
/// in its own crate's folder (`CARGO_MANIFEST_DIR`), which the error names.
fn absolute(var: Env, name: &str, value: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(value);
    if path.is_absolute() {
        return Ok(path);
    }
    let crate_dir = var("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let read_from = match (&crate_dir, var("CARGO_PKG_NAME")) {
        (Some(dir), Some(krate)) => format!(
            ", so {krate} would read {} (its folder is {})",
            dir.join(&path).display(),
            dir.display()
        ),
        (Some(dir), None) => format!(", so this one would read {}", dir.join(&path).display()),
        _ => String::new(),
    };
    Err(format!(
        "{name}={value} is a relative path: cargo runs each build script in its own crate's folder, \
         not where cargo was started{read_from}. Set {name} to an absolute path."
    ))
}

/// What a build script with `cuda-local` settles before running bindgen: that no release feature
/// is enabled as well (said first, as it is what to fix even when no headers are found), then
/// the include folder, as [`find_include`] finds it.
pub fn include_folder(var: Env) -> Result<PathBuf, String> {
    let enabled = enabled_releases(var);
    if !enabled.is_empty() {
        return Err(emit::local_conflict_message(&enabled));
    }
    find_include(var)
}

/// The first candidate that holds both headers, or an error listing every folder searched, in
/// order, with what each lacked, and what to do.
pub fn find_include(var: Env) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    for (dir, origin) in candidates(var)? {
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
        } else if dir.exists() {
            "is a file, not a folder: give the folder that holds cuda.h".to_string()
        } else {
            "does not exist".to_string()
        };
        // Quoted: a blank at an end of the path would not show otherwise.
        tried.push(format!("  {dir:?} ({origin}): {what}"));
    }
    if var(INCLUDE_VAR).is_some() {
        return Err(format!(
            "the cuda-local feature needs cuda.h and cudaTypedefs.h of a CUDA toolkit in the folder \
             {INCLUDE_VAR} names, the only one searched when it is set:\n{}\n\
             Set {INCLUDE_VAR} to the folder that holds both, or unset it to search \
             ${CUDA_PATH_VAR}/include and {DEFAULT_INCLUDE}.",
            tried.join("\n")
        ));
    }
    let unset = if var(CUDA_PATH_VAR).is_none_or(|s| s.is_empty()) {
        format!(" ({INCLUDE_VAR}, {CUDA_PATH_VAR} not set)")
    } else {
        format!(" ({INCLUDE_VAR} not set)")
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
    crate::add::cuda_h_version(&text).ok_or_else(|| {
        format!(
            "{} has no `#define CUDA_VERSION <number>`: is it the CUDA driver API header?",
            path.display()
        )
    })
}

/// The functions `cuda.h` declares (`CUresult CUDAAPI cuX(`), by their names without an ABI or
/// per-thread suffix (`cuCtxCreate_v4` and `cuMemcpy_ptds` are `cuCtxCreate` and `cuMemcpy`).
fn declared_functions(cuda_h: &str) -> BTreeSet<&str> {
    cuda_h
        .split("CUDAAPI")
        .skip(1)
        .filter_map(|after| {
            after
                .trim_start()
                .split_once('(')
                .map(|(name, _)| name.trim())
        })
        .filter(|name| name.starts_with("cu") && !name.contains(char::is_whitespace))
        .map(base_name)
        .collect()
}

/// The `PFN_cuX_vN` typedefs of `cudaTypedefs.h`: each function's name (as [`declared_functions`])
/// and ABI version.
fn typedefs(cuda_typedefs_h: &str) -> Vec<(&str, u32)> {
    cuda_typedefs_h
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter_map(|word| {
            let word = word.strip_prefix("PFN_")?;
            let word = word
                .strip_suffix("_ptds")
                .or_else(|| word.strip_suffix("_ptsz"))
                .unwrap_or(word);
            let (name, version) = word.rsplit_once("_v")?;
            Some((base_name(name), version.parse().ok()?))
        })
        .collect()
}

/// `name` without a per-thread suffix and then an ABI suffix (`_v2`).
fn base_name(name: &str) -> &str {
    let name = name
        .strip_suffix("_ptds")
        .or_else(|| name.strip_suffix("_ptsz"))
        .unwrap_or(name);
    match name.rsplit_once("_v") {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

/// Checks that `cuda.h` (of release `version`) and `cudaTypedefs.h` in `include` are of one
/// release, as a toolkit ships them: no typedef of an ABI newer than `cuda.h`, and a typedef for
/// every function `cuda.h` declares. Headers of two releases in one folder would otherwise build
/// as one release with the other's functions, or fail in bindgen with errors that do not say why.
pub fn check_headers_agree(include: &Path, version: u32) -> Result<(), String> {
    let read = |name: &str| {
        let path = include.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path:?}: {e}"))
    };
    let (cuda_h, cuda_typedefs_h) = (read("cuda.h")?, read("cudaTypedefs.h")?);
    let typedefs = typedefs(&cuda_typedefs_h);
    let newest = typedefs.iter().map(|t| t.1).max().unwrap_or(0);
    let typed: BTreeSet<&str> = typedefs.iter().map(|t| t.0).collect();
    let untyped: Vec<&str> = declared_functions(&cuda_h)
        .into_iter()
        .filter(|f| !typed.contains(f))
        .collect();
    let release = crate::releases::release_name;
    let why = if newest > version {
        format!(
            "cudaTypedefs.h is of a newer release: it has typedefs of ABI {newest} (CUDA {})",
            release(newest)
        )
    } else if !untyped.is_empty() {
        let shown = untyped
            .iter()
            .take(3)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        let more = match untyped.len() {
            n @ 4.. => format!(" and {} more", n - 3),
            _ => String::new(),
        };
        format!(
            "cudaTypedefs.h is of an older release (its newest ABI is {newest}, CUDA {}): it has no \
             typedef for {shown}{more}",
            release(newest)
        )
    } else {
        return Ok(());
    };
    Err(format!(
        "the headers in {include:?} are of two releases: cuda.h says CUDA {} (CUDA_VERSION \
         {version}), but {why}. Use cuda.h and cudaTypedefs.h of one toolkit, in one folder.",
        release(version)
    ))
}

/// Parses the toolkit headers in `include`: the committed generation's path, with a
/// [`Source::Local`] of the version `cuda.h` declares.
pub fn parse(include: &Path) -> Result<ParsedRelease, String> {
    let version = header_version(include)?;
    check_headers_agree(include, version)?;
    parse::check_libclang("the cuda-local feature runs bindgen")?;
    pipeline::parse_release(
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

/// The files of the `cuda-driver-table-local` crate for one parsed release, by name, written into
/// its `OUT_DIR`: the release (`release.rs`), the macro's records and doc texts (`manifest.txt`,
/// `docs.txt`), and the bindings and the ABI list, each as the body of an exported macro that the
/// `sys` crate and the runtime invoke (`bindings.rs`, `abis.rs`), so that the items are theirs.
pub fn files(r: &ParsedRelease) -> Vec<(&'static str, String)> {
    let mut out = emit::local_manifest_files(r).to_vec();
    out.push((
        "bindings.rs",
        exported_macro(
            "bindings",
            "The bindings of the local toolkit, as items of the crate that invokes it (`cuda-driver-table-sys`).",
            &emit::local_bindings_text(r),
        ),
    ));
    out.push((
        "abis.rs",
        exported_macro(
            "abis",
            "The ABI list of the local toolkit, as items of the module that invokes it (`cuda-driver-table`'s `manifest`).",
            &emit::local_abis_text(r),
        ),
    ));
    out
}

/// `#[macro_export] macro_rules! name { () => { items } }`. The items are the invoking crate's
/// own (a `crate::` path in them means that crate, as in the committed files they stand for),
/// hence the allowed `clippy::crate_in_macro_def`.
fn exported_macro(name: &str, doc: &str, items: &str) -> String {
    format!(
        "/// {doc}\n#[doc(hidden)]\n#[macro_export]\n#[allow(clippy::crate_in_macro_def)]\nmacro_rules! {name} {{\n    () => {{\n{items}\n    }};\n}}\n"
    )
}

/// What the build script of `cuda-driver-table-local` does with its `cuda-local` feature on:
/// finds the headers, tells cargo when to rerun, generates [`files`] into `OUT_DIR`. Any failure
/// exits with the message on stderr (which cargo shows) instead of a panic.
pub fn build_script() {
    if let Err(e) = run_build_script() {
        eprintln!("error: cuda-driver-table (feature cuda-local): {e}");
        std::process::exit(1);
    }
}

fn run_build_script() -> Result<(), String> {
    for var in ENV_VARS {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let env = process_env;
    // The headers of the folder used, and the folders searched before it (a header put there
    // later would change which one is used). A missing path is not named: cargo would rerun always.
    for (dir, _) in candidates(&env).unwrap_or_default() {
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
    let include = include_folder(&env)?;
    let parsed = parse(&include)?;
    let out_dir = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or("OUT_DIR is not set: run this from a cargo build script")?;
    for (name, text) in files(&parsed) {
        let path = out_dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}
