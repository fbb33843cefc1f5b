use cuda_driver_table::driver_table;

// `cuCtxCreate_v2` is ABI 3020 already.
#[driver_table(cuInit, cuCtxCreate_v2 = 11040, driver = newest)]
pub struct Cuda;

fn main() {}
