//! Finding and loading libcudart / libcuda, once per process, shared by every table.
//!
//! Tables hold no handles: the loaded backend lives in a process-wide cache and is never unloaded
//! (resolved pointers must stay valid). The outcome of a search, success or failure, is cached
//! too, so the environment is read once, at the first resolution.
//!
//! # Search order
//!
//! The first of these that applies decides; an explicit path is used alone, without falling back
//! to a search, so a mistake in it is reported instead of silently loading another library.
//!
//! 1. The path given in code: [`Config::library`](crate::Config::library) (used as given).
//! 2. The environment variable `CUDA_DRIVER_TABLE_CUDART` (runtime backend) or
//!    `CUDA_DRIVER_TABLE_LIBCUDA` (driver backend): an absolute path, or a bare file name for the
//!    system loader. A relative path with a `/` is refused (it would depend on the current
//!    directory).
//!
//! Otherwise the libraries below are tried in order, and the first that loads and exports a
//! lookup function wins:
//!
//! 3. Runtime only: `$CUDA_PATH/lib64`, `$CUDA_PATH/lib`, `$CUDA_HOME/lib64`, `$CUDA_HOME/lib`,
//!    each with `libcudart.so.13`, `libcudart.so.12`, `libcudart.so.11.0`. Variables that are not
//!    absolute paths are skipped. The toolkit's `lib64/stubs` is never used (its libcuda is a stub
//!    that fails every call).
//! 4. The system loader's names (`LD_LIBRARY_PATH`, `ld.so.cache`, the system folders):
//!    runtime `libcudart.so.13`, `libcudart.so.12`, `libcudart.so.11.0`; driver `libcuda.so.1`.
//! 5. Runtime only: the pip wheel layouts of the active Python environment, if `$VIRTUAL_ENV` or
//!    `$CONDA_PREFIX` is set: `lib/python3.*/site-packages/nvidia/cu13/lib/libcudart.so.13`, then
//!    `.../nvidia/cuda_runtime/lib/libcudart.so.12` and `libcudart.so.11.0`.
//!
//! Never the current directory, and never a relative path the user did not give. When nothing
//! loads, the error lists every path tried with the loader's message for it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use libloading::Library;

use crate::config::{Backend, Config};
use crate::error::{Error, ErrorKind};
use crate::resolve::{Cudart, Libcuda, Resolver};

/// Environment variable naming the libcudart to load (runtime backend).
pub(crate) const ENV_CUDART: &str = "CUDA_DRIVER_TABLE_CUDART";
/// Environment variable naming the libcuda to load (driver backend).
pub(crate) const ENV_LIBCUDA: &str = "CUDA_DRIVER_TABLE_LIBCUDA";

const CUDART_NAMES: &[&str] = &["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"];
const LIBCUDA_NAME: &str = "libcuda.so.1";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Runtime,
    Driver,
}

impl Kind {
    fn library(self) -> &'static str {
        match self {
            Kind::Runtime => "libcudart",
            Kind::Driver => "libcuda",
        }
    }

    fn env_var(self) -> &'static str {
        match self {
            Kind::Runtime => ENV_CUDART,
            Kind::Driver => ENV_LIBCUDA,
        }
    }

    fn lookup_symbols(self) -> &'static [&'static str] {
        match self {
            Kind::Runtime => crate::resolve::cudart::LOOKUP_SYMBOLS,
            Kind::Driver => crate::resolve::libcuda::LOOKUP_SYMBOLS,
        }
    }
}

type Loaded = Result<&'static dyn Resolver, Error>;

