//! Call overhead (GPU): one call of `cuDriverGetVersion` and of `cuCtxGetCurrent` through
//!
//! - `raw_pointer`: a function pointer from `cuGetProcAddress_v2`, held in a local (the floor);
//! - `method_driver` / `method_runtime`: the generated method of a `static` table (driver / runtime
//!   backend), which loads the resolved pointer, calls it and turns the `CUresult` into a `Result`;
//! - `accessor`: the raw accessor `pfn_*()` of the driver table, called every iteration, then the
//!   pointer it returns;
//! - `cudarc`: `cudarc::driver::sys` (dynamic loading: a `OnceLock` per function).
//!
//! All variants are in one criterion group, so their ratios come from one run. Then (with
//! `--bench` only) a paired measurement times blocks of calls of all variants of a function in
//! turn, 300 rounds, and reports each variant's per-round difference to the raw pointer: drift of
//! a shared machine cancels out of it. No context is created: after `cuInit`, `cuCtxGetCurrent`
//! succeeds and returns a null context.

use std::ffi::{c_int, c_void};
use std::hint::black_box;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};
use cuda_driver_table::{driver_table, Config};
use cuda_driver_table_benches::{
    benchmarking, driver_or_exit, PfnCtxGetCurrent, PfnDriverGetVersion,
};
use cudarc::driver::sys as cudarc_sys;

#[driver_table(cuDriverGetVersion, cuCtxGetCurrent, driver = newest)]
struct Cuda;

static DRIVER: Cuda = Cuda::with_config(Config::driver());
static RUNTIME: Cuda = Cuda::new();

fn main() {
    let raw = driver_or_exit("call_overhead");
    let version_ptr = raw
        .lookup(c"cuDriverGetVersion", 2020)
        .expect("cuGetProcAddress_v2 found no cuDriverGetVersion");
    let current_ptr = raw
        .lookup(c"cuCtxGetCurrent", 4000)
        .expect("cuGetProcAddress_v2 found no cuCtxGetCurrent");
    // SAFETY: `cuDriverGetVersion` at ABI 2020 is `CUresult (int*)`.
    let raw_version =
        unsafe { std::mem::transmute::<*mut c_void, PfnDriverGetVersion>(version_ptr) };
    // SAFETY: `cuCtxGetCurrent` at ABI 4000 is `CUresult (CUcontext*)`.
    let raw_current = unsafe { std::mem::transmute::<*mut c_void, PfnCtxGetCurrent>(current_ptr) };

    // Resolve everything outside the measurements, and check every path works.
    let mut v: c_int = 0;
    let mut ctx = null_mut();
    // SAFETY: valid out-parameters.
    unsafe {
        DRIVER
            .cuDriverGetVersion(&mut v)
            .expect("driver table: cuDriverGetVersion");
        DRIVER
            .cuCtxGetCurrent(&mut ctx)
            .expect("driver table: cuCtxGetCurrent");
    }
    let runtime = {
        // SAFETY: valid out-parameters.
        let r = unsafe {
            RUNTIME
                .cuDriverGetVersion(&mut v)
                .and_then(|()| RUNTIME.cuCtxGetCurrent(&mut ctx))
        };
        match r {
            Ok(()) => true,
            Err(e) => {
                eprintln!(
                    "call_overhead: runtime backend unavailable, its variants are skipped: {e}"
                );
                false
            }
        }
    };
    let mut cv: c_int = 0;
    let mut cctx: cudarc_sys::CUcontext = null_mut();
    // SAFETY: valid out-parameters; cuInit was called (through the driver above, same process).
    unsafe {
        assert_eq!(
            cudarc_sys::cuDriverGetVersion(&mut cv),
            cudarc_sys::CUresult::CUDA_SUCCESS
        );
        assert_eq!(
            cudarc_sys::cuCtxGetCurrent(&mut cctx),
            cudarc_sys::CUresult::CUDA_SUCCESS
        );
    }
    eprintln!(
        "call_overhead: driver version {v}; cudarc sees {cv}; current context: {}",
        if cctx.is_null() {
            "none (null)"
        } else {
            "one is current"
        }
    );

    let variants = variants(raw_version, raw_current, runtime);

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let mut g = c.benchmark_group("call_overhead");
    for (function, variant, body) in &variants {
        g.bench_function(BenchmarkId::new(*function, *variant), |b| {
            b.iter_custom(body)
        });
    }
    g.finish();
    c.final_summary();

    if benchmarking() {
        paired(&variants);
    }
}

/// Runs one variant's call `iters` times and returns the time it took.
type Body = Box<dyn Fn(u64) -> Duration>;

