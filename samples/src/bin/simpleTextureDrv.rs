//! `simpleTextureDrv` on device 0 (the sample: `cuda_driver_table_samples::simple_texture_drv`).
//!
//! `cargo run -p cuda-driver-table-samples --bin simpleTextureDrv [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::simple_texture_drv::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("simpleTextureDrv", |args| {
        run(&Cuda::with_config(args.config()))
    })
}
