//! `vectorAddMMAP` on device 0 (the sample: `cuda_driver_table_samples::vector_add_mmap`).
//!
//! `cargo run -p cuda-driver-table-samples --bin vectorAddMMAP [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::vector_add_mmap::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("vectorAddMMAP", |args| {
        run(&Cuda::with_config(args.config()))
    })
}
