//! `matrixMulDrv` on device 0 (the sample: `cuda_driver_table_samples::matrix_mul_drv`).
//!
//! `cargo run -p cuda-driver-table-samples --bin matrixMulDrv [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::matrix_mul_drv::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("matrixMulDrv", |args| {
        run(&Cuda::with_config(args.config()))
    })
}
