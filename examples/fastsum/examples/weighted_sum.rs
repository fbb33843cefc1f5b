//! `fastsum` on a real GPU: the weighted sum of 2^20 elements on device 0, through the driver
//! backend (libcuda.so.1), against the CPU's. The values are halves and small integers, so the sum
//! is exact in `f32` in any order of the kernel's atomic additions.
//!
//! `cargo run --release -p fastsum --example weighted_sum`; without a driver it says what it
//! looked for and exits with 1.

use std::process::ExitCode;

use cuda_driver_table::Config;
use fastsum::{Cuda, Fastsum};

/// The program's table: a `static`, handed to the library as `&Cuda` (its tests hand it one
/// configured with the fake device instead).
static CUDA: Cuda = Cuda::with_config(Config::driver());

fn main() -> ExitCode {
    let n = 1 << 20;
    let values: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
    let weights: Vec<f32> = (0..n).map(|i| (i % 3) as f32).collect();
    let expected: f32 = values.iter().zip(&weights).map(|(v, w)| v * w).sum();
    let sum = Fastsum::new(&CUDA, 0).and_then(|f| f.weighted_sum(&values, &weights));
    match sum {
        Ok(sum) if sum == expected => {
            println!("weighted sum of {n} elements on the GPU: {sum} (the CPU's: {expected})");
            ExitCode::SUCCESS
        }
        Ok(sum) => {
            eprintln!(
                "weighted sum of {n} elements on the GPU: {sum}, but the CPU's is {expected}"
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("fastsum: {e}");
            ExitCode::FAILURE
        }
    }
}
