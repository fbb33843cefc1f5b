//! The baseline of the build-cost measurement (row 4 of `BENCHMARKS.md`): the same four calls as
//! `build_cost_table.rs` through `cudarc::driver::sys`. `bench-build` copies this file as
//! `src/main.rs` of a throw-away project that depends on cudarc exactly as this crate does; it is
//! an example here only so that the workspace build checks it. It is also the `cuda` module of the
//! typical application with cudarc (`build_cost_typical.rs`).

use cudarc::driver::sys;

pub fn main() {
    let mut dev: sys::CUdevice = 0;
    let mut p: sys::CUdeviceptr = 0;
    // SAFETY: valid out-parameters; the pointer is freed once.
    let r = unsafe {
        let mut r = sys::cuInit(0);
        if r == sys::CUresult::CUDA_SUCCESS {
            r = sys::cuDeviceGet(&mut dev, 0);
        }
        if r == sys::CUresult::CUDA_SUCCESS {
            r = sys::cuMemAlloc_v2(&mut p, 1 << 20);
        }
        if r == sys::CUresult::CUDA_SUCCESS {
            r = sys::cuMemFree_v2(p);
        }
        r
    };
    if r == sys::CUresult::CUDA_SUCCESS {
        println!("ok")
    } else {
        eprintln!("{r:?}")
    }
}
