//! GPU tests (`--features gpu`, the one gate for tests that need an NVIDIA driver): built on a
//! machine with Rust, staged with the CUDA runtime libraries and run on a machine with a driver
//! (`cargo gpu-stage tests`, then `bash .gpu/run.sh` there; tests/README.md). Every pointer a table hands out is compared with `dlsym` of the symbol
//! `cuda.h` exports for that ABI.
#![cfg(feature = "gpu")]

use cuda_driver_table::{
    driver_table, manifest, resolve, sys, Config, Error, ErrorKind, StreamMode, Versioning,
};
use cuda_driver_table_tests::gpu::{
    backends, cudart13, cudart_config, cudart_matrix, dlsym, libcuda, MODES,
};
use std::ffi::c_void;
use std::fmt::Write as _;
use std::ptr::NonNull;

/// An ABI without a per-thread twin, for lookups by version alone.
fn abi(version: u32) -> manifest::Abi {
    manifest::Abi {
        version,
        export: None,
        per_thread: None,
    }
}

fn mode_name(m: StreamMode) -> &'static str {
    match m {
        StreamMode::Legacy => "legacy",
        StreamMode::PerThread => "per-thread",
    }
}

/// Every ABI of four functions with several ABIs and per-thread twins, both backends, both
/// modes, equals `dlsym` of the export the manifest names for it (`cuCtxCreate_v2`/`_v3`/`_v4`,
/// `cuStreamGetCaptureInfo_v2_ptsz`, `cuLaunchKernel_ptsz`, ...).
#[test]
fn every_abi_of_key_functions_matches_its_export() {
    let lib = libcuda();
    let mut failures = Vec::new();
    for (label, base) in backends() {
        for name in [
            "cuCtxCreate",
            "cuMemAlloc",
            "cuStreamGetCaptureInfo",
            "cuLaunchKernel",
        ] {
            let f = manifest::find(name).expect(name);
            for abi in f.abis {
                for mode in MODES {
                    let export = abi.expected_export(mode);
                    let Some(export) = export else { continue };
                    let got = resolve(&base.with_stream_mode(mode), name, abi);
                    match (dlsym(&lib, export), got) {
                        (Some(want), Ok(p)) if p.as_ptr() == want => {}
                        (None, Err(_)) => {} // not exported by this driver, and not handed out
                        (want, got) => failures.push(format!(
                            "{label} {name}@{} {}: dlsym({export}) = {want:?}, resolved {got:?}",
                            abi.version,
                            mode_name(mode)
                        )),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// a version newer than the driver gives the driver-too-old error naming both versions.
#[test]
fn a_version_newer_than_the_driver_is_driver_too_old() {
    for (label, config) in backends() {
        let err = resolve(&config, "cuInit", &abi(99_990)).expect_err(&label);
        match err.kind() {
            ErrorKind::DriverTooOld {
                requested, driver, ..
            } => {
                assert_eq!(*requested, 99_990, "{label}");
                assert!(driver.is_some_and(|d| d >= 13_000), "{label}: {err}");
            }
            other => panic!("{label}: expected DriverTooOld, got {other:?}: {err}"),
        }
        eprintln!("{label}: {err}");
    }
}

#[driver_table(cuDriverGetVersion, driver = newest)]
struct Racer;

static RACER_DRIVER: Racer = Racer::with_config(Config::driver());

/// 64 threads racing the first call of one field all succeed with one pointer.
#[test]
fn sixty_four_threads_racing_the_first_call_get_one_pointer() {
    let lib = libcuda();
    let want = dlsym(&lib, "cuDriverGetVersion").expect("exported") as usize;
    let barrier = std::sync::Barrier::new(64);
    let got: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..64)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    let f = RACER_DRIVER.pfn_cuDriverGetVersion().expect("resolves");
                    let mut v = 0;
                    // SAFETY: `v` is a valid place for the version.
                    assert_eq!(unsafe { f(&mut v) }, sys::CUresult::CUDA_SUCCESS);
                    assert!(v >= 13_000);
                    f as usize
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    assert!(got.iter().all(|&p| p == want), "{got:x?} vs {want:x}");
}

/// libcudart 11.8, 12.9 and 13.0 against this driver: which path each takes, and
/// that what it hands out is the right ABI or the documented refusal.
#[test]
fn libcudart_matrix_resolves_exact_abis() {
    let lib = libcuda();
    let matrix = cudart_matrix();
    assert!(
        matrix.len() >= 4,
        "stage libcudart 11.8, 12.4, 12.9 and 13.0: {matrix:?}"
    );
    for path in matrix {
        let config = cudart_config(path.clone());
        let resolver = config.resolver().expect("loads");
        // 12.5+ through cudaGetDriverEntryPointByVersion, 11.3-12.4 through the driver's own
        // cuGetProcAddress that their unversioned entry point hands out: versioned either way.
        assert_eq!(
            resolver.versioning(),
            Versioning::Versioned,
            "{}",
            resolver.describe()
        );
        eprintln!("{}", resolver.describe());
        for (name, version, export) in [
            ("cuInit", 2000, "cuInit"),
            ("cuCtxCreate", 3020, "cuCtxCreate_v2"),
            ("cuCtxCreate", 11040, "cuCtxCreate_v3"),
            ("cuCtxCreate", 12050, "cuCtxCreate_v4"),
        ] {
            let got = resolve(&config, name, &abi(version))
                .unwrap_or_else(|e| panic!("{}: {name}@{version}: {e}", path.display()));
            let want = dlsym(&lib, export).expect(export);
            assert_eq!(got.as_ptr(), want, "{}: {name}@{version}", path.display());
        }
    }
}

/// The `vadd` kernel of the runtime's `vector_add` example: `c[i] = a[i] + b[i]` for `i < n`.
const VECTOR_ADD_PTX: &str = include_str!("../../runtime/examples/vector_add.ptx");

/// The kernel functions, with `cuCtxCreate` at its old ABI 3020.
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuCtxCreate = 3020,
    cuCtxDestroy,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuModuleLoadData,
    cuModuleGetFunction,
    cuLaunchKernel,
    cuCtxSynchronize = 2000,
    driver = newest
)]
struct Old;

/// The same with `cuCtxCreate` at its default ABI (12050 in CUDA 13.0).
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuCtxCreate,
    cuCtxDestroy,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuModuleLoadData,
    cuModuleGetFunction,
    cuLaunchKernel,
    cuCtxSynchronize = 2000,
    driver = newest
)]
struct Current;

macro_rules! run_vector_add {
    ($t:expr, $create:expr) => {{
        let t = $t;
        let n: usize = 1 << 20;
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
        let mut c = vec![0f32; n];
        let bytes = n * 4;
        // SAFETY: every pointer below is valid for the sizes passed; the context is created,
        // used and destroyed on this thread; the kernel's parameters match its PTX signature.
        unsafe {
            t.cuInit(0).expect("cuInit");
            let mut dev = 0;
            t.cuDeviceGet(&mut dev, 0).expect("cuDeviceGet");
            let mut ctx: sys::CUcontext = std::ptr::null_mut();
            ($create)(t, &mut ctx, dev).expect("cuCtxCreate");
            let (mut da, mut db, mut dc) = (0, 0, 0);
            t.cuMemAlloc(&mut da, bytes).expect("alloc");
            t.cuMemAlloc(&mut db, bytes).expect("alloc");
            t.cuMemAlloc(&mut dc, bytes).expect("alloc");
            t.cuMemcpyHtoD(da, a.as_ptr().cast(), bytes).expect("HtoD");
            t.cuMemcpyHtoD(db, b.as_ptr().cast(), bytes).expect("HtoD");
            let ptx = std::ffi::CString::new(VECTOR_ADD_PTX).expect("no NUL");
            let mut module: sys::CUmodule = std::ptr::null_mut();
            t.cuModuleLoadData(&mut module, ptx.as_ptr().cast())
                .expect("load PTX");
            let mut func: sys::CUfunction = std::ptr::null_mut();
            t.cuModuleGetFunction(&mut func, module, c"vadd".as_ptr())
                .expect("function");
            let mut n32 = n as u32;
            let mut params: [*mut c_void; 4] = [
                (&mut da as *mut sys::CUdeviceptr).cast(),
                (&mut db as *mut sys::CUdeviceptr).cast(),
                (&mut dc as *mut sys::CUdeviceptr).cast(),
                (&mut n32 as *mut u32).cast(),
            ];
            let blocks = n.div_ceil(256) as u32;
            t.cuLaunchKernel(
                func,
                blocks,
                1,
                1,
                256,
                1,
                1,
                0,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
            .expect("launch");
            t.cuCtxSynchronize().expect("sync");
            t.cuMemcpyDtoH(c.as_mut_ptr().cast(), dc, bytes)
                .expect("DtoH");
            for p in [da, db, dc] {
                t.cuMemFree(p).expect("free");
            }
            t.cuCtxDestroy(ctx).expect("destroy");
        }
        for i in 0..n {
            assert_eq!(c[i], 3.0 * i as f32, "element {i}");
        }
        n
    }};
}

/// a kernel from PTX text through generated tables, with `cuCtxCreate` pinned to 3020
/// and at its default, in legacy and per-thread mode, through both backends.
#[test]
fn vector_add_kernel_in_legacy_and_per_thread_mode() {
    for (label, base) in backends() {
        for mode in MODES {
            let old = Old::with_config(base.with_stream_mode(mode));
            let n = run_vector_add!(&old, |t: &Old, ctx: &mut sys::CUcontext, dev| t
                .cuCtxCreate(ctx, 0, dev));
            let new = Current::with_config(base.with_stream_mode(mode));
            run_vector_add!(&new, |t: &Current, ctx: &mut sys::CUcontext, dev| t
                .cuCtxCreate(ctx, std::ptr::null_mut(), 0, dev));
            // The per-thread mode really used the per-thread launch.
            let lib = libcuda();
            let want = match mode {
                StreamMode::Legacy => "cuLaunchKernel",
                StreamMode::PerThread => "cuLaunchKernel_ptsz",
            };
            let launch = new.pfn_cuLaunchKernel().expect("resolved") as *mut c_void;
            assert_eq!(
                Some(launch),
                dlsym(&lib, want),
                "{label} {}",
                mode_name(mode)
            );
            eprintln!(
                "{label} {}: {n} elements checked twice (cuCtxCreate 3020 and 12050)",
                mode_name(mode)
            );
        }
    }
}

#[driver_table(all, driver = newest)]
struct All;

/// How the pointers of one configuration compare with `dlsym` of the exports `cuda.h` names for
/// their ABIs: each ABI checked lands in one column of the report.
#[derive(Default)]
struct Tally {
    checked: usize,
    equal: usize,
    /// Not found (status 1), and the driver exports no such symbol.
    absent: Vec<String>,
    /// Newer than the driver (status 2, or a version it refuses), and not exported either.
    newer: Vec<String>,
    /// An unversioned lookup that could not be proven to return exactly the ABI.
    refused: Vec<String>,
    /// Anything else: a pointer that differs from `dlsym`, or a failure where it has one.
    wrong: Vec<String>,
}

impl Tally {
    /// Records what resolving `name` at `version` gave (`got`) against `dlsym(export)`.
    fn judge(
        &mut self,
        lib: &libloading::Library,
        (name, version, export): (&str, u32, &str),
        got: Result<NonNull<c_void>, Error>,
    ) {
        self.checked += 1;
        let what = format!("{name}@{version}");
        let kind = got.as_ref().err().map(Error::kind);
        match (&got, dlsym(lib, export)) {
            (Ok(p), Some(w)) if p.as_ptr() == w => self.equal += 1,
            (Err(_), None) if matches!(kind, Some(ErrorKind::SymbolNotFound { .. })) => {
                self.absent.push(what)
            }
            (Err(_), None)
                if matches!(
                    kind,
                    Some(ErrorKind::VersionNotSufficient { .. } | ErrorKind::DriverTooOld { .. })
                ) =>
            {
                self.newer.push(what)
            }
            (Err(_), _) if matches!(kind, Some(ErrorKind::UnversionedLookupUnsafe { .. })) => {
                self.refused.push(what)
            }
            (_, w) => self
                .wrong
                .push(format!("{what}: {got:?}, dlsym({export}) = {w:?}")),
        }
    }
}

/// Every function of the default release at its default ABI, through an `All` table configured
/// with `config`, and every older ABI with an exported name, through `resolve`: the two tallies.
/// The one body behind every row of the report.
fn compare(lib: &libloading::Library, config: Config) -> (Tally, Tally) {
    let mode = config.stream_mode();
    let table = All::with_config(config);
    let mut defaults = Tally::default();
    for spec in All::FUNCTIONS {
        let export = spec
            .abi
            .expected_export(mode)
            .expect("every ABI has an export");
        let got = table.raw_pointer(spec.name).expect("in table");
        defaults.judge(lib, (spec.name, spec.abi.version, export), got);
    }
    let mut older = Tally::default();
    for f in manifest::functions() {
        for abi in f.abis.iter().filter(|a| a.version != f.default) {
            let Some(export) = abi.expected_export(mode) else {
                continue;
            };
            let got = resolve(&config, f.name, abi);
            older.judge(lib, (f.name, abi.version, export), got);
        }
    }
    (defaults, older)
}

/// every function of the default release, at its default ABI, through both backends and
/// in both stream modes, through a generated table; plus every older ABI that has an exported
/// name, and the libcudart matrix. Writes the report to `$CDT_GPU_RESULTS` when set.
#[test]
fn every_function_matches_the_driver_export() {
    let lib = libcuda();
    let mut report = String::new();
    let mut failures = Vec::new();
    let driver_version = {
        let mut v = 0;
        let t = Racer::with_config(Config::driver());
        // SAFETY: `v` is a valid place for the version.
        unsafe { t.cuDriverGetVersion(&mut v) }.expect("driver version");
        v
    };
    let gpu = std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=name,driver_version", "--format=csv,noheader"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let _ = writeln!(report, "# GPU results\n");
    let _ = writeln!(
        report,
        "Written by `every_function_matches_the_driver_export` (tests/tests/gpu.rs).\n\n\
         - date: {}\n- GPU, driver: {gpu}\n- cuDriverGetVersion: {driver_version}\n\
         - bindings: CUDA {} ({} functions, {} ABIs)\n",
        std::process::Command::new("date")
            .args(["-u", "+%Y-%m-%d %H:%M UTC"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default(),
        sys::RELEASE,
        manifest::functions().len(),
        manifest::functions()
            .iter()
            .map(|f| f.abis.len())
            .sum::<usize>(),
    );

    // Both backends: one row of each of the first two tables per backend and mode.
    let mut default_rows = String::new();
    let mut older_rows = String::new();
    for (label, base) in backends() {
        for mode in MODES {
            let (defaults, older) = compare(&lib, base.with_stream_mode(mode));
            let mode = mode_name(mode);
            let _ = writeln!(
                default_rows,
                "| {label} | {mode} | {} | {} {:?} | {} {:?} | {} |",
                defaults.equal,
                defaults.absent.len(),
                defaults.absent,
                defaults.newer.len(),
                defaults.newer,
                defaults.wrong.len()
            );
            let gone: Vec<&String> = older.absent.iter().chain(&older.newer).collect();
            let _ = writeln!(
                older_rows,
                "| {label} | {mode} | {} | {} | {} {gone:?} | {} |",
                older.checked,
                older.equal,
                gone.len(),
                older.wrong.len()
            );
            for (part, tally) in [("", defaults), (" older", older)] {
                failures.extend(
                    tally
                        .wrong
                        .iter()
                        .map(|w| format!("{label} {mode}{part}: {w}")),
                );
                failures.extend(
                    tally
                        .refused
                        .iter()
                        .map(|r| format!("{label} {mode}{part}: refused {r}")),
                );
            }
        }
    }
    let _ = writeln!(
        report,
        "## Every function at its default ABI, through a `#[driver_table(all, driver = newest)]` table\n\n\
         | backend | mode | resolved and equal | absent (status 1) | newer than the driver | wrong pointer |\n\
         |---|---|---|---|---|---|\n{default_rows}"
    );
    let _ = writeln!(
        report,
        "## Every older ABI with an exported name (`resolve` at that version)\n\n\
         | backend | mode | checked | equal | not handed out (driver does not export it) | wrong |\n\
         |---|---|---|---|---|---|\n{older_rows}"
    );

    let _ = writeln!(
        report,
        "## Every libcudart x this driver: every function at its default ABI and every older ABI, both stream modes\n"
    );
    let _ = writeln!(
        report,
        "| libcudart | lookup | mode | default ABIs equal | older ABIs equal | absent from the driver (status 1) | refused | wrong |"
    );
    let _ = writeln!(report, "|---|---|---|---|---|---|---|---|");
    for path in cudart_matrix() {
        let config = cudart_config(path.clone());
        let resolver = config.resolver().expect("loads");
        let name = format!(
            "{} ({})",
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path.parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        for mode in MODES {
            let (defaults, older) = compare(&lib, config.with_stream_mode(mode));
            let _ = writeln!(
                report,
                "| {name} | {:?} | {} | {} of {} | {} | {} | {} | {} |",
                resolver.versioning(),
                mode_name(mode),
                defaults.equal,
                All::FUNCTIONS.len(),
                older.equal,
                defaults.absent.len() + older.absent.len(),
                defaults.refused.len() + older.refused.len(),
                defaults.wrong.len() + defaults.newer.len() + older.wrong.len() + older.newer.len()
            );
            // Every libcudart from 11.3 on reaches the driver's cuGetProcAddress: nothing is
            // refused any more, and nothing is handed out wrong.
            for tally in [defaults, older] {
                failures.extend(tally.refused.iter().map(|r| format!("{name}: refused {r}")));
                failures.extend(
                    tally
                        .wrong
                        .iter()
                        .chain(&tally.newer)
                        .map(|w| format!("{name}: {w}")),
                );
            }
        }
    }
    let _ = writeln!(report, "\nFailures: {}", failures.len());
    println!("{report}");
    if let Ok(path) = std::env::var("CDT_GPU_RESULTS") {
        std::fs::write(&path, &report).expect("write results");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = cudart13();
}

#[driver_table(cuInit, cuCtxSetCurrent, cuMemAlloc, driver = newest)]
struct NoContext;

/// The lookup's own failures and a failing `CUresult`, through every backend and the libcudart
/// matrix: an unknown function is `SymbolNotFound`, a per-thread ABI older than the twin is
/// `VersionNotSufficient`, and a `CUresult` is named by the driver's `cuGetErrorName` and
/// `cuGetErrorString` as resolved through that backend.
#[test]
fn lookup_failures_and_cuda_errors_are_named_through_every_backend() {
    let mut configs = backends();
    for path in cudart_matrix() {
        configs.push((format!("libcudart {}", path.display()), cudart_config(path)));
    }
    for (label, config) in configs {
        match config.resolver().map(|r| r.versioning()) {
            Ok(Versioning::Versioned) => {
                let e = resolve(&config, "cuNoSuchFunction", &abi(12000)).unwrap_err();
                assert!(
                    matches!(e.kind(), ErrorKind::SymbolNotFound { .. }),
                    "{label}: {e}"
                );
                let twin_too_old = manifest::Abi {
                    version: 4000,
                    export: None,
                    per_thread: Some(manifest::PerThread {
                        version: 4000,
                        export: None,
                    }),
                };
                let e = resolve(&config.per_thread(), "cuLaunchKernel", &twin_too_old).unwrap_err();
                // The 11030 ABI of cuGetProcAddress (what libcudart 11.x hands out) has no status
                // argument, so "only in a newer ABI" reads as "not found" there.
                let status_less = config
                    .resolver()
                    .is_ok_and(|r| r.describe().ends_with("cuGetProcAddress it hands out"));
                assert!(
                    matches!(e.kind(), ErrorKind::VersionNotSufficient { .. })
                        || (status_less && matches!(e.kind(), ErrorKind::SymbolNotFound { .. })),
                    "{label}: {e}"
                );
            }
            other => eprintln!("{label}: {other:?} (versioned lookups not checked)"),
        }
        let table = NoContext::with_config(config);
        // SAFETY: cuInit(0) has no preconditions.
        unsafe { table.cuInit(0) }.unwrap_or_else(|e| panic!("{label}: {e}"));
        // SAFETY: a null context unbinds whatever another test left current on this thread.
        unsafe { table.cuCtxSetCurrent(std::ptr::null_mut()) }
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let mut p: sys::CUdeviceptr = 0;
        // SAFETY: `p` is a valid out-parameter; without a current context the driver refuses.
        let e = unsafe { table.cuMemAlloc(&mut p, 1) }.unwrap_err();
        eprintln!("{label}: {e}");
        assert_eq!(e.code(), Some(201), "{label}: {e}");
        assert_eq!(
            e.to_string(),
            "cuMemAlloc failed: CUDA_ERROR_INVALID_CONTEXT (201): invalid device context",
            "{label}"
        );
    }
}

/// With `tracing`, the event of each successful call shows what the driver wrote through its
/// out-values, and they are the values the caller got: the device, the driver version, the
/// primary context and the device pointer, through both backends.
#[cfg(feature = "tracing")]
#[test]
fn traced_calls_show_the_values_the_driver_wrote() {
    use cuda_driver_table_tests::events::{calls_of, first_call, record};

    #[driver_table(
        cuInit,
        cuDeviceGet,
        cuDriverGetVersion,
        cuDevicePrimaryCtxRetain,
        cuDevicePrimaryCtxRelease,
        cuCtxSetCurrent,
        cuMemAlloc,
        cuMemFree,
        driver = newest
    )]
    struct Traced;

    for (label, config) in backends() {
        let cu = Traced::with_config(config);
        let (mut dev, mut version, mut ctx, mut dptr) = (0, 0, std::ptr::null_mut(), 0);
        let events = record(|| {
            // SAFETY: each pointer is a valid place for what its function returns, and the
            // context and memory are released before the block ends.
            unsafe {
                cu.cuInit(0).unwrap();
                cu.cuDeviceGet(&mut dev, 0).unwrap();
                cu.cuDriverGetVersion(&mut version).unwrap();
                cu.cuDevicePrimaryCtxRetain(&mut ctx, dev).unwrap();
                cu.cuCtxSetCurrent(ctx).unwrap();
                cu.cuMemAlloc(&mut dptr, 1 << 20).unwrap();
                cu.cuMemFree(dptr).unwrap();
                cu.cuDevicePrimaryCtxRelease(dev).unwrap();
            }
        });
        let field =
            |function: &str, name: &str| first_call(&events, function).fields.get(name).cloned();
        assert_eq!(
            field("cuDeviceGet", "out.device"),
            Some(dev.to_string()),
            "{label}"
        );
        assert_eq!(
            field("cuDriverGetVersion", "out.driverVersion"),
            Some(version.to_string()),
            "{label}"
        );
        assert_eq!(
            field("cuDevicePrimaryCtxRetain", "out.pctx"),
            Some(format!("{ctx:?}")),
            "{label}"
        );
        assert_eq!(
            field("cuMemAlloc", "out.dptr"),
            Some(format!("{dptr:#x}")),
            "{label}"
        );
        // Functions without out-values have no such field.
        assert!(
            calls_of(&events, "cuMemFree")
                .iter()
                .all(|e| e.out_values().is_empty()),
            "{label}"
        );
        eprintln!("{label}: cuMemAlloc wrote {dptr:#x}, and its event shows it");
    }
}

/// With `tracing`, `cuStreamGetCaptureInfo` on a stream that is not capturing: the event shows
/// the capture status (NONE) and no value read from the other places, which `cuda.h` says hold
/// valid data only while the stream captures. Each place starts as a placeholder, and the test
/// prints which ones the driver left as they were.
#[cfg(feature = "tracing")]
#[test]
fn traced_capture_info_of_a_stream_that_is_not_capturing_shows_no_unwritten_value() {
    use cuda_driver_table_tests::events::{calls_of, record};

    #[driver_table(
        cuInit,
        cuDeviceGet,
        cuDevicePrimaryCtxRetain,
        cuDevicePrimaryCtxRelease,
        cuCtxSetCurrent,
        cuStreamCreate,
        cuStreamDestroy,
        cuStreamGetCaptureInfo,
        driver = newest
    )]
    struct Traced;

    const ID: u64 = 0x1d_1d1d;
    let graph_placeholder: sys::CUgraph = std::ptr::without_provenance_mut(0x6a_6a6a);
    let dependencies_placeholder: *const sys::CUgraphNode = std::ptr::without_provenance(0xde_dede);
    let edges_placeholder: *const sys::CUgraphEdgeData = std::ptr::without_provenance(0xed_eded);
    const COUNT: usize = 0xc0_c0c0;
    for (label, config) in backends() {
        let cu = Traced::with_config(config);
        let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_INVALIDATED;
        let (mut id, mut graph, mut dependencies, mut edges, mut count) = (
            ID,
            graph_placeholder,
            dependencies_placeholder,
            edges_placeholder,
            COUNT,
        );
        let (mut dev, mut ctx, mut stream) = (0, std::ptr::null_mut(), std::ptr::null_mut());
        let events;
        // SAFETY: each pointer is a valid place for what its function returns; the stream and
        // the context are released before the block ends.
        unsafe {
            cu.cuInit(0).unwrap();
            cu.cuDeviceGet(&mut dev, 0).unwrap();
            cu.cuDevicePrimaryCtxRetain(&mut ctx, dev).unwrap();
            cu.cuCtxSetCurrent(ctx).unwrap();
            cu.cuStreamCreate(&mut stream, 0).unwrap();
            events = record(|| {
                cu.cuStreamGetCaptureInfo(
                    stream,
                    &mut status,
                    &mut id,
                    &mut graph,
                    &mut dependencies,
                    &mut edges,
                    &mut count,
                )
                .unwrap();
            });
            cu.cuStreamDestroy(stream).unwrap();
            cu.cuDevicePrimaryCtxRelease(dev).unwrap();
        }
        assert_eq!(
            status,
            sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE,
            "{label}"
        );
        let calls = calls_of(&events, "cuStreamGetCaptureInfo");
        assert_eq!(calls.len(), 1, "{label}: {events:#?}");
        assert_eq!(
            calls[0].out_values(),
            ["out.captureStatus_out"],
            "{label}: {:#?}",
            calls[0]
        );
        assert_eq!(
            calls[0].fields["out.captureStatus_out"],
            format!("{status:?}"),
            "{label}"
        );
        let unwritten: Vec<&str> = [
            ("id_out", id == ID),
            ("graph_out", graph == graph_placeholder),
            ("dependencies_out", dependencies == dependencies_placeholder),
            ("edgeData_out", edges == edges_placeholder),
            ("numDependencies_out", count == COUNT),
        ]
        .into_iter()
        .filter_map(|(name, kept)| kept.then_some(name))
        .collect();
        eprintln!(
            "{label}: a stream that is not capturing: status {status:?}, left unwritten: {}; \
             the event shows the status alone",
            unwritten.join(", ")
        );
    }
}
