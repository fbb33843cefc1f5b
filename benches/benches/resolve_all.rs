//! Resolving everything (GPU): `resolve_all` of a fresh `#[driver_table(all)]` table (every
//! function of the CUDA 13.0 manifest) through each backend, against loops that call the lookup
//! functions directly over the same (name, ABI version) list.
//!
//! Libraries are loaded once per process (before the measurements), so this measures lookups:
//!
//! - `table_driver` / `table_runtime`: `All::with_config(..).resolve_all()` on a new table each
//!   iteration (built outside the timing);
//! - `raw_cuGetProcAddress_v2`: the same requests straight to `cuGetProcAddress_v2`, with the
//!   names already NUL-terminated (the driver backend's floor);
//! - `raw_cudaGetDriverEntryPointByVersion`: likewise through libcudart (the runtime's floor);
//! - `dlsym_exports`: `dlsym` of each function's exported name (`cuMemAlloc_v2`), which is how
//!   `cudarc` finds a function (it has no resolve-all: its `OnceLock`s cannot be reset).
//!
//! Divide by the number of functions (printed first) for the cost per function.

use std::ffi::{c_int, c_void, CString};
use std::hint::black_box;
use std::ptr::null_mut;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use cuda_driver_table::{driver_table, Config};
use cuda_driver_table_benches::{driver_or_exit, RawCudart, LEGACY_STREAM};

#[driver_table(all)]
struct All;

fn main() {
    let raw = driver_or_exit("resolve_all");
    let n = All::FUNCTIONS.len();
    let requests: Vec<(CString, u32)> = All::FUNCTIONS
        .iter()
        .map(|f| {
            (
                CString::new(f.name).expect("no NUL in names"),
                f.abi.version,
            )
        })
        .collect();
    let exports: Vec<CString> = All::FUNCTIONS
        .iter()
        .filter_map(|f| f.abi.export)
        .map(|e| CString::new(e).expect("no NUL in names"))
        .collect();

    // Load both libraries now and report what resolves on this machine.
    let report = |what: &str, t: &All| -> bool {
        match t.resolve_all() {
            Ok(()) => {
                eprintln!("resolve_all: {what}: all {n} functions resolved");
                true
            }
            Err(errors) => {
                let errors = errors.into_vec();
                let library = errors.iter().any(|e| {
                    matches!(
                        e.kind(),
                        cuda_driver_table::ErrorKind::LibraryNotFound { .. }
                            | cuda_driver_table::ErrorKind::NotACudaLibrary { .. }
                    )
                });
                if library {
                    eprintln!(
                        "resolve_all: {what}: backend unavailable, skipped: {}",
                        errors[0]
                    );
                    return false;
                }
                eprintln!(
                    "resolve_all: {what}: {} of {n} functions resolved; {} failed, e.g. {}",
                    n - errors.len(),
                    errors.len(),
                    errors[0]
                );
                true
            }
        }
    };
    let driver_ok = report("driver backend", &All::with_config(Config::driver()));
    let runtime_ok = report("runtime backend", &All::with_config(Config::runtime()));
    let cudart = match RawCudart::open() {
        Ok(c) => Some(c),
        Err(why) => {
            eprintln!("resolve_all: raw libcudart baseline skipped: {why}");
            None
        }
    };
    let found = requests
        .iter()
        .filter(|(s, v)| raw.lookup(s, *v).is_some())
        .count();
    let exported = exports
        .iter()
        // SAFETY: only the presence of the symbol is checked.
        .filter(|e| unsafe { raw.library().get::<*mut c_void>(e.as_c_str()) }.is_ok())
        .count();
    eprintln!(
        "resolve_all: {n} functions; cuGetProcAddress_v2 finds {found}; {} have an exported \
         name, dlsym finds {exported}",
        exports.len()
    );

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut g = c.benchmark_group("resolve_all");
    g.throughput(Throughput::Elements(n as u64));

    if driver_ok {
        g.bench_function(BenchmarkId::new("all", "table_driver"), |b| {
            b.iter_batched_ref(
                || All::with_config(Config::driver()),
                |t| black_box(t.resolve_all()),
                BatchSize::SmallInput,
            )
        });
    }
    if runtime_ok {
        g.bench_function(BenchmarkId::new("all", "table_runtime"), |b| {
            b.iter_batched_ref(
                || All::with_config(Config::runtime()),
                |t| black_box(t.resolve_all()),
                BatchSize::SmallInput,
            )
        });
    }
    let get_proc = raw.get_proc();
    g.bench_function(BenchmarkId::new("all", "raw_cuGetProcAddress_v2"), |b| {
        b.iter(|| {
            for (symbol, version) in &requests {
                let mut p = null_mut();
                let mut status: c_int = -1;
                // SAFETY: NUL-terminated symbol, valid out-parameters, the documented signature.
                let rc = unsafe {
                    get_proc(
                        symbol.as_ptr(),
                        &mut p,
                        *version as c_int,
                        LEGACY_STREAM,
                        &mut status,
                    )
                };
                black_box((rc, status, p));
            }
        })
    });
    if let Some(cudart) = &cudart {
        let entry = cudart.entry();
        g.bench_function(
            BenchmarkId::new("all", "raw_cudaGetDriverEntryPointByVersion"),
            |b| {
                b.iter(|| {
                    for (symbol, version) in &requests {
                        let mut p = null_mut();
                        let mut status: c_int = -1;
                        // SAFETY: NUL-terminated symbol, valid out-parameters, the documented
                        // signature.
                        let rc = unsafe {
                            entry(
                                symbol.as_ptr(),
                                &mut p,
                                *version,
                                LEGACY_STREAM,
                                &mut status,
                            )
                        };
                        black_box((rc, status, p));
                    }
                })
            },
        );
    }
    let lib = raw.library();
    g.throughput(Throughput::Elements(exports.len() as u64));
    g.bench_function(BenchmarkId::new("all", "dlsym_exports"), |b| {
        b.iter(|| {
            for e in &exports {
                // SAFETY: only the address is taken; nothing is called.
                black_box(unsafe { lib.get::<*mut c_void>(e.as_c_str()) }.is_ok());
            }
        })
    });

    g.finish();
    c.final_summary();
}
