//! What the `tracing` feature costs a call when no subscriber wants its events (GPU). Built only
//! with this crate's `tracing` feature, which turns tracing on in the runtime for the whole build:
//! compare its `method - raw` with `call_overhead`'s (built without it) to get the feature's cost.
//!
//! Paired blocks, as `call_overhead`'s paired measurement: each round times a block of calls of
//! `cuDriverGetVersion` through a raw `cuGetProcAddress_v2` pointer, then through the generated
//! (traced) method of a driver table, and records the per-call difference; 300 rounds, median.
//! Twice: with no subscriber at all, and with a subscriber that only wants INFO and above (the
//! call events are TRACE, failures DEBUG). Prints one line per case.

use std::ffi::{c_int, c_void};
use std::hint::black_box;
use std::time::Instant;

use cuda_driver_table::{driver_table, Config};
use cuda_driver_table_benches::{driver_or_exit, PfnDriverGetVersion};

#[driver_table(cuDriverGetVersion, driver = newest)]
struct Cuda;

static DRIVER: Cuda = Cuda::with_config(Config::driver());

const ROUNDS: usize = 300;
const BLOCK: u32 = 20_000;

/// The median over `ROUNDS` of (method - raw) per call, in nanoseconds, and the raw call's median.
fn paired(raw: PfnDriverGetVersion) -> (f64, f64) {
    let mut diffs = Vec::with_capacity(ROUNDS);
    let mut raws = Vec::with_capacity(ROUNDS);
    let mut v: c_int = 0;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for _ in 0..BLOCK {
            // SAFETY: a valid out-parameter.
            black_box(unsafe { raw(black_box(&mut v)) });
        }
        let raw_ns = start.elapsed().as_nanos() as f64 / f64::from(BLOCK);
        let start = Instant::now();
        for _ in 0..BLOCK {
            // SAFETY: a valid out-parameter.
            let _ = black_box(unsafe { DRIVER.cuDriverGetVersion(black_box(&mut v)) });
        }
        let method_ns = start.elapsed().as_nanos() as f64 / f64::from(BLOCK);
        diffs.push(method_ns - raw_ns);
        raws.push(raw_ns);
    }
    let median = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    (median(diffs), median(raws))
}

fn main() {
    let raw = driver_or_exit("trace_overhead");
    let ptr = raw
        .lookup(c"cuDriverGetVersion", 2020)
        .expect("cuGetProcAddress_v2 found no cuDriverGetVersion");
    // SAFETY: `cuDriverGetVersion` at ABI 2020 is `CUresult (int*)`.
    let raw_fn = unsafe { std::mem::transmute::<*mut c_void, PfnDriverGetVersion>(ptr) };
    let mut v: c_int = 0;
    // SAFETY: a valid out-parameter; resolves outside the measurement.
    unsafe { DRIVER.cuDriverGetVersion(&mut v) }.expect("driver table: cuDriverGetVersion");

    let (none, raw_ns) = paired(raw_fn);
    println!(
        "trace_overhead: tracing on, no subscriber: method - raw = {none:.2} ns per call (raw {raw_ns:.2} ns; median of {ROUNDS} rounds of {BLOCK} calls)"
    );
    let info_only = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_writer(std::io::sink)
        .finish();
    let (uninterested, raw_ns) = tracing::subscriber::with_default(info_only, || paired(raw_fn));
    println!(
        "trace_overhead: tracing on, a subscriber at INFO: method - raw = {uninterested:.2} ns per call (raw {raw_ns:.2} ns; median of {ROUNDS} rounds of {BLOCK} calls)"
    );
}
