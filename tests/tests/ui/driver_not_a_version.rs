use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = "12")]
pub struct Cuda;

#[driver_table(cuInit, driver = latest)]
pub struct Cuda2;

fn main() {}
