//! The search on Windows itself: `LoadLibraryExW` with the flags of `load_library`, over
//! stand-in DLLs placed where each step of the search looks, and where it must not (the current
//! directory, the folders of `PATH`).
//!
//! Runs on Windows, and under Wine in the test command (`scripts/windows.sh`), which builds the
//! stand-ins from `tests/windows/*.c` with mingw and names their folder in
//! `CUDA_DRIVER_TABLE_TEST_WINDOWS_DLLS`: `nvcuda.dll` (the driver, CUDA 12.8), `cudart64_13.dll`
//! (a libcudart 13.0) and `cudart64_12.dll` (a libcudart 12.8), each handing out `cuInit`,
//! `cuDriverGetVersion` (which writes 12080) and a few more. Set the variable to `skip` to skip
//! these tests on purpose; unset, they fail and say how to build the stand-ins.
//!
//! A process searches once, so each case starts this test program again, as a copy in a folder
//! of its own (the program's folder is a step of the search), with the current directory, `PATH`
//! and the variables the case sets. The child resolves through both backends, calls
//! `cuDriverGetVersion` through what it resolved, and writes down which files of the stand-ins'
//! names the process has loaded (`GetModuleFileNameW`): a DLL that is not loaded is seen not to
//! be.

use std::ffi::{c_int, c_void, OsStr, OsString};
use std::path::{Path, PathBuf};

use super::{driver_at, runtime_at, temp_dir};
use crate::backend::{Os, ENV_CUDART, ENV_LIBCUDA};
use crate::config::Config;
use crate::error::{ErrorKind, Origin};
use crate::ffi;
use crate::library::{resolve, resolver_for, WINDOWS_BARE_NAME_SEARCH};
use crate::manifest::{functions, Abi};

const DLLS_VAR: &str = "CUDA_DRIVER_TABLE_TEST_WINDOWS_DLLS";
/// Set for a child: the folder it writes its outcome into.
const CHILD_VAR: &str = "CUDA_DRIVER_TABLE_TEST_WINDOWS_CHILD";
/// The stand-ins, by the names the search looks for.
const STAND_INS: [&str; 3] = ["nvcuda.dll", "cudart64_13.dll", "cudart64_12.dll"];
/// What the stand-ins' `cuDriverGetVersion` writes.
const STAND_IN_DRIVER_VERSION: c_int = 12080;
/// The variables of the search, removed from a child's environment unless the case sets them.
const SEARCH_VARS: [&str; 6] = [
    ENV_CUDART,
    ENV_LIBCUDA,
    "CUDA_PATH",
    "CUDA_HOME",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
];

/// The folder of the stand-ins; `None` when skipped on purpose.
fn stand_ins() -> Option<PathBuf> {
    match std::env::var_os(DLLS_VAR) {
        Some(v) if v == "skip" => {
            eprintln!("{DLLS_VAR}=skip: the Windows search tests are skipped");
            None
        }
        Some(v) => {
            let dir = PathBuf::from(v);
            for dll in STAND_INS {
                assert!(
                    dir.join(dll).is_file(),
                    "{} is missing",
                    dir.join(dll).display()
                );
            }
            Some(dir)
        }
        None => panic!(
            "{DLLS_VAR} is not set. Run `bash scripts/windows.sh`, which builds the stand-in DLLs \
             from tests/windows/*.c with mingw and runs these tests under Wine, point {DLLS_VAR} \
             at a folder holding {}, or set it to `skip` to skip these tests on purpose",
            STAND_INS.join(", ")
        ),
    }
}

/// A case's folders under one fresh root: `app` (the program's folder, with a copy of this test
/// program), `cwd` (the current directory) and `path` (put first on `PATH`); the stand-ins go
/// where the case places them.
struct Layout {
    root: PathBuf,
    dlls: PathBuf,
}

impl Layout {
    fn new(name: &str) -> Option<Self> {
        let dlls = stand_ins()?;
        let root = temp_dir(&format!("windows-{name}"));
        for dir in ["app", "cwd", "path"] {
            std::fs::create_dir(root.join(dir)).unwrap();
        }
        let exe = std::env::current_exe().unwrap();
        std::fs::copy(exe, root.join(r"app\search.exe")).unwrap();
        Some(Self { root, dlls })
    }

