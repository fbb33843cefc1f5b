//! Cold start, driver backend: a fresh process until the first `cuDriverGetVersion` of a
//! 2-function table returns (`Config::driver()`: `libcuda.so.1` + `cuGetProcAddress_v2`).
//! Prints the version and `CLOCK_MONOTONIC` in ns when `main` was entered and
//! right after the call returned, for `benches/c/spawn_timer.c`.

use std::process::ExitCode;

use cuda_driver_table::{driver_table, Config};

#[driver_table(cuDriverGetVersion, cuCtxGetCurrent, driver = newest)]
struct Cuda;

static CU: Cuda = Cuda::with_config(Config::driver());

fn main() -> ExitCode {
    let t0 = cuda_driver_table_benches::monotonic_ns();
    let mut version = 0;
    // SAFETY: `version` is a valid out-parameter.
    let r = unsafe { CU.cuDriverGetVersion(&mut version) };
    let t = cuda_driver_table_benches::monotonic_ns();
    match r {
        Ok(()) => {
            println!("{version} {t0} {t}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cold_driver: {e}");
            ExitCode::FAILURE
        }
    }
}
