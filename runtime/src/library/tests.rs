//! Library search, and the real libcudart with or without a driver.
//!
//! The plan tests are pure. The libcudart tests load the real libraries from the public
//! `nvidia-cuda-runtime` wheels: set `CUDA_DRIVER_TABLE_TEST_CUDART_DIR` to a folder holding
//! `11.8/libcudart.so.11.0`, `12.9/libcudart.so.12` and `13.0/libcudart.so.13` (optionally
//! `12.4/libcudart.so.12`), or to `skip` to skip them on purpose. Unset, they fail. Where the
//! outcome depends on an NVIDIA driver being installed, they check the branch that applies, so
//! they pass on a GPU workstation as on a machine without a driver. Checking pointers against
//! the driver's exports is the GPU suite's job (`tests/tests/gpu.rs`).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::*;
use crate::backend::{Os, ENV_CUDART, ENV_LIBCUDA};
use crate::resolve::Versioning;
use crate::sys::CUresult;
use crate::table::check;
use crate::testing::abi;

const TEST_DIR_VAR: &str = "CUDA_DRIVER_TABLE_TEST_CUDART_DIR";

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
    let map: HashMap<String, OsString> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    move |k| map.get(k).cloned()
}

/// The search `L` plans on `os` in the environment `pairs`: `(candidates, skipped)`.
fn search<L: BuiltIn>(os: Os, pairs: &[(&str, &str)]) -> (Vec<PathBuf>, Vec<(String, String)>) {
    match plan::<L>(os, &env_of(pairs)) {
        Plan::Search {
            candidates,
            skipped,
        } => (candidates, skipped),
        other => panic!("expected a search, got {other:?}"),
    }
}

fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
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
    let (candidates, skipped) = search::<Runtime>(Os::Unix, &[]);
    assert_eq!(
        candidates,
        paths(&["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"])
    );
    assert!(skipped.is_empty());
}

