//! Cold start, runtime backend: a fresh process until the first `cuDriverGetVersion` of a
//! 2-function table returns, through libcudart (`$CUDA_DRIVER_TABLE_CUDART`, else the usual
//! search) and `cudaGetDriverEntryPointByVersion`.
//! Prints what [`cold_start`] prints, for `benches/c/spawn_timer.c`.

use std::process::ExitCode;

use cuda_driver_table::driver_table;
use cuda_driver_table_benches::cold_start;

#[driver_table(cuDriverGetVersion, cuCtxGetCurrent, driver = newest)]
struct Cuda;

static CU: Cuda = Cuda::new();

fn main() -> ExitCode {
    cold_start("cold_runtime", || {
        let mut version = 0;
        // SAFETY: `version` is a valid out-parameter.
        unsafe { CU.cuDriverGetVersion(&mut version) }
            .map(|()| version)
            .map_err(|e| e.to_string())
    })
}
