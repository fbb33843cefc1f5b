use cuda_driver_table::driver_table;

#[driver_table(cuInit)]
#[derive(Clone, Copy, PartialEq)]
pub struct Cuda;

fn main() {}
