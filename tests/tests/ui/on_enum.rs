use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver = newest)]
pub enum Cuda {
    Runtime,
}

fn main() {}
