use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuCtxCreate = "v3", driver = newest)]
pub struct Cuda;

fn main() {}
