//! Adds two vectors on the GPU through a `#[driver_table]`: initialise the driver, allocate, copy,
//! load a kernel from PTX text, launch it, copy back and check every element.
//!
//! `cargo run --example vector_add [-- --driver]` (the default configuration: libcudart, or
//! libcuda.so.1 where no libcudart is installed; `--driver` uses libcuda.so.1 directly). Without
//! an NVIDIA driver it says what it looked for and exits with 1.
//!
//! `cargo run --example vector_add --features tracing -- --trace` prints every driver call the
//! program makes (arguments, result, time) and every resolution, through a `tracing` subscriber.
//!
//! The work is a function over `&Cuda`, so that a test can hand it a table configured with the
//! fake device instead of the driver (`cargo test -p cuda-driver-table --features fake --example
//! vector_add`). What it creates is owned by `scopeguard` guards, which release it on every path,
//! errors included, in the reverse order of creation: the buffers and the module before the
//! context they live in.

use cuda_driver_table::{
    driver_table, kernel_args, sys, Config, CudaLibrary, CudaVersion, Error, ErrorKind, Origin,
};
use scopeguard::{guard, ScopeGuard};
use std::ffi::{c_char, CStr};
use std::process::ExitCode;
use std::ptr::null_mut;
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

/// The kernel `vadd(a, b, c, n)`: `c[i] = a[i] + b[i]` for `i < n`, NUL-terminated as
/// `cuModuleLoadData` takes it (the GPU tests load the same file).
const PTX: &str = concat!(include_str!("vector_add.ptx"), "\0");

/// The elements added by a run of the example.
const N: usize = 1 << 24;
/// Threads per block of the launch.
const THREADS: usize = 256;

const USAGE: &str = "\
usage: vector_add [--driver] [--trace]

Adds two vectors of 2^24 floats on GPU 0 and checks every sum.

  --driver  load libcuda.so.1 (the NVIDIA driver) directly; by default libcudart is used,
            or libcuda.so.1 where no CUDA runtime is installed
  --trace   print every driver call (needs --features tracing)
  --help    print this and exit
";

/// What a run found.
struct Report {
    /// `cuDriverGetVersion`.
    driver: i32,
    /// Device 0's name.
    device: String,
    /// The elements added.
    n: usize,
    /// How many of the sums the device wrote are not the CPU's.
    wrong: usize,
}

/// Device `ordinal`'s primary context, retained and made current on this thread (the driver
/// initialised first). The guard dereferences to the device and releases the context when it is
/// dropped. (The guide's "Owning driver objects" has this function and `alloc`.)
fn primary_context(
    cu: &Cuda,
    ordinal: i32,
) -> Result<ScopeGuard<sys::CUdevice, impl FnOnce(sys::CUdevice) + '_>, Error> {
    let (mut device, mut context) = (0, null_mut());
    // SAFETY: each out-pointer is a valid place for what the driver writes.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDeviceGet(&mut device, ordinal)?;
        cu.cuDevicePrimaryCtxRetain(&mut context, device)?;
    }
    let retained = guard(device, move |device| {
        // SAFETY: retained once above, released once here.
        let _ = unsafe { cu.cuDevicePrimaryCtxRelease(device) };
    });
    // SAFETY: the context was retained above and lives while the guard does.
    unsafe { cu.cuCtxSetCurrent(context)? };
    Ok(retained)
}

/// `bytes` of device memory in the current context. The guard dereferences to the device
/// pointer and frees it when it is dropped.
fn alloc(
    cu: &Cuda,
    bytes: usize,
) -> Result<ScopeGuard<sys::CUdeviceptr, impl FnOnce(sys::CUdeviceptr) + '_>, Error> {
    let mut dptr = 0;
    // SAFETY: `dptr` is a valid place for the device pointer (with no current context the call
    // fails, writing nothing).
    unsafe { cu.cuMemAlloc(&mut dptr, bytes)? };
    Ok(guard(dptr, move |dptr| {
        // SAFETY: `dptr` came from `cuMemAlloc` and is freed once, here.
        let _ = unsafe { cu.cuMemFree(dptr) };
    }))
}

