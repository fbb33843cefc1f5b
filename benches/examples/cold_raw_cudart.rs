//! Cold start, Rust floor: what `benches/c/cold_cudart.c` does, written in Rust with libloading
//! (`dlopen` of `$CUDA_DRIVER_TABLE_CUDART` + `cudaGetDriverEntryPointByVersion` for
//! `cuDriverGetVersion`, then the call), without a table. Against `cold_runtime` it tells the
//! table's own cost from the start-up of a Rust program. Prints the version and
//! `CLOCK_MONOTONIC` in ns when `main` was entered and right after the call returned, for
//! `benches/c/spawn_timer.c`.

use std::ffi::c_void;
use std::process::ExitCode;

use cuda_driver_table_benches::{monotonic_ns, PfnDriverGetVersion, RawCudart};

fn main() -> ExitCode {
    let t0 = cuda_driver_table_benches::monotonic_ns();
    // Kept alive to the end: dropping it would unload the library.
    let lib = match RawCudart::open() {
        Ok(lib) => lib,
        Err(why) => {
            eprintln!("cold_raw_cudart: {why}");
            return ExitCode::FAILURE;
        }
    };
    let Some(p) = lib.lookup(c"cuDriverGetVersion", 2020) else {
        eprintln!("cold_raw_cudart: cudaGetDriverEntryPointByVersion found no cuDriverGetVersion");
        return ExitCode::FAILURE;
    };
    // SAFETY: `cuDriverGetVersion` at ABI 2020 is `CUresult (int*)`.
    let f = unsafe { std::mem::transmute::<*mut c_void, PfnDriverGetVersion>(p) };
    let mut version = 0;
    // SAFETY: `version` is a valid out-parameter.
    let rc = unsafe { f(&mut version) };
    let t = monotonic_ns();
    if rc != 0 {
        eprintln!("cold_raw_cudart: cuDriverGetVersion returned {rc}");
        return ExitCode::FAILURE;
    }
    println!("{version} {t0} {t}");
    ExitCode::SUCCESS
}
