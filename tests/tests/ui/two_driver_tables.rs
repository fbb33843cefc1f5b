use cuda_driver_table::driver_table;

#[driver_table(cuInit)]
#[driver_table(cuMemAlloc)]
pub struct Cuda;

fn main() {}
