use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
#[derive(Debug, Default)]
pub struct Cuda;

fn main() {
    // `Default` still works: the table implements it.
    let _ = Cuda::default();
}
