use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
#[driver_table(cuMemAlloc, driver = newest)]
pub struct Cuda;

fn main() {}
