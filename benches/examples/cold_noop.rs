//! Cold start baseline: a Rust process that does no CUDA work: its first call returns `0` at
//! once, so that the start-up of a Rust program can be told apart from the cost of loading the
//! driver. Prints what [`cold_start`] prints, for `benches/c/spawn_timer.c`.

use std::process::ExitCode;

use cuda_driver_table_benches::cold_start;

fn main() -> ExitCode {
    cold_start("cold_noop", || Ok(0))
}
