use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = 12.4)]
pub struct Cuda;

fn main() {}
