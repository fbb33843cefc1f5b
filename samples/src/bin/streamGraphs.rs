//! `streamGraphs` on device 0 (the sample: `cuda_driver_table_samples::stream_graphs`), with a
//! per-thread default stream.
//!
//! `cargo run -p cuda-driver-table-samples --bin streamGraphs [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::stream_graphs::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("streamGraphs", |args| {
        run(&Cuda::with_config(args.per_thread_config()))
    })
}
