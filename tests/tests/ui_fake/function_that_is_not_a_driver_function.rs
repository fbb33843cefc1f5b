// `function!` names a driver function of the table, not another of its methods.
use cuda_driver_table::driver_table;
use cuda_driver_table::fake::function;

#[driver_table(cuInit, driver = newest)]
struct Cuda;

fn main() {
    let _ = function!(Cuda::resolve_all);
}
