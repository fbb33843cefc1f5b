use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
#[repr(C, packed)]
pub struct Cuda;

fn main() {}
