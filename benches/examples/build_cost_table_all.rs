//! The program of the `all` row of the build-cost measurement (row 4g of `BENCHMARKS.md`): a table
//! of every function of the release, four of them called as in `build_cost_table.rs`.
//! `bench-build` copies this file as `src/main.rs` of a throw-away project that depends on
//! `runtime/` by path with default features; it is an example here only so that the workspace
//! build checks it.

use cuda_driver_table::{driver_table, sys};

#[driver_table(all)]
pub struct Cuda;

static CU: Cuda = Cuda::new();

fn main() {
    let mut dev: sys::CUdevice = 0;
    let mut p: sys::CUdeviceptr = 0;
    // SAFETY: valid out-parameters; the pointer is freed once.
    let r = unsafe {
        CU.cuInit(0)
            .and_then(|()| CU.cuDeviceGet(&mut dev, 0))
            .and_then(|()| CU.cuMemAlloc(&mut p, 1 << 20))
            .and_then(|()| CU.cuMemFree(p))
    };
    match r {
        Ok(()) => println!("ok"),
        Err(e) => eprintln!("{e}"),
    }
}