    /// `rel` (with `\`) under the root.
    fn at(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Copies the stand-in `dll` into `folder` (under the root) and returns its path there.
    fn place(&self, dll: &str, folder: &str) -> PathBuf {
        let dir = self.at(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let to = dir.join(dll);
        std::fs::copy(self.dlls.join(dll), &to).unwrap();
        to
    }

    /// Runs the child with the variables `vars` (the other search variables removed).
    fn run(&self, vars: &[(&str, &OsStr)]) -> Outcome {
        let out = self.at("outcome");
        std::fs::create_dir_all(&out).unwrap();
        let mut path = OsString::from(self.at("path"));
        if let Some(rest) = std::env::var_os("PATH") {
            path.push(";");
            path.push(rest);
        }
        let mut child = std::process::Command::new(self.at(r"app\search.exe"));
        child
            .args([
                "--exact",
                "library::tests::windows::child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .current_dir(self.at("cwd"))
            .env(CHILD_VAR, &out)
            .env("PATH", path);
        for var in SEARCH_VARS {
            child.env_remove(var);
        }
        for (var, value) in vars {
            child.env(var, value);
        }
        let output = child.output().unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "the child failed:\n{log}");
        let read = |file: &str| std::fs::read_to_string(out.join(file)).unwrap();
        let backend = |file: &str| {
            let text = read(file);
            match text.split_once('\n') {
                Some(("ok", found)) => {
                    let (describe, version) = found.split_once('\n').unwrap();
                    Ok(Found {
                        describe: describe.to_owned(),
                        driver_version: version.parse().unwrap(),
                    })
                }
                Some(("error", message)) => Err(message.to_owned()),
                _ => panic!("{file}: {text}"),
            }
        };
        Outcome {
            driver: backend("driver.txt"),
            runtime: backend("runtime.txt"),
            modules: read("modules.txt").lines().map(canonical).collect(),
        }
    }
}

impl Drop for Layout {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// What a child saw.
#[derive(Debug)]
struct Outcome {
    /// The driver backend: what it loaded, or its error message.
    driver: Result<Found, String>,
    /// The runtime backend, likewise.
    runtime: Result<Found, String>,
    /// The files of the stand-ins' names the process loaded, canonical.
    modules: Vec<PathBuf>,
}

#[derive(Debug, PartialEq)]
struct Found {
    /// The resolver's description.
    describe: String,
    /// What `cuDriverGetVersion`, resolved through it, wrote.
    driver_version: c_int,
}

impl Found {
    fn new(describe: impl Into<String>) -> Self {
        Self {
            describe: describe.into(),
            driver_version: STAND_IN_DRIVER_VERSION,
        }
    }
}

/// One form of a path to compare: the same file may be named in a short (8.3) or long form, or
/// with another case.
fn canonical(path: impl AsRef<Path>) -> PathBuf {
    let path = path.as_ref();
    std::fs::canonicalize(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn canonicals(paths: &[&PathBuf]) -> Vec<PathBuf> {
    paths.iter().map(canonical).collect()
}

#[link(name = "kernel32")]
extern "system" {
    fn GetModuleHandleW(name: *const u16) -> *mut c_void;
    fn GetModuleFileNameW(module: *mut c_void, file: *mut u16, size: u32) -> u32;
}

/// The file of the loaded module named `name`, if one is loaded.
fn loaded_module(name: &str) -> Option<PathBuf> {
    use std::os::windows::ffi::{OsStrExt, OsStringExt};
    let wide: Vec<u16> = OsStr::new(name).encode_wide().chain([0]).collect();
    // SAFETY: a NUL-terminated UTF-16 name; the handle is not kept (nothing is unloaded here).
    let module = unsafe { GetModuleHandleW(wide.as_ptr()) };
    if module.is_null() {
        return None;
    }
    let mut buf = vec![0u16; 32768];
    // SAFETY: `module` is a loaded module's handle; the buffer's length is passed.
    let n = unsafe { GetModuleFileNameW(module, buf.as_mut_ptr(), buf.len() as u32) } as usize;
    assert!(n > 0 && n < buf.len(), "GetModuleFileNameW({name}) failed");
    Some(PathBuf::from(OsString::from_wide(&buf[..n])))
}

/// `cuDriverGetVersion`'s default ABI in the manifest, as a table asks for it.
fn driver_get_version_abi() -> &'static Abi {
    let f = functions()
        .iter()
        .find(|f| f.name == "cuDriverGetVersion")
        .unwrap();
    f.abis.iter().find(|a| a.version == f.default).unwrap()
}

/// What the backend of `config` loads, as the child writes it: `ok`, the description and what
/// `cuDriverGetVersion` wrote; or `error` and the message.
fn outcome_of(config: &Config) -> String {
    let found = resolver_for(config).and_then(|r| {
        let p = resolve(config, "cuDriverGetVersion", driver_get_version_abi())?;
        // SAFETY: the backend resolved cuDriverGetVersion at its ABI 2020, of this type.
        let f = unsafe { std::mem::transmute::<*mut c_void, ffi::DriverGetVersion>(p.as_ptr()) };
        let mut version: c_int = 0;
        // SAFETY: `version` is a valid out-parameter.
        let rc = unsafe { f(&mut version) };
        assert_eq!(rc.0, 0, "cuDriverGetVersion failed");
        Ok((r.describe(), version))
    });
    match found {
        Ok((describe, version)) => format!("ok\n{describe}\n{version}"),
        Err(e) => format!("error\n{e}"),
    }
}

/// The child of every case: resolves through both backends as the process environment says,
/// and writes what it found into `$CUDA_DRIVER_TABLE_TEST_WINDOWS_CHILD`.
#[test]
#[ignore = "started by the Windows search tests"]
fn child() {
    let out = PathBuf::from(std::env::var_os(CHILD_VAR).expect("started by a search test"));
    std::fs::write(out.join("driver.txt"), outcome_of(&Config::driver())).unwrap();
    std::fs::write(out.join("runtime.txt"), outcome_of(&Config::runtime())).unwrap();
    let modules: Vec<String> = STAND_INS
        .iter()
        .filter_map(|name| loaded_module(name))
        .map(|p| p.display().to_string() + "\n")
        .collect();
    std::fs::write(out.join("modules.txt"), modules.concat()).unwrap();
}

/// `"name": <the loader's reason>; <where Windows looked>`, for a bare name that did not load.
fn assert_bare_name_not_found(message: &str, name: &str) {
    let line = message
        .lines()
        .find(|l| l.starts_with(&format!("  \"{name}\"")))
        .unwrap_or_else(|| panic!("{name} is not listed:\n{message}"));
    assert!(line.contains("(os error 126)"), "{line}");
    assert!(line.ends_with(WINDOWS_BARE_NAME_SEARCH), "{line}");
}

/// With the stand-ins only in the current directory and in a folder of `PATH`, neither backend
/// loads anything: each fails, listing the names it tried in order, the loader's reason, where
/// Windows looked, and what to do; the messages name the Windows files, never `libcuda.so.1`.
#[test]
fn nothing_is_loaded_from_the_current_directory_or_path() {
    let Some(case) = Layout::new("nothing") else {
        return;
    };
    for dll in STAND_INS {
        case.place(dll, "cwd");
        case.place(dll, "path");
    }
    let outcome = case.run(&[]);
    assert_eq!(outcome.modules, Vec::<PathBuf>::new());

    let driver = outcome.driver.unwrap_err();
    eprintln!("--- driver, nothing where the search looks:\n{driver}");
    assert!(
        driver.starts_with("could not load the CUDA driver library (nvcuda.dll); tried:\n"),
        "{driver}"
    );
    assert_eq!(driver.lines().count(), 3, "{driver}");
    assert_bare_name_not_found(&driver, "nvcuda.dll");
    assert!(
        driver.ends_with(
            "\nTo fix: install the NVIDIA driver, set CUDA_DRIVER_TABLE_LIBCUDA to the \
             library's full path, or give it in code with Config::library(..)"
        ),
        "{driver}"
    );

    let runtime = outcome.runtime.unwrap_err();
    eprintln!("--- runtime, nothing where the search looks:\n{runtime}");
    assert!(
        runtime.starts_with("could not load the CUDA runtime library (cudart64_*.dll); tried:\n"),
        "{runtime}"
    );
    let tried: Vec<&str> = runtime.lines().skip(1).take(3).collect();
    for (line, name) in tried
        .iter()
        .zip(["cudart64_13.dll", "cudart64_12.dll", "cudart64_110.dll"])
    {
        assert!(line.starts_with(&format!("  \"{name}\": ")), "{runtime}");
        assert_bare_name_not_found(&runtime, name);
    }
    assert_eq!(runtime.lines().count(), 5, "{runtime}");
    for message in [&driver, &runtime] {
        assert!(!message.contains("libcuda"), "{message}");
        assert!(!message.contains(".so"), "{message}");
    }
}

/// The program's folder is searched for the bare names: the driver and libcudart 12.8 load from
/// it, and the calls through them return what the stand-in wrote; a newer `cudart64_13.dll` in
/// the current directory and on `PATH` is not loaded.
#[test]
fn the_program_folder_is_searched() {
    let Some(case) = Layout::new("program-folder") else {
        return;
    };
    let nvcuda = case.place("nvcuda.dll", "app");
    let cudart = case.place("cudart64_12.dll", "app");
    case.place("cudart64_13.dll", "cwd");
    case.place("cudart64_13.dll", "path");
    let outcome = case.run(&[]);
    assert_eq!(
        outcome.driver,
        Ok(Found::new(
            "the CUDA driver (nvcuda.dll, cuGetProcAddress_v2)"
        ))
    );
    assert_eq!(
        outcome.runtime,
        Ok(Found::new("libcudart 12.8 (cudart64_12.dll)"))
    );
    assert_eq!(outcome.modules, canonicals(&[&nvcuda, &cudart]));
}

/// `%CUDA_PATH%\bin\x64` comes first (every name, newest first), then `%CUDA_PATH%\bin`, both
/// before the program's folder; the driver is never looked for in the toolkit.
#[test]
fn the_toolkit_folders_come_first_bin_x64_then_bin() {
    let Some(case) = Layout::new("toolkit") else {
        return;
    };
    let first = case.place("cudart64_12.dll", r"toolkit\bin\x64");
    case.place("cudart64_13.dll", r"toolkit\bin");
    case.place("cudart64_13.dll", "app");
    case.place("nvcuda.dll", r"toolkit\bin");
    let outcome = case.run(&[("CUDA_PATH", case.at("toolkit").as_os_str())]);
    assert_eq!(
        outcome.runtime,
        Ok(Found::new(format!("libcudart 12.8 ({})", first.display())))
    );
    let driver = outcome.driver.unwrap_err();
    assert_bare_name_not_found(&driver, "nvcuda.dll");
    assert_eq!(outcome.modules, canonicals(&[&first]));

    // Without `bin\x64`: `bin`, before the program's folder. A trailing `\` is not doubled.
    let Some(case) = Layout::new("toolkit-bin") else {
        return;
    };
    let bin = case.place("cudart64_12.dll", r"toolkit\bin");
    case.place("cudart64_13.dll", "app");
    let mut toolkit = case.at("toolkit").into_os_string();
    toolkit.push(r"\");
    let outcome = case.run(&[("CUDA_PATH", &toolkit)]);
    assert_eq!(
        outcome.runtime,
        Ok(Found::new(format!("libcudart 12.8 ({})", bin.display())))
    );
    assert_eq!(outcome.modules, canonicals(&[&bin]));
}

/// The Python environments come after the program's folder: the pip wheels of `%VIRTUAL_ENV%`
/// (`nvidia\cu13\bin\x86_64` before `nvidia\cuda_runtime\bin`), then conda's own
/// `%CONDA_PREFIX%\Library\bin`, then the wheels of `%CONDA_PREFIX%`.
#[test]
fn python_environments_are_searched_after_the_program_folder() {
    let wheel13 = r"Lib\site-packages\nvidia\cu13\bin\x86_64";
    let wheel12 = r"Lib\site-packages\nvidia\cuda_runtime\bin";

    let Some(case) = Layout::new("venv") else {
        return;
    };
    let cu13 = case.place("cudart64_13.dll", &format!(r"venv\{wheel13}"));
    case.place("cudart64_12.dll", &format!(r"venv\{wheel12}"));
    case.place("cudart64_12.dll", r"conda\Library\bin");
    let outcome = case.run(&[
        ("VIRTUAL_ENV", case.at("venv").as_os_str()),
        ("CONDA_PREFIX", case.at("conda").as_os_str()),
    ]);
    assert_eq!(
        outcome.runtime,
        Ok(Found::new(format!("libcudart 13.0 ({})", cu13.display())))
    );
    assert_eq!(outcome.modules, canonicals(&[&cu13]));

    let Some(case) = Layout::new("conda") else {
        return;
    };
    let conda = case.place("cudart64_12.dll", r"conda\Library\bin");
    case.place("cudart64_13.dll", &format!(r"conda\{wheel13}"));
    let outcome = case.run(&[("CONDA_PREFIX", case.at("conda").as_os_str())]);
    assert_eq!(
        outcome.runtime,
        Ok(Found::new(format!("libcudart 12.8 ({})", conda.display())))
    );
    assert_eq!(outcome.modules, canonicals(&[&conda]));

    let Some(case) = Layout::new("program-before-venv") else {
        return;
    };
    let app = case.place("cudart64_12.dll", "app");
    case.place("cudart64_13.dll", &format!(r"venv\{wheel13}"));
    let outcome = case.run(&[("VIRTUAL_ENV", case.at("venv").as_os_str())]);
    assert_eq!(
        outcome.runtime,
        Ok(Found::new("libcudart 12.8 (cudart64_12.dll)"))
    );
    assert_eq!(outcome.modules, canonicals(&[&app]));
}

/// A full path in `CUDA_DRIVER_TABLE_LIBCUDA` / `CUDA_DRIVER_TABLE_CUDART` is used alone (the
/// copies in the program's folder are not loaded), with `\` or `/` separators.
#[test]
fn environment_variables_with_full_paths_are_used_alone() {
    let Some(case) = Layout::new("full-paths") else {
        return;
    };
    let nvcuda = case.place("nvcuda.dll", "chosen");
    let cudart = case.place("cudart64_12.dll", "chosen");
    case.place("nvcuda.dll", "app");
    case.place("cudart64_13.dll", "app");
    let forward = cudart.to_str().unwrap().replace('\\', "/");
    assert!(Os::Windows.is_absolute(OsStr::new(&forward)), "{forward}");
    let outcome = case.run(&[
        (ENV_LIBCUDA, nvcuda.as_os_str()),
        (ENV_CUDART, OsStr::new(&forward)),
    ]);
    assert_eq!(
        outcome.driver,
        Ok(Found::new(format!(
            "the CUDA driver ({}, cuGetProcAddress_v2)",
            nvcuda.display()
        )))
    );
    assert_eq!(
        outcome.runtime,
        Ok(Found::new(format!("libcudart 12.8 ({forward})")))
    );
    assert_eq!(outcome.modules, canonicals(&[&nvcuda, &cudart]));
}

/// A bare name in the environment goes to the loader with the same flags: the copies in the
/// current directory and on `PATH` are not loaded, and the advice is about the variable.
#[test]
fn bare_names_in_the_environment_do_not_reach_the_current_directory() {
    let Some(case) = Layout::new("bare-names") else {
        return;
    };
    for dll in ["nvcuda.dll", "cudart64_12.dll"] {
        case.place(dll, "cwd");
        case.place(dll, "path");
    }
    let outcome = case.run(&[
        (ENV_LIBCUDA, OsStr::new("nvcuda.dll")),
        (ENV_CUDART, OsStr::new("cudart64_12.dll")),
    ]);
    assert_eq!(outcome.modules, Vec::<PathBuf>::new());
    for (message, name, var) in [
        (outcome.driver.unwrap_err(), "nvcuda.dll", ENV_LIBCUDA),
        (outcome.runtime.unwrap_err(), "cudart64_12.dll", ENV_CUDART),
    ] {
        eprintln!("--- {var}={name}:\n{message}");
        let line = message.lines().nth(1).unwrap();
        assert!(
            line.starts_with(&format!("  \"{name}\" (from ${var}): ")),
            "{message}"
        );
        assert!(line.ends_with(WINDOWS_BARE_NAME_SEARCH), "{message}");
        assert!(
            message.ends_with(&format!(
                "\nTo fix: set {var} to the library's full path (or a bare file name for the \
                 system loader), or unset it to search for the library"
            )),
            "{message}"
        );
    }
}

/// Paths that depend on the current directory are refused before loading, though the file they
/// name is there: a drive letter without a root (`C:nvcuda.dll`), a root without a drive
/// (`\dir\nvcuda.dll`), `.\`; a toolkit variable of that kind is skipped, and listed.
#[test]
fn paths_that_depend_on_the_current_directory_are_refused() {
    let Some(case) = Layout::new("relative") else {
        return;
    };
    let nvcuda = case.place("nvcuda.dll", "cwd");
    case.place("cudart64_12.dll", "cwd");
    case.place("cudart64_13.dll", r"cwd\toolkit\bin\x64");
    let cwd = case.at("cwd").into_os_string().into_string().unwrap();
    let drive = &cwd[..2];
    assert!(drive.ends_with(':'), "{cwd}");
    let drive_relative = format!("{drive}cudart64_12.dll");
    let rooted = nvcuda.to_str().unwrap()[2..].to_owned();
    let outcome = case.run(&[
        (ENV_LIBCUDA, OsStr::new(&rooted)),
        (ENV_CUDART, OsStr::new(&drive_relative)),
    ]);
    assert_eq!(outcome.modules, Vec::<PathBuf>::new());
    for (message, path, var) in [
        (outcome.driver.unwrap_err(), &rooted, ENV_LIBCUDA),
        (outcome.runtime.unwrap_err(), &drive_relative, ENV_CUDART),
    ] {
        eprintln!("--- {var}={path}:\n{message}");
        assert!(
            message.contains(&format!(
                "\n  \"{path}\" (from ${var}): a relative path is not used (it would depend on \
                 the current directory)"
            )),
            "{message}"
        );
    }

    let Some(case) = Layout::new("relative-toolkit") else {
        return;
    };
    case.place("cudart64_13.dll", r"cwd\toolkit\bin\x64");
    case.place("nvcuda.dll", "cwd");
    let drive = &case.at("cwd").into_os_string().into_string().unwrap()[..2];
    let drive_relative = format!("{drive}toolkit");
    let outcome = case.run(&[
        ("CUDA_PATH", OsStr::new(&drive_relative)),
        ("CUDA_HOME", OsStr::new(r".\toolkit")),
        (ENV_LIBCUDA, OsStr::new(r".\nvcuda.dll")),
    ]);
    assert_eq!(outcome.modules, Vec::<PathBuf>::new());
    let runtime = outcome.runtime.unwrap_err();
    eprintln!("--- CUDA_PATH={drive_relative}:\n{runtime}");
    for skipped in [
        format!("\n  $CUDA_PATH=\"{drive_relative}\": skipped: not an absolute path\n"),
        "\n  $CUDA_HOME=\".\\toolkit\": skipped: not an absolute path\n".to_owned(),
    ] {
        assert!(runtime.contains(&skipped), "{runtime}");
    }
    assert_bare_name_not_found(&runtime, "cudart64_13.dll");
    assert!(outcome.driver.unwrap_err().contains(
        "\n  \".\\nvcuda.dll\" (from $CUDA_DRIVER_TABLE_LIBCUDA): a relative path is not used"
    ));
}

/// The system folder is searched for the bare names: a driver installed there (where NVIDIA's
/// installer puts `nvcuda.dll`) is loaded by the default search. Ignored: it needs the stand-in
/// `nvcuda.dll` in the system folder, where `scripts/windows.sh` puts it in its Wine prefix for
/// this test alone (every other case expects no driver there).
#[test]
#[ignore = "needs the stand-in nvcuda.dll in the system folder: scripts/windows.sh puts it there"]
fn the_system_folder_is_searched() {
    let Some(case) = Layout::new("system-folder") else {
        return;
    };
    let system =
        PathBuf::from(std::env::var_os("SystemRoot").unwrap()).join(r"System32\nvcuda.dll");
    assert!(system.is_file(), "{} is missing", system.display());
    let outcome = case.run(&[]);
    assert_eq!(
        outcome.driver,
        Ok(Found::new(
            "the CUDA driver (nvcuda.dll, cuGetProcAddress_v2)"
        ))
    );
    assert_eq!(outcome.modules, canonicals(&[&system]));
}

/// Libraries named in code, loaded in this process by full path: a system DLL is no CUDA
/// library, a text file and a missing file give the loader's reason, and each backend refuses
/// the other's stand-in; a bare system DLL's name is found in the system folder.
#[test]
fn libraries_named_in_code_that_are_not_cuda() {
    let Some(dlls) = stand_ins() else { return };
    let dir = temp_dir("windows-not-cuda");
    let system = std::env::var_os("SystemRoot")
        .map(|root| PathBuf::from(root).join(r"System32\kernel32.dll"))
        .unwrap();
    let not_cuda = |config: &Config| {
        let e = resolve(config, "cuInit", &abi_2000()).unwrap_err();
        eprintln!("--- {:?}:\n{e}", config.library_path());
        e
    };

    let e = not_cuda(&driver_at(&system));
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotACudaLibrary {
                origin: Origin::Code,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().ends_with(
            "\nTo fix: give Config::library(..) the path of the CUDA driver library (nvcuda.dll)"
        ),
        "{e}"
    );
    let e = not_cuda(&runtime_at(&system));
    assert!(
        e.to_string().ends_with(
            "\nTo fix: give Config::library(..) the path of the CUDA runtime library \
             (cudart64_*.dll)"
        ),
        "{e}"
    );
    // A bare name reaches the system folder: loaded, but not CUDA.
    let e = not_cuda(&driver_at("version.dll"));
    assert!(
        matches!(e.kind(), ErrorKind::NotACudaLibrary { .. }),
        "{e:?}"
    );

    // Each backend refuses the other's library.
    for (config, dll) in [
        (driver_at(dir.join("cudart64_12.dll")), "cudart64_12.dll"),
        (runtime_at(dir.join("nvcuda.dll")), "nvcuda.dll"),
    ] {
        std::fs::copy(dlls.join(dll), dir.join(dll)).unwrap();
        let e = not_cuda(&config);
        assert!(
            matches!(e.kind(), ErrorKind::NotACudaLibrary { .. }),
            "{e:?}"
        );
    }

    let text = dir.join("nvcuda-text.dll");
    std::fs::write(&text, "this is not a DLL\r\n").unwrap();
    let missing = dir.join("missing").join("nvcuda.dll");
    for (path, reason) in [(&text, "(os error 193)"), (&missing, "(os error 126)")] {
        let e = not_cuda(&driver_at(path));
        let ErrorKind::LibraryNotFound { tried, .. } = e.kind() else {
            panic!("{e:?}")
        };
        assert_eq!(
            tried[0].0,
            format!("\"{}\" (from Config::library)", path.display())
        );
        // The loader's reason; a full path is not said to be searched for.
        assert!(tried[0].1.ends_with(reason), "{}", tried[0].1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn abi_2000() -> Abi {
    Abi {
        version: 2000,
        export: None,
        per_thread: None,
    }
}
