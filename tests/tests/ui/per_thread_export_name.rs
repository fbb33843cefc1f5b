use cuda_driver_table::driver_table;

// The `_ptsz`/`_ptds` exports are not functions of their own: the `per_thread` option selects them.
#[driver_table(cuLaunchKernel_ptsz, cuMemcpy_ptds)]
pub struct Cuda;

fn main() {}
