//! Finding and loading libcudart / libcuda, once per process, shared by every table, and
//! [`resolve`], the public way to resolve one function through a [`Config`].
//!
//! Tables hold no handles: the loaded backend lives in a process-wide cache and is never unloaded
//! (resolved pointers must stay valid). The outcome of loading, success or failure, is kept for
//! the rest of the process (per search, and per path given in code): a program that installs or
//! fixes its CUDA library while running must restart to use it. The environment the search reads
//! is the one the program started with ([`environment`]: on Linux `/proc/self/environ`,
//! elsewhere read before `main`): no code of the program can choose the library by setting a
//! variable. Only a function's resolution is retried: a field whose lookup failed asks the loaded
//! backend again on its next call.
//!
//! # Search order
//!
//! The first of these that applies decides; an explicit path is used alone, without falling back
//! to a search, so a mistake in it is reported instead of silently loading another library.
//!
//! 1. The path given in code: [`Config::library`] (used as given; naming it is `unsafe`).
//! 2. The environment variable `CUDA_DRIVER_TABLE_CUDART` (runtime backend) or
//!    `CUDA_DRIVER_TABLE_LIBCUDA` (driver backend): an absolute path, or a bare file name for the
//!    system loader. Its value at the program's start; one changed since is refused.
//!
//! In both, an empty path, a path with a NUL byte and a relative path with a `/` (`lib/x.so`,
//! `x/`, `./x.so`) are refused: `dlopen("")` returns the program itself, the loader would read a
//! path only up to a NUL, and a relative path would depend on the current directory. A bare name
//! is refused too while `LD_LIBRARY_PATH` has an entry that makes the loader read the current
//! directory (below).
//!
//! Otherwise the libraries below are tried in order, and the first that loads and exports a
//! lookup function wins:
//!
//! 3. Runtime only: `$CUDA_PATH/lib64`, `$CUDA_PATH/lib`, `$CUDA_HOME/lib64`, `$CUDA_HOME/lib`,
//!    each with `libcudart.so.13`, `libcudart.so.12`, `libcudart.so.11.0`. Variables that are not
//!    absolute paths are skipped; the others are used as the bytes they are (UTF-8 or not). The
//!    toolkit's `lib64/stubs` is never used (its libcuda is a stub that fails every call).
//! 4. The system loader's names (`LD_LIBRARY_PATH`, `ld.so.cache`, the system folders):
//!    runtime `libcudart.so.13`, `libcudart.so.12`, `libcudart.so.11.0`; driver `libcuda.so.1`.
//!    While `LD_LIBRARY_PATH` has an empty entry (a leading, trailing or doubled `:`) or a
//!    relative one, the loader would search the current directory for them: then they are tried
//!    by full path instead, in the absolute folders of `LD_LIBRARY_PATH` and then in the system's
//!    library folders (`/etc/ld.so.conf` and its includes, which `ld.so.cache` is built from,
//!    then `/lib/<arch>-linux-gnu`, `/usr/lib/<arch>-linux-gnu`, `/lib64`, `/usr/lib64`, `/lib`,
//!    `/usr/lib`; read only when the search gets to them), and the error notes the loader's own
//!    search as not made. (`LD_LIBRARY_PATH` as the program started with it, as the loader
//!    reads it.)
//! 5. Runtime only, the active Python environment: the pip wheel layouts of `$VIRTUAL_ENV`, then
//!    conda-forge's `cuda-cudart` in `$CONDA_PREFIX/lib` and the wheel layouts of
//!    `$CONDA_PREFIX`. A wheel layout is
//!    `lib/python3.*/site-packages/nvidia/cu13/lib/libcudart.so.13`, then
//!    `.../nvidia/cuda_runtime/lib/libcudart.so.12` and `libcudart.so.11.0` (newest Python first;
//!    a free-threaded `python3.13t` after `python3.13`).
//!
//! This crate never hands the loader a path that depends on the current directory. What a loaded
//! library loads by name in turn (libcudart loads `libcuda.so.1`), and the program's own
//! start-up, follow the system loader's rules, an unsafe `LD_LIBRARY_PATH` entry included. When
//! nothing loads, the error lists every path tried (quoted) with the loader's message for it and,
//! for a path made from or named by a variable or code, where it came from (`(from $CUDA_PATH)`,
//! `(from $CUDA_DRIVER_TABLE_CUDART)`, `(from Config::library)`), and advises for where the path
//! came from ([`Origin`]).
//!
//! ## On Windows
//!
//! The same order with Windows' files and folders (run under Wine by the test command, over
//! stand-in DLLs: `library/tests/windows.rs`):
//!
//! - The names: `nvcuda.dll` (driver); `cudart64_13.dll`, `cudart64_12.dll`, `cudart64_110.dll`
//!   (runtime).
//! - 3: `%CUDA_PATH%\bin\x64` (CUDA 13's folder), then `%CUDA_PATH%\bin`, then those of
//!   `%CUDA_HOME%`.
//! - 4: the bare names, loaded with `LoadLibraryExW` and `LOAD_LIBRARY_SEARCH_DEFAULT_DIRS`: the
//!   program's folder, the system folder and folders the program added with `AddDllDirectory`;
//!   never the current directory nor `PATH`, where plain `LoadLibraryW` would look (there is no
//!   `LD_LIBRARY_PATH`). A name that does not load is listed with where Windows looked.
//! - 5: the wheels of `%VIRTUAL_ENV%`
//!   (`Lib\site-packages\nvidia\cu13\bin\x86_64\cudart64_13.dll`, then
//!   `Lib\site-packages\nvidia\cuda_runtime\bin\cudart64_12.dll` and `cudart64_110.dll`), then
//!   conda-forge's `%CONDA_PREFIX%\Library\bin` and the wheels of `%CONDA_PREFIX%`.
//!
//! A full path is loaded with its own folder searched for the DLL's dependencies too
//! (`LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR`), its `/` turned into `\` first (with a `/` that flag does
//! not apply). Besides the refusals above, a path with a drive letter but no root (`C:x.dll`,
//! relative to that drive's current directory) or a root but no drive (`\x\nvcuda.dll`) is a
//! relative path; `C:\...`, `C:/...` and `\\server\share\...` are absolute.

