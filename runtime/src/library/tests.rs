//! Library search and the real backends on a machine without a driver.
//!
//! The plan tests are pure. The libcudart tests load the real libraries from the public
//! `nvidia-cuda-runtime` wheels: set `CUDA_DRIVER_TABLE_TEST_CUDART_DIR` to a folder holding
//! `11.8/libcudart.so.11.0`, `12.9/libcudart.so.12` and `13.0/libcudart.so.13` (optionally
//! `12.4/libcudart.so.12`), or to `skip` to skip them on purpose. Unset, they fail.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::*;
use crate::resolve::{resolve, Versioning};

const TEST_DIR_VAR: &str = "CUDA_DRIVER_TABLE_TEST_CUDART_DIR";

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
    let map: HashMap<String, OsString> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    move |k| map.get(k).cloned()
}

fn search(kind: Kind, pairs: &[(&str, &str)]) -> (Vec<PathBuf>, Vec<(String, String)>) {
    match plan(kind, &env_of(pairs)) {
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
    let (candidates, skipped) = search(Kind::Runtime, &[]);
    assert_eq!(
        candidates,
        paths(&["libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"])
    );
    assert!(skipped.is_empty());
}

#[test]
fn runtime_search_order_with_toolkit_variables() {
    let (candidates, skipped) = search(
        Kind::Runtime,
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
        Kind::Runtime,
        &[("CUDA_PATH", "cuda"), ("VIRTUAL_ENV", ".venv")],
    );
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
    let (candidates, _) = search(
        Kind::Driver,
        &[
            ("CUDA_PATH", "/usr/local/cuda"),
            ("CUDA_HOME", "/usr/local/cuda"),
        ],
    );
    assert_eq!(candidates, paths(&["libcuda.so.1"]));
}

#[test]
fn environment_variable_is_used_alone() {
    let exact = |kind, var, value| plan(kind, &env_of(&[(var, value), ("CUDA_PATH", "/opt")]));
    assert_eq!(
        exact(Kind::Runtime, ENV_CUDART, "/x/libcudart.so.12"),
        Plan::Exact {
            path: "/x/libcudart.so.12".into(),
            origin: "$CUDA_DRIVER_TABLE_CUDART"
        }
    );
    assert_eq!(
        exact(Kind::Driver, ENV_LIBCUDA, "libcuda.so.1"),
        Plan::Exact {
            path: "libcuda.so.1".into(),
            origin: "$CUDA_DRIVER_TABLE_LIBCUDA"
        }
    );
    assert!(matches!(
        exact(Kind::Runtime, ENV_CUDART, "lib/libcudart.so.12"),
        Plan::Refused { .. }
    ));
    // Empty means unset.
    assert!(matches!(
        exact(Kind::Runtime, ENV_CUDART, ""),
        Plan::Search { .. }
    ));
}

#[test]
fn python_environment_layouts_come_last_newest_python_first() {
    let venv = temp_dir("venv");
    for py in ["python3.9", "python3.12", "pythonX"] {
        std::fs::create_dir_all(venv.join("lib").join(py).join("site-packages")).unwrap();
    }
    let v = venv.to_str().unwrap();
    let (candidates, _) = search(Kind::Runtime, &[("VIRTUAL_ENV", v)]);
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
    let e = resolve(&config, "cuInit", 2000, None).unwrap_err();
    eprintln!("--- runtime, missing explicit path:\n{e}");
    let ErrorKind::LibraryNotFound { library, tried } = e.kind() else {
        panic!("{e:?}")
    };
    assert_eq!(*library, "libcudart");
    assert_eq!(tried.len(), 1);
    assert_eq!(
        tried[0].0,
        "/nonexistent/libcudart.so.12 (from Config::library)"
    );
    assert!(tried[0].1.contains("No such file"), "{}", tried[0].1);
    let msg = e.to_string();
    assert!(msg.contains("CUDA_DRIVER_TABLE_CUDART"), "{msg}");
    assert!(msg.contains("Config::library"), "{msg}");
    // The outcome is cached: the same error again.
    assert_eq!(resolve(&config, "cuInit", 2000, None).unwrap_err(), e);
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
    let e = resolve(&Config::driver(), "cuInit", 2000, None).unwrap_err();
    eprintln!("--- driver backend, default search:\n{e}");
    let ErrorKind::LibraryNotFound { library, tried } = e.kind() else {
        panic!("{e:?}")
    };
    assert_eq!(*library, "libcuda");
    assert_eq!(tried.len(), 1);
    assert_eq!(tried[0].0, "libcuda.so.1");
    assert!(tried[0].1.contains("libcuda.so.1"), "{}", tried[0].1);
    assert!(e.to_string().contains("install the NVIDIA driver"), "{e}");

    let e = resolve(
        &Config::driver().library("/nonexistent/libcuda.so.1"),
        "cuInit",
        2000,
        None,
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::LibraryNotFound { library: "libcuda", tried } if tried.len() == 1),
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
    let e = resolve(&Config::runtime().library(libc), "cuInit", 2000, None).unwrap_err();
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

    let e = resolve(&Config::driver().library(libc), "cuInit", 2000, None).unwrap_err();
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
    let e = resolve(&config, "cuInit", 2000, None).unwrap_err();
    eprintln!("--- runtime, a text file:\n{e}");
    let ErrorKind::LibraryNotFound { tried, .. } = e.kind() else {
        panic!("{e:?}")
    };
    assert!(tried[0].1.contains("invalid ELF header") || tried[0].1.contains("too short"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The folder with the extracted wheels' libcudart, or `None` when deliberately skipped.
fn cudart_dir() -> Option<PathBuf> {
    match std::env::var_os(TEST_DIR_VAR) {
        Some(v) if v == "skip" => {
            eprintln!("{TEST_DIR_VAR}=skip: real-libcudart test skipped");
            None
        }
        Some(v) => Some(PathBuf::from(v)),
        None => panic!(
            "{TEST_DIR_VAR} is not set. Point it at a folder holding 11.8/libcudart.so.11.0, \
             12.9/libcudart.so.12 and 13.0/libcudart.so.13, extracted from the \
             nvidia-cuda-runtime-cu11 11.8, nvidia-cuda-runtime-cu12 12.9 and \
             nvidia-cuda-runtime 13.0 wheels (nvidia/cuda_runtime/lib, nvidia/cu13/lib), \
             or set it to `skip` to skip these tests on purpose"
        ),
    }
}

fn cudart(release: &str, file: &str) -> Option<Config> {
    let path = cudart_dir()?.join(release).join(file);
    assert!(path.is_file(), "{} is missing", path.display());
    Some(Config::runtime().library_owned(path))
}

/// Without a driver, resolving cuInit fails with libcudart's own error, named.
fn assert_no_driver_error(config: &Config, release: &str) {
    let e = resolve(config, "cuInit", 2000, None).unwrap_err();
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

    // A failing CUresult through this backend is still an error, names unknown without a driver.
    let e = crate::error::cuda_result(config, "cuInit", 100).unwrap_err();
    eprintln!("--- libcudart {release}, cuda_result(cuInit, 100):\n{e}");
    assert_eq!(e.code(), Some(100));
}

#[test]
fn libcudart_11_8_without_driver() {
    let Some(config) = cudart("11.8", "libcudart.so.11.0") else {
        return;
    };
    let r = resolver_for(&config).unwrap();
    assert_eq!(r.driver_version(), None);
    // libcudart 11.8 only has the unversioned lookup, and without a driver it cannot even tell
    // its own version (cudaRuntimeGetVersion fails with cudaErrorInsufficientDriver), so no ABI
    // can be proven and no lookup is made: the error names libcudart's reason.
    assert!(matches!(
        r.versioning(),
        Versioning::Unavailable { code: 35, .. }
    ));
    assert_no_driver_error(&config, "11.8");
    let e = resolve(&config, "cuCtxCreate", 3020, None).unwrap_err();
    eprintln!("--- libcudart 11.8, cuCtxCreate at 3020:\n{e}");
    assert!(
        matches!(e.kind(), ErrorKind::LookupFailed { code: 35, .. }),
        "{e:?}"
    );
}

#[test]
fn libcudart_12_4_without_driver_if_present() {
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
    assert_eq!(r.versioning(), Versioning::Unversioned(12040));
    assert_no_driver_error(&config, "12.4");
    let e = resolve(&config, "cuCtxCreate", 3020, None).unwrap_err();
    eprintln!("--- libcudart 12.4, cuCtxCreate at 3020:\n{e}");
    assert!(matches!(
        e.kind(),
        ErrorKind::UnversionedLookupUnsafe {
            would_get: Some(11040),
            ..
        }
    ));
}

#[test]
fn libcudart_12_9_without_driver() {
    let Some(config) = cudart("12.9", "libcudart.so.12") else {
        return;
    };
    let r = resolver_for(&config).unwrap();
    assert_eq!(r.versioning(), Versioning::Versioned);
    assert_eq!(r.driver_version(), None);
    assert_no_driver_error(&config, "12.9");
    // With the versioned lookup, any pinned ABI is asked for; it fails for want of a driver.
    let e = resolve(&config.per_thread(), "cuLaunchKernel", 4000, Some(7000)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LookupFailed { .. }), "{e:?}");
}

#[test]
fn libcudart_13_0_without_driver() {
    let Some(config) = cudart("13.0", "libcudart.so.13") else {
        return;
    };
    let r = resolver_for(&config).unwrap();
    assert_eq!(r.versioning(), Versioning::Versioned);
    assert_no_driver_error(&config, "13.0");

    // libcudart is not libcuda: the driver backend refuses it clearly.
    let path = config.library_path().unwrap();
    let e = resolve(&Config::driver().library_owned(path), "cuInit", 2000, None).unwrap_err();
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
    } = plan(Kind::Runtime, &env)
    else {
        panic!("expected a search")
    };
    // Only the venv candidates: a loader name would match a libcudart.so.13 that another test
    // of this process already loaded (dlopen matches loaded sonames).
    candidates.retain(|c| c.starts_with(&venv));
    assert_eq!(candidates.len(), 3);
    let loaded = load_plan(
        Kind::Runtime,
        Plan::Search {
            candidates,
            skipped,
        },
    );
    let r = loaded.unwrap_or_else(|e| panic!("{e}"));
    eprintln!("--- found in the venv: {}", r.describe());
    let expected = format!("libcudart 13.0 ({})", lib.join("libcudart.so.13").display());
    assert_eq!(r.describe(), expected);
    let _ = std::fs::remove_dir_all(&venv);
}

/// On a machine with the NVIDIA driver (run with `--ignored gpu_`): both backends against the
/// real driver, pointers compared with `dlsym` of the exported symbol of each ABI.
mod gpu {
    use super::*;
    use std::ffi::c_void;
    use std::ptr::NonNull;

    fn dlsym(name: &str) -> NonNull<c_void> {
        // SAFETY: libcuda.so.1 is the driver; only symbol addresses are read.
        let lib: &'static Library =
            Box::leak(Box::new(unsafe { Library::new("libcuda.so.1") }.unwrap()));
        // SAFETY: only the address is used.
        let p = *unsafe { lib.get::<*mut c_void>(name) }.unwrap_or_else(|e| panic!("{name}: {e}"));
        NonNull::new(p).unwrap()
    }

    /// (function, version, per-thread version, per-thread mode, exported symbol it must equal)
    const EXPECTED: &[(&str, u32, Option<u32>, bool, &str)] = &[
        ("cuCtxCreate", 3020, None, false, "cuCtxCreate_v2"),
        ("cuCtxCreate", 11040, None, false, "cuCtxCreate_v3"),
        ("cuCtxCreate", 12050, None, false, "cuCtxCreate_v4"),
        ("cuMemAlloc", 3020, None, false, "cuMemAlloc_v2"),
        (
            "cuStreamGetCaptureInfo",
            11030,
            Some(11030),
            false,
            "cuStreamGetCaptureInfo_v2",
        ),
        (
            "cuStreamGetCaptureInfo",
            12030,
            Some(12030),
            false,
            "cuStreamGetCaptureInfo_v3",
        ),
        ("cuLaunchKernel", 4000, Some(7000), false, "cuLaunchKernel"),
        (
            "cuLaunchKernel",
            4000,
            Some(7000),
            true,
            "cuLaunchKernel_ptsz",
        ),
        (
            "cuStreamGetCaptureInfo",
            11030,
            Some(11030),
            true,
            "cuStreamGetCaptureInfo_v2_ptsz",
        ),
    ];

    fn check_all(base: Config, what: &str) {
        for &(name, v, pt, per_thread, symbol) in EXPECTED {
            let config = if per_thread { base.per_thread() } else { base };
            match resolve(&config, name, v, pt) {
                Ok(p) => {
                    assert_eq!(p, dlsym(symbol), "{what}: {name} v{v} pt={per_thread}");
                    eprintln!("{what}: {name} v{v} pt={per_thread} == {symbol}");
                }
                Err(e) => panic!("{what}: {name} v{v}: {e}"),
            }
        }
    }

    #[test]
    #[ignore = "needs an NVIDIA driver; run on the GPU machine with --ignored"]
    fn gpu_driver_backend() {
        let d = Config::driver();
        check_all(d, "driver");
        let e = resolve(&d, "cuCtxCreate", 99000, None).unwrap_err();
        eprintln!("driver, cuCtxCreate at 99000: {e}");
        assert!(
            matches!(
                e.kind(),
                ErrorKind::DriverTooOld {
                    requested: 99000,
                    driver: Some(_),
                    ..
                }
            ),
            "{e:?}"
        );
        let e = resolve(&d, "cuNoSuchFunction", 12000, None).unwrap_err();
        eprintln!("driver, unknown: {e}");
        assert!(
            matches!(e.kind(), ErrorKind::SymbolNotFound { .. }),
            "{e:?}"
        );
        let e = resolve(&d, "cuStreamGetCaptureInfo", 10000, None).unwrap_err();
        eprintln!("driver, cuStreamGetCaptureInfo at 10000: {e}");
        let e = resolve(&d.per_thread(), "cuLaunchKernel", 4000, Some(4000)).unwrap_err();
        eprintln!("driver, cuLaunchKernel per-thread at 4000: {e}");
        assert!(
            matches!(e.kind(), ErrorKind::VersionNotSufficient { .. }),
            "{e:?}"
        );
        let e = crate::error::cuda_result(&d, "cuMemAlloc", 2).unwrap_err();
        eprintln!("driver, cuda_result 2: {e}");
        assert_eq!(
            e.to_string(),
            "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"
        );
        eprintln!(
            "driver describe: {} / version {:?}",
            resolver_for(&d).unwrap().describe(),
            resolver_for(&d).unwrap().driver_version()
        );

        static SLOT: crate::slot::Slot = crate::slot::Slot::new();
        let b = std::sync::Barrier::new(64);
        let got: Vec<usize> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..64)
                .map(|_| {
                    s.spawn(|| {
                        b.wait();
                        SLOT.get(&d, "cuCtxCreate", 12050, None).unwrap().as_ptr() as usize
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(got
            .iter()
            .all(|&p| p == dlsym("cuCtxCreate_v4").as_ptr() as usize));
    }

    #[test]
    #[ignore = "needs an NVIDIA driver; run on the GPU machine with --ignored"]
    fn gpu_runtime_backends() {
        let Some(dir) = cudart_dir() else { return };
        for (rel, file) in [("12.9", "libcudart.so.12"), ("13.0", "libcudart.so.13")] {
            let c = Config::runtime().library_owned(dir.join(rel).join(file));
            eprintln!("{}", resolver_for(&c).unwrap().describe());
            check_all(c, rel);
            let e = resolve(&c, "cuCtxCreate", 99000, None).unwrap_err();
            eprintln!("{rel}, cuCtxCreate at 99000: {e}");
            let e = crate::error::cuda_result(&c, "cuMemAlloc", 2).unwrap_err();
            eprintln!("{rel}, cuda_result 2: {e}");
        }
        let c = Config::runtime().library_owned(dir.join("11.8/libcudart.so.11.0"));
        let r = resolver_for(&c).unwrap();
        eprintln!("{} {:?}", r.describe(), r.versioning());
        assert_eq!(r.versioning(), Versioning::Unversioned(11080));
        let p = resolve(&c, "cuCtxCreate", 11040, None).unwrap();
        assert_eq!(p, dlsym("cuCtxCreate_v3"));
        let p = resolve(&c.per_thread(), "cuLaunchKernel", 4000, Some(7000)).unwrap();
        assert_eq!(p, dlsym("cuLaunchKernel_ptsz"));
        let p = resolve(&c, "cuInit", 2000, None).unwrap();
        assert_eq!(p, dlsym("cuInit"));
        let e = resolve(&c, "cuCtxCreate", 3020, None).unwrap_err();
        eprintln!("11.8, cuCtxCreate at 3020: {e}");
        assert!(matches!(
            e.kind(),
            ErrorKind::UnversionedLookupUnsafe {
                would_get: Some(11040),
                ..
            }
        ));
        let e = crate::error::cuda_result(&c, "cuMemAlloc", 2).unwrap_err();
        eprintln!("11.8, cuda_result 2: {e}");
    }
}
