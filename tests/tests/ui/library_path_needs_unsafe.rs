// Naming the library to load is `unsafe`: the library's initialisers run and its exports are
// called through CUDA's signatures, so safe code must not be able to pick any library at all.
use cuda_driver_table::{driver_table, Config};

#[driver_table(cuInit, driver = newest)]
struct Cuda;

// In a `const` (as a static table's configuration is built).
const PINNED: Config = Config::runtime().library("/opt/cuda/lib64/libcudart.so.12");

fn main() {
    // At run time.
    let path = std::env::args().nth(1).unwrap_or_default();
    let cuda = Cuda::with_config(Config::runtime().library_owned(path));
    let _ = (cuda.pfn_cuInit(), PINNED);
}
