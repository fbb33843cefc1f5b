//! Library search, and the real libcudart with or without a driver.
//!
//! The plan tests are pure and run on every system (the Windows plan is tested on Linux too).
//! The Unix tests load libraries with the system loader; on Windows, `windows.rs` loads stand-in
//! DLLs instead, placed where the search looks and where it must not. The libcudart tests (Unix)
//! load the real libraries from the public `nvidia-cuda-runtime` wheels: set `CUDA_DRIVER_TABLE_TEST_CUDART_DIR` to a folder holding
//! `11.8/libcudart.so.11.0`, `12.9/libcudart.so.12` and `13.0/libcudart.so.13` (optionally
//! `12.4/libcudart.so.12`), or to `skip` to skip them on purpose. Unset, they fail. Where the
//! outcome depends on an NVIDIA driver being installed, they check the branch that applies, so
//! they pass on a GPU workstation as on a machine without a driver. Checking pointers against
//! the driver's exports is the GPU suite's job (`tests/tests/gpu.rs`).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::*;
#[cfg(unix)]
use crate::backend::Runtime;
use crate::backend::{Driver, Os, ENV_CUDART, ENV_LIBCUDA};
use crate::error::Origin;
#[cfg(unix)]
use crate::error::{CudaLibrary, Errors, Status};
#[cfg(unix)]
use crate::resolve::Versioning;
#[cfg(unix)]
use crate::sys::CUresult;
#[cfg(unix)]
use crate::table::check;
use crate::testing::abi;

// The search on Windows, run there (under Wine in the test command): the Unix tests below that
// load real libraries have their counterparts in it.
#[cfg(windows)]
mod windows;

#[cfg(unix)]
const TEST_DIR_VAR: &str = "CUDA_DRIVER_TABLE_TEST_CUDART_DIR";

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
    let map: HashMap<String, OsString> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    move |k| map.get(k).cloned()
}

/// The search `built_in` plans on `os` in the environment `pairs`: `(candidates, skipped)`, with a
/// bare name that stands for the system's folders (`in_system_folders`) written out as the paths
/// the search tries for it.
fn search(
    built_in: &BuiltIn,
    os: Os,
    pairs: &[(&str, &str)],
) -> (Vec<PathBuf>, Vec<(String, String)>) {
    match plan(built_in, os, &env_of(pairs)) {
        Plan::Search {
            candidates,
            skipped,
            in_system_folders,
        } => {
            let system = system_library_folders(Path::new(LD_SO_CONF));
            let mut paths = Vec::new();
            for Candidate { path, .. } in candidates {
                if in_system_folders && !os.has_folder(path.as_os_str()) {
                    paths.extend(system.iter().map(|folder| folder.join(&path)));
                } else {
                    paths.push(path);
                }
            }
            keep_first(&mut paths);
            (paths, skipped)
        }
        other => panic!("expected a search, got {other:?}"),
    }
}

fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
}

/// The search's candidates `list`, made from no variable.
fn own(list: &[&str]) -> Vec<Candidate> {
    list.iter().map(Candidate::own).collect()
}

/// `Config::runtime().library_owned(path)`, for the paths of these tests.
fn runtime_at(path: impl Into<PathBuf>) -> Config {
    // SAFETY: every path these tests give names a libcudart of the public wheels, no file, a
    // folder, or a file that exports none of libcudart's functions (libc, a text file): safe to
    // load, and nothing is called that is not libcudart's own function.
    unsafe { Config::runtime().library_owned(path) }
}

/// `Config::driver().library_owned(path)`, for the paths of these tests.
fn driver_at(path: impl Into<PathBuf>) -> Config {
    // SAFETY: as in `runtime_at`; none of these files exports libcuda's functions.
    unsafe { Config::driver().library_owned(path) }
}

/// A fresh, empty folder under the system temp folder.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cdt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn runtime_search_without_environment_uses_loader_names_newest_first() {
    let (candidates, skipped) = search(&RUNTIME, Os::Unix, &[]);
    assert_eq!(
        candidates,
        paths(&["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"])
    );
    assert!(skipped.is_empty());
}

#[test]
fn runtime_search_order_with_toolkit_variables() {
    let (candidates, skipped) = search(
        &RUNTIME,
        Os::Unix,
        &[
            ("CUDA_PATH", "/opt/cuda"),
            ("CUDA_HOME", "/opt/cuda"), // the same folder: not tried twice
        ],
    );
    assert_eq!(
        candidates,
        paths(&[
            "/opt/cuda/lib64/libcudart.so.13",
            "/opt/cuda/lib64/libcudart.so.12",
            "/opt/cuda/lib64/libcudart.so.11.0",
            "/opt/cuda/lib/libcudart.so.13",
            "/opt/cuda/lib/libcudart.so.12",
            "/opt/cuda/lib/libcudart.so.11.0",
            "libcudart.so.13",
            "libcudart.so.12",
            "libcudart.so.11.0",
        ])
    );
    assert!(skipped.is_empty());
}

#[test]
fn relative_variables_are_skipped_never_joined() {
    let (candidates, skipped) = search(
        &RUNTIME,
        Os::Unix,
        &[("CUDA_PATH", "cuda"), ("VIRTUAL_ENV", ".venv")],
    );
    assert!(candidates.iter().all(|c| c.components().count() == 1));
    assert_eq!(
        skipped,
        vec![
            (
                "$CUDA_PATH=\"cuda\"".into(),
                "skipped: not an absolute path".into()
            ),
            (
                "$VIRTUAL_ENV=\".venv\"".into(),
                "skipped: not an absolute path".into()
            ),
        ]
    );
}

#[test]
fn driver_search_is_libcuda_so_1_only() {
    let (candidates, _) = search(
        &DRIVER,
        Os::Unix,
        &[
            ("CUDA_PATH", "/usr/local/cuda"),
            ("CUDA_HOME", "/usr/local/cuda"),
        ],
    );
    assert_eq!(candidates, paths(&["libcuda.so.1"]));
}

/// The Windows plan (tested here on any system): the toolkit's `bin\x64` (13.x) and `bin`, the
/// DLL names newest first, then the pip wheel layouts under `Lib\site-packages`.
#[test]
fn windows_runtime_search_order() {
    let (candidates, skipped) = search(
        &RUNTIME,
        Os::Windows,
        &[
            (
                "CUDA_PATH",
                r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\",
            ),
            ("VIRTUAL_ENV", r"D:\venv"),
            ("CUDA_HOME", r"relative\cuda"),
            ("CONDA_PREFIX", "C:relative"),
        ],
    );
    let toolkit = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0";
    let mut expected = Vec::new();
    for dir in [r"bin\x64", "bin"] {
        for name in ["cudart64_13.dll", "cudart64_12.dll", "cudart64_110.dll"] {
            expected.push(format!(r"{toolkit}\{dir}\{name}"));
        }
    }
    expected.extend(["cudart64_13.dll", "cudart64_12.dll", "cudart64_110.dll"].map(String::from));
    expected.extend([
        r"D:\venv\Lib\site-packages\nvidia\cu13\bin\x86_64\cudart64_13.dll".to_owned(),
        r"D:\venv\Lib\site-packages\nvidia\cuda_runtime\bin\cudart64_12.dll".to_owned(),
        r"D:\venv\Lib\site-packages\nvidia\cuda_runtime\bin\cudart64_110.dll".to_owned(),
    ]);
    let expected: Vec<PathBuf> = expected.into_iter().map(PathBuf::from).collect();
    assert_eq!(candidates, expected);
    // Drive-relative and relative folders are never joined.
    assert_eq!(
        skipped
            .iter()
            .map(|(what, _)| what.as_str())
            .collect::<Vec<_>>(),
        [
            r#"$CUDA_HOME="relative\cuda""#,
            r#"$CONDA_PREFIX="C:relative""#
        ]
    );
}

