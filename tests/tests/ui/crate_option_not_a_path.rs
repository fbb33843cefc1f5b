use cuda_driver_table::driver_table;

#[driver_table(cuInit, crate = 42)]
pub struct Number;

// The package name is not a path: paths spell it with underscores.
#[driver_table(cuInit, crate = "cuda-driver-table")]
pub struct PackageName;

fn main() {}
