// Two bad names and one good one: both bad names are reported, and the table still has the good
// function, so the code below that uses it type-checks (it adds no error of its own).
use cuda_driver_table::{driver_table, sys, Error};

#[driver_table(cuMemAloc, cuInit, cuDeviceGett, driver = newest)]
pub struct Cuda;

static CU: Cuda = Cuda::new();

fn init() -> Result<(), Error> {
    // SAFETY: `cuInit(0)` has no pointer arguments.
    unsafe { CU.cuInit(0) }
}

fn main() {
    let _: sys::PFN_cuInit_v2000 = CU.pfn_cuInit().ok();
    let _ = init();
}