#[test]
fn windows_driver_search_is_nvcuda_dll_only() {
    let (candidates, _) = search(&DRIVER, Os::Windows, &[("CUDA_PATH", r"C:\CUDA")]);
    assert_eq!(candidates, paths(&["nvcuda.dll"]));
}

/// On Windows a path depends on the current directory when it has a separator (either one) or
/// a drive letter without a root; those are refused, absolute and UNC paths and bare names pass.
#[test]
fn windows_paths_that_depend_on_the_current_directory_are_refused() {
    let plan_of = |value: &str| plan(&RUNTIME, Os::Windows, &env_of(&[(ENV_CUDART, value)]));
    for refused in [
        r"lib\cudart64_12.dll",
        "lib/cudart64_12.dll",
        "C:cudart64_12.dll",
        r".\x.dll",
        r"\x.dll",
    ] {
        assert!(
            matches!(plan_of(refused), Plan::Refused { .. }),
            "{refused}"
        );
    }
    for used in [
        r"C:\CUDA\bin\cudart64_12.dll",
        "C:/CUDA/bin/cudart64_12.dll",
        r"\\server\share\cudart64_12.dll",
        "cudart64_12.dll",
    ] {
        assert!(matches!(plan_of(used), Plan::Exact { .. }), "{used}");
    }
}

#[test]
fn environment_variable_is_used_alone() {
    fn exact(built_in: &BuiltIn, value: &str) -> Plan {
        plan(
            built_in,
            Os::Unix,
            &env_of(&[(built_in.library.env_var, value), ("CUDA_PATH", "/opt")]),
        )
    }
    assert_eq!(
        exact(&RUNTIME, "/x/libcudart.so.12"),
        Plan::Exact {
            path: "/x/libcudart.so.12".into(),
            origin: Origin::Environment
        }
    );
    assert_eq!(
        exact(&DRIVER, "libcuda.so.1"),
        Plan::Exact {
            path: "libcuda.so.1".into(),
            origin: Origin::Environment
        }
    );
    assert!(matches!(
        exact(&RUNTIME, "lib/libcudart.so.12"),
        Plan::Refused { .. }
    ));
    // Empty means unset.
    assert!(matches!(exact(&RUNTIME, ""), Plan::Search { .. }));
    // Any relative path with a separator depends on the current directory, however spelled.
    for relative in [
        "x/",
        "x/.",
        "./libcudart.so.12",
        "../lib/libcudart.so.12",
        "a//b",
    ] {
        assert!(
            matches!(exact(&RUNTIME, relative), Plan::Refused { .. }),
            "{relative}"
        );
    }
}

/// Paths given in code follow the same rules: an empty path (which `dlopen` would take for the
/// program itself) and relative paths with a separator are refused before anything is loaded.
#[test]
fn unusable_paths_in_code_are_refused() {
    for (path, reason) in [
        ("", "an empty path names no library"),
        ("x/", "would depend on the current directory"),
        ("x/.", "would depend on the current directory"),
        ("lib/libcuda.so.1", "would depend on the current directory"),
    ] {
        let e = resolve(&driver_at(path), "cuInit", &abi(2000, None)).unwrap_err();
        let ErrorKind::LibraryNotFound { tried, .. } = e.kind() else {
            panic!("{path:?}: {e:#?}")
        };
        assert_eq!(tried.len(), 1, "{path:?}: {e}");
        assert_eq!(tried[0].0, format!("{path:?} (from Config::library)"));
        assert!(tried[0].1.contains(reason), "{path:?}: {e}");
    }
}

#[test]
#[cfg(unix)]
fn python_environment_layouts_come_last_newest_python_first() {
    let venv = temp_dir("venv");
    for py in ["python3.9", "python3.12", "pythonX"] {
        std::fs::create_dir_all(venv.join("lib").join(py).join("site-packages")).unwrap();
    }
    let v = venv.to_str().unwrap();
    let (candidates, _) = search(&RUNTIME, Os::Unix, &[("VIRTUAL_ENV", v)]);
    let site = |py: &str, rest: &str| venv.join("lib").join(py).join("site-packages").join(rest);
    assert_eq!(
        candidates,
        vec![
            PathBuf::from("libcudart.so.13"),
            PathBuf::from("libcudart.so.12"),
            PathBuf::from("libcudart.so.11.0"),
            site("python3.12", "nvidia/cu13/lib/libcudart.so.13"),
            site("python3.12", "nvidia/cuda_runtime/lib/libcudart.so.12"),
            site("python3.12", "nvidia/cuda_runtime/lib/libcudart.so.11.0"),
            site("python3.9", "nvidia/cu13/lib/libcudart.so.13"),
            site("python3.9", "nvidia/cuda_runtime/lib/libcudart.so.12"),
            site("python3.9", "nvidia/cuda_runtime/lib/libcudart.so.11.0"),
        ]
    );
    let _ = std::fs::remove_dir_all(&venv);
}

#[test]
#[cfg(unix)]
fn missing_explicit_library_lists_the_path_tried() {
    let config = runtime_at("/nonexistent/libcudart.so.12");
    let e = resolve(&config, "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- runtime, missing explicit path:\n{e}");
    let ErrorKind::LibraryNotFound { library, tried, .. } = e.kind() else {
        panic!("{e:?}")
    };
    assert_eq!(library.name, "libcudart");
    assert_eq!(tried.len(), 1);
    assert_eq!(
        tried[0].0,
        "\"/nonexistent/libcudart.so.12\" (from Config::library)"
    );
    assert!(tried[0].1.contains("No such file"), "{}", tried[0].1);
    // The loader's message without the path it starts with: the path is named once.
    assert!(!tried[0].1.contains("libcudart.so.12"), "{}", tried[0].1);
    // The advice is about the path given in code, not about installing or the environment.
    let msg = e.to_string();
    assert!(
        msg.ends_with(
            "To fix: give Config::library(..) the library's full path (or a bare file name for \
             the system loader), or leave it out to search for the library"
        ),
        "{msg}"
    );
    assert!(!msg.contains("CUDA_DRIVER_TABLE_CUDART"), "{msg}");
    // The outcome is cached: the same error again.
    assert_eq!(resolve(&config, "cuInit", &abi(2000, None)).unwrap_err(), e);
}

#[test]
#[cfg(unix)]
fn driver_backend_without_a_driver_lists_the_paths_tried() {
    if std::env::var_os(ENV_LIBCUDA).is_some() {
        eprintln!("{ENV_LIBCUDA} is set; this test needs the default search");
        return;
    }
    if std::path::Path::new("/proc/driver/nvidia").exists() {
        eprintln!("an NVIDIA driver is installed; this test needs a machine without one");
        return;
    }
    let e = resolve(&Config::driver(), "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- driver backend, default search:\n{e}");
    let ErrorKind::LibraryNotFound { library, tried, .. } = e.kind() else {
        panic!("{e:?}")
    };
    assert_eq!(library.name, "libcuda");
    assert_eq!(tried.len(), 1);
    assert_eq!(tried[0].0, "\"libcuda.so.1\"");
    assert!(tried[0].1.contains("cannot open"), "{}", tried[0].1);
    assert!(e.to_string().contains("install the NVIDIA driver"), "{e}");

    let e = resolve(
        &driver_at("/nonexistent/libcuda.so.1"),
        "cuInit",
        &abi(2000, None),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::LibraryNotFound { library, tried, .. } if library.name == "libcuda" && tried.len() == 1),
        "{e:?}"
    );
}

