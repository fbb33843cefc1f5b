use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuCtxCreate = 12050, driver = 12000)]
pub struct Cuda;

fn main() {}
