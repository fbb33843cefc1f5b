use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
pub fn cuda() {}

fn main() {}
