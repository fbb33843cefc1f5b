use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = 99000)]
pub struct Cuda;

fn main() {}