static DEFAULT_RUNTIME: OnceLock<Loaded> = OnceLock::new();
static DEFAULT_DRIVER: OnceLock<Loaded> = OnceLock::new();
static EXPLICIT: Mutex<Vec<(Kind, &'static Path, Loaded)>> = Mutex::new(Vec::new());

/// The resolver for `config`, loading its library on first use.
pub(crate) fn resolver_for(config: &Config) -> Result<&'static dyn Resolver, Error> {
    let kind = match config.backend() {
        Backend::Custom(resolver) => return Ok(resolver),
        Backend::Runtime => Kind::Runtime,
        Backend::Driver => Kind::Driver,
    };
    match config.library_path() {
        Some(path) => explicit(kind, path),
        None => {
            let cell = match kind {
                Kind::Runtime => &DEFAULT_RUNTIME,
                Kind::Driver => &DEFAULT_DRIVER,
            };
            cell.get_or_init(|| load_plan(kind, plan(kind, &|var| std::env::var_os(var))))
                .clone()
        }
    }
}

fn explicit(kind: Kind, path: &'static Path) -> Loaded {
    // The lock is held while loading so that one path is loaded once.
    let mut cache = EXPLICIT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, _, loaded)) = cache.iter().find(|(k, p, _)| *k == kind && *p == path) {
        return loaded.clone();
    }
    let loaded = load_plan(
        kind,
        Plan::Exact {
            path: path.to_path_buf(),
            origin: "Config::library",
        },
    );
    cache.push((kind, path, loaded.clone()));
    loaded
}

/// What to load.
#[derive(Debug, PartialEq, Eq)]
enum Plan {
    /// One path the user named; nothing else is tried.
    Exact { path: PathBuf, origin: &'static str },
    /// Candidates in order; `skipped` are notes for the error message.
    Search {
        candidates: Vec<PathBuf>,
        skipped: Vec<(String, String)>,
    },
    /// The user named a path that must not be used.
    Refused { what: String, why: String },
}

/// The plan for `kind` without an explicit path in code. `env` reads environment variables.
fn plan(kind: Kind, env: &dyn Fn(&str) -> Option<OsString>) -> Plan {
    let var = kind.env_var();
    if let Some(value) = env(var).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(value);
        if path.is_relative() && path.components().count() > 1 {
            return Plan::Refused {
                what: format!("{} (from ${var})", path.display()),
                why: "a relative path is not used (it would depend on the current directory); \
                      give an absolute path or a bare file name"
                    .to_owned(),
            };
        }
        return Plan::Exact {
            path,
            origin: match kind {
                Kind::Runtime => "$CUDA_DRIVER_TABLE_CUDART",
                Kind::Driver => "$CUDA_DRIVER_TABLE_LIBCUDA",
            },
        };
    }

    let mut candidates = Vec::new();
    let mut skipped = Vec::new();
    // Absolute directories from these variables; others are noted and skipped.
    let mut dirs_from = |vars: &[&str]| -> Vec<PathBuf> {
        let mut dirs = Vec::new();
        for var in vars {
            let Some(value) = env(var).filter(|v| !v.is_empty()) else {
                continue;
            };
            let dir = PathBuf::from(value);
            if dir.is_absolute() {
                dirs.push(dir);
            } else {
                skipped.push((
                    format!("${var}={}", dir.display()),
                    "skipped: not an absolute path".to_owned(),
                ));
            }
        }
        dirs
    };

    match kind {
        Kind::Driver => candidates.push(PathBuf::from(LIBCUDA_NAME)),
        Kind::Runtime => {
            for root in dirs_from(&["CUDA_PATH", "CUDA_HOME"]) {
                for sub in ["lib64", "lib"] {
                    for name in CUDART_NAMES {
                        candidates.push(root.join(sub).join(name));
                    }
                }
            }
            candidates.extend(CUDART_NAMES.iter().map(PathBuf::from));
            for prefix in dirs_from(&["VIRTUAL_ENV", "CONDA_PREFIX"]) {
                for site in site_packages(&prefix) {
                    let nvidia = site.join("nvidia");
                    candidates.push(nvidia.join("cu13/lib/libcudart.so.13"));
                    candidates.push(nvidia.join("cuda_runtime/lib/libcudart.so.12"));
                    candidates.push(nvidia.join("cuda_runtime/lib/libcudart.so.11.0"));
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|c| seen.insert(c.clone()));
    Plan::Search {
        candidates,
        skipped,
    }
}

/// `prefix/lib/python3.*/site-packages`, newest Python first (only existing folders).
fn site_packages(prefix: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(prefix.join("lib")) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, PathBuf)> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name();
            let minor: u32 = name.to_str()?.strip_prefix("python3.")?.parse().ok()?;
            let site = e.path().join("site-packages");
            site.is_dir().then_some((minor, site))
        })
        .collect();
    found.sort_by_key(|(minor, _)| std::cmp::Reverse(*minor));
    found.into_iter().map(|(_, p)| p).collect()
}

