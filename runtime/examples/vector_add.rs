//! Adds two vectors on the GPU through a `#[driver_table]`: initialise the driver, allocate, copy,
//! load a kernel from PTX text, launch it, copy back and check every element.
//!
//! `cargo run --example vector_add [-- --driver]` (the default configuration: libcudart, or
//! libcuda.so.1 where no libcudart is installed; `--driver` uses libcuda.so.1 directly). Without
//! an NVIDIA driver it says what it looked for and exits with 1.
//!
//! `cargo run --example vector_add --features tracing -- --trace` prints every driver call the
//! program makes (arguments, result, time) and every resolution, through a `tracing` subscriber.

use cuda_driver_table::{driver_table, kernel_args, sys, Config, Error, ErrorKind};
use std::ffi::{c_char, CStr};
use std::process::ExitCode;
use std::time::Instant;

#[driver_table(
    cuInit,
    cuDriverGetVersion,
    cuDeviceGet,
    cuDeviceGetName,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuLaunchKernel,
    cuStreamSynchronize,
    // Every function at the newest ABI a CUDA 12.0 driver has: runs on any CUDA 12 or 13 driver.
    driver = 12000
)]
struct Cuda;

/// `c[i] = a[i] + b[i]` for `i < n`.
const PTX: &str = r#"
.version 7.0
.target sm_52
.address_size 64
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u32 %r2, [n];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r1, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r1, %r2;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
"#;

const N: usize = 1 << 24;

fn run(cu: &Cuda) -> Result<(), Error> {
    let start = Instant::now();
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| (2 * i) as f32 + 0.5).collect();
    let mut c = vec![0f32; N];
    let bytes = N * size_of::<f32>();
    let (mut version, mut name) = (0, [0 as c_char; 128]);
    // SAFETY: every pointer passed is valid for the size given; the device memory, module and
    // context are used only between their creation and release on this thread; the kernel
    // parameters match the PTX entry's signature (three u64 pointers and a u32).
    unsafe {
        cu.cuInit(0)?;
        cu.cuDriverGetVersion(&mut version)?;
        let mut dev = 0;
        cu.cuDeviceGet(&mut dev, 0)?;
        cu.cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev)?;
        let mut ctx: sys::CUcontext = std::ptr::null_mut();
        cu.cuDevicePrimaryCtxRetain(&mut ctx, dev)?;
        cu.cuCtxSetCurrent(ctx)?;
        let (mut da, mut db, mut dc) = (0, 0, 0);
        cu.cuMemAlloc(&mut da, bytes)?;
        cu.cuMemAlloc(&mut db, bytes)?;
        cu.cuMemAlloc(&mut dc, bytes)?;
        cu.cuMemcpyHtoD(da, a.as_ptr().cast(), bytes)?;
        cu.cuMemcpyHtoD(db, b.as_ptr().cast(), bytes)?;
        let ptx = std::ffi::CString::new(PTX).expect("the PTX text has no NUL byte");
        let mut module: sys::CUmodule = std::ptr::null_mut();
        cu.cuModuleLoadData(&mut module, ptx.as_ptr().cast())?;
        let mut func: sys::CUfunction = std::ptr::null_mut();
        cu.cuModuleGetFunction(&mut func, module, c"vadd".as_ptr())?;
        let n = N as u32;
        let threads = 256;
        let blocks = N.div_ceil(threads) as u32;
        cu.cuLaunchKernel(
            func,
            blocks,
            1,
            1,
            threads as u32,
            1,
            1,
            0,
            std::ptr::null_mut(),
            // `vadd(a, b, c, n)`: the array lives until the launch has read it.
            kernel_args![&da, &db, &dc, &n].as_mut_ptr(),
            std::ptr::null_mut(),
        )?;
        cu.cuStreamSynchronize(std::ptr::null_mut())?;
        cu.cuMemcpyDtoH(c.as_mut_ptr().cast(), dc, bytes)?;
        for p in [da, db, dc] {
            cu.cuMemFree(p)?;
        }
        cu.cuModuleUnload(module)?;
        cu.cuDevicePrimaryCtxRelease(dev)?;
    }
    let wrong = (0..N).filter(|&i| c[i] != a[i] + b[i]).count();
    // SAFETY: cuDeviceGetName wrote a NUL-terminated name into the buffer.
    let name = unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy();
    let library = cu.config().resolver()?.describe();
    println!(
        "driver:   CUDA {} ({version})",
        cuda_driver_table::CudaVersion(version as u32),
    );
    println!("device:   {name}");
    println!("backend:  {library}");
    println!(
        "checked:  {N} elements, {} wrong, in {:.1} ms (start to finish)",
        wrong,
        start.elapsed().as_secs_f64() * 1e3
    );
    if wrong == 0 {
        Ok(())
    } else {
        eprintln!("vector_add: {wrong} of {N} elements are wrong");
        std::process::exit(2)
    }
}

/// `--trace`: a subscriber that prints the crate's events to standard error.
fn trace(on: bool) -> Result<(), &'static str> {
    if !on {
        return Ok(());
    }
    #[cfg(feature = "tracing")]
    {
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .without_time()
            .init();
        Ok(())
    }
    #[cfg(not(feature = "tracing"))]
    Err("--trace needs the tracing feature: cargo run --example vector_add --features tracing -- --trace")
}

fn main() -> ExitCode {
    if let Err(e) = trace(std::env::args().any(|a| a == "--trace")) {
        eprintln!("vector_add: {e}");
        return ExitCode::from(2);
    }
    // The default configuration: libcudart, or libcuda where no libcudart is installed.
    let config = if std::env::args().any(|a| a == "--driver") {
        Config::driver()
    } else {
        Config::new()
    };
    let cu = Cuda::with_config(config);
    match run(&cu) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // What was looked for, on one line per library.
            let looked_for = |e: &Error| match e.kind() {
                ErrorKind::LibraryNotFound { library, tried, .. } => {
                    let paths: Vec<&str> = tried.iter().map(|(p, _)| p.as_str()).collect();
                    Some(format!(
                        "could not load {}; looked for {}",
                        library.title,
                        paths.join(", ")
                    ))
                }
                _ => None,
            };
            let install = "vector_add: install the NVIDIA driver (and a CUDA runtime), or set CUDA_DRIVER_TABLE_CUDART / CUDA_DRIVER_TABLE_LIBCUDA";
            match e.kind() {
                ErrorKind::NoCudaLibrary { runtime, driver } => {
                    let runtime = looked_for(runtime).unwrap_or_else(|| runtime.to_string());
                    let driver = looked_for(driver).unwrap_or_else(|| driver.to_string());
                    eprintln!("vector_add: {runtime}; then {driver}");
                    eprintln!("{install}");
                }
                _ => match looked_for(&e) {
                    Some(line) => {
                        eprintln!("vector_add: {line}");
                        eprintln!("{install}");
                    }
                    None => eprintln!("vector_add: {e}"),
                },
            }
            ExitCode::FAILURE
        }
    }
}