/// Every (function, variant, body). Each body is its own loop, so the call is inlined into it;
/// criterion and the paired measurement time the very same code.
fn variants(
    raw_version: PfnDriverGetVersion,
    raw_current: PfnCtxGetCurrent,
    runtime: bool,
) -> Vec<(&'static str, &'static str, Body)> {
    let mut v: Vec<(&'static str, &'static str, Body)> = Vec::new();
    let f = "cuDriverGetVersion";
    v.push((
        f,
        "raw_pointer",
        Box::new(move |iters| {
            let mut out: c_int = 0;
            let t = Instant::now();
            for _ in 0..iters {
                // SAFETY: a valid out-parameter.
                black_box(unsafe { raw_version(black_box(&mut out)) });
            }
            t.elapsed()
        }),
    ));
    v.push((
        f,
        "method_driver",
        Box::new(|iters| {
            let mut out: c_int = 0;
            let t = Instant::now();
            for _ in 0..iters {
                // SAFETY: a valid out-parameter.
                black_box(unsafe { DRIVER.cuDriverGetVersion(black_box(&mut out)) }.is_ok());
            }
            t.elapsed()
        }),
    ));
    if runtime {
        v.push((
            f,
            "method_runtime",
            Box::new(|iters| {
                let mut out: c_int = 0;
                let t = Instant::now();
                for _ in 0..iters {
                    // SAFETY: a valid out-parameter.
                    black_box(unsafe { RUNTIME.cuDriverGetVersion(black_box(&mut out)) }.is_ok());
                }
                t.elapsed()
            }),
        ));
    }
    v.push((
        f,
        "accessor",
        Box::new(|iters| {
            let mut out: c_int = 0;
            let t = Instant::now();
            for _ in 0..iters {
                let p = DRIVER.pfn_cuDriverGetVersion().expect("resolved above");
                // SAFETY: a valid out-parameter.
                black_box(unsafe { p(black_box(&mut out)) });
            }
            t.elapsed()
        }),
    ));
    v.push((
        f,
        "cudarc",
        Box::new(|iters| {
            let mut out: c_int = 0;
            let t = Instant::now();
            for _ in 0..iters {
                // SAFETY: a valid out-parameter.
                black_box(unsafe { cudarc_sys::cuDriverGetVersion(black_box(&mut out)) });
            }
            t.elapsed()
        }),
    ));

    let f = "cuCtxGetCurrent";
    v.push((
        f,
        "raw_pointer",
        Box::new(move |iters| {
            let mut out: *mut c_void = null_mut();
            let t = Instant::now();
            for _ in 0..iters {
                // SAFETY: a valid out-parameter.
                black_box(unsafe { raw_current(black_box(&mut out)) });
            }
            t.elapsed()
        }),
    ));
    v.push((
        f,
        "method_driver",
        Box::new(|iters| {
            let mut out = null_mut();
            let t = Instant::now();
            for _ in 0..iters {
                // SAFETY: a valid out-parameter.
                black_box(unsafe { DRIVER.cuCtxGetCurrent(black_box(&mut out)) }.is_ok());
            }
            t.elapsed()
        }),
    ));
    if runtime {
        v.push((
            f,
            "method_runtime",
            Box::new(|iters| {
                let mut out = null_mut();
                let t = Instant::now();
                for _ in 0..iters {
                    // SAFETY: a valid out-parameter.
                    black_box(unsafe { RUNTIME.cuCtxGetCurrent(black_box(&mut out)) }.is_ok());
                }
                t.elapsed()
            }),
        ));
    }
    v.push((
        f,
        "accessor",
        Box::new(|iters| {
            let mut out = null_mut();
            let t = Instant::now();
            for _ in 0..iters {
                let p = DRIVER.pfn_cuCtxGetCurrent().expect("resolved above");
                // SAFETY: a valid out-parameter.
                black_box(unsafe { p(black_box(&mut out)) });
            }
            t.elapsed()
        }),
    ));
    v.push((
        f,
        "cudarc",
        Box::new(|iters| {
            let mut out: cudarc_sys::CUcontext = null_mut();
            let t = Instant::now();
            for _ in 0..iters {
                // SAFETY: a valid out-parameter.
                black_box(unsafe { cudarc_sys::cuCtxGetCurrent(black_box(&mut out)) });
            }
            t.elapsed()
        }),
    ));
    v
}

/// The paired measurement: ROUNDS rounds, each timing a block of BLOCK calls of every variant of
/// a function in turn (starting at the next variant each round), so that drift of the machine
/// hits all variants alike. Prints, per variant, the median ns per call and the median (p10, p90)
/// of its per-round difference to `raw_pointer`, as tab-separated `paired` lines that the GPU
/// report reads (`src/gpu_report.rs`).
fn paired(variants: &[(&'static str, &'static str, Body)]) {
    const ROUNDS: usize = 300;
    const BLOCK: u64 = 100_000;
    let mut functions: Vec<&str> = variants.iter().map(|v| v.0).collect();
    functions.dedup();
    for function in functions {
        let vs: Vec<&(&str, &str, Body)> = variants.iter().filter(|v| v.0 == function).collect();
        let Some(raw) = vs.iter().position(|v| v.1 == "raw_pointer") else {
            continue;
        };
        let mut t = vec![Vec::with_capacity(ROUNDS); vs.len()];
        for round in 0..ROUNDS {
            for k in 0..vs.len() {
                let i = (k + round) % vs.len();
                t[i].push((vs[i].2)(BLOCK).as_nanos() as f64 / BLOCK as f64);
            }
        }
        for (i, v) in vs.iter().enumerate() {
            let mut d: Vec<f64> = t[i].iter().zip(&t[raw]).map(|(a, b)| a - b).collect();
            let mut own = t[i].clone();
            let (m, dm, lo, hi) = (
                median(&mut own),
                median(&mut d),
                quantile(&d, 0.1),
                quantile(&d, 0.9),
            );
            eprintln!(
                "paired\t{function}\t{}\t{m:.3}\t{dm:+.3}\t{lo:+.3}\t{hi:+.3}",
                v.1
            );
        }
    }
}

/// Sorts `x` and returns its median.
fn median(x: &mut [f64]) -> f64 {
    x.sort_by(f64::total_cmp);
    quantile(x, 0.5)
}

/// The nearest-rank quantile of sorted `x`.
fn quantile(x: &[f64], q: f64) -> f64 {
    x[((x.len() - 1) as f64 * q).round() as usize]
}