use std::borrow::Cow;
use std::ffi::{c_void, CStr, OsStr, OsString};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::{Mutex, OnceLock, PoisonError};

use libloading::Library;

use crate::backend::{
    BuiltIn, BuiltInResolver, Candidate, Env, Loaded, Os, Searched, Source, VersionedLookup,
    DRIVER, RUNTIME,
};
use crate::config::{Backend, Config};
use crate::error::{quoted, CudaLibrary, Error, ErrorKind, Origin};
use crate::manifest::Abi;
use crate::resolve::{resolve_with, LookupResult, Query, Resolver, Versioning};
use crate::stream::StreamMode;

/// Resolves driver function `name` at ABI `abi` through `config`'s backend and stream mode, by
/// the same rules as a table's fields ([`Abi::request`] is what is asked); loads the library
/// on first use. Each call asks again (nothing is cached): tables are the way to call functions;
/// this is for tools and tests that check ABIs one by one, for example every ABI of
/// [`manifest::functions()`](crate::manifest::functions).
///
/// The pointer is the driver's function for exactly that ABI (in per-thread mode, its
/// per-thread twin where it has one); casting it to any other `PFN_*` type is undefined
/// behaviour.
///
/// # Errors
///
/// When the library cannot be loaded or the function cannot be resolved at that ABI (see
/// [`ErrorKind`]).
pub fn resolve(config: &Config, name: &'static str, abi: &Abi) -> Result<NonNull<c_void>, Error> {
    refuse_stand_in(config, "resolve")?;
    resolve_with(resolver_for(config)?, config.stream_mode(), name, abi)
}

impl Config {
    /// The loaded backend this configuration resolves through, loading its library on first use
    /// (once per process). Its [`Resolver::describe`] names the library and lookup in use.
    ///
    /// # Errors
    ///
    /// When the library cannot be found or is not a CUDA library (the error lists every path
    /// tried), or this is a stand-in driver's configuration (`Config::stand_in`: its resolver
    /// reaches none of its answers; make tables with the configuration itself).
    pub fn resolver(&self) -> Result<&'static dyn Resolver, Error> {
        refuse_stand_in(self, "Config::resolver")?;
        resolver_for(self)
    }
}

/// The refusal of [`Config::resolver`] and [`resolve`] for a stand-in's configuration
/// (`Config::stand_in`): its resolver, used on its own, would reach none of its answers, and
/// may hand out pointers that are not the functions (`StandIn`'s contract).
#[cfg_attr(not(feature = "stand-in"), allow(clippy::unnecessary_wraps))]
fn refuse_stand_in(config: &Config, function: &'static str) -> Result<(), Error> {
    #[cfg(feature = "stand-in")]
    if let Some(stand_in) = config.stand_in_driver() {
        return Err(ErrorKind::LookupFailed {
            function,
            status: crate::config::stand_in_refused(),
            backend: stand_in.describe(),
        }
        .into());
    }
    let _ = (config, function);
    Ok(())
}

/// The resolver for `config`, loading its library on first use.
pub(crate) fn resolver_for(config: &Config) -> Result<&'static dyn Resolver, Error> {
    source_for(config).map(Source::resolver)
}

