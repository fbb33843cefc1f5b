//! Resolving everything (GPU): `resolve_all` of a fresh `#[driver_table(all, driver = newest)]` table (every
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
//!
//! Then (under `--bench` only) the paired measurement, which the report's rows use: `ROUNDS`
//! rounds, each timing one pass of every variant in turn (a fresh table for each table pass,
//! made outside the timing; each round starts at the next variant, so none always runs first),
//! and for each table the median over the rounds of its per-round ratio to the raw loop of its
//! backend, with the 10th and 90th percentiles: drift of a shared machine hits both passes of a
//! round alike. Printed as tab-separated `resolve_paired` lines for the report
//! (`src/gpu_report.rs`).

use std::ffi::{c_int, c_void, CStr, CString};
use std::hint::black_box;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use cuda_driver_table::{driver_table, Config, StreamMode};
use cuda_driver_table_benches::{
    benchmarking, driver_or_exit, PfnEntryPointByVersion, PfnGetProcAddressV2, RawCudart,
    LEGACY_STREAM,
};

#[driver_table(all, driver = newest)]
struct All;

fn main() {
    let raw = driver_or_exit("resolve_all");
    let n = All::FUNCTIONS.len();
    // The table's own requests: its NUL-terminated static names, each at its legacy request.
    let requests: Vec<(&'static CStr, u32)> = All::FUNCTIONS
        .iter()
        .map(|f| (f.symbol, f.abi.request(StreamMode::Legacy).0))
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
        b.iter(|| raw_get_proc_pass(get_proc, &requests))
    });
    let entry = cudart.as_ref().map(RawCudart::entry);
    if let Some(entry) = entry {
        g.bench_function(
            BenchmarkId::new("all", "raw_cudaGetDriverEntryPointByVersion"),
            |b| b.iter(|| raw_entry_pass(entry, &requests)),
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

    if benchmarking() {
        let requests = &requests[..];
        let mut variants: Vec<Variant> = Vec::new();
        if driver_ok {
            variants.push(Variant {
                name: "table_driver",
                baseline: Some("raw_cuGetProcAddress_v2"),
                pass: Box::new(|| table_pass(Config::driver())),
            });
        }
        variants.push(Variant {
            name: "raw_cuGetProcAddress_v2",
            baseline: None,
            pass: Box::new(move || timed(|| raw_get_proc_pass(get_proc, requests))),
        });
        if let (true, Some(entry)) = (runtime_ok, entry) {
            variants.push(Variant {
                name: "table_runtime",
                baseline: Some("raw_cudaGetDriverEntryPointByVersion"),
                pass: Box::new(|| table_pass(Config::runtime())),
            });
            variants.push(Variant {
                name: "raw_cudaGetDriverEntryPointByVersion",
                baseline: None,
                pass: Box::new(move || timed(|| raw_entry_pass(entry, requests))),
            });
        }
        paired(&variants, n);
    }
}

/// One pass of the raw driver baseline: every request straight to `cuGetProcAddress_v2`.
#[inline(never)]
fn raw_get_proc_pass(get_proc: PfnGetProcAddressV2, requests: &[(&'static CStr, u32)]) {
    for (symbol, version) in requests {
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
}

/// One pass of the raw runtime baseline: every request straight to
/// `cudaGetDriverEntryPointByVersion`.
#[inline(never)]
fn raw_entry_pass(entry: PfnEntryPointByVersion, requests: &[(&'static CStr, u32)]) {
    for (symbol, version) in requests {
        let mut p = null_mut();
        let mut status: c_int = -1;
        // SAFETY: NUL-terminated symbol, valid out-parameters, the documented signature.
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
}

/// The time of `f`.
fn timed(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// The time of `resolve_all` on a fresh table configured with `config` (made before the timing).
fn table_pass(config: Config) -> Duration {
    let table = black_box(All::with_config(config));
    let t = Instant::now();
    let _ = black_box(table.resolve_all());
    t.elapsed()
}

/// A variant of the paired measurement: its name, the variant its ratio is taken to (for a
/// table), and one timed pass.
struct Variant<'a> {
    name: &'static str,
    baseline: Option<&'static str>,
    pass: Box<dyn Fn() -> Duration + 'a>,
}

/// Rounds of the paired measurement.
const ROUNDS: usize = 3000;

/// The paired measurement (see the module's documentation): prints, per table variant,
/// `resolve_paired<TAB>variant<TAB>baseline<TAB>functions<TAB>rounds<TAB>median ns<TAB>baseline
/// median ns<TAB>median ratio<TAB>p10<TAB>p90`.
fn paired(variants: &[Variant<'_>], functions: usize) {
    // One pass of each first, outside the measurement.
    for v in variants {
        (v.pass)();
    }
    let mut t = vec![Vec::with_capacity(ROUNDS); variants.len()];
    for round in 0..ROUNDS {
        for k in 0..variants.len() {
            let i = (k + round) % variants.len();
            t[i].push((variants[i].pass)().as_nanos() as f64);
        }
    }
    for (i, v) in variants.iter().enumerate() {
        let Some(b) = v
            .baseline
            .and_then(|b| variants.iter().position(|w| w.name == b))
        else {
            continue;
        };
        let mut ratios: Vec<f64> = t[i].iter().zip(&t[b]).map(|(a, b)| a / b).collect();
        let (mut own, mut base) = (t[i].clone(), t[b].clone());
        let (m, mb, r) = (median(&mut own), median(&mut base), median(&mut ratios));
        eprintln!(
            "resolve_paired\t{}\t{}\t{functions}\t{ROUNDS}\t{m:.0}\t{mb:.0}\t{r:.4}\t{:.4}\t{:.4}",
            v.name,
            variants[b].name,
            quantile(&ratios, 0.1),
            quantile(&ratios, 0.9),
        );
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
