// A table says the oldest driver it must work on where it is declared: without `driver`, the
// error names both spellings and what the newest ABIs would need.
use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuCtxCreate, cuMemAlloc)]
pub struct Cuda;

fn main() {}
