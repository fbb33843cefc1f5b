use cuda_driver_table::driver_table;

#[driver_table()]
pub struct Cuda;

fn main() {}
