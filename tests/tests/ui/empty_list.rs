use cuda_driver_table::driver_table;

#[driver_table(driver = newest)]
pub struct Cuda;

fn main() {}
