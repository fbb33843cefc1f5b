use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
pub struct Cuda {
    device: i32,
}

fn main() {}