#[test]
#[cfg(unix)]
fn a_library_that_is_not_cuda_gives_a_clear_error() {
    let libc = [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib64/libc.so.6",
        "/lib64/libc.so.6",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists())
    .expect("no libc.so.6 found");
    let e = resolve(&runtime_at(libc), "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- runtime, libc.so.6:\n{e}");
    assert_eq!(
        *e.kind(),
        ErrorKind::NotACudaLibrary {
            library: Runtime::LIBRARY,
            origin: Origin::Code,
            path: libc.into(),
            missing: vec![
                "cudaGetDriverEntryPointByVersion",
                "cudaGetDriverEntryPoint"
            ],
        }
    );
    assert!(
        e.to_string().contains("not a usable CUDA runtime library"),
        "{e}"
    );

    let e = resolve(&driver_at(libc), "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- driver, libc.so.6:\n{e}");
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotACudaLibrary {
                library: CudaLibrary {
                    name: "libcuda",
                    ..
                },
                ..
            }
        ),
        "{e:?}"
    );

    let dir = temp_dir("text");
    let text = dir.join("libcudart.so.12");
    std::fs::write(&text, "this is not a shared library\n").unwrap();
    let config = runtime_at(&text);
    let e = resolve(&config, "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- runtime, a text file:\n{e}");
    let ErrorKind::LibraryNotFound { tried, .. } = e.kind() else {
        panic!("{e:?}")
    };
    assert!(tried[0].1.contains("invalid ELF header") || tried[0].1.contains("too short"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
/// The folder with the wheels' libcudart copies: `$CUDA_DRIVER_TABLE_TEST_CUDART_DIR`, else the
/// one the test command lays out in its cache: `$CUDA_DRIVER_TABLE_CACHE/cudart`, else
/// `$XDG_CACHE_HOME/cuda-driver-table/cudart`, else `~/.cache/cuda-driver-table/cudart`. `None`
/// when deliberately skipped.
fn cudart_dir() -> Option<PathBuf> {
    match std::env::var_os(TEST_DIR_VAR) {
        Some(v) if v == "skip" => {
            eprintln!("{TEST_DIR_VAR}=skip: real-libcudart test skipped");
            return None;
        }
        Some(v) => return Some(PathBuf::from(v)),
        None => {}
    }
    let cache = std::env::var_os("CUDA_DRIVER_TABLE_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            let base = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            Some(base.join("cuda-driver-table"))
        });
    match cache.map(|c| c.join("cudart")) {
        Some(dir) if dir.is_dir() => Some(dir),
        other => panic!(
            "{TEST_DIR_VAR} is not set and {} does not exist. Run `bash scripts/test.sh` once \
             (it fetches the nvidia-cuda-runtime wheels and lays out 11.8/libcudart.so.11.0, \
             12.4/libcudart.so.12, 12.9/libcudart.so.12 and 13.0/libcudart.so.13 there), point \
             {TEST_DIR_VAR} at such a folder, or set it to `skip` to skip these tests on purpose",
            other.map_or_else(|| "the cache".to_owned(), |d| d.display().to_string())
        ),
    }
}

#[cfg(unix)]
fn cudart(release: &str, file: &str) -> Option<Config> {
    let path = cudart_dir()?.join(release).join(file);
    assert!(path.is_file(), "{} is missing", path.display());
    Some(runtime_at(path))
}

#[cfg(unix)]
/// Whether an NVIDIA driver is installed here (a GPU workstation, the GPU machine).
fn driver_installed() -> bool {
    // SAFETY: loading the driver library runs its initialisers, as any use of CUDA does.
    unsafe { Library::new("libcuda.so.1") }.is_ok()
}

#[cfg(unix)]
/// Resolving cuInit through `config`: with a driver it resolves; without one it fails with
/// libcudart's own error, named. Either way a failing `CUresult` is an error value.
fn check_cuinit(config: &Config, release: &str) {
    let result = resolve(config, "cuInit", &abi(2000, None));
    if driver_installed() {
        let p = result.unwrap_or_else(|e| panic!("libcudart {release} with a driver: {e}"));
        eprintln!("--- libcudart {release}, cuInit at 2000, with a driver: {p:?}");
        let r = resolver_for(config).unwrap();
        assert!(r.driver_version().is_some_and(|v| v >= 11000));
        assert!(r.describe().starts_with(&format!("libcudart {release} (")));
    } else {
        let e = result.unwrap_err();
        eprintln!("--- libcudart {release}, cuInit at 2000, no driver:\n{e}");
        let ErrorKind::LookupFailed {
            function,
            status: Status { name, .. },
            backend,
        } = e.kind()
        else {
            panic!("{e:?}")
        };
        assert_eq!(*function, "cuInit");
        assert!(
            name == "cudaErrorInsufficientDriver" || name == "cudaErrorNoDevice",
            "unexpected {name}"
        );
        // libcudart 11.x cannot tell its version without a driver.
        let expected = if release.starts_with("11.") {
            "libcudart (".to_owned()
        } else {
            format!("libcudart {release} (")
        };
        assert!(backend.starts_with(&expected), "{backend}");
        assert!(e.to_string().contains(name.as_str()));
    }
    let e = check(config, "cuInit", CUresult(100)).unwrap_err();
    eprintln!("--- libcudart {release}, check(cuInit, 100):\n{e}");
    assert_eq!(e.code(), Some(100));
}

#[test]
#[cfg(unix)]
fn libcudart_11_8() {
    let Some(config) = cudart("11.8", "libcudart.so.11.0") else {
        return;
    };
    let r = resolver_for(&config).unwrap();
    check_cuinit(&config, "11.8");
    if driver_installed() {
        // The unversioned entry point hands out the driver's cuGetProcAddress (ABI 11030 at
        // 11.8), and every function is asked of it at exactly its pinned version.
        assert_eq!(r.versioning(), Versioning::Versioned);
        resolve(&config, "cuCtxCreate", &abi(3020, None)).unwrap();
        assert!(r
            .describe()
            .ends_with("through the driver's cuGetProcAddress it hands out"));
    } else {
        // libcudart 11.8 only has the unversioned lookup, and without a driver it cannot even
        // tell its own version (cudaRuntimeGetVersion fails with cudaErrorInsufficientDriver),
        // so no ABI can be proven and no lookup is made: the error names libcudart's reason.
        assert_eq!(r.driver_version(), None);
        assert!(matches!(
            r.versioning(),
            Versioning::Unavailable(Status { code: 35, .. })
        ));
        let e = resolve(&config, "cuCtxCreate", &abi(3020, None)).unwrap_err();
        eprintln!("--- libcudart 11.8, cuCtxCreate at 3020:\n{e}");
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LookupFailed {
                    status: Status { code: 35, .. },
                    ..
                }
            ),
            "{e:?}"
        );
    }
}

