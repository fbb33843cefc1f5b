// A fake returns its function's result, a `CUresult`.
use cuda_driver_table::driver_table;
use cuda_driver_table::fake::{function, Fake};

#[driver_table(cuInit, driver = newest)]
struct Cuda;

fn main() {
    let _ = Fake::new().on(function!(Cuda::cuInit), |(_flags,)| {});
}
