use cuda_driver_table::driver_table;

#[driver_table(cuInit)]
pub struct Cuda {
    device: i32,
}

fn main() {}