/// What `config` resolves through, loading its library on first use.
pub(crate) fn source_for(config: &Config) -> Result<Source, Error> {
    #[cfg(feature = "stand-in")]
    if let Some(stand_in) = config.stand_in_driver() {
        return Ok(Source::Custom(stand_in));
    }
    let loaded = match config.backend() {
        Backend::Custom(resolver) => return Ok(Source::Custom(resolver)),
        Backend::Runtime if config.falls_back_to_driver() => runtime_or_driver(),
        Backend::Runtime => load(&RUNTIME, config.library_path()),
        Backend::Driver => load(&DRIVER, config.library_path()),
    };
    loaded.map(Source::BuiltIn)
}

/// The default configuration's resolver: the searched libcudart, or, when the search found no
/// libcudart at all, the searched libcuda, wrapped so that it says why it is in use. Decided once
/// per process, like the searches themselves.
fn runtime_or_driver() -> Loaded {
    static DECIDED: OnceLock<Searched> = OnceLock::new();
    let decide = || {
        let loaded = match search(&RUNTIME) {
            Searched {
                loaded: Err(runtime),
                found_no_file: true,
            } => match load(&DRIVER, None) {
                Ok(driver) => Ok(Box::leak(Box::new(InPlaceOfRuntime { driver })) as _),
                Err(driver) => Err(ErrorKind::NoCudaLibrary { runtime, driver }.into()),
            },
            Searched { loaded, .. } => loaded,
        };
        Searched {
            loaded,
            found_no_file: false,
        }
    };
    once(&DECIDED, &decide).loaded
}

/// The value of `cell`, made by `init` on first use: one instance of `OnceLock`'s generic code
/// for every cache of the loading code.
fn once(cell: &OnceLock<Searched>, init: &dyn Fn() -> Searched) -> Searched {
    cell.get_or_init(init).clone()
}

/// The driver's resolver standing in for the runtime backend of the default configuration.
struct InPlaceOfRuntime {
    driver: &'static dyn BuiltInResolver,
}

impl BuiltInResolver for InPlaceOfRuntime {
    fn versioned_lookup(&self) -> Option<VersionedLookup> {
        self.driver.versioned_lookup()
    }
}

// SAFETY: every answer is the driver backend's own, which keeps the contract.
unsafe impl Resolver for InPlaceOfRuntime {
    fn describe(&self) -> String {
        format!(
            "{}, in place of libcudart, which the search did not find (the default \
             configuration; `backend = runtime` or Config::runtime() keeps to libcudart)",
            self.driver.describe()
        )
    }
    fn versioning(&self) -> Versioning {
        self.driver.versioning()
    }
    fn lookup(&self, symbol: &CStr, query: Query, mode: StreamMode) -> LookupResult {
        self.driver.lookup(symbol, query, mode)
    }
    fn driver_version(&self) -> Option<u32> {
        self.driver.driver_version()
    }
    fn error_strings(&self, code: u32) -> (Option<String>, Option<String>) {
        self.driver.error_strings(code)
    }
}

/// The library of `built_in`: the one at `path`, or the outcome of the search.
fn load(built_in: &BuiltIn, path: Option<&'static Path>) -> Loaded {
    match path {
        Some(path) => explicit(built_in, path),
        None => search(built_in).loaded,
    }
}

/// The process-wide search for `built_in`'s library (made once).
fn search(built_in: &BuiltIn) -> Searched {
    once(built_in.searched, &|| {
        let var = built_in.library.env_var;
        let plan = match environment::changed_after_start(
            var,
            environment::at_start(var),
            environment::now(var),
            environment::READ_BEFORE_MAIN,
        ) {
            Some((path, why)) => Plan::Refused {
                path: PathBuf::from(path),
                origin: Origin::Environment,
                why,
            },
            None => plan(built_in, Os::CURRENT, &process_env),
        };
        load_plan(built_in, plan)
    })
}

/// The process environment, as search plans read it: as it was when the program started
/// ([`environment`]).
fn process_env(var: &str) -> Option<OsString> {
    environment::at_start(var)
}

/// Libraries loaded from paths given in code: `(library, path, outcome)`.
static EXPLICIT: Mutex<Vec<(&str, &Path, Loaded)>> = Mutex::new(Vec::new());

fn explicit(built_in: &BuiltIn, path: &'static Path) -> Loaded {
    let name = built_in.library.name;
    // The lock is held while loading so that one path is loaded once.
    let mut cache = EXPLICIT.lock().unwrap_or_else(PoisonError::into_inner);
    // Compared as strings: `Path` equality ignores a trailing `/` or `/.`, which the rules do not.
    if let Some((_, _, loaded)) = cache
        .iter()
        .find(|(library, p, _)| *library == name && p.as_os_str() == path.as_os_str())
    {
        return loaded.clone();
    }
    let plan = named(
        Os::CURRENT,
        path.as_os_str().to_owned(),
        Origin::Code,
        &process_env,
    );
    let loaded = load_plan(built_in, plan).loaded;
    cache.push((name, path, loaded.clone()));
    loaded
}

