use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = "999.99")]
pub struct Cuda;

fn main() {}
