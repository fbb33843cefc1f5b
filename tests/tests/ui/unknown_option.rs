use cuda_driver_table::driver_table;

#[driver_table(cuInit, per_thred, driver = newest)]
pub struct Cuda;

fn main() {}
