//! A four-function table over the bindings of the local toolkit (`cuda-local`).

use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuDeviceGet, cuCtxCreate = 3020, cuMemAlloc, driver = newest)]
/// A table.
#[derive(Debug)]
pub struct Cuda;

#[cfg(test)]
mod tests {
    use super::*;
    use cuda_driver_table::sys;

    /// The release the build script read from `CUDA_VERSION`, as `CUDA_DRIVER_TABLE_EXPECT` says
    /// (scripts/test.sh: 13000, the wheel it points at).
    #[test]
    fn the_bindings_and_manifest_are_the_local_toolkits() {
        if let Some(expected) = option_env!("CUDA_DRIVER_TABLE_EXPECT") {
            assert_eq!(sys::RELEASE.to_string(), expected);
        }
        let _: sys::PFN_cuMemAlloc_v3020 = Cuda::new().pfn_cuMemAlloc().ok();
        let _: sys::PFN_cuCtxCreate_v3020 = Cuda::new().pfn_cuCtxCreate().ok();
        assert_eq!(Cuda::FUNCTIONS.len(), 4);
        assert_eq!(sys::CUresult::CUDA_SUCCESS.0, 0);
    }
}

/// On a GPU: the table over the local toolkit's bindings calls the driver.
#[cfg(all(test, feature = "gpu"))]
mod gpu {
    use super::Cuda;
    use cuda_driver_table::{sys, Config};

    #[test]
    fn a_local_table_calls_the_driver() {
        for config in [Config::driver(), Config::runtime()] {
            let cu = Cuda::with_config(config);
            let mut dev: sys::CUdevice = 0;
            let mut ctx: sys::CUcontext = std::ptr::null_mut();
            let mut p: sys::CUdeviceptr = 0;
            // SAFETY: valid out-parameters; the context is made current on this thread and the
            // allocation is left to the process's end.
            unsafe {
                cu.cuInit(0).unwrap();
                cu.cuDeviceGet(&mut dev, 0).unwrap();
                cu.cuCtxCreate(&mut ctx, 0, dev).unwrap();
                cu.cuMemAlloc(&mut p, 1 << 20).unwrap();
            }
            assert_ne!(p, 0);
            eprintln!(
                "CUDA {} bindings from the local headers: {:?}, cuMemAlloc gave {p:#x}",
                sys::RELEASE,
                cu.config().resolver().map(|r| r.describe())
            );
        }
    }
}
