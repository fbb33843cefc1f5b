//! `clusterLaunch` on device 0 (the sample: `cuda_driver_table_samples::cluster_launch`).
//!
//! `cargo run -p cuda-driver-table-samples --bin clusterLaunch [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::cluster_launch::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("clusterLaunch", |args| {
        run(&Cuda::with_config(args.config()))
    })
}
