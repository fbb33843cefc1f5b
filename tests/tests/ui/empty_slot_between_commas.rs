use cuda_driver_table::driver_table;

#[driver_table(cuInit,, cuMemAlloc)]
pub struct Cuda;

fn main() {}
