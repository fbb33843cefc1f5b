// A fake takes exactly its function's arguments, at the table's pin: cuMemAlloc (ABI 3020) takes
// a 64-bit device pointer's place and a `usize`, not the `c_uint` size of ABI 2000.
use cuda_driver_table::driver_table;
use cuda_driver_table::fake::{function, Fake};
use cuda_driver_table::sys::{CUdeviceptr, CUresult};

#[driver_table(cuMemAlloc, driver = newest)]
struct Cuda;

fn main() {
    let _ = Fake::new().on(
        function!(Cuda::cuMemAlloc),
        |(_dptr, _bytesize): (*mut CUdeviceptr, u32)| CUresult::CUDA_SUCCESS,
    );
}
