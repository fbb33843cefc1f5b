use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuCtxCreate = 3020.0)]
pub struct Cuda;

fn main() {}
