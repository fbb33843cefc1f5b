use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuMemAloc)]
pub struct Cuda;

fn main() {}