/// What to load.
#[cfg_attr(test, derive(Debug, PartialEq, Eq))]
enum Plan {
    /// One path the user named; nothing else is tried.
    Exact { path: PathBuf, origin: Origin },
    /// Candidates in order, each with the variable it came from; `skipped` are notes for the
    /// error message. With
    /// `in_system_folders` (while `LD_LIBRARY_PATH` makes the loader read the current directory),
    /// a bare name is not handed to the loader: it stands for that name in each of the system's
    /// library folders ([`system_library_folders`]), which are read only if the search gets
    /// that far.
    Search {
        candidates: Vec<Candidate>,
        skipped: Vec<(String, String)>,
        in_system_folders: bool,
    },
    /// The user named a path that must not be used.
    Refused {
        path: PathBuf,
        origin: Origin,
        why: String,
    },
}

/// The plan for `built_in`'s library on `os` without an explicit path in code. `env` reads
/// environment variables.
fn plan(built_in: &BuiltIn, os: Os, env: Env<'_>) -> Plan {
    if let Some(value) = env(built_in.library.env_var) {
        if !value.is_empty() {
            return named(os, value, Origin::Environment, env);
        }
    }
    let mut skipped = Vec::new();
    let mut candidates = (built_in.candidates)(os, env, &mut skipped);
    let unsafe_path = loader_reads_current_directory(os, env);
    if let Some(unsafe_path) = &unsafe_path {
        candidates = keep_names_from_the_loader(candidates, unsafe_path, &mut skipped);
    }
    keep_first(&mut candidates);
    Plan::Search {
        candidates,
        skipped,
        in_system_folders: unsafe_path.is_some(),
    }
}

/// The plan for a path the user named (in code or in the environment): used alone, if it is
/// absolute or a bare file name for the system loader. Refused: an empty path (`dlopen` would
/// return the program itself), a path with a NUL byte (no file has one; the loader would read a
/// shorter path), a relative path with a separator (`lib/x.so`, `x/`, `x/.`: it would depend on
/// the current directory), and a bare name while `LD_LIBRARY_PATH` makes the loader read the
/// current directory.
fn named(os: Os, path: OsString, origin: Origin, env: Env<'_>) -> Plan {
    let refuse = |why: String| Plan::Refused {
        path: PathBuf::from(path.clone()),
        origin,
        why,
    };
    let bytes = path.as_encoded_bytes();
    if bytes.is_empty() {
        return refuse(
            "an empty path names no library; give an absolute path or a bare file name".into(),
        );
    }
    if bytes.contains(&0) {
        return refuse(
            "a path with a NUL byte names no file (the loader would read the path up to it); \
             give the library's absolute path"
                .into(),
        );
    }
    if !os.is_absolute(&path) {
        if os.has_folder(&path) {
            return refuse(
                "a relative path is not used (it would depend on the current directory); give \
                 an absolute path or a bare file name"
                    .into(),
            );
        }
        if let Some(ld_path) = loader_reads_current_directory(os, env) {
            return refuse(format!(
                "a bare file name is not handed to the system loader while \
                 $LD_LIBRARY_PATH={} has an empty or relative entry, which makes the loader search \
                 the current directory; give the library's absolute path, or remove that entry \
                 (a leading, trailing or doubled ':')",
                quoted(&ld_path)
            ));
        }
    }
    Plan::Exact {
        path: PathBuf::from(path),
        origin,
    }
}

/// `LD_LIBRARY_PATH`, when one of its entries makes the system loader search the current
/// directory for a bare file name: an empty entry (a leading, trailing or doubled `:` or `;`, both
/// separators to glibc) or any entry that is not an absolute folder (`lib`, `.`, `$LIB/x`, whose
/// `$LIB` is relative), except `$ORIGIN`, the program's own folder ([`starts_at_origin`]). Unix
/// only: Windows loads bare names without the current directory (`load_library`).
fn loader_reads_current_directory(os: Os, env: Env<'_>) -> Option<OsString> {
    if os != Os::Unix {
        return None;
    }
    // An empty value is no path at all to the loader, not one empty entry.
    let value = env("LD_LIBRARY_PATH").filter(|v| !v.is_empty())?;
    let reads_cwd = entries(&value).any(|entry| {
        let entry = entry.as_encoded_bytes();
        !(entry.starts_with(b"/") || starts_at_origin(entry))
    });
    reads_cwd.then_some(value)
}

