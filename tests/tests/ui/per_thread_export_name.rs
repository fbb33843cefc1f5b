use cuda_driver_table::driver_table;

// A `_ptsz`/`_ptds` symbol names a per-thread ABI: a table without `per_thread` cannot take it.
#[driver_table(cuLaunchKernel_ptsz, cuMemcpy_ptds, driver = newest)]
pub struct Cuda;

fn main() {}
