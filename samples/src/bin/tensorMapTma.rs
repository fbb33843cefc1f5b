//! `tensorMapTma` on device 0 (the sample: `cuda_driver_table_samples::tensor_map_tma`).
//!
//! `cargo run -p cuda-driver-table-samples --bin tensorMapTma [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::tensor_map_tma::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("tensorMapTma", |args| {
        run(&Cuda::with_config(args.config()))
    })
}
