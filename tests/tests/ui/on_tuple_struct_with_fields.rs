use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
pub struct Cuda(u32);

fn main() {}
