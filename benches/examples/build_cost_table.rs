//! The program whose clean build `bench-build` times (row 4 of `BENCHMARKS.md`): four calls
//! through a table. `bench-build` copies this file as `src/main.rs` of a throw-away project that
//! depends on `runtime/` by path with default features, once as it is (4 functions) and once for
//! each other table it measures, with the attribute's list replaced (40 functions, `all`); and as
//! the `cuda` module of the typical application (`build_cost_typical.rs`). It is an example here
//! only so that the workspace build checks it.

use cuda_driver_table::{driver_table, sys};

#[driver_table(cuInit, cuDeviceGet, cuMemAlloc, cuMemFree, driver = newest)]
pub struct Cuda;

static CU: Cuda = Cuda::new();

pub fn main() {
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
