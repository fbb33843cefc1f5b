//! `cargo bench-build`: the CPU benchmarks of `BENCHMARKS.md` and their guards, on the build
//! machine. The measurements live in the library (`src/build/`); `--help` lists them.

fn main() -> std::process::ExitCode {
    cuda_driver_table_benches::build::main()
}
