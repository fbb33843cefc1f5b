use cuda_driver_table::driver_table;

#[driver_table(cuInit)]
pub fn cuda() {}

fn main() {}
