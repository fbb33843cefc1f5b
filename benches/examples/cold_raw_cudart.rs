//! Cold start, Rust floor: what `benches/c/cold_cudart.c` does, written in Rust with libloading
//! (`dlopen` of `$CUDA_DRIVER_TABLE_CUDART` + `cudaGetDriverEntryPointByVersion` for
//! `cuDriverGetVersion`, then the call), without a table. Against `cold_runtime` it tells the
//! table's own cost from the start-up of a Rust program. Prints what [`cold_start`] prints, for
//! `benches/c/spawn_timer.c`.

use std::process::ExitCode;

use cuda_driver_table_benches::{call_driver_get_version, cold_start, RawCudart};

fn main() -> ExitCode {
    cold_start("cold_raw_cudart", || {
        let lib = RawCudart::open()?;
        let version = call_driver_get_version(
            lib.lookup(c"cuDriverGetVersion", 2020),
            "cudaGetDriverEntryPointByVersion",
        );
        // Never unloaded, like a table's library (an unload would be timed, too).
        std::mem::forget(lib);
        version
    })
}
