use cuda_driver_table::driver_table;

// `backend` chooses between two backends, so it needs a value.
#[driver_table(cuInit, backend, driver = newest)]
pub struct Cuda;

fn main() {}
