//! `simpleP2P` on the first pair of GPUs with peer access (the sample:
//! `cuda_driver_table_samples::simple_p2p`), with a per-thread default stream.
//!
//! `cargo run -p cuda-driver-table-samples --bin simpleP2P [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::simple_p2p::{run, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("simpleP2P", |args| {
        run(&Cuda::with_config(args.per_thread_config()))
    })
}