#[test]
#[cfg(unix)]
fn libcudart_12_4_if_present() {
    let Some(dir) = cudart_dir() else { return };
    let path = dir.join("12.4/libcudart.so.12");
    if !path.is_file() {
        eprintln!(
            "{} not present; the 12.0-12.4 path is not tested",
            path.display()
        );
        return;
    }
    let config = runtime_at(path);
    let r = resolver_for(&config).unwrap();
    check_cuinit(&config, "12.4");
    let result = resolve(&config, "cuCtxCreate", &abi(3020, None));
    if driver_installed() {
        // Through the driver's cuGetProcAddress_v2 (ABI 12000 at 12.4): the exact ABI.
        assert_eq!(r.versioning(), Versioning::Versioned);
        result.unwrap();
    } else {
        // Without a driver, libcudart 12.4 cannot hand out the driver's cuGetProcAddress: that
        // failure is every lookup's, and it is what is reported (not the unversioned lookup,
        // which would fail the same way where it is allowed).
        let Versioning::Unavailable(status) = r.versioning() else {
            panic!("{:?}", r.versioning())
        };
        assert_eq!(status.name, "cudaErrorInsufficientDriver");
        assert!(status.description.contains("cuGetProcAddress"), "{status}");
        let e = result.unwrap_err();
        eprintln!("--- libcudart 12.4, cuCtxCreate at 3020:\n{e}");
        assert_eq!(
            *e.kind(),
            ErrorKind::LookupFailed {
                function: "cuCtxCreate",
                status,
                backend: r.describe(),
            }
        );
    }
}

#[test]
#[cfg(unix)]
fn libcudart_12_9() {
    let Some(config) = cudart("12.9", "libcudart.so.12") else {
        return;
    };
    let r = resolver_for(&config).unwrap();
    assert_eq!(r.versioning(), Versioning::Versioned);
    check_cuinit(&config, "12.9");
    // With the versioned lookup, any pinned ABI is asked for; without a driver it fails.
    let result = resolve(
        &config.per_thread(),
        "cuLaunchKernel",
        &abi(4000, Some(7000)),
    );
    if driver_installed() {
        result.unwrap();
    } else {
        assert_eq!(r.driver_version(), None);
        let e = result.unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::LookupFailed { .. }), "{e:?}");
    }
}

#[test]
#[cfg(unix)]
fn libcudart_13_0() {
    let Some(config) = cudart("13.0", "libcudart.so.13") else {
        return;
    };
    let r = resolver_for(&config).unwrap();
    assert_eq!(r.versioning(), Versioning::Versioned);
    check_cuinit(&config, "13.0");

    // libcudart is not libcuda: the driver backend refuses it clearly.
    let path = config.library_path().unwrap();
    let e = resolve(&driver_at(path), "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- driver backend given libcudart 13.0:\n{e}");
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotACudaLibrary {
                library: CudaLibrary {
                    name: "libcuda",
                    ..
                },
                ..
            }
        ),
        "{e:?}"
    );
}

/// The outcome of loading a library is kept for the rest of the process, failure included: a
/// library that appears later at a path that failed is not picked up (the environment is read
/// once, at the first resolution). Resolving a function that failed is retried on every call.
#[test]
#[cfg(unix)]
fn a_failed_load_is_kept_for_the_process() {
    let Some(dir) = cudart_dir() else { return };
    let folder = temp_dir("appears-later");
    let path = folder.join("libcudart.so.13");
    let config = runtime_at(&path);
    let first = resolve(&config, "cuInit", &abi(2000, None)).unwrap_err();
    assert!(
        matches!(first.kind(), ErrorKind::LibraryNotFound { .. }),
        "{first}"
    );
    std::fs::copy(dir.join("13.0/libcudart.so.13"), &path).unwrap();
    let again = resolve(&config, "cuInit", &abi(2000, None)).unwrap_err();
    assert_eq!(again, first);
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
#[cfg(unix)]
fn search_finds_libcudart_in_a_python_environment() {
    let Some(dir) = cudart_dir() else { return };
    let venv = temp_dir("venv-real");
    let lib = venv.join("lib/python3.12/site-packages/nvidia/cu13/lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::copy(
        dir.join("13.0/libcudart.so.13"),
        lib.join("libcudart.so.13"),
    )
    .unwrap();
    let env = env_of(&[("VIRTUAL_ENV", venv.to_str().unwrap())]);
    let Plan::Search {
        mut candidates,
        skipped,
        in_system_folders,
    } = plan(&RUNTIME, Os::CURRENT, &env)
    else {
        panic!("expected a search")
    };
    // Only the venv candidates: a loader name would match a libcudart.so.13 that another test
    // of this process already loaded (dlopen matches loaded sonames).
    candidates.retain(|c| c.path.starts_with(&venv));
    assert_eq!(candidates.len(), 3);
    let loaded = load_plan(
        &RUNTIME,
        Plan::Search {
            candidates,
            skipped,
            in_system_folders,
        },
    );
    let r = loaded.loaded.unwrap_or_else(|e| panic!("{e}"));
    eprintln!("--- found in the venv: {}", r.describe());
    let expected = format!("libcudart 13.0 ({})", lib.join("libcudart.so.13").display());
    assert_eq!(r.describe(), expected);
    let _ = std::fs::remove_dir_all(&venv);
}

#[cfg(unix)]
/// What `resolve_all` of a `#[driver_table(all, driver = newest)]` table reports through `config`: every function
/// of the release at its default ABI, resolved as a table's fields are.
fn all_table_report(config: &Config) -> Result<(), Errors> {
    let errors = crate::manifest::functions()
        .iter()
        .filter_map(|f| {
            let default = f.abis.iter().find(|a| a.version == f.default).unwrap();
            resolve(config, f.name, default).err()
        })
        .collect();
    Errors::from_vec(errors)
}

/// libcudart 12.4 and 11.8 without a driver, on an `all` table: one reason (no driver, as
/// libcudart says it), written once for every function; not one remedy per function that the
/// unversioned lookup would refuse. With a driver, every function resolves.
#[test]
#[cfg(unix)]
fn an_all_table_on_an_old_libcudart_without_a_driver_reports_one_reason() {
    let Some(dir) = cudart_dir() else { return };
    for (release, file) in [("12.4", "libcudart.so.12"), ("11.8", "libcudart.so.11.0")] {
        let path = dir.join(release).join(file);
        if !path.is_file() {
            eprintln!("{} not present; not tested", path.display());
            continue;
        }
        let config = runtime_at(path);
        let report = all_table_report(&config);
        if driver_installed() {
            report.unwrap_or_else(|e| panic!("libcudart {release} with a driver: {e}"));
            continue;
        }
        let text = report.unwrap_err().to_string();
        eprintln!("--- libcudart {release}, an all table, no driver:\n{text}");
        let n = crate::manifest::functions().len();
        let head = format!("{n} driver functions could not be resolved, all for one reason:\n");
        assert!(text.starts_with(&head), "{text}");
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.contains("cudaErrorInsufficientDriver (35)"), "{text}");
        assert!(!text.contains("12.5"), "{text}");
    }
}

