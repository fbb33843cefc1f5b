// A path that is not cuda-driver-table: one error, at the path.
use cuda_driver_table::driver_table;

#[driver_table(all, crate = std, driver = newest)]
pub struct Cuda;

fn main() {}
