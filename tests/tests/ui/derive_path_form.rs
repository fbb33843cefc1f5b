// A derive written as a path is still a derive.
use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
#[::core::prelude::v1::derive(Debug, Clone)]
pub struct Cuda;

fn main() {
    let _ = format!("{:?}", Cuda::new());
}