/// The advice fits where the path came from: the environment variable's own advice for a path
/// from it, the install advice only after a search. Paths are quoted, so a trailing space or a
/// newline shows.
#[test]
#[cfg(unix)]
fn advice_fits_where_the_path_came_from() {
    let from_env = load_plan(
        &RUNTIME,
        plan(
            &RUNTIME,
            Os::Unix,
            &env_of(&[(ENV_CUDART, "/nonexistent/libcudart.so.12 ")]),
        ),
    )
    .loaded
    .err()
    .unwrap();
    eprintln!("--- from the environment:\n{from_env}");
    assert_eq!(
        from_env.to_string(),
        "could not load the CUDA runtime library (libcudart); tried:\n  \
         \"/nonexistent/libcudart.so.12 \" (from $CUDA_DRIVER_TABLE_CUDART): cannot open shared \
         object file: No such file or directory\n\
         To fix: set CUDA_DRIVER_TABLE_CUDART to the library's full path (or a bare file name for \
         the system loader), or unset it to search for the library"
    );

    let searched = load_plan(
        &DRIVER,
        Plan::Search {
            candidates: own(&["/nonexistent/new\nline/libcuda.so.1"]),
            skipped: Vec::new(),
            in_system_folders: false,
        },
    )
    .loaded
    .err()
    .unwrap();
    eprintln!("--- from the search:\n{searched}");
    let text = searched.to_string();
    assert!(
        text.contains("\n  \"/nonexistent/new\\nline/libcuda.so.1\": "),
        "{text}"
    );
    assert!(
        text.ends_with(
            "To fix: install the NVIDIA driver, set CUDA_DRIVER_TABLE_LIBCUDA to the library's \
             full path, or give it in code with Config::library(..)"
        ),
        "{text}"
    );
    assert!(matches!(
        searched.kind(),
        ErrorKind::LibraryNotFound {
            origin: Origin::Search,
            ..
        }
    ));
}

/// A NUL byte cannot be in a file name: such a path is refused before anything is loaded (the
/// loader would read the path up to the NUL, another file).
#[test]
fn a_path_with_a_nul_byte_is_refused_up_front() {
    let config = runtime_at("/usr/lib/libcudart.so.12\0.evil");
    let e = resolve(&config, "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- a NUL byte:\n{e}");
    let ErrorKind::LibraryNotFound { tried, origin, .. } = e.kind() else {
        panic!("{e:?}")
    };
    assert_eq!(*origin, Origin::Code);
    assert_eq!(
        tried[0].0,
        "\"/usr/lib/libcudart.so.12\\0.evil\" (from Config::library)"
    );
    assert!(
        tried[0]
            .1
            .starts_with("a path with a NUL byte names no file"),
        "{}",
        tried[0].1
    );
}

/// `CUDA_PATH` and the other folders are used as the bytes they are: a folder whose name is not
/// UTF-8 is joined exactly, not replaced by a lossy copy.
#[test]
#[cfg(unix)]
fn a_folder_that_is_not_utf8_is_joined_as_it_is() {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let folder = OsString::from_vec(b"/opt/cu\xFFda".to_vec());
    let env = |var: &str| (var == "CUDA_PATH").then(|| folder.clone());
    let Plan::Search { candidates, .. } = plan(&RUNTIME, Os::Unix, &env) else {
        panic!("expected a search")
    };
    assert_eq!(
        candidates[0].path.as_os_str().as_bytes(),
        b"/opt/cu\xFFda/lib64/libcudart.so.13"
    );
    // And a relative one is named in the error with its bytes escaped.
    let relative = OsString::from_vec(b"cu\xFFda".to_vec());
    let env = |var: &str| (var == "CUDA_HOME").then(|| relative.clone());
    let mut skipped = Vec::new();
    Runtime::candidates(Os::Unix, &env, &mut skipped);
    assert_eq!(skipped[0].0, "$CUDA_HOME=\"cu\\xFFda\"");
}

/// conda-forge's `cuda-cudart` package puts libcudart in `$CONDA_PREFIX/lib` (Windows:
/// `Library\bin`): searched before the pip wheel layouts of the same environment.
#[test]
fn conda_forge_libraries_are_searched() {
    let (candidates, _) = search(&RUNTIME, Os::Unix, &[("CONDA_PREFIX", "/opt/conda/envs/x")]);
    assert_eq!(
        candidates[3..],
        paths(&[
            "/opt/conda/envs/x/lib/libcudart.so.13",
            "/opt/conda/envs/x/lib/libcudart.so.12",
            "/opt/conda/envs/x/lib/libcudart.so.11.0",
        ])
    );
    let (candidates, _) = search(&RUNTIME, Os::Windows, &[("CONDA_PREFIX", r"C:\conda")]);
    assert_eq!(
        candidates[3..6],
        paths(&[
            r"C:\conda\Library\bin\cudart64_13.dll",
            r"C:\conda\Library\bin\cudart64_12.dll",
            r"C:\conda\Library\bin\cudart64_110.dll",
        ])
    );
    // A virtual environment is not conda: no `lib` of its own.
    let (candidates, _) = search(&RUNTIME, Os::Unix, &[("VIRTUAL_ENV", "/opt/venv")]);
    assert_eq!(candidates.len(), 3, "{candidates:?}");
}

/// A free-threaded Python (`python3.13t`) keeps its packages in `lib/python3.13t`: found, after
/// the usual build of the same version.
#[test]
#[cfg(unix)]
fn free_threaded_python_environments_are_found() {
    let venv = temp_dir("venv-free-threaded");
    for py in ["python3.12", "python3.13t", "python3.13"] {
        std::fs::create_dir_all(venv.join("lib").join(py).join("site-packages")).unwrap();
    }
    let (candidates, _) = search(
        &RUNTIME,
        Os::Unix,
        &[("VIRTUAL_ENV", venv.to_str().unwrap())],
    );
    let sites: Vec<&Path> = candidates
        .iter()
        .filter_map(|c| c.ancestors().find(|a| a.ends_with("site-packages")))
        .collect();
    let site = |py: &str| venv.join("lib").join(py).join("site-packages");
    assert_eq!(
        sites.iter().step_by(3).copied().collect::<Vec<_>>(),
        [site("python3.13"), site("python3.13t"), site("python3.12")]
    );
    let _ = std::fs::remove_dir_all(&venv);
}

