use cuda_driver_table::driver_table;

#[driver_table(cuInit, backend = gpu, driver = newest)]
pub struct Cuda;

fn main() {}
