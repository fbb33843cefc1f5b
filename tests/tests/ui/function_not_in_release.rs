// `cuGraphGetId` first appears in the CUDA 13.1 headers; the tests crate selects `cuda-13000`.
use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuGraphGetId, driver = newest)]
pub struct Cuda;

fn main() {}
