//! Cold start, cudarc: a fresh process until the first `cudarc::driver::sys::cuDriverGetVersion`
//! returns (cudarc 0.19.10, dynamic loading: it `dlopen`s the first of its candidate names that
//! loads, then `dlsym`s the function). Prints what [`cold_start`] prints, for
//! `benches/c/spawn_timer.c`.

use std::process::ExitCode;

use cuda_driver_table_benches::cold_start;
use cudarc::driver::sys;

fn main() -> ExitCode {
    cold_start("cold_cudarc", || {
        let mut version = 0;
        // SAFETY: `version` is a valid out-parameter.
        match unsafe { sys::cuDriverGetVersion(&mut version) } {
            sys::CUresult::CUDA_SUCCESS => Ok(version),
            r => Err(format!("cuDriverGetVersion returned {r:?}")),
        }
    })
}
