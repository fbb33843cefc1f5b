use cuda_driver_table::driver_table;

#[driver_table(cuInit, backend = gpu)]
pub struct Cuda;

fn main() {}