fn load_plan(kind: Kind, plan: Plan) -> Loaded {
    let not_found = |tried| -> Error {
        ErrorKind::LibraryNotFound {
            library: kind.library(),
            tried,
        }
        .into()
    };
    match plan {
        Plan::Refused { what, why } => Err(not_found(vec![(what, why)])),
        Plan::Exact { path, origin } => match open(kind, &path) {
            Opened::Ok(resolver) => Ok(resolver),
            Opened::LoadFailed(why) => Err(not_found(vec![(
                format!("{} (from {origin})", path.display()),
                why,
            )])),
            Opened::NotCuda => Err(ErrorKind::NotACudaLibrary {
                library: kind.library(),
                path: path.display().to_string(),
                missing: kind.lookup_symbols().to_vec(),
            }
            .into()),
        },
        Plan::Search {
            candidates,
            mut skipped,
        } => {
            let mut tried = Vec::new();
            tried.append(&mut skipped);
            for path in candidates {
                match open(kind, &path) {
                    Opened::Ok(resolver) => return Ok(resolver),
                    Opened::LoadFailed(why) => tried.push((path.display().to_string(), why)),
                    Opened::NotCuda => tried.push((
                        path.display().to_string(),
                        format!(
                            "loaded, but exports none of {}; not a CUDA library",
                            kind.lookup_symbols().join(", ")
                        ),
                    )),
                }
            }
            Err(not_found(tried))
        }
    }
}

/// The loader's own message (`dlerror`), which libloading keeps in the error's source.
fn loader_message(e: &libloading::Error) -> String {
    match std::error::Error::source(e) {
        Some(source) => source.to_string(),
        None => e.to_string(),
    }
}

enum Opened {
    Ok(&'static dyn Resolver),
    LoadFailed(String),
    NotCuda,
}

fn open(kind: Kind, path: &Path) -> Opened {
    // SAFETY: loading runs the library's initialisers. The path is a CUDA library's name or
    // location, or one the user named as such; running its initialisers is what using CUDA means.
    let lib = match unsafe { Library::new(path) } {
        Ok(lib) => lib,
        Err(e) => return Opened::LoadFailed(loader_message(&e)),
    };
    let exports = |name: &str| {
        // SAFETY: only the symbol's presence is checked; the pointer is not used.
        unsafe { lib.get::<*mut std::ffi::c_void>(name) }.is_ok()
    };
    if !kind.lookup_symbols().iter().any(|name| exports(name)) {
        // Not ours: dropping it unloads it again.
        return Opened::NotCuda;
    }
    // Leaked: pointers resolved through it must stay valid for the rest of the process.
    let lib: &'static Library = Box::leak(Box::new(lib));
    let display = path.display().to_string();
    let resolver: Option<&'static dyn Resolver> = match kind {
        // SAFETY: a library exporting libcudart's lookup functions is taken to be libcudart.
        Kind::Runtime => unsafe { Cudart::new(lib, display) }
            .map(|r| &*Box::leak(Box::new(r)) as &'static dyn Resolver),
        // SAFETY: a library exporting cuGetProcAddress* is taken to be the CUDA driver.
        Kind::Driver => unsafe { Libcuda::new(lib, display) }
            .map(|r| &*Box::leak(Box::new(r)) as &'static dyn Resolver),
    };
    resolver.map_or(Opened::NotCuda, Opened::Ok)
}

#[cfg(test)]
mod tests;