/// Adds two vectors of `n` elements on device 0 through `cu`, in its primary context, and counts
/// the sums that differ from the CPU's.
fn run(cu: &Cuda, n: usize) -> Result<Report, Error> {
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32 + 0.5).collect();
    let mut c = vec![0f32; n];
    let bytes = n * size_of::<f32>();
    let (mut driver, mut name) = (0, [0 as c_char; 128]);
    // Released last: the buffers and the module below are dropped before it.
    let context = primary_context(cu, 0)?;
    let da = alloc(cu, bytes)?;
    let db = alloc(cu, bytes)?;
    let dc = alloc(cu, bytes)?;
    // SAFETY: every out-pointer is a live local and the name buffer's length is passed with it;
    // the host vectors hold `bytes` bytes and the device buffers were allocated with that size;
    // the kernel's parameters match the PTX entry's signature (three u64 pointers and a u32) and
    // the launch reads them before it returns; the result is read after the stream is
    // synchronised; the module's guard unloads it once, after its last use, before the buffers'
    // and the context's guards run.
    unsafe {
        cu.cuDriverGetVersion(&mut driver)?;
        cu.cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, *context)?;
        cu.cuMemcpyHtoD(*da, a.as_ptr().cast(), bytes)?;
        cu.cuMemcpyHtoD(*db, b.as_ptr().cast(), bytes)?;
        let mut module = null_mut();
        cu.cuModuleLoadData(&mut module, PTX.as_ptr().cast())?;
        let module = guard(module, |module| {
            let _ = cu.cuModuleUnload(module);
        });
        let mut func = null_mut();
        cu.cuModuleGetFunction(&mut func, *module, c"vadd".as_ptr())?;
        let count = n as u32;
        // `vadd(a, b, c, n)`: the array lives until the closure, and so the launch, returns.
        kernel_args![&*da, &*db, &*dc, &count].with_params(|params| {
            cu.cuLaunchKernel(
                func,
                n.div_ceil(THREADS) as u32,
                1,
                1,
                THREADS as u32,
                1,
                1,
                0,
                null_mut(),
                params,
                null_mut(),
            )
        })?;
        cu.cuStreamSynchronize(null_mut())?;
        cu.cuMemcpyDtoH(c.as_mut_ptr().cast(), *dc, bytes)?;
    }
    let wrong = (0..n).filter(|&i| c[i] != a[i] + b[i]).count();
    // SAFETY: cuDeviceGetName wrote a NUL-terminated name into the buffer.
    let device = unsafe { CStr::from_ptr(name.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    Ok(Report {
        driver,
        device,
        n,
        wrong,
    })
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

/// What to do about `library`, which could not be loaded from where `origin` says.
fn what_to_do(library: &CudaLibrary, origin: Origin) -> String {
    match origin {
        Origin::Environment => format!("fix or unset {}", library.env_var),
        Origin::Code => "fix the path given to Config::library".to_owned(),
        Origin::Search => format!(
            "{}, or set {} to its path",
            library.install, library.env_var
        ),
    }
}

/// "could not load X; looked for A, B" and what to do, for a library that was not found.
fn looked_for(e: &Error) -> Option<(String, String)> {
    match e.kind() {
        ErrorKind::LibraryNotFound {
            library,
            origin,
            tried,
        } => {
            let paths: Vec<&str> = tried.iter().map(|(p, _)| p.as_str()).collect();
            let line = format!(
                "could not load {}; looked for {}",
                library.title,
                paths.join(", ")
            );
            Some((line, what_to_do(library, *origin)))
        }
        _ => None,
    }
}

/// Why `run` failed, on one line, and for a library that was not found a second one saying what
/// to do: the advice of the library the configuration needs. The default configuration falls
/// back to libcuda, so the driver alone is enough for it, as for `--driver`.
fn explain(e: &Error) -> String {
    let (what, advice) = match e.kind() {
        ErrorKind::NoCudaLibrary { runtime, driver } => {
            let runtime = looked_for(runtime).map_or_else(|| runtime.to_string(), |(l, _)| l);
            match looked_for(driver) {
                Some((line, advice)) => (format!("{runtime}; then {line}"), Some(advice)),
                None => (format!("{runtime}; then {driver}"), None),
            }
        }
        _ => match looked_for(e) {
            Some((line, advice)) => (line, Some(advice)),
            None => (e.to_string(), None),
        },
    };
    match advice {
        Some(advice) => format!("vector_add: {what}\nvector_add: {advice}"),
        None => format!("vector_add: {what}"),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if let Some(unknown) = args
        .iter()
        .find(|a| !["--driver", "--trace"].contains(&a.as_str()))
    {
        eprint!("vector_add: unknown argument {unknown:?}\n{USAGE}");
        return ExitCode::from(2);
    }
    if let Err(e) = trace(args.iter().any(|a| a == "--trace")) {
        eprintln!("vector_add: {e}");
        return ExitCode::from(2);
    }
    // The default configuration: libcudart, or libcuda where no libcudart is installed.
    let config = if args.iter().any(|a| a == "--driver") {
        Config::driver()
    } else {
        Config::new()
    };
    let cu = Cuda::with_config(config);
    let start = Instant::now();
    let report = match run(&cu, N) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("{}", explain(&e));
            return ExitCode::FAILURE;
        }
    };
    let elapsed = start.elapsed();
    println!(
        "driver:   CUDA {} ({})",
        CudaVersion(report.driver as u32),
        report.driver
    );
    println!("device:   {}", report.device);
    if let Ok(backend) = cu.config().resolver() {
        println!("backend:  {}", backend.describe());
    }
    println!(
        "checked:  {} elements, {} wrong, in {:.1} ms (start to finish)",
        report.n,
        report.wrong,
        elapsed.as_secs_f64() * 1e3
    );
    if report.wrong == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "vector_add: {} of {} elements are wrong",
            report.wrong, report.n
        );
        ExitCode::from(2)
    }
}

