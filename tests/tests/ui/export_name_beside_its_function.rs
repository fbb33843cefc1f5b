use cuda_driver_table::driver_table;

// `cuMemAlloc_v2` is `cuMemAlloc`: a table has one ABI of each function.
#[driver_table(cuMemAlloc, cuMemAlloc_v2, driver = newest)]
pub struct Cuda;

fn main() {}
