use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuCtxCreate = 3020u8)]
pub struct Cuda;

fn main() {}
