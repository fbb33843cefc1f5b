// A path to a module with a `sys` of its own, not to cuda-driver-table: an error at the path,
// never a table whose types come from that `sys`.
use cuda_driver_table::driver_table;

mod not_the_runtime {
    #[allow(non_camel_case_types)]
    pub mod sys {
        pub use cuda_driver_table::sys::*;
        pub type PFN_cuMemAlloc_v3020 = Option<unsafe extern "C" fn(*mut u8, usize) -> CUresult>;
    }
}

#[driver_table(cuMemAlloc, crate = crate::not_the_runtime, driver = newest)]
pub struct Cuda;

fn main() {}
