use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
#[derive(Clone, Copy, PartialEq)]
pub struct Cuda;

fn main() {}
