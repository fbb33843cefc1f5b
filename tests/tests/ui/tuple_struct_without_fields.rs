use cuda_driver_table::driver_table;

#[driver_table(cuInit)]
pub struct Cuda();

fn main() {}