/// Whether an entry of `LD_LIBRARY_PATH` starts with the loader's token for the program's folder:
/// `$ORIGIN` or `${ORIGIN}`, alone or followed by `/` (`$ORIGINX` is a relative folder of that
/// name, as the loader reads it).
fn starts_at_origin(entry: &[u8]) -> bool {
    [&b"$ORIGIN"[..], b"${ORIGIN}"].iter().any(|token| {
        entry
            .strip_prefix(*token)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(b"/"))
    })
}

/// The search's candidates with each bare name (one the system loader would look up) replaced by
/// that name in each absolute folder of `ld_path`, the loader's order, followed by the bare name
/// itself, which the plan's `in_system_folders` makes stand for the name in each of the system's
/// folders (the folders behind the loader's own search, [`system_library_folders`]); the
/// loader's search itself is noted in `skipped` as not made. The paths in `LD_LIBRARY_PATH`'s
/// folders come from that variable.
fn keep_names_from_the_loader(
    candidates: Vec<Candidate>,
    ld_path: &OsStr,
    skipped: &mut Vec<(String, String)>,
) -> Vec<Candidate> {
    let folders = absolute_entries(ld_path);
    // The names searched for, quoted, as they come.
    let mut names = Vec::new();
    let mut kept = Vec::new();
    for candidate in candidates {
        if Os::Unix.has_folder(candidate.path.as_os_str()) {
            kept.push(candidate);
            continue;
        }
        kept.extend(
            folders
                .iter()
                .map(|folder| Candidate::from_var(folder.join(&candidate.path), "LD_LIBRARY_PATH")),
        );
        names.push(quoted(candidate.path.as_os_str()));
        kept.push(candidate);
    }
    if !names.is_empty() {
        skipped.push((
            format!("the system loader's search for {}", names.join(", ")),
            format!(
                "not made: $LD_LIBRARY_PATH={} has an empty or relative entry, which makes the \
                 loader search the current directory; these names were tried in its absolute \
                 folders and in the system's library folders ({LD_SO_CONF} and the usual ones) \
                 instead. Remove that entry (a leading, trailing or doubled ':') to let the \
                 loader search as usual",
                quoted(ld_path)
            ),
        ));
    }
    kept
}

/// The entries of `LD_LIBRARY_PATH`'s value, in order, split where the loader splits it (at `:`
/// and `;`), empty ones included.
fn entries(ld_path: &OsStr) -> impl Iterator<Item = &OsStr> {
    ld_path
        .as_encoded_bytes()
        .split(|b| matches!(b, b':' | b';'))
        .map(|entry| {
            // SAFETY: a piece of `as_encoded_bytes` of an `OsStr` of this platform, cut at ASCII
            // separators or its ends: a split next to a valid non-empty UTF-8 substring (or
            // nothing), which `from_encoded_bytes_unchecked` allows.
            unsafe { OsStr::from_encoded_bytes_unchecked(entry) }
        })
}

/// The absolute folders of `LD_LIBRARY_PATH`'s value, in order, split where the loader splits it
/// (at `:` and `;`); empty and relative entries are left out.
fn absolute_entries(ld_path: &OsStr) -> Vec<PathBuf> {
    entries(ld_path)
        .filter(|entry| entry.as_encoded_bytes().starts_with(b"/"))
        .map(PathBuf::from)
        .collect()
}

/// The loader's configuration: the folders `ldconfig` puts in `ld.so.cache`.
const LD_SO_CONF: &str = "/etc/ld.so.conf";

/// The folders the system loader finds a bare name in after `LD_LIBRARY_PATH`: those listed in
/// `conf` (`/etc/ld.so.conf` and the files it includes, which `ldconfig` turns into
/// `ld.so.cache`), then the default folders (`/lib/<arch>-linux-gnu`, `/usr/lib/<arch>-linux-gnu`,
/// `/lib64`, `/usr/lib64`, `/lib`, `/usr/lib`), each once. What files are missing or unreadable
/// add nothing. Used instead of the loader's own search while that would read the current
/// directory.
fn system_library_folders(conf: &Path) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    read_ld_so_conf(conf, &mut folders, 0);
    let arch = std::env::consts::ARCH;
    folders.push(PathBuf::from(format!("/lib/{arch}-linux-gnu")));
    folders.push(PathBuf::from(format!("/usr/lib/{arch}-linux-gnu")));
    for default in &["/lib64", "/usr/lib64", "/lib", "/usr/lib"] {
        folders.push(PathBuf::from(default));
    }
    keep_first(&mut folders);
    folders
}

/// Drops every path equal to an earlier one (as `Path`'s `==` compares: component by component,
/// so `/a//b/` is `/a/b`), comparing each path's [`plain`] form as bytes: `Path`'s own `==` parses
/// both paths' components again on every comparison, which in this quadratic scan cost more than
/// all the rest of a search plan. A scan: the lists are a few dozen paths.
fn keep_first<P: AsRef<Path>>(paths: &mut Vec<P>) {
    let mut seen = Vec::with_capacity(paths.len());
    paths.retain(|path| first_time(&mut seen, path.as_ref()));
}

