use cuda_driver_table::driver_table;

// A typo for 12.3, and a number that `cuDriverGetVersion` never returns.
#[driver_table(cuInit, driver = 12345)]
pub struct Cuda;

#[driver_table(cuInit, driver = 4294967295)]
pub struct Cuda2;

fn main() {}
