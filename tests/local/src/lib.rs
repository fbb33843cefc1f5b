//! A four-function table over the bindings of the local toolkit (`cuda-local`).

use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuDeviceGet, cuCtxCreate = 3020, cuMemAlloc)]
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
