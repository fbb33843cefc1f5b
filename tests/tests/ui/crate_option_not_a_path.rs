use cuda_driver_table::driver_table;

#[driver_table(cuInit, crate = 42, driver = newest)]
pub struct Number;

// The package name is not a path: paths spell it with underscores.
#[driver_table(cuInit, crate = "cuda-driver-table", driver = newest)]
pub struct PackageName;

fn main() {}
