use cuda_driver_table::driver_table;

// Each part is reported once, without a second error saying the list names no function.
#[driver_table(cuInit(), "cuMemAlloc", driver = newest)]
pub struct Cuda;

fn main() {}
