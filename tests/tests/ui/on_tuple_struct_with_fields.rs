use cuda_driver_table::driver_table;

#[driver_table(cuInit)]
pub struct Cuda(u32);

fn main() {}
