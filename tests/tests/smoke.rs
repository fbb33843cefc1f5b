use cuda_driver_table::{driver_table, sys};

#[driver_table(cuInit, cuDeviceGet, cuCtxCreate = 3020, cuMemAlloc, cuLaunchKernel, driver = newest)]
/// A table.
#[derive(Debug)]
pub struct Cuda;

static CU: Cuda = Cuda::new();

#[test]
fn smoke() {
    let _: sys::PFN_cuMemAlloc_v3020 = CU.pfn_cuMemAlloc().ok();
    assert_eq!(Cuda::FUNCTIONS.len(), 5);
    eprintln!("{:?}", Cuda::FUNCTIONS[2]);
}
