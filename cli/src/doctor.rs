//! `doctor [BINARY]`: what this machine offers a program: the library each backend's search finds
//! and every step it took (the crate's own search, `Config::search_report`), the driver's version,
//! a stub libcuda named as such, libcudart's version, WSL2's driver folder; and with `BINARY`,
//! whether this machine's driver hands out every function the program's tables record, at
//! exactly the recorded ABI and flag.
//!
//! Loading a library runs its initialisers: the search loads what a table's first call would
//! load, and this module loads the files that search found once more, explicitly, to read what
//! the search does not (libcudart's own version, the exported symbols an answer is compared
//! with, the raw answer of `cuGetProcAddress_v2`).

use std::ffi::{c_int, c_void, CString};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use cuda_driver_table_core::manifest::{self, Abi};
use cuda_driver_table_core::{
    resolve, Config, CudaVersion, ErrorKind, LookupResult, Query, SearchReport, StepOutcome,
    StreamMode,
};
use libloading::Library;
use serde::{Deserialize, Serialize};

use crate::inspect;
use crate::situation;
use crate::text::shown;

/// `CUDA_ERROR_STUB_LIBRARY`: what every function of a toolkit's stub libcuda returns.
const STUB_LIBRARY: i32 = 34;

/// The JSON schema's name and version, the first field of `doctor --json`.
pub const SCHEMA: &str = "cuda-driver-table-doctor/1";

/// The doctor's findings: the report, whether every requirement is met, and the same as data.
#[derive(Debug, Serialize, Deserialize)]
pub struct Diagnosis {
    pub text: String,
    pub met: bool,
    /// The [`Report`], as the JSON output prints it.
    pub json: serde_json::Value,
}

/// What `doctor --json` prints (the crate's README documents it).
#[derive(Debug, Serialize)]
pub struct Report {
    pub schema: &'static str,
    /// Whether every requirement is met (exit code 0).
    pub met: bool,
    /// Every requirement not met, in words (the human report's list).
    pub problems: Vec<String>,
    pub libcuda: LibraryReport,
    pub libcudart: LibraryReport,
    /// The program given, or `null`.
    pub binary: Option<String>,
    /// Every recorded function checked against this driver, in the program's order.
    pub requirements: Vec<Checked>,
    /// What the files and the environment say of the driver (a forward-compatibility libcuda, the
    /// kernel module's version, a toolkit's stub, an injection library, WSL2), in words.
    pub situation: Vec<String>,
}

impl Report {
    /// The report of a probe that ended in `problem` before it could say more (it hung, or a
    /// library crashed it), on `binary`.
    pub fn failed(binary: Option<String>, problem: String) -> Report {
        Report {
            schema: SCHEMA,
            met: false,
            problems: vec![problem],
            libcuda: LibraryReport::default(),
            libcudart: LibraryReport::default(),
            binary,
            requirements: Vec::new(),
            situation: Vec::new(),
        }
    }
}

/// One library's search and what it found.
#[derive(Debug, Default, Serialize)]
pub struct LibraryReport {
    /// Every step the crate's search took.
    pub search: Vec<Step>,
    /// The file that loaded, or `null`.
    pub found: Option<String>,
    /// Its version (`cuDriverGetVersion`, `cudaRuntimeGetVersion`), or `null`.
    pub version: Option<u32>,
    /// libcuda: whether it is a stub (`CUDA_ERROR_STUB_LIBRARY`); libcudart: always false.
    pub stub: bool,
}

/// One step of a search.
#[derive(Debug, Serialize)]
pub struct Step {
    /// What was tried.
    pub what: String,
    /// `loaded`, `absent`, `load_failed`, `not_cuda` or `not_tried`.
    pub outcome: &'static str,
    /// The loader's message, or why it was not tried; `null` otherwise.
    pub detail: Option<String>,
}

