//! `ptxjit` on device 0 (the sample: `cuda_driver_table_samples::ptxjit`).
//!
//! `cargo run -p cuda-driver-table-samples --bin ptxjit [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::ptxjit::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("ptxjit", |args| run(&Cuda::with_config(args.config())))
}