/// Whether `path` is none of `seen` as `Path`s compare ([`plain`]), noting it there.
fn first_time(seen: &mut Vec<OsString>, path: &Path) -> bool {
    let key = plain(path).into_owned();
    let first = !seen.contains(&key);
    seen.push(key);
    first
}

/// `path` as its components make it (`/a//b/` is `/a/b`): two paths are equal as `Path`s exactly
/// when these are equal as bytes. On Unix a path is usually that already (no empty or `.`
/// component but a leading `.`, no trailing `/`): then it is borrowed, not rebuilt.
fn plain(path: &Path) -> Cow<'_, OsStr> {
    let b = path.as_os_str().as_encoded_bytes();
    // Every segment after a `/` is neither empty (`//`, a trailing `/`) nor `.` (`/./`, `/.` at
    // the end), or the path is `/` alone.
    let is_plain = cfg!(unix)
        && (b == b"/"
            || b.split(|&c| c == b'/')
                .skip(1)
                .all(|segment| !segment.is_empty() && segment != b"."));
    if is_plain {
        Cow::Borrowed(path.as_os_str())
    } else {
        let mut rebuilt = PathBuf::new();
        for component in path.components() {
            rebuilt.push(component.as_os_str());
        }
        Cow::Owned(rebuilt.into_os_string())
    }
}

/// The absolute folders of one `ld.so.conf`-style file, in order, following its `include`
/// lines (a `*` in the file name matches like the shell's, in sorted order; a relative pattern is
/// read from the including file's folder). `# comments` and hardware-capability suffixes
/// (`/x=...`) are dropped.
fn read_ld_so_conf(file: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    const MAX_INCLUDE_DEPTH: usize = 8;
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if let Some(patterns) = include_patterns(line) {
            if depth >= MAX_INCLUDE_DEPTH {
                continue;
            }
            for pattern in patterns.split_whitespace() {
                let pattern = match file.parent() {
                    Some(dir) if !pattern.starts_with('/') => dir.join(pattern),
                    _ => PathBuf::from(pattern),
                };
                for included in &matching_files(&pattern) {
                    read_ld_so_conf(included, out, depth + 1);
                }
            }
        } else {
            // Folders, separated by blanks, `:` or `,`.
            let folders = line
                .split([' ', '\t', ':', ','])
                .map(|entry| entry.split('=').next().unwrap_or_default())
                .filter(|folder| folder.starts_with('/'))
                .map(PathBuf::from);
            out.extend(folders);
        }
    }
}

/// The patterns of an `include` line: what follows `include` and whitespace.
fn include_patterns(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    rest.starts_with(char::is_whitespace).then_some(rest)
}

/// The files `pattern` names: itself, or with one `*` in its file name, every file of its folder
/// whose name matches, sorted.
fn matching_files(pattern: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (
        pattern.parent(),
        pattern.file_name().and_then(OsStr::to_str),
    ) else {
        return Vec::new();
    };
    let Some((prefix, suffix)) = name.split_once('*') else {
        return vec![pattern.to_path_buf()];
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| {
            entry.file_name().to_str().is_some_and(|n| {
                n.len() >= prefix.len() + suffix.len()
                    && n.starts_with(prefix)
                    && n.ends_with(suffix)
            })
        })
        .map(|entry| entry.path())
        .collect();
    files.sort();
    files
}

fn load_plan(built_in: &BuiltIn, plan: Plan) -> Searched {
    load_plan_of(
        plan,
        built_in.library,
        built_in.lookup_symbols,
        &|path, _| open(built_in, path),
        &|| system_library_folders(Path::new(LD_SO_CONF)),
    )
}

