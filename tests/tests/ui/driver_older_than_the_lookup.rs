use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = 11000)]
pub struct Cuda;

fn main() {}
