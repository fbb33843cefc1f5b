//! Cold start, cudarc: a fresh process until the first `cudarc::driver::sys::cuDriverGetVersion`
//! returns (cudarc 0.19.10, dynamic loading: it `dlopen`s the first of its candidate names that
//! loads, then `dlsym`s the function).
//! Prints the version and `CLOCK_MONOTONIC` in ns when `main` was entered and
//! right after the call returned, for `benches/c/spawn_timer.c`.

use std::process::ExitCode;

use cudarc::driver::sys;

fn main() -> ExitCode {
    let t0 = cuda_driver_table_benches::monotonic_ns();
    let mut version = 0;
    // SAFETY: `version` is a valid out-parameter.
    let r = unsafe { sys::cuDriverGetVersion(&mut version) };
    let t = cuda_driver_table_benches::monotonic_ns();
    if r == sys::CUresult::CUDA_SUCCESS {
        println!("{version} {t0} {t}");
        ExitCode::SUCCESS
    } else {
        eprintln!("cold_cudarc: cuDriverGetVersion returned {r:?}");
        ExitCode::FAILURE
    }
}
