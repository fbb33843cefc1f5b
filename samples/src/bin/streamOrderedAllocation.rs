//! `streamOrderedAllocation` on device 0 (the sample:
//! `cuda_driver_table_samples::stream_ordered_allocation`), with a per-thread default stream.
//!
//! `cargo run -p cuda-driver-table-samples --bin streamOrderedAllocation [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::stream_ordered_allocation::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("streamOrderedAllocation", |args| {
        run(&Cuda::with_config(args.per_thread_config()))
    })
}
