use cuda_driver_table::driver_table;

// `cuLibraryLoadData` came with CUDA 12.0: a table for 11.8 drivers cannot have it.
#[driver_table(cuInit, cuLibraryLoadData, driver = 11080)]
pub struct Cuda;

fn main() {}
