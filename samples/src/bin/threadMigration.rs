//! `threadMigration` on every GPU (the sample: `cuda_driver_table_samples::thread_migration`).
//!
//! `cargo run -p cuda-driver-table-samples --bin threadMigration [-- --driver] [--numthreads=N]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::thread_migration::{run, threads_per_device, Cuda};
use std::process::ExitCode;

fn main() -> ExitCode {
    cuda_driver_table_samples::main("threadMigration", |args| {
        run(&Cuda::with_config(args.config()), threads_per_device(args)?)
    })
}
