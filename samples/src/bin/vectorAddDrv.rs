//! `vectorAddDrv` on device 0 (the sample: `cuda_driver_table_samples::vector_add_drv`).
//!
//! `cargo run -p cuda-driver-table-samples --bin vectorAddDrv [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::vector_add_drv::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("vectorAddDrv", |args| {
        run(&Cuda::with_config(args.config()))
    })
}
