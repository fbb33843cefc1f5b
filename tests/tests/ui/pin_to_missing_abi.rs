use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuCtxCreate = 3000, driver = newest)]
pub struct Cuda;

fn main() {}
