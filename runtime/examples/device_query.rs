//! Lists every CUDA device with its name, compute capability and memory, and the driver version,
//! and says which backend and library the table used.
//!
//! `cargo run --example device_query [-- --driver]` (the default configuration: libcudart, or
//! libcuda.so.1 where no libcudart is installed; `--driver` uses libcuda.so.1 directly).

use cuda_driver_table::{driver_table, sys, Config, Error};
use std::ffi::{c_char, CStr};
use std::process::ExitCode;

#[driver_table(
    cuInit,
    cuDriverGetVersion,
    cuDeviceGetCount,
    cuDeviceGet,
    cuDeviceGetName,
    cuDeviceGetAttribute,
    cuDeviceTotalMem,
    driver = 12000
)]
struct Cuda;

fn run(cu: &Cuda) -> Result<(), Error> {
    let (mut version, mut count) = (0, 0);
    // SAFETY: the out-pointers are valid places for the values.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDriverGetVersion(&mut version)?;
        cu.cuDeviceGetCount(&mut count)?;
    }
    println!(
        "driver:  CUDA {} ({version})",
        cuda_driver_table::CudaVersion(version as u32),
    );
    println!("backend: {}", cu.config().resolver()?.describe());
    println!("devices: {count}");
    for ordinal in 0..count {
        let (mut dev, mut name, mut major, mut minor, mut bytes) = (0, [0 as c_char; 256], 0, 0, 0);
        // SAFETY: the out-pointers are valid; the name buffer's length is passed.
        unsafe {
            cu.cuDeviceGet(&mut dev, ordinal)?;
            cu.cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev)?;
            let cc = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
            cu.cuDeviceGetAttribute(&mut major, cc, dev)?;
            let cc = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
            cu.cuDeviceGetAttribute(&mut minor, cc, dev)?;
            cu.cuDeviceTotalMem(&mut bytes, dev)?;
        }
        // SAFETY: cuDeviceGetName wrote a NUL-terminated name.
        let name = unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy();
        println!(
            "  {ordinal}: {name}, compute capability {major}.{minor}, {:.1} GiB",
            bytes as f64 / (1u64 << 30) as f64
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let config = if std::env::args().any(|a| a == "--driver") {
        Config::driver()
    } else {
        Config::new()
    };
    match run(&Cuda::with_config(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("device_query: {e}");
            ExitCode::FAILURE
        }
    }
}