/// An empty or relative entry in `LD_LIBRARY_PATH` makes the system loader search the current
/// directory for a bare name. With one, the search hands the loader no bare name: the names are
/// tried in the absolute folders of `LD_LIBRARY_PATH` only, and the error says why the loader's
/// own search was not made; a bare name given in the environment or in code is refused.
#[test]
fn bare_names_stay_away_from_a_library_path_that_reads_the_current_directory() {
    for ld_path in [
        ":/opt/cuda/lib64",
        "/opt/cuda/lib64:",
        "/opt/cuda/lib64::/x",
        "lib:/opt/cuda/lib64",
        "/opt/cuda/lib64;",
        ".:/opt/cuda/lib64",
        "$LIB:/opt/cuda/lib64",
    ] {
        let (candidates, skipped) = search(&RUNTIME, Os::Unix, &[("LD_LIBRARY_PATH", ld_path)]);
        // Each name in the absolute folders of LD_LIBRARY_PATH, then in the system's folders.
        let mut folders = vec![PathBuf::from("/opt/cuda/lib64")];
        if ld_path.ends_with("/x") {
            folders.push(PathBuf::from("/x"));
        }
        folders.extend(system_library_folders(Path::new(LD_SO_CONF)));
        let expected: Vec<PathBuf> = ["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"]
            .iter()
            .flat_map(|name| folders.iter().map(move |f| f.join(name)))
            .collect();
        assert_eq!(candidates, expected, "{ld_path}");
        assert_eq!(
            skipped,
            vec![(
                "the system loader's search for \"libcudart.so.13\", \"libcudart.so.12\", \
                 \"libcudart.so.11.0\""
                    .to_owned(),
                format!(
                    "not made: $LD_LIBRARY_PATH=\"{ld_path}\" has an empty or relative entry, \
                     which makes the loader search the current directory; these names were \
                     tried in its absolute folders and in the system's library folders \
                     (/etc/ld.so.conf and the usual ones) instead. Remove that entry (a \
                     leading, trailing or doubled ':') to let the loader search as usual"
                )
            )],
            "{ld_path}"
        );
        // Named in the environment: a bare name is refused, a full path used.
        let named = |value| {
            plan(
                &DRIVER,
                Os::Unix,
                &env_of(&[("LD_LIBRARY_PATH", ld_path), (ENV_LIBCUDA, value)]),
            )
        };
        let Plan::Refused { why, .. } = named("libcuda.so.1") else {
            panic!("{ld_path}: {:?}", named("libcuda.so.1"))
        };
        assert!(
            why.starts_with("a bare file name is not handed to the system loader"),
            "{why}"
        );
        assert!(matches!(named("/usr/lib/libcuda.so.1"), Plan::Exact { .. }));
    }
    // The driver's one name, likewise.
    let (candidates, _) = search(
        &DRIVER,
        Os::Unix,
        &[("LD_LIBRARY_PATH", "/usr/lib/wsl/lib:")],
    );
    assert_eq!(
        candidates[0],
        PathBuf::from("/usr/lib/wsl/lib/libcuda.so.1")
    );
    // A trailing ':' (`LD_LIBRARY_PATH=/x:$LD_LIBRARY_PATH` with nothing set) still finds the
    // driver where the system installs it.
    assert!(
        candidates.contains(&PathBuf::from(format!(
            "/usr/lib/{}-linux-gnu/libcuda.so.1",
            std::env::consts::ARCH
        ))),
        "{candidates:?}"
    );
    // Absolute entries and `$ORIGIN` (the program's folder) leave the loader's search as it is;
    // so does an empty value, which the loader reads as no path at all.
    for ld_path in [
        "/opt/cuda/lib64",
        "/a:/b;/c",
        "$ORIGIN/../lib:/a",
        "${ORIGIN}/lib",
        "",
    ] {
        let (candidates, skipped) = search(&RUNTIME, Os::Unix, &[("LD_LIBRARY_PATH", ld_path)]);
        assert_eq!(
            candidates,
            paths(&["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"]),
            "{ld_path}"
        );
        assert!(skipped.is_empty());
    }
    // `$ORIGIN` is a token only when a `/` or the end follows it: `$ORIGINX` and `${ORIGIN}X`
    // are folders of those names in the current directory.
    for ld_path in ["$ORIGINX", "$ORIGINX/lib", "${ORIGIN}X", "/a:$ORIGIN_/lib"] {
        let (_, skipped) = search(&RUNTIME, Os::Unix, &[("LD_LIBRARY_PATH", ld_path)]);
        assert_eq!(skipped.len(), 1, "{ld_path}: {skipped:?}");
        assert!(
            skipped[0].0.starts_with("the system loader's search for"),
            "{ld_path}: {skipped:?}"
        );
    }
    // Windows has no LD_LIBRARY_PATH: its bare names never reach the current directory.
    let (candidates, _) = search(&DRIVER, Os::Windows, &[("LD_LIBRARY_PATH", ":")]);
    assert_eq!(candidates, paths(&["nvcuda.dll"]));
}

#[cfg(unix)]
/// The environment variable the planted-library child test runs under.
const PLANTED_CHILD_VAR: &str = "CUDA_DRIVER_TABLE_TEST_PLANTED_CHILD";

/// Runs the ignored test `test` of this binary in a child process, with none of the variables
/// that steer the library search set but those `configure` sets; asserts that it passed and
/// returns what it printed on stderr.
#[cfg(unix)]
fn run_child(test: &str, configure: impl FnOnce(&mut std::process::Command)) -> String {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child.args(["--exact", test, "--ignored", "--nocapture"]);
    for var in [
        ENV_CUDART,
        ENV_LIBCUDA,
        "CUDA_PATH",
        "CUDA_HOME",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
    ] {
        child.env_remove(var);
    }
    configure(&mut child);
    let output = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    eprintln!("--- the child:\n{stdout}{stderr}");
    assert!(output.status.success(), "{stdout}{stderr}");
    stderr
}

