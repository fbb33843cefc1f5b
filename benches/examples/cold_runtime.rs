//! Cold start, runtime backend: a fresh process until the first `cuDriverGetVersion` of a
//! 2-function table returns, through libcudart (`$CUDA_DRIVER_TABLE_CUDART`, else the usual
//! search) and `cudaGetDriverEntryPointByVersion`.
//! Prints the version and `CLOCK_MONOTONIC` in ns when `main` was entered and
//! right after the call returned, for `benches/c/spawn_timer.c`.

use std::process::ExitCode;

use cuda_driver_table::driver_table;

#[driver_table(cuDriverGetVersion, cuCtxGetCurrent, driver = newest)]
struct Cuda;

static CU: Cuda = Cuda::new();

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
            eprintln!("cold_runtime: {e}");
            ExitCode::FAILURE
        }
    }
}