#[test]
fn runtime_search_order_with_toolkit_variables() {
    let (candidates, skipped) = search::<Runtime>(
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
    let (candidates, skipped) =
        search::<Runtime>(Os::Unix, &[("CUDA_PATH", "cuda"), ("VIRTUAL_ENV", ".venv")]);
    assert!(candidates.iter().all(|c| c.components().count() == 1));
    assert_eq!(
        skipped,
        vec![
            (
                "$CUDA_PATH=cuda".into(),
                "skipped: not an absolute path".into()
            ),
            (
                "$VIRTUAL_ENV=.venv".into(),
                "skipped: not an absolute path".into()
            ),
        ]
    );
}

#[test]
fn driver_search_is_libcuda_so_1_only() {
    let (candidates, _) = search::<Driver>(
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
    let (candidates, skipped) = search::<Runtime>(
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
        [r"$CUDA_HOME=relative\cuda", "$CONDA_PREFIX=C:relative"]
    );
}

#[test]
fn windows_driver_search_is_nvcuda_dll_only() {
    let (candidates, _) = search::<Driver>(Os::Windows, &[("CUDA_PATH", r"C:\CUDA")]);
    assert_eq!(candidates, paths(&["nvcuda.dll"]));
}

/// On Windows a path depends on the current directory when it has a separator (either one) or
/// a drive letter without a root; those are refused, absolute and UNC paths and bare names pass.
#[test]
fn windows_paths_that_depend_on_the_current_directory_are_refused() {
    let plan_of = |value: &str| plan::<Runtime>(Os::Windows, &env_of(&[(ENV_CUDART, value)]));
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
    fn exact<L: BuiltIn>(value: &str) -> Plan {
        plan::<L>(
            Os::Unix,
            &env_of(&[(L::ENV_VAR, value), ("CUDA_PATH", "/opt")]),
        )
    }
    assert_eq!(
        exact::<Runtime>("/x/libcudart.so.12"),
        Plan::Exact {
            path: "/x/libcudart.so.12".into(),
            origin: "$CUDA_DRIVER_TABLE_CUDART".into()
        }
    );
    assert_eq!(
        exact::<Driver>("libcuda.so.1"),
        Plan::Exact {
            path: "libcuda.so.1".into(),
            origin: "$CUDA_DRIVER_TABLE_LIBCUDA".into()
        }
    );
    assert!(matches!(
        exact::<Runtime>("lib/libcudart.so.12"),
        Plan::Refused { .. }
    ));
    // Empty means unset.
    assert!(matches!(exact::<Runtime>(""), Plan::Search { .. }));
    // Any relative path with a separator depends on the current directory, however spelled.
    for relative in [
        "x/",
        "x/.",
        "./libcudart.so.12",
        "../lib/libcudart.so.12",
        "a//b",
    ] {
        assert!(
            matches!(exact::<Runtime>(relative), Plan::Refused { .. }),
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
        let e = resolve(&Config::driver().library(path), "cuInit", &abi(2000, None)).unwrap_err();
        let ErrorKind::LibraryNotFound { tried, .. } = e.kind() else {
            panic!("{path:?}: {e:#?}")
        };
        assert_eq!(tried.len(), 1, "{path:?}: {e}");
        assert_eq!(tried[0].0, format!("{path:?} (from Config::library)"));
        assert!(tried[0].1.contains(reason), "{path:?}: {e}");
    }
}

#[test]
fn python_environment_layouts_come_last_newest_python_first() {
    let venv = temp_dir("venv");
    for py in ["python3.9", "python3.12", "pythonX"] {
        std::fs::create_dir_all(venv.join("lib").join(py).join("site-packages")).unwrap();
    }
    let v = venv.to_str().unwrap();
    let (candidates, _) = search::<Runtime>(Os::Unix, &[("VIRTUAL_ENV", v)]);
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
fn missing_explicit_library_lists_the_path_tried() {
    let config = Config::runtime().library("/nonexistent/libcudart.so.12");
    let e = resolve(&config, "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- runtime, missing explicit path:\n{e}");
    let ErrorKind::LibraryNotFound { library, tried, .. } = e.kind() else {
        panic!("{e:?}")
    };
    assert_eq!(*library, "libcudart");
    assert_eq!(tried.len(), 1);
    assert_eq!(
        tried[0].0,
        "/nonexistent/libcudart.so.12 (from Config::library)"
    );
    assert!(tried[0].1.contains("No such file"), "{}", tried[0].1);
    // The loader's message without the path it starts with: the path is named once.
    assert!(!tried[0].1.contains("libcudart.so.12"), "{}", tried[0].1);
    let msg = e.to_string();
    assert!(msg.contains("CUDA_DRIVER_TABLE_CUDART"), "{msg}");
    assert!(msg.contains("Config::library"), "{msg}");
    // The outcome is cached: the same error again.
    assert_eq!(resolve(&config, "cuInit", &abi(2000, None)).unwrap_err(), e);
}

#[test]
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
    assert_eq!(*library, "libcuda");
    assert_eq!(tried.len(), 1);
    assert_eq!(tried[0].0, "libcuda.so.1");
    assert!(tried[0].1.contains("cannot open"), "{}", tried[0].1);
    assert!(e.to_string().contains("install the NVIDIA driver"), "{e}");

    let e = resolve(
        &Config::driver().library("/nonexistent/libcuda.so.1"),
        "cuInit",
        &abi(2000, None),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::LibraryNotFound { library: "libcuda", tried, .. } if tried.len() == 1),
        "{e:?}"
    );
}

#[test]
fn a_library_that_is_not_cuda_gives_a_clear_error() {
    let libc = [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib64/libc.so.6",
        "/lib64/libc.so.6",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists())
    .expect("no libc.so.6 found");
    let e = resolve(&Config::runtime().library(libc), "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- runtime, libc.so.6:\n{e}");
    assert_eq!(
        *e.kind(),
        ErrorKind::NotACudaLibrary {
            library: "libcudart",
            path: libc.to_owned(),
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

    let e = resolve(&Config::driver().library(libc), "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- driver, libc.so.6:\n{e}");
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotACudaLibrary {
                library: "libcuda",
                ..
            }
        ),
        "{e:?}"
    );

    let dir = temp_dir("text");
    let text = dir.join("libcudart.so.12");
    std::fs::write(&text, "this is not a shared library\n").unwrap();
    let config = Config::runtime().library_owned(&text);
    let e = resolve(&config, "cuInit", &abi(2000, None)).unwrap_err();
    eprintln!("--- runtime, a text file:\n{e}");
    let ErrorKind::LibraryNotFound { tried, .. } = e.kind() else {
        panic!("{e:?}")
    };
    assert!(tried[0].1.contains("invalid ELF header") || tried[0].1.contains("too short"));
    let _ = std::fs::remove_dir_all(&dir);
}

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

fn cudart(release: &str, file: &str) -> Option<Config> {
    let path = cudart_dir()?.join(release).join(file);
    assert!(path.is_file(), "{} is missing", path.display());
    Some(Config::runtime().library_owned(path))
}

/// Whether an NVIDIA driver is installed here (a GPU workstation, the GPU machine).
fn driver_installed() -> bool {
    // SAFETY: loading the driver library runs its initialisers, as any use of CUDA does.
    unsafe { Library::new("libcuda.so.1") }.is_ok()
}

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
            name,
            backend,
            ..
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
            Versioning::Unavailable { code: 35, .. }
        ));
        let e = resolve(&config, "cuCtxCreate", &abi(3020, None)).unwrap_err();
        eprintln!("--- libcudart 11.8, cuCtxCreate at 3020:\n{e}");
        assert!(
            matches!(e.kind(), ErrorKind::LookupFailed { code: 35, .. }),
            "{e:?}"
        );
    }
}

