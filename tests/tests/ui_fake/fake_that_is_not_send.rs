// A fake may be called from any thread: it is `Send + Sync`, so its state is atomics or a
// `Mutex`, not a `Cell`.
use std::cell::Cell;
use std::rc::Rc;

use cuda_driver_table::driver_table;
use cuda_driver_table::fake::{function, Fake};
use cuda_driver_table::sys::CUresult;

#[driver_table(cuInit, driver = newest)]
struct Cuda;

fn main() {
    let calls = Rc::new(Cell::new(0));
    let _ = Fake::new().on(function!(Cuda::cuInit), move |_| {
        calls.set(calls.get() + 1);
        CUresult::CUDA_SUCCESS
    });
}
