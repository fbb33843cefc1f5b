use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuCtxCreate = 3020.0, driver = newest)]
pub struct Cuda;

fn main() {}