/// A libcudart planted in the current directory of a process started with `LD_LIBRARY_PATH=:`
/// (an empty entry, which the system loader reads as the current directory) is not loaded by
/// the default search. Run in a child process: the loader reads `LD_LIBRARY_PATH` at start-up.
#[test]
#[cfg(unix)]
fn a_library_planted_in_the_current_directory_is_not_loaded() {
    let Some(dir) = cudart_dir() else { return };
    let cwd = temp_dir("planted");
    std::fs::copy(
        dir.join("13.0/libcudart.so.13"),
        cwd.join("libcudart.so.13"),
    )
    .unwrap();
    let stderr = run_child("library::tests::planted_library_child", |child| {
        child
            .current_dir(&cwd)
            .env(PLANTED_CHILD_VAR, &cwd)
            .env("LD_LIBRARY_PATH", ":");
    });
    assert!(
        stderr.contains("the planted library was not loaded"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&cwd);
}

/// The child of [`a_library_planted_in_the_current_directory_is_not_loaded`].
#[test]
#[cfg(unix)]
#[ignore = "run by a_library_planted_in_the_current_directory_is_not_loaded"]
fn planted_library_child() {
    let cwd = PathBuf::from(std::env::var_os(PLANTED_CHILD_VAR).expect("run by its parent test"));
    let outcome = resolver_for(&Config::runtime()).map(|r| r.describe());
    eprintln!("the search: {outcome:?}");
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let planted = cwd.join("libcudart.so.13");
    assert!(
        !maps.contains(planted.to_str().unwrap()),
        "the planted {} was loaded",
        planted.display()
    );
    eprintln!("the planted library was not loaded");
}

#[test]
fn the_system_folders_come_from_ld_so_conf_and_its_includes_then_the_defaults() {
    let dir = std::env::temp_dir().join(format!("cdt-ld-so-conf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("ld.so.conf.d")).unwrap();
    std::fs::write(
        dir.join("ld.so.conf"),
        "# a comment\n/opt/first\ninclude ld.so.conf.d/*.conf\n/opt/last=x86_64 # hwcap\n",
    )
    .unwrap();
    std::fs::write(dir.join("ld.so.conf.d/b.conf"), "/usr/local/cuda/lib64\n").unwrap();
    std::fs::write(dir.join("ld.so.conf.d/a.conf"), "/opt/a:/opt/a2 relative\n").unwrap();
    std::fs::write(dir.join("ld.so.conf.d/c.txt"), "/not/included\n").unwrap();
    let folders = system_library_folders(&dir.join("ld.so.conf"));
    let arch = std::env::consts::ARCH;
    let mut expected = paths(&[
        "/opt/first",
        "/opt/a",
        "/opt/a2",
        "/usr/local/cuda/lib64",
        "/opt/last",
    ]);
    expected.extend(paths(&[
        &format!("/lib/{arch}-linux-gnu"),
        &format!("/usr/lib/{arch}-linux-gnu"),
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
    ]));
    assert_eq!(folders, expected);
    // A missing file gives the defaults alone.
    assert_eq!(
        system_library_folders(&dir.join("missing.conf")),
        expected[5..].to_vec()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A stand-in `libcuda.so.1`: `cuGetProcAddress_v2` hands out `cuDriverGetVersion` (which says
/// 12345) at any version from 2020, the rest is "not found".
#[cfg(unix)]
const STAND_IN_LIBCUDA_C: &str = r#"
#include <string.h>
static int driver_get_version(int *v) { *v = 12345; return 0; }
int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags,
                        int *status) {
    (void)flags;
    if (strcmp(symbol, "cuDriverGetVersion") == 0 && version >= 2020) {
        *pfn = (void *)driver_get_version;
        if (status) *status = 0;
    } else {
        *pfn = 0;
        if (status) *status = 1;
    }
    return 0;
}
"#;

#[cfg(unix)]
const FALLBACK_CHILD_VAR: &str = "CUDA_DRIVER_TABLE_TEST_FALLBACK_CHILD";

/// On a machine with no libcudart, the default configuration resolves through libcuda (here a
/// stand-in built with `cc`); `Config::runtime()` does not. Run in a child process, whose
/// library search sees only the stand-in's folder.
#[cfg(unix)]
#[test]
fn the_default_configuration_falls_back_to_libcuda_where_no_libcudart_is_found() {
    let dir = temp_dir("fallback");
    std::fs::write(dir.join("stand_in.c"), STAND_IN_LIBCUDA_C).unwrap();
    let built = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(dir.join("libcuda.so.1"))
        .arg(dir.join("stand_in.c"))
        .status();
    if !built.is_ok_and(|s| s.success()) {
        eprintln!("no C compiler (cc) here: the fallback test is skipped");
        return;
    }
    let stderr = run_child("library::tests::fallback_child", |child| {
        child
            .env(FALLBACK_CHILD_VAR, "1")
            .env("LD_LIBRARY_PATH", &dir);
    });
    assert!(
        stderr.contains("fell back to the stand-in libcuda")
            || stderr.contains("this machine has a libcudart"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The child of [`the_default_configuration_falls_back_to_libcuda_where_no_libcudart_is_found`].
#[cfg(unix)]
#[test]
#[ignore = "run by the_default_configuration_falls_back_to_libcuda_where_no_libcudart_is_found"]
fn fallback_child() {
    assert!(
        std::env::var_os(FALLBACK_CHILD_VAR).is_some(),
        "run by its parent test"
    );
    if let Ok(runtime) = resolver_for(&Config::runtime()) {
        eprintln!(
            "this machine has a libcudart the search finds ({}): nothing to fall back from",
            runtime.describe()
        );
        return;
    }
    let default = resolver_for(&Config::new()).expect("the stand-in libcuda");
    let describe = default.describe();
    assert!(describe.contains("libcuda.so.1"), "{describe}");
    assert!(describe.contains("in place of libcudart"), "{describe}");
    // Exactly typed as always: the lookup is the driver's, at the pinned version.
    let p = resolve(&Config::new(), "cuDriverGetVersion", &abi(2020, None)).unwrap();
    // SAFETY: the stand-in hands out `int driver_get_version(int*)`, cuDriverGetVersion's ABI
    // 2020 (`CUresult` is an `int` in C).
    let f = unsafe {
        std::mem::transmute::<*mut std::ffi::c_void, crate::ffi::DriverGetVersion>(p.as_ptr())
    };
    let mut v = 0;
    // SAFETY: `v` is a valid out-parameter.
    assert_eq!(unsafe { f(&mut v) }, CUresult::CUDA_SUCCESS);
    assert_eq!(v, 12345);
    // `Config::runtime()` written explicitly keeps to libcudart: its error, no fallback.
    let Err(e) = resolver_for(&Config::runtime()) else {
        panic!("Config::runtime() must not fall back")
    };
    assert!(matches!(e.kind(), ErrorKind::LibraryNotFound { .. }), "{e}");
    eprintln!("fell back to the stand-in libcuda: {describe}");
}

/// The default configuration falls back to libcuda only when the search for libcudart found no
/// file at all: told from the file system, not from the loader's message (which a program that
/// sets its locale gets translated).
#[cfg(not(windows))]
#[test]
fn only_a_search_that_found_no_file_falls_back() {
    let dir = temp_dir("found-no-file");
    let text = dir.join("libcudart.so.13");
    std::fs::write(&text, "not a library").unwrap();
    let search = |candidates: Vec<PathBuf>| {
        load_plan(
            &RUNTIME,
            Plan::Search {
                candidates: candidates.into_iter().map(Candidate::own).collect(),
                skipped: Vec::new(),
                in_system_folders: false,
            },
        )
    };
    // Nothing where the search looked: a path that does not exist, and a bare name in none of
    // the loader's folders.
    let nothing = search(vec![
        dir.join("missing/libcudart.so.13"),
        PathBuf::from("libcudart-of-no-release.so.99"),
    ]);
    assert!(nothing.loaded.is_err());
    assert!(nothing.found_no_file);
    // A file that is there but does not load is reported, not replaced.
    let broken = search(vec![dir.join("missing/libcudart.so.13"), text.clone()]);
    assert!(broken.loaded.is_err());
    assert!(!broken.found_no_file);
    // The message does not decide: a missing file is absent in any language, a file that is
    // there is not, whatever the loader said.
    assert!(absent(
        &dir.join("missing.so"),
        "Datei oder Verzeichnis nicht gefunden"
    ));
    assert!(!absent(&text, "No such file or directory"));
    // A bare name is looked for in the loader's folders: the C library is in one of them.
    assert!(!absent(Path::new("libc.so.6"), "No such file or directory"));
    // A path that was named is never replaced, even when it names no file.
    let named = load_plan(
        &RUNTIME,
        Plan::Exact {
            path: dir.join("missing.so"),
            origin: Origin::Environment,
        },
    );
    assert!(named.loaded.is_err());
    assert!(!named.found_no_file);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `LoadLibraryExW` is handed `\` separators (with a `/` in a full path it would not search the
/// DLL's own folder for its dependencies); a verbatim `\\?\` path is kept as it is.
#[test]
fn windows_paths_reach_the_loader_with_backslashes() {
    for (given, handed) in [
        (
            "C:/CUDA/bin/x64/cudart64_13.dll",
            r"C:\CUDA\bin\x64\cudart64_13.dll",
        ),
        (
            r"C:\CUDA/bin\cudart64_12.dll",
            r"C:\CUDA\bin\cudart64_12.dll",
        ),
        ("//server/share/nvcuda.dll", r"\\server\share\nvcuda.dll"),
        ("nvcuda.dll", "nvcuda.dll"),
        (r"\\?\C:\odd/name.dll", r"\\?\C:\odd/name.dll"),
    ] {
        assert_eq!(
            with_backslashes(OsStr::new(given)),
            OsStr::new(handed),
            "{given}"
        );
    }
}

/// Duplicates leave a search's candidates and the loader's folders in the order of their first
/// appearance, compared as paths (`/a/b` and `/a//b/` are one).
#[test]
fn keep_first_drops_later_duplicates_only() {
    let mut list = paths(&["/b", "/a/b", "/c", "/a//b/", "/b", "/d"]);
    keep_first(&mut list);
    assert_eq!(list, paths(&["/b", "/a/b", "/c", "/d"]));
    // The same as a scan with `Path`'s own `==`, on every order of paths that differ only in
    // their separators, `.` components and trailing `/`, or not at all.
    let tricky = paths(&[
        "/usr/lib",
        "/usr/lib/",
        "/usr//lib",
        "/usr/./lib",
        "/usr/lib/.",
        "usr/lib",
        "./usr/lib",
        "/usr/lib64",
        "/usr/lib/..",
        "/usr",
        "/",
        "//usr/lib",
        ".",
        "./",
        "",
        "a",
        "/.",
        "a/./b",
    ]);
    let mut state = 7u64;
    for _ in 0..200 {
        let mut list = tricky.clone();
        for i in (1..list.len()).rev() {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            list.swap(i, (state >> 33) as usize % (i + 1));
        }
        let mut expected: Vec<PathBuf> = Vec::new();
        for p in &list {
            if !expected.contains(p) {
                expected.push(p.clone());
            }
        }
        keep_first(&mut list);
        assert_eq!(list, expected);
    }
    // A path's plain form is what its components make: on Unix borrowed where the path is that
    // already (elsewhere always rebuilt: `\` and `/` are both separators there).
    for p in &tricky {
        let rebuilt: PathBuf = p.components().collect();
        assert_eq!(plain(p), rebuilt.as_os_str(), "{p:?}");
        let borrowed = matches!(plain(p), std::borrow::Cow::Borrowed(_));
        assert_eq!(
            borrowed,
            cfg!(unix) && rebuilt.as_os_str() == p.as_os_str(),
            "{p:?}"
        );
    }
}

/// While `LD_LIBRARY_PATH` reads the current directory, a bare name stands for the system's
/// folders: the search reads them (`/etc/ld.so.conf` and its includes) only when it gets there,
/// not when the library is in one of `LD_LIBRARY_PATH`'s folders; then it tries each folder's
/// path in order, each path once.
#[test]
fn the_system_folders_are_read_only_when_the_search_gets_to_them() {
    /// Never called: `open` below only hands out a resolver around it.
    unsafe extern "C" fn no_lookup(
        _: *const std::ffi::c_char,
        _: *mut *mut c_void,
        _: std::ffi::c_int,
        _: crate::sys::cuuint64_t,
        _: *mut std::ffi::c_int,
    ) -> crate::sys::CUresult {
        crate::sys::CUresult::CUDA_ERROR_NOT_FOUND
    }
    let driver: &'static Driver = Box::leak(Box::new(Driver::around(
        "/sys2/libcuda.so.1",
        crate::backend::GetProc::V2(no_lookup),
    )));
    let run = |found: &str, in_system_folders: bool| {
        let opened = std::cell::RefCell::new(Vec::new());
        let reads = std::cell::Cell::new(0);
        let searched = load_plan_of(
            Plan::Search {
                candidates: own(&["/ld/libcuda.so.1", "libcuda.so.1"]),
                skipped: Vec::new(),
                in_system_folders,
            },
            Driver::LIBRARY,
            Driver::LOOKUP_SYMBOLS,
            &|path: &Path, _: &str| {
                opened.borrow_mut().push(path.to_path_buf());
                if path == Path::new(found) {
                    Opened::Ok(driver)
                } else {
                    Opened::LoadFailed {
                        why: "No such file or directory".to_owned(),
                        absent: true,
                    }
                }
            },
            &|| {
                reads.set(reads.get() + 1);
                paths(&["/sys1", "/ld/", "/sys2"])
            },
        );
        assert!(searched.loaded.is_ok());
        (opened.into_inner(), reads.get())
    };
    // Found in LD_LIBRARY_PATH's folder: the system's folders are not read.
    assert_eq!(
        run("/ld/libcuda.so.1", true),
        (paths(&["/ld/libcuda.so.1"]), 0)
    );
    // Found in a system folder: read once, each path tried once (`/ld/` is `/ld`), in order.
    assert_eq!(
        run("/sys2/libcuda.so.1", true),
        (
            paths(&[
                "/ld/libcuda.so.1",
                "/sys1/libcuda.so.1",
                "/sys2/libcuda.so.1"
            ]),
            1
        )
    );
    // Otherwise a bare name is the loader's.
    assert_eq!(
        run("libcuda.so.1", false),
        (paths(&["/ld/libcuda.so.1", "libcuda.so.1"]), 0)
    );
}

/// The plan `built_in` makes on `os` in the environment `pairs`, loaded with no file loading:
/// what the error lists as tried (`(what, why)`) and what the search's report was handed for
/// each path it opened (the steps of `Config::search_report`).
fn tried_without_loading(
    built_in: &BuiltIn,
    os: Os,
    pairs: &[(&str, &str)],
) -> (Vec<String>, Vec<String>) {
    let reported = std::cell::RefCell::new(Vec::new());
    let searched = load_plan_of(
        plan(built_in, os, &env_of(pairs)),
        built_in.library,
        built_in.lookup_symbols,
        &|_: &Path, what: &str| {
            reported.borrow_mut().push(what.to_owned());
            Opened::LoadFailed {
                why: "No such file or directory".to_owned(),
                absent: true,
            }
        },
        &|| paths(&["/sys"]),
    );
    let Err(e) = searched.loaded else {
        panic!("nothing loads, yet the search found a library");
    };
    let ErrorKind::LibraryNotFound { tried, .. } = e.kind() else {
        panic!("expected LibraryNotFound, got {e}");
    };
    let tried = tried.iter().map(|(what, _)| what.clone()).collect();
    (tried, reported.into_inner())
}

/// Each path the search made from a variable says which in the list of what was tried, as a
/// path the variable names itself does: `%CUDA_PATH%\bin\x64\cudart64_13.dll` is "from
/// $CUDA_PATH"; the loader's own names come from no variable. The search's report (`doctor`)
/// shows the same words.
#[test]
fn a_tried_path_says_which_variable_it_came_from() {
    let (tried, reported) = tried_without_loading(
        &RUNTIME,
        Os::Windows,
        &[("CUDA_PATH", r"C:\CUDA"), ("CUDA_HOME", r"D:\cuda")],
    );
    let from = |path: &str, var: &str| format!("{} (from ${var})", quoted(OsStr::new(path)));
    assert_eq!(
        tried[0],
        from(r"C:\CUDA\bin\x64\cudart64_13.dll", "CUDA_PATH")
    );
    assert_eq!(tried[3], from(r"C:\CUDA\bin\cudart64_13.dll", "CUDA_PATH"));
    assert_eq!(
        tried[6],
        from(r"D:\cuda\bin\x64\cudart64_13.dll", "CUDA_HOME")
    );
    assert_eq!(tried[12], quoted(OsStr::new("cudart64_13.dll")));
    assert_eq!(tried.len(), 15, "{tried:#?}");
    assert_eq!(reported, tried);

    // The Python environments, and the folders of LD_LIBRARY_PATH the loader's names are tried
    // in while it makes the loader read the current directory.
    let (tried, reported) = tried_without_loading(
        &RUNTIME,
        Os::Unix,
        &[("CONDA_PREFIX", "/opt/conda"), ("LD_LIBRARY_PATH", "/ld:")],
    );
    // The folders of a path list are joined as the host joins paths (`\\` under Wine).
    let path = |parts: &[&str]| {
        let mut path: PathBuf = parts.iter().collect();
        path.push("libcudart.so.13");
        path
    };
    let with = |parts: &[&str]| {
        tried
            .iter()
            .find(|t| t.starts_with(&quoted(path(parts).as_os_str())))
    };
    let from =
        |parts: &[&str], var: &str| format!("{} (from ${var})", quoted(path(parts).as_os_str()));
    assert_eq!(with(&["/ld"]), Some(&from(&["/ld"], "LD_LIBRARY_PATH")));
    assert_eq!(with(&["/sys"]), Some(&quoted(path(&["/sys"]).as_os_str())));
    // The environments' layouts are written with `/` (the Unix search's own paths).
    let conda = quoted(OsStr::new("/opt/conda/lib/libcudart.so.13"));
    assert_eq!(
        tried.iter().find(|t| t.starts_with(&conda)),
        Some(&format!("{conda} (from $CONDA_PREFIX)")),
        "{tried:#?}"
    );
    assert_eq!(
        reported,
        tried[1..],
        "the first is the loader's search, not made"
    );
}