/// One recorded function, checked.
#[derive(Debug, Serialize)]
pub struct Checked {
    pub table: String,
    pub function: String,
    pub requested: u32,
    /// `legacy` or `per-thread`.
    pub flag: &'static str,
    pub met: bool,
    /// Why not, or a note on the check; `""` when there is nothing to say.
    pub note: String,
}

/// The driver as this machine offers it.
struct Driver {
    path: PathBuf,
    version: Option<u32>,
}

/// Examines this machine, and `binary`'s records when one is given. `Err` for an unreadable
/// `binary` (exit code 2). With `verbose`, the human report lists every recorded function also
/// where none could be checked (no usable libcuda); the JSON output always lists them.
///
/// `progress` is told each step that calls into a library before it is taken, so that the process
/// running this (see `probe`) can say where a library hung or crashed.
pub fn doctor(
    binary: Option<&Path>,
    verbose: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Diagnosis, String> {
    let inspection = binary.map(inspect::inspect).transpose()?;
    let mut body = String::new();
    let mut problems: Vec<String> = Vec::new();
    let mut json = Report {
        schema: SCHEMA,
        met: false,
        problems: Vec::new(),
        libcuda: LibraryReport::default(),
        libcudart: LibraryReport::default(),
        binary: inspection.as_ref().map(|i| i.file.clone()),
        requirements: Vec::new(),
        situation: Vec::new(),
    };

    // The driver first: everything else needs it.
    progress("the crate's search for libcuda, which loads the library it finds");
    let driver_report = Config::driver().search_report();
    if let Some(found) = &driver_report.found {
        progress(&format!(
            "asking {} for cuDriverGetVersion (a stub answers CUDA_ERROR_STUB_LIBRARY) and the \
             driver's version",
            found.display()
        ));
    }
    let driver = examine_driver(&driver_report, &mut body, &mut json.libcuda);
    progress("the crate's search for libcudart, which loads the library it finds");
    let runtime_report = Config::runtime().search_report();
    if let Some(found) = &runtime_report.found {
        progress(&format!(
            "asking {} for cudaRuntimeGetVersion",
            found.display()
        ));
    }
    let cudart = examine_runtime(&runtime_report, &mut body, &mut json.libcudart);
    let situation =
        situation::examine(driver_report.found.as_deref(), json.libcuda.stub, &mut body);
    json.situation = situation.notes;
    problems.extend(situation.problems.iter().cloned());
    json.situation.extend(situation.problems);

    if let Ok(Driver { version: None, .. }) = &driver {
        problems.push(
            "the driver's version is unknown (cuDriverGetVersion failed, or answered 0 or less): \
             this tool cannot confirm that the driver meets any requirement; reinstall the \
             NVIDIA driver, or check the libcuda the search found"
                .to_owned(),
        );
    }

    let mut checked = 0;
    // The functions that could not be checked (no usable libcuda), per table.
    let mut unchecked: Vec<(&str, usize)> = Vec::new();
    if let Some(inspection) = &inspection {
        let _ = writeln!(body, "\nRequirements of {}:", shown(&inspection.file));
        if inspection.tables.is_empty() {
            let _ = writeln!(
                body,
                "  none recorded: the file has no table records (`inspect` says more)"
            );
        }
        for table in &inspection.tables {
            if table.backend == "runtime" && cudart.is_none() {
                problems.push(format!(
                    "{}: declared `backend = runtime`, and the search found no libcudart; install \
                     the CUDA runtime (or a wheel) where the search looks, or set ${}",
                    table.name,
                    runtime_report.env_var.unwrap_or_default()
                ));
            }
            for f in &table.functions {
                let what = format!(
                    "{} {} at {} ({})",
                    shown(&table.name),
                    shown(&f.name),
                    f.requested,
                    f.flag
                );
                let verdict = match &driver {
                    Ok(driver) => {
                        progress(&format!(
                            "looking up {} at {} ({}) in {}",
                            f.name,
                            f.requested,
                            f.flag,
                            driver.path.display()
                        ));
                        check(driver, &f.name, f.abi, f.per_thread_abi, table.stream_mode)
                    }
                    Err(_) => {
                        match unchecked.last_mut() {
                            Some((name, n)) if *name == table.name => *n += 1,
                            _ => unchecked.push((&table.name, 1)),
                        }
                        if verbose {
                            let _ = writeln!(body, "  not checked {what}");
                        }
                        json.requirements.push(Checked {
                            table: table.name.clone(),
                            function: f.name.clone(),
                            requested: f.requested,
                            flag: f.flag,
                            met: false,
                            note: "not checked: no usable libcuda".to_owned(),
                        });
                        continue;
                    }
                };
                checked += 1;
                json.requirements.push(Checked {
                    table: table.name.clone(),
                    function: f.name.clone(),
                    requested: f.requested,
                    flag: f.flag,
                    met: verdict.is_ok(),
                    note: match &verdict {
                        Ok(note) => note.trim_start().to_owned(),
                        Err(why) => why.clone(),
                    },
                });
                match verdict {
                    Ok(note) => {
                        let _ = writeln!(body, "  ok      {what}{}", shown(&note));
                    }
                    Err(why) => {
                        let _ = writeln!(body, "  NOT MET {what}: {}", shown(&why));
                        problems.push(format!(
                            "{} {} at {} ({}): {why}",
                            table.name, f.name, f.requested, f.flag
                        ));
                    }
                }
            }
        }
        let total: usize = unchecked.iter().map(|(_, n)| n).sum();
        if total > 0 && !verbose {
            let _ = writeln!(
                body,
                "  {total} function{} not checked: no usable libcuda (-v lists them)",
                crate::plural(total)
            );
        }
        let unknown_isas: Vec<&str> = inspection
            .ptx
            .iter()
            .filter(|p| p.min_driver_version.is_none())
            .map(|p| p.isa.as_str())
            .collect();
        if !unknown_isas.is_empty() {
            problems.push(format!(
                "the program embeds PTX of ISA {}, newer than this tool knows: it cannot confirm \
                 that this driver loads it; update cuda-driver-table-cli",
                unknown_isas.join(", ")
            ));
        }
        if let (
            Some(floor),
            Ok(Driver {
                version: Some(v), ..
            }),
        ) = (inspection.driver_floor, &driver)
        {
            if floor > *v && !inspection.ptx.is_empty() {
                let ptx_floor = inspection
                    .ptx
                    .iter()
                    .filter_map(|p| p.min_driver_version)
                    .max();
                if ptx_floor.is_some_and(|p| p > *v) {
                    problems.push(format!(
                        "the program's PTX needs a driver of {} and this one is {}: update the \
                         NVIDIA driver, or build the PTX with an older toolkit",
                        CudaVersion(ptx_floor.unwrap_or_default()),
                        CudaVersion(*v)
                    ));
                }
            }
        }
    }
    if let Err(cause) = &driver {
        // One cause, one line: what it leaves unchecked is counted, not listed.
        let total: usize = unchecked.iter().map(|(_, n)| n).sum();
        let line = if total == 0 {
            format!("{cause} (the search's steps are below)")
        } else {
            let tables: Vec<&str> = unchecked.iter().map(|(name, _)| *name).collect();
            let of = match tables.as_slice() {
                [one] => (*one).to_owned(),
                [first @ .., last] if tables.len() <= 4 => {
                    format!("{} and {last}", first.join(", "))
                }
                _ => format!("{} tables", tables.len()),
            };
            format!(
                "{cause}: {total} function{} of {of} not checked{}",
                crate::plural(total),
                if verbose {
                    ""
                } else {
                    " (-v or --json lists them)"
                }
            )
        };
        problems.insert(0, line);
    }

    let met = problems.is_empty();
    let mut text = String::new();
    let subject = inspection
        .as_ref()
        .map(|i| format!(" of {}", shown(&i.file)))
        .unwrap_or_default();
    if met {
        let driver = driver.as_ref().map(describe_driver).unwrap_or_default();
        if inspection.is_some() {
            let _ = writeln!(
                text,
                "This machine meets every requirement{subject}: {checked} recorded function{}, through {driver}.",
                crate::plural(checked)
            );
        } else {
            let _ = writeln!(text, "This machine has a usable CUDA driver: {driver}.");
        }
    } else {
        let _ = writeln!(
            text,
            "This machine does not meet {} requirement{}{subject}:",
            problems.len(),
            crate::plural(problems.len())
        );
        for p in &problems {
            let _ = writeln!(text, "  - {}", shown(p));
        }
    }
    text.push_str(&body);
    json.met = met;
    json.problems = problems;
    let json = serde_json::to_value(&json).map_err(|e| e.to_string())?;
    Ok(Diagnosis { text, met, json })
}

fn describe_driver(d: &Driver) -> String {
    match d.version {
        Some(v) => format!(
            "the CUDA driver {} ({})",
            CudaVersion(v),
            shown(&d.path.display().to_string())
        ),
        None => format!(
            "the CUDA driver at {}",
            shown(&d.path.display().to_string())
        ),
    }
}

/// Writes the steps of a search, and puts them in `json`.
fn steps(report: &SearchReport, out: &mut String, json: &mut Vec<Step>) {
    for step in &report.steps {
        let (outcome, detail) = match &step.outcome {
            StepOutcome::Loaded => ("loaded", None),
            StepOutcome::LoadFailed { why, absent: true } => ("absent", Some(why.clone())),
            StepOutcome::LoadFailed { why, absent: false } => ("load_failed", Some(why.clone())),
            StepOutcome::NotCuda => ("not_cuda", None),
            StepOutcome::NotTried(why) => ("not_tried", Some(why.clone())),
        };
        json.push(Step {
            what: step.what.clone(),
            outcome,
            detail,
        });
    }
    for (n, step) in report.steps.iter().enumerate() {
        let outcome = match &step.outcome {
            StepOutcome::Loaded => "loaded".to_owned(),
            StepOutcome::LoadFailed { why, absent: true } => format!("no such file ({why})"),
            StepOutcome::LoadFailed { why, absent: false } => format!("failed to load: {why}"),
            StepOutcome::NotCuda => {
                "loaded, but exports no lookup function: not a CUDA library".to_owned()
            }
            StepOutcome::NotTried(why) => why.clone(),
        };
        let _ = writeln!(
            out,
            "    {}. {}: {}",
            n + 1,
            shown(&step.what),
            shown(&outcome)
        );
    }
}

/// The driver's search, its version, and whether it is a stub: the driver, or in one line why
/// there is none to use.
fn examine_driver(
    report: &SearchReport,
    out: &mut String,
    json: &mut LibraryReport,
) -> Result<Driver, String> {
    let _ = writeln!(
        out,
        "\nlibcuda (backend = driver, and the default's fallback):"
    );
    steps(report, out, &mut json.search);
    let resolver = match &report.outcome {
        Ok(resolver) => *resolver,
        Err(e) => {
            let _ = writeln!(out, "  not found: {}", indented(&e.to_string()));
            return Err("no usable libcuda".to_owned());
        }
    };
    let path = report.found.clone().unwrap_or_default();
    json.found = report.found.as_ref().map(|p| p.display().to_string());
    let _ = writeln!(out, "  found: {}", shown(&resolver.describe()));
    // A stub answers every call, the lookup included, with CUDA_ERROR_STUB_LIBRARY.
    if let LookupResult::Failed(status) = resolver.lookup(
        c"cuDriverGetVersion",
        Query::ByVersion(2020),
        StreamMode::Legacy,
    ) {
        if status.code == STUB_LIBRARY {
            let _ = writeln!(out, "  a STUB: {}", shown(&status.to_string()));
            json.stub = true;
            return Err(format!(
                "no usable libcuda: {} is a stub libcuda (a toolkit's, for linking), not a driver",
                path.display()
            ));
        }
    }
    let version = resolver.driver_version();
    json.version = version;
    match version {
        Some(v) => {
            let _ = writeln!(out, "  driver version: {} ({v})", CudaVersion(v));
        }
        None => {
            let _ = writeln!(
                out,
                "  driver version: unknown (cuDriverGetVersion failed, or answered 0 or less)"
            );
        }
    }
    Ok(Driver { path, version })
}

/// `text` for the human report: every line escaped ([`shown`]), the lines after the first
/// indented under it.
fn indented(text: &str) -> String {
    text.lines()
        .map(|line| shown(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n    ")
}

/// libcudart's search and, where found, its own version. `Some(path)` when found.
fn examine_runtime(
    report: &SearchReport,
    out: &mut String,
    json: &mut LibraryReport,
) -> Option<PathBuf> {
    let _ = writeln!(out, "\nlibcudart (backend = runtime, and the default):");
    steps(report, out, &mut json.search);
    let Ok(resolver) = &report.outcome else {
        let _ = writeln!(
            out,
            "  not found: tables without a `backend` option use libcuda instead"
        );
        return None;
    };
    let _ = writeln!(out, "  found: {}", shown(&resolver.describe()));
    let path = report.found.clone()?;
    json.found = Some(path.display().to_string());
    json.version = runtime_version(&path);
    match json.version {
        Some(v) => {
            let _ = writeln!(out, "  libcudart version: {} ({v})", CudaVersion(v));
        }
        None => {
            let _ = writeln!(
                out,
                "  libcudart version: unknown (cudaRuntimeGetVersion failed)"
            );
        }
    }
    Some(path)
}

/// `cudaRuntimeGetVersion` of the libcudart at `path`.
fn runtime_version(path: &Path) -> Option<u32> {
    // SAFETY: `path` is the file the crate's search loaded just before as libcudart (it exports
    // libcudart's lookup functions); the loader hands out that copy again, its initialisers have
    // run already.
    let lib = unsafe { Library::new(path) }.ok()?;
    type RuntimeGetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;
    // SAFETY: libcudart's `cudaRuntimeGetVersion` is `cudaError_t (int *)` in every release.
    let f = unsafe { lib.get::<RuntimeGetVersion>(b"cudaRuntimeGetVersion\0") }.ok()?;
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid out-parameter; the function needs no driver.
    let rc = unsafe { f(&mut v) };
    let v = u32::try_from(v).ok().filter(|v| *v > 0);
    // Kept loaded, like every library the crate loads.
    std::mem::forget(lib);
    if rc == 0 {
        v
    } else {
        None
    }
}

/// Whether `driver` hands out `name` at its recorded ABI in `mode`: `Ok` with a note, or `Err`
/// with why not.
fn check(
    driver: &Driver,
    name: &str,
    version: u32,
    per_thread: Option<u32>,
    mode: &str,
) -> Result<String, String> {
    let abi = Abi {
        version,
        export: None,
        per_thread: per_thread.map(|version| manifest::PerThread {
            version,
            export: None,
        }),
    };
    let mode = if mode == "per-thread" {
        StreamMode::PerThread
    } else {
        StreamMode::Legacy
    };
    let config = match mode {
        StreamMode::Legacy => Config::driver(),
        StreamMode::PerThread => Config::driver().per_thread(),
    };
    let (requested, flag) = abi.request(mode);
    // `resolve` takes names with the program's lifetime; a tool checks each one once.
    let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
    let pointer = match resolve(&config, name, &abi) {
        Ok(p) => p,
        Err(e) => {
            let why = match e.kind() {
                ErrorKind::DriverTooOld { driver, .. } => too_old(name, requested, *driver, mode),
                ErrorKind::SymbolNotFound { .. } if answers_null(driver, name, requested, flag) => {
                    "the lookup said found but handed out a null pointer: an interposer or \
                     injection library answers for the driver and does not have it; run without \
                     it (check LD_PRELOAD and the libcuda the search found)"
                        .to_owned()
                }
                ErrorKind::SymbolNotFound { .. } => format!("absent from this driver: {e}"),
                _ => e.to_string(),
            };
            return Err(why);
        }
    };
    abi_check(driver, name, version, mode, pointer.as_ptr())
}

/// Why a driver of version `driver` does not have `name` at `requested`, once, with what to do:
/// update the driver, or pin an older ABI of the function where this tool's `cuda.h` knows one
/// that the driver has in the table's stream `mode`.
fn too_old(name: &str, requested: u32, driver: Option<u32>, mode: StreamMode) -> String {
    let Some(driver) = driver else {
        return format!(
            "the driver is older than {} (its own version is unknown); update the NVIDIA driver",
            CudaVersion(requested)
        );
    };
    let older = manifest::functions()
        .binary_search_by(|f| f.name.cmp(name))
        .ok()
        .and_then(|i| {
            manifest::functions()[i]
                .abis
                .iter()
                // In the table's stream mode: a per-thread table asks for an ABI's twin.
                .filter(|a| a.request(mode).0 <= driver)
                .map(|a| a.version)
                .max()
        });
    let advice = match older {
        Some(v) => format!(
            "update the NVIDIA driver, or pin the older ABI `{name} = {v}` in the table, which \
             this driver has"
        ),
        None => "update the NVIDIA driver".to_owned(),
    };
    format!(
        "the driver is too old: it is {} and this ABI needs {}; {advice}",
        CudaVersion(driver),
        CudaVersion(requested)
    )
}

/// Why `pointer`, handed out for `name`, is certainly not `name`: it is another function that a
/// loaded library exports under another name (`dladdr` names it: a stand-in answering
/// `cuMemAlloc` with its `cuInit`), or an address in no loaded library. `None` where it may be
/// `name`: an export of the function's own (`name`, `name_v2`, `name_ptsz`, ...), or code of a
/// library that exports no symbol there (an interposer's own).
#[cfg(unix)]
fn foreign(pointer: *mut c_void, name: &str) -> Option<String> {
    // SAFETY: a zeroed `Dl_info` (null pointers and addresses) is a valid value to fill in.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: `dladdr` only looks the address up in the loader's tables, never reads at it.
    if unsafe { libc::dladdr(pointer.cast_const(), &mut info) } == 0 {
        return Some(format!(
            "the lookup handed out {pointer:p}, an address in no loaded library: a call would \
             jump there; the libcuda the search found (or an interposer answering for it) is \
             broken"
        ));
    }
    if info.dli_sname.is_null() || info.dli_saddr != pointer {
        return None;
    }
    // SAFETY: `dladdr` set `dli_sname` to a NUL-terminated name in the loader's tables, which
    // live as long as the library (which stays loaded).
    let symbol = unsafe { std::ffi::CStr::from_ptr(info.dli_sname) }.to_string_lossy();
    let own = symbol == name
        || symbol
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('_'));
    if own {
        return None;
    }
    let library = if info.dli_fname.is_null() {
        "a loaded library".to_owned()
    } else {
        // SAFETY: as `dli_sname`: a NUL-terminated path in the loader's tables.
        let file = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
        file.to_string_lossy().into_owned()
    };
    Some(format!(
        "the lookup handed out {symbol}, another function exported by {library}: a call would \
         run {symbol} with {name}'s arguments; the libcuda the search found (or an interposer \
         answering for it) is broken"
    ))
}

#[cfg(not(unix))]
fn foreign(_: *mut c_void, _: &str) -> Option<String> {
    None
}

/// The raw answer of `cuGetProcAddress_v2`: whether it says found (status 0) and hands out null.
fn answers_null(driver: &Driver, name: &str, version: u32, flag: StreamMode) -> bool {
    type GetProcAddressV2 =
        unsafe extern "C" fn(*const i8, *mut *mut c_void, c_int, u64, *mut c_int) -> c_int;
    let Ok(symbol) = CString::new(name) else {
        return false;
    };
    // SAFETY: the file the crate's search loaded just before as libcuda; the loader hands out
    // that copy again.
    let Ok(lib) = (unsafe { Library::new(&driver.path) }) else {
        return false;
    };
    // SAFETY: `cuGetProcAddress_v2` has this signature in every driver that exports it.
    let Ok(get) = (unsafe { lib.get::<GetProcAddressV2>(b"cuGetProcAddress_v2\0") }) else {
        return false;
    };
    let mut p: *mut c_void = std::ptr::null_mut();
    let mut status: c_int = -1;
    let version = c_int::try_from(version).unwrap_or(c_int::MAX);
    // SAFETY: a NUL-terminated name and valid out-parameters.
    let rc = unsafe { get(symbol.as_ptr(), &mut p, version, flag.flag(), &mut status) };
    std::mem::forget(lib);
    rc == 0 && status == 0 && p.is_null()
}

/// Compares what the lookup handed out with the symbols the driver exports for the function's
/// ABIs (this tool's release of `cuda.h`): the one requested, or another (an interposer answering
/// another ABI, which a call would misuse).
fn abi_check(
    driver: &Driver,
    name: &str,
    version: u32,
    mode: StreamMode,
    pointer: *mut c_void,
) -> Result<String, String> {
    let Ok(i) = manifest::functions().binary_search_by(|f| f.name.cmp(name)) else {
        return match foreign(pointer, name) {
            Some(why) => Err(why),
            None => Ok(" (ABI not compared: this tool's cuda.h does not know the function)".into()),
        };
    };
    let function = &manifest::functions()[i];
    let Some(abi) = function.abis.iter().find(|a| a.version == version) else {
        return match foreign(pointer, name) {
            Some(why) => Err(why),
            None => Ok(" (ABI not compared: this tool's cuda.h does not know that ABI)".into()),
        };
    };
    let Some(expected) = abi.expected_export(mode) else {
        return match foreign(pointer, name) {
            Some(why) => Err(why),
            None => Ok(" (ABI not compared: cuda.h exports no symbol for it)".into()),
        };
    };
    // SAFETY: the file the crate's search loaded just before as libcuda.
    let Ok(lib) = (unsafe { Library::new(&driver.path) }) else {
        return Ok(" (ABI not compared: the library could not be opened again)".into());
    };
    let export = |symbol: &str| -> Option<*mut c_void> {
        let symbol = CString::new(symbol).ok()?;
        // SAFETY: the address is only compared, never called.
        let s = unsafe { lib.get::<*mut c_void>(symbol.as_bytes_with_nul()) }.ok()?;
        Some(*s)
    };
    let result = match export(expected) {
        Some(p) if p == pointer => Ok(String::new()),
        _ => {
            // Another ABI's or stream's export?
            let other = function.abis.iter().flat_map(|a| {
                [
                    (
                        a.version,
                        StreamMode::Legacy,
                        a.expected_export(StreamMode::Legacy),
                    ),
                    (
                        a.per_thread.map_or(a.version, |pt| pt.version),
                        StreamMode::PerThread,
                        a.expected_export(StreamMode::PerThread),
                    ),
                ]
            });
            let mut found = None;
            for (v, m, symbol) in other {
                if let Some(symbol) = symbol {
                    if symbol != expected && export(symbol) == Some(pointer) {
                        found = Some((v, m, symbol));
                        break;
                    }
                }
            }
            match found {
                Some((v, m, symbol)) => Err(format!(
                    "the lookup handed out {symbol} (ABI {v}, {}) where {expected} was asked \
                     for: an interposer or injection library answers with another ABI, which a \
                     call would misuse; run without it (check LD_PRELOAD and the libcuda the \
                     search found) or report it to its maker",
                    inspect::mode_name(m)
                )),
                None => match foreign(pointer, name) {
                    Some(why) => Err(why),
                    None => Ok(format!(
                        " (handed out a function that is not the driver's export {expected}: an \
                         interposer's own, whose ABI cannot be compared)"
                    )),
                },
            }
        }
    };
    std::mem::forget(lib);
    result
}
