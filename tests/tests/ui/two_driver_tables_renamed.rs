// The second attribute is imported under another name: the first expansion cannot tell it is a
// table too, so the second sees the table the first made.
use cuda_driver_table::driver_table;
use cuda_driver_table::driver_table as table;

#[driver_table(cuInit, driver = newest)]
#[table(cuMemAlloc)]
pub struct Cuda;

fn main() {
    // The first table is there, as written.
    let _ = Cuda::new().pfn_cuInit();
}