/// The example on the fake device (`cargo test -p cuda-driver-table --features fake --example
/// vector_add`): its `vadd` kernel as a closure, the example's own check, and the device's leak
/// check.
#[cfg(all(test, feature = "fake"))]
mod tests {
    use super::*;
    use cuda_driver_table::fake::{function, Device, Fake, FindingKind, Launch};
    use cuda_driver_table::sys::{CUdeviceptr, CUresult};

    /// The kernel's parameters: `vadd(a, b, c, n)`.
    type Params = (CUdeviceptr, CUdeviceptr, CUdeviceptr, u32);

    /// A device whose `vadd` does what the PTX does: thread `i` of the grid writes
    /// `a[i] + b[i]` to `c[i]` when `i < n`.
    fn device() -> Device {
        let device = Device::new();
        device.kernel("vadd", |k: &mut Launch, (a, b, c, n): Params| {
            for t in k.threads() {
                let i = t.global_x();
                if i < u64::from(n) {
                    let sum = k.read::<f32>(a, i)? + k.read::<f32>(b, i)?;
                    k.write(c, i, sum)?;
                }
            }
            Ok(())
        });
        device
    }

    #[test]
    fn every_sum_is_right_and_everything_is_released() {
        let device = device();
        let cu = Cuda::with_config(device.config());
        // Not a multiple of the block: the last block's threads past `n` write nothing.
        let n = 3 * THREADS + 17;
        let report = run(&cu, n).expect("the fake device runs the example");
        assert_eq!((report.n, report.wrong), (n, 0));
        device.finish().expect("no leak, no error");
    }

    #[test]
    fn a_kernel_that_adds_wrongly_is_caught_by_the_check() {
        let device = Device::new();
        // Subtracts, and skips the last element.
        device.kernel("vadd", |k: &mut Launch, (a, b, c, n): Params| {
            for t in k.threads() {
                let i = t.global_x();
                if i + 1 < u64::from(n) {
                    let difference = k.read::<f32>(a, i)? - k.read::<f32>(b, i)?;
                    k.write(c, i, difference)?;
                }
            }
            Ok(())
        });
        let cu = Cuda::with_config(device.config());
        let report = run(&cu, 100).expect("the fake device runs the example");
        assert_eq!(report.wrong, 100);
        // The device finds the skipped element too, as initcheck would: the copy back reads
        // its 4 bytes (from byte 396 of the result) that no kernel wrote. Nothing else.
        let found = device.finish().expect_err("an uninitialised read");
        assert_eq!(found.count(FindingKind::UninitializedRead), 1, "{found}");
        assert_eq!(found.findings().len(), 1, "{found}");
        assert!(
            found.to_string().contains("its byte 396 was never written"),
            "{found}"
        );
    }

    #[test]
    fn a_failing_launch_is_the_error_and_still_releases_everything() {
        let device = device();
        let driver = Fake::new()
            .device(&device)
            .inject(function!(Cuda::cuLaunchKernel), |_| {
                Some(CUresult::CUDA_ERROR_LAUNCH_FAILED)
            })
            .build();
        let cu = Cuda::with_config(driver.config());
        let error = run(&cu, 1000).err().expect("the launch fails");
        assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_LAUNCH_FAILED.0));
        // The buffers, the module and the primary context were released on the error path.
        device.finish().expect("no leak after the failed launch");
    }
}
