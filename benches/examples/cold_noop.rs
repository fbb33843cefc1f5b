//! Cold start baseline: a Rust process that does no CUDA work. It only prints `0` and
//! `CLOCK_MONOTONIC` in ns twice (main entered; "after the call", the same moment here), so that
//! the start-up of a Rust program can be told apart from the cost of loading the driver.

fn main() {
    let t = cuda_driver_table_benches::monotonic_ns();
    println!("0 {t} {t}");
}
