use cuda_driver_table::driver_table;

#[driver_table(cuInit)]
#[repr(transparent)]
pub struct Cuda;

fn main() {}
