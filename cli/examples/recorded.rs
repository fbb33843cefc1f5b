//! A program for the tool's tests: three tables and a PTX module, which it describes itself when
//! run (each table's `MIN_DRIVER_VERSION`, the CUDA release of its bindings, the PTX's `.version`,
//! and what `tables()` lists), for `inspect` to be compared with. It needs no GPU and calls nothing.

use cuda_driver_table::driver_table;

/// Its newest ABI of `cuCtxCreate` (12.5 in the 13.0 headers) sets this table's floor.
#[driver_table(cuInit, cuDriverGetVersion, cuCtxCreate, backend = driver, driver = newest)]
struct Driver;

#[driver_table(cuLaunchKernel, cuMemcpyHtoD, per_thread, driver = newest)]
struct PerThread;

#[driver_table(cuInit, cuMemAlloc = 3020, backend = runtime, driver = newest)]
struct Runtime;

/// PTX of ISA 8.4, which a CUDA 12.4 driver loads.
static PTX: &str = "// hand-written\n.version 8.4\n.target sm_80\n.address_size 64\n\0";

// The tables, as a program holds them: a PE file written by the GNU linker keeps the records of
// the tables the program creates (see `cuda_driver_table::registry`).
static DRIVER: Driver = Driver::new();
static PER_THREAD: PerThread = PerThread::new();
static RUNTIME: Runtime = Runtime::new();

fn main() {
    // Nothing is resolved or called: the tables are only held.
    std::hint::black_box((&DRIVER, &PER_THREAD, &RUNTIME));
    println!("table Driver {}", Driver::MIN_DRIVER_VERSION);
    println!("table PerThread {}", PerThread::MIN_DRIVER_VERSION);
    println!("table Runtime {}", Runtime::MIN_DRIVER_VERSION);
    println!("release {}", cuda_driver_table::sys::RELEASE);
    let version = PTX.lines().find_map(|l| l.strip_prefix(".version "));
    println!("ptx {}", version.unwrap_or("?"));
    for t in cuda_driver_table::tables() {
        println!("recorded {} {}", t.name, t.min_driver_version);
    }
}
