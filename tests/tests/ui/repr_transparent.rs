use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
#[repr(transparent)]
pub struct Cuda;

fn main() {}