#[test]
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
    let config = Config::runtime().library_owned(path);
    let r = resolver_for(&config).unwrap();
    check_cuinit(&config, "12.4");
    let result = resolve(&config, "cuCtxCreate", &abi(3020, None));
    if driver_installed() {
        // Through the driver's cuGetProcAddress_v2 (ABI 12000 at 12.4): the exact ABI.
        assert_eq!(r.versioning(), Versioning::Versioned);
        result.unwrap();
    } else {
        // Without a driver the unversioned lookup is all there is; at 12.4 it would return ABI
        // 11040 of cuCtxCreate, so pinned 3020 is refused before anything is asked.
        assert_eq!(r.versioning(), Versioning::Unversioned(12040));
        let e = result.unwrap_err();
        eprintln!("--- libcudart 12.4, cuCtxCreate at 3020:\n{e}");
        assert!(matches!(
            e.kind(),
            ErrorKind::UnversionedLookupUnsafe {
                would_get: Some(11040),
                ..
            }
        ));
    }
}

#[test]
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
fn libcudart_13_0() {
    let Some(config) = cudart("13.0", "libcudart.so.13") else {
        return;
    };
    let r = resolver_for(&config).unwrap();
    assert_eq!(r.versioning(), Versioning::Versioned);
    check_cuinit(&config, "13.0");

    // libcudart is not libcuda: the driver backend refuses it clearly.
    let path = config.library_path().unwrap();
    let e = resolve(
        &Config::driver().library_owned(path),
        "cuInit",
        &abi(2000, None),
    )
    .unwrap_err();
    eprintln!("--- driver backend given libcudart 13.0:\n{e}");
    assert!(
        matches!(
            e.kind(),
            ErrorKind::NotACudaLibrary {
                library: "libcuda",
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
fn a_failed_load_is_kept_for_the_process() {
    let Some(dir) = cudart_dir() else { return };
    let folder = temp_dir("appears-later");
    let path = folder.join("libcudart.so.13");
    let config = Config::runtime().library_owned(&path);
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
    } = plan::<Runtime>(Os::CURRENT, &env)
    else {
        panic!("expected a search")
    };
    // Only the venv candidates: a loader name would match a libcudart.so.13 that another test
    // of this process already loaded (dlopen matches loaded sonames).
    candidates.retain(|c| c.starts_with(&venv));
    assert_eq!(candidates.len(), 3);
    let loaded = load_plan::<Runtime>(Plan::Search {
        candidates,
        skipped,
    });
    let r = loaded.unwrap_or_else(|e| panic!("{e}"));
    eprintln!("--- found in the venv: {}", r.describe());
    let expected = format!("libcudart 13.0 ({})", lib.join("libcudart.so.13").display());
    assert_eq!(r.describe(), expected);
    let _ = std::fs::remove_dir_all(&venv);
}
