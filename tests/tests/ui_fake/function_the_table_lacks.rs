// `function!` names a method of the table: a function the table does not list is an error at
// its name.
use cuda_driver_table::driver_table;
use cuda_driver_table::fake::{function, Fake};
use cuda_driver_table::sys::CUresult;

#[driver_table(cuInit, cuMemAlloc, driver = newest)]
struct Cuda;

fn main() {
    let _ = Fake::new().returns(function!(Cuda::cuMemFree), CUresult::CUDA_SUCCESS);
}