/// [`load_plan`] for the library `library` exporting one of `lookup_symbols`, opened by `open`
/// (given each path and what the error's list of what was tried calls it, for the search's
/// report), with `system_folders` the system's library folders (read only when a search's bare
/// name stands for them).
fn load_plan_of(
    plan: Plan,
    library: CudaLibrary,
    lookup_symbols: &'static [&'static CStr],
    open: &dyn Fn(&Path, &str) -> Opened,
    system_folders: &dyn Fn() -> Vec<PathBuf>,
) -> Searched {
    // For messages; the names are ASCII.
    let lookup_names = || -> Vec<&'static str> {
        lookup_symbols
            .iter()
            .map(|symbol| symbol.to_str().unwrap_or_default())
            .collect()
    };
    // Only a search can find nothing: a path that was named is reported, never replaced.
    let named = |loaded| Searched {
        loaded,
        found_no_file: false,
    };
    // A path that was named and cannot be used: the error lists it alone.
    let failed = |path: &Path, origin: Origin, why: String| {
        let tried = vec![(describe_named(path, origin, library), why)];
        named(Err(ErrorKind::LibraryNotFound {
            library,
            origin,
            tried,
        }
        .into()))
    };
    let (candidates, skipped, in_system_folders) = match plan {
        Plan::Refused { path, origin, why } => return failed(&path, origin, why),
        Plan::Exact { path, origin } => {
            return match open(&path, &describe_named(&path, origin, library)) {
                Opened::Ok(resolver) => named(Ok(resolver)),
                Opened::LoadFailed { why, .. } => failed(&path, origin, why),
                Opened::NotCuda => named(Err(ErrorKind::NotACudaLibrary {
                    library,
                    origin,
                    path,
                    missing: lookup_names(),
                }
                .into())),
            }
        }
        Plan::Search {
            candidates,
            skipped,
            in_system_folders,
        } => (candidates, skipped, in_system_folders),
    };
    let mut tried = skipped;
    let mut found_no_file = true;
    let mut try_path = |candidate: &Candidate| -> Option<Loaded> {
        let what = candidate.describe();
        match open(&candidate.path, &what) {
            Opened::Ok(resolver) => return Some(Ok(resolver)),
            Opened::LoadFailed { why, absent } => {
                found_no_file &= absent;
                tried.push((what, why));
            }
            Opened::NotCuda => {
                found_no_file = false;
                tried.push((
                    what,
                    format!(
                        "loaded, but exports none of {}; not a CUDA library",
                        lookup_names().join(", ")
                    ),
                ));
            }
        }
        None
    };
    if !in_system_folders {
        for path in &candidates {
            if let Some(loaded) = try_path(path) {
                return named(loaded);
            }
        }
    } else {
        // The system's folders once a bare name stands for them, and the paths tried (by their
        // plain form), each once: a system folder may be one of `LD_LIBRARY_PATH`'s too.
        let mut system = Vec::new();
        let mut system_read = false;
        let mut seen = Vec::new();
        for candidate in &candidates {
            if Os::Unix.has_folder(candidate.path.as_os_str()) {
                if first_time(&mut seen, &candidate.path) {
                    if let Some(loaded) = try_path(candidate) {
                        return named(loaded);
                    }
                }
                continue;
            }
            if !system_read {
                system = system_folders();
                system_read = true;
            }
            for folder in &system {
                let path = Candidate::own(folder.join(&candidate.path));
                if first_time(&mut seen, &path.path) {
                    if let Some(loaded) = try_path(&path) {
                        return named(loaded);
                    }
                }
            }
        }
    }
    Searched {
        loaded: Err(ErrorKind::LibraryNotFound {
            library,
            origin: Origin::Search,
            tried,
        }
        .into()),
        found_no_file,
    }
}

/// A path the user named for `library` (in code or in its variable), as the list of what was
/// tried names it: quoted, with where it came from.
fn describe_named(path: &Path, origin: Origin, library: CudaLibrary) -> String {
    let source = match origin {
        Origin::Code => "Config::library".to_owned(),
        Origin::Environment => format!("${}", library.env_var),
        Origin::Search => "the search".to_owned(),
    };
    format!("{} (from {source})", quoted(path.as_os_str()))
}

/// The loader's own message (`dlerror`), which libloading keeps in the error's source, without
/// the `path: ` it starts with (the error names the path already).
fn loader_message(e: &libloading::Error, path: &Path) -> String {
    let message = match std::error::Error::source(e) {
        Some(source) => source.to_string(),
        None => e.to_string(),
    };
    let prefix = format!("{}: ", path.display());
    match message.strip_prefix(prefix.as_str()) {
        Some(rest) if !rest.is_empty() => rest.to_owned(),
        _ => message,
    }
}

