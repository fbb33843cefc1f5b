use cuda_driver_table::driver_table;

#[driver_table(cuInit)]
#[repr(C, packed)]
pub struct Cuda;

fn main() {}
