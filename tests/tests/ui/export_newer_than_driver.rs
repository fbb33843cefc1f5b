use cuda_driver_table::driver_table;

// `cuCtxCreate_v4` is ABI 12050.
#[driver_table(cuInit, cuCtxCreate_v4, driver = 12000)]
pub struct Cuda;

fn main() {}