enum Opened {
    Ok(&'static dyn BuiltInResolver),
    /// The loader failed: its message, and whether no file of that name is where the loader
    /// looks ([`absent`]).
    LoadFailed {
        why: String,
        absent: bool,
    },
    NotCuda,
}

/// Whether `path`, which the loader could not open, names no file where the loader looks: a
/// path with a folder that does not exist; a bare name that is in none of the folders the
/// system loader searches (`LD_LIBRARY_PATH`'s absolute entries, then those of
/// `/etc/ld.so.conf` and the usual ones). Read off the file system, not the loader's message,
/// which a program that sets its locale gets translated. A bare name on Windows, whose loader
/// searches folders this crate does not list, is judged by the message (`why`).
fn absent(path: &Path, why: &str) -> bool {
    if Os::CURRENT.has_folder(path.as_os_str()) {
        return !path.exists();
    }
    // `cfg!`, not `Os::CURRENT`: the branch is left out of the build on other systems.
    if cfg!(windows) {
        return why.contains("could not be found");
    }
    let ld_path = process_env("LD_LIBRARY_PATH").unwrap_or_default();
    !absolute_entries(&ld_path)
        .iter()
        .chain(&system_library_folders(Path::new(LD_SO_CONF)))
        .any(|folder| folder.join(path).exists())
}

/// Loads `path` with the system loader.
///
/// # Safety
///
/// Loading runs the library's initialisers: `path` must name a library whose initialisers are
/// safe to run (here: a CUDA library, or one the user named as such).
#[cfg(not(windows))]
unsafe fn load_library(path: &Path) -> Result<Library, libloading::Error> {
    // SAFETY: the caller's contract.
    unsafe { Library::new(path) }
}

/// Loads `path` with `LoadLibraryExW` and flags that leave the current directory and `PATH` out of
/// the search: `LOAD_LIBRARY_SEARCH_DEFAULT_DIRS` (the program's folder, System32, folders the
/// program added) for a bare name, and the DLL's own folder too for a full path (where its
/// dependencies sit). Plain `LoadLibraryW` would search the current directory. The path is handed
/// over with `\` separators ([`with_backslashes`]).
///
/// # Safety
///
/// As the Unix variant.
#[cfg(windows)]
unsafe fn load_library(path: &Path) -> Result<Library, libloading::Error> {
    use libloading::os::windows::{
        Library as WindowsLibrary, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS,
        LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR,
    };
    let path = PathBuf::from(with_backslashes(path.as_os_str()));
    let flags = if path.is_absolute() {
        LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
    } else {
        LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
    };
    // SAFETY: the caller's contract.
    unsafe { WindowsLibrary::load_with_flags(&path, flags) }.map(Library::from)
}

/// `path` with each `/` turned into `\`, for `LoadLibraryExW`, whose documentation asks for
/// backslashes: with a `/` in a full path, `LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR` does not apply and a
/// DLL's dependencies beside it are not found. A verbatim path (`\\?\`), where `/` would be part
/// of a name, is kept as it is. Elsewhere only the tests use it, which Miri does not build.
#[cfg(any(windows, all(test, not(miri))))]
fn with_backslashes(path: &OsStr) -> OsString {
    let bytes = path.as_encoded_bytes();
    if bytes.starts_with(br"\\?\") {
        return path.to_owned();
    }
    let bytes: Vec<u8> = bytes
        .iter()
        .map(|&b| if b == b'/' { b'\\' } else { b })
        .collect();
    // SAFETY: `as_encoded_bytes` of an `OsStr` of this platform with one ASCII byte replaced by
    // another: still a valid encoding, which `from_encoded_bytes_unchecked` requires.
    unsafe { OsString::from_encoded_bytes_unchecked(bytes) }
}

/// Where Windows looked for a bare DLL name that did not load, for the error: the flags of
/// `load_library` leave out the current directory and `PATH`, where a user may have put the DLL.
const WINDOWS_BARE_NAME_SEARCH: &str = "looked for only in the program's folder, the system \
     folder and folders the program added with AddDllDirectory; not in the current directory nor \
     in the folders of PATH";

/// Loads `path` and wraps it as `built_in`'s resolver, which is kept (with the library) for the
/// rest of the process; a library that is not `built_in`'s is unloaded again.
fn open(built_in: &BuiltIn, path: &Path) -> Opened {
    // SAFETY: the path is a CUDA library's name or location, or one the user named as such;
    // running its initialisers is what using CUDA means.
    let lib = match unsafe { load_library(path) } {
        Ok(lib) => lib,
        Err(e) => {
            let mut why = loader_message(&e, path);
            let absent = absent(path, &why);
            if cfg!(windows) && !Os::Windows.has_folder(path.as_os_str()) {
                why = format!("{why}; {WINDOWS_BARE_NAME_SEARCH}");
            }
            return Opened::LoadFailed { why, absent };
        }
    };
    // SAFETY: a library exporting the backend's lookup functions is taken to be its CUDA library
    // (`wrap` finds nothing in another); it is kept loaded below whenever `wrap` returns a
    // resolver.
    match unsafe { (built_in.wrap)(&lib, path) } {
        Some(resolver) => {
            // Never unloaded: pointers resolved through it must stay valid for the rest of the
            // process.
            std::mem::forget(lib);
            Opened::Ok(resolver)
        }
        // Not ours: dropping it unloads it again.
        None => Opened::NotCuda,
    }
}

mod environment;

// The search told step by step, for tools.
mod report;
pub use report::{SearchReport, SearchStep, StepOutcome};

// Not under Miri: most of these load real libraries (`dlopen` is a foreign call Miri cannot run).
#[cfg(all(test, not(miri)))]
mod tests;
