use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuCtxCreate = "v3")]
pub struct Cuda;

fn main() {}
