use cuda_driver_table::driver_table;

// `cuCtxCreate` has no `_v9`; `cuMemAloc_v2` misspells `cuMemAlloc_v2`.
#[driver_table(cuCtxCreate_v9, cuMemAloc_v2, driver = newest)]
pub struct Cuda;

fn main() {}
