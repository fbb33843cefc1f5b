use cuda_driver_table::driver_table;

#[driver_table(cuInit)]
pub enum Cuda {
    Runtime,
}

fn main() {}
