//! Helpers shared by the benchmarks and the cold-start examples: the raw baselines
//! (`cuGetProcAddress_v2` from a `dlopen`ed libcuda, `cudaGetDriverEntryPointByVersion` from a
//! `dlopen`ed libcudart, plain `dlsym`), a monotonic clock readable across processes, the body of
//! every cold-start program ([`cold_start`]), and the check that a driver is there at all.
//!
//! [`gpu_report`] turns the output of a GPU run into the report (see `src/bin/bench-gpu.rs`);
//! [`build`] makes the measurements of the build machine (`cargo bench-build`).
//!
//! See `BENCHMARKS.md` at the workspace root for what is measured and how to run it.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::process::ExitCode;
use std::ptr::null_mut;

use libloading::os::unix::Library;

pub mod build;
pub mod gpu_report;

/// `CUresult cuGetProcAddress_v2(const char*, void**, int, cuuint64_t,
/// CUdriverProcAddressQueryResult*)`.
pub type PfnGetProcAddressV2 =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> c_int;
/// `cudaError_t cudaGetDriverEntryPointByVersion(const char*, void**, unsigned int,
/// unsigned long long, cudaDriverEntryPointQueryResult*)`.
pub type PfnEntryPointByVersion =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, u32, u64, *mut c_int) -> c_int;
/// `CUresult cuInit(unsigned int)`.
pub type PfnInit = unsafe extern "C" fn(u32) -> c_int;
/// `CUresult cuDriverGetVersion(int*)`.
pub type PfnDriverGetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;
/// `CUresult cuCtxGetCurrent(CUcontext*)`.
pub type PfnCtxGetCurrent = unsafe extern "C" fn(*mut *mut c_void) -> c_int;

/// `CU_GET_PROC_ADDRESS_LEGACY_STREAM` / `cudaEnableLegacyStream`.
pub const LEGACY_STREAM: u64 = cuda_driver_table::StreamMode::Legacy.flag();

/// The environment variables the runtime and driver backends read for their library: the raw
/// libcudart baseline reads the first too, so both load the same file, and `bench-gpu` unsets the
/// second so that every program loads the driver the system loader finds.
pub use cuda_driver_table::{ENV_CUDART, ENV_LIBCUDA};

/// The driver library, loaded with `dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)` (the flags
/// libloading and the C baseline use), and its `cuGetProcAddress_v2`.
pub struct RawDriver {
    lib: Library,
    get_proc: PfnGetProcAddressV2,
}

impl RawDriver {
    /// Loads `libcuda.so.1` and finds `cuGetProcAddress_v2`.
    ///
    /// # Errors
    ///
    /// A message saying what is missing.
    pub fn open() -> Result<Self, String> {
        // SAFETY: loading the NVIDIA driver library runs its initialisers, which is what using
        // CUDA means.
        let lib = unsafe { Library::new("libcuda.so.1") }
            .map_err(|e| format!("cannot load libcuda.so.1 (no NVIDIA driver?): {}", why(&e)))?;
        // SAFETY: the driver's cuGetProcAddress_v2 has exactly this signature (cuda.h, 12.0+).
        let get_proc = unsafe { lib.get::<PfnGetProcAddressV2>(c"cuGetProcAddress_v2") }
            .map(|s| *s)
            .map_err(|e| {
                format!("libcuda.so.1 has no cuGetProcAddress_v2 (driver < 12.0?): {e}")
            })?;
        Ok(Self { lib, get_proc })
    }

    /// The library itself (for `dlsym` baselines).
    pub fn library(&self) -> &Library {
        &self.lib
    }

    /// One `cuGetProcAddress_v2(symbol, &p, version, LEGACY_STREAM, &status)`; the pointer when
    /// the call succeeded, the status said found and the pointer is not null.
    pub fn lookup(&self, symbol: &CStr, version: u32) -> Option<*mut c_void> {
        let mut p = null_mut();
        let mut status: c_int = -1;
        // SAFETY: NUL-terminated symbol, valid out-parameters, the documented signature.
        let rc = unsafe {
            (self.get_proc)(
                symbol.as_ptr(),
                &mut p,
                version as c_int,
                LEGACY_STREAM,
                &mut status,
            )
        };
        (rc == 0 && status == 0 && !p.is_null()).then_some(p)
    }

    /// The raw `cuGetProcAddress_v2` (for loops that should pay nothing else).
    pub fn get_proc(&self) -> PfnGetProcAddressV2 {
        self.get_proc
    }

    /// `cuInit(0)` through a pointer from `cuGetProcAddress_v2`.
    ///
    /// # Errors
    ///
    /// When `cuInit` cannot be found or fails (no GPU visible, for example).
    pub fn init(&self) -> Result<(), String> {
        let p = self
            .lookup(c"cuInit", 2000)
            .ok_or("cuGetProcAddress_v2 found no cuInit")?;
        // SAFETY: `cuInit` at ABI 2000 is `CUresult cuInit(unsigned int)`.
        let f: PfnInit = unsafe { std::mem::transmute::<*mut c_void, PfnInit>(p) };
        // SAFETY: `cuInit(0)` has no preconditions.
        match unsafe { f(0) } {
            0 => Ok(()),
            rc => Err(format!(
                "cuInit(0) failed with CUresult {rc} (no GPU visible?)"
            )),
        }
    }
}

/// libcudart (`$CUDA_DRIVER_TABLE_CUDART`, else `libcudart.so.13` from the system loader) and its
/// `cudaGetDriverEntryPointByVersion`.
pub struct RawCudart {
    _lib: Library,
    entry: PfnEntryPointByVersion,
    path: String,
}

impl RawCudart {
    /// Loads libcudart and finds `cudaGetDriverEntryPointByVersion` (libcudart 12.5+).
    ///
    /// # Errors
    ///
    /// A message saying what is missing.
    pub fn open() -> Result<Self, String> {
        let path = std::env::var(ENV_CUDART).unwrap_or_else(|_| "libcudart.so.13".to_owned());
        // SAFETY: loading libcudart runs its initialisers, which is what using CUDA means.
        let lib = unsafe { Library::new(&path) }
            .map_err(|e| format!("cannot load {path} (set ${ENV_CUDART}): {}", why(&e)))?;
        // SAFETY: libcudart's cudaGetDriverEntryPointByVersion has exactly this signature.
        let entry =
            unsafe { lib.get::<PfnEntryPointByVersion>(c"cudaGetDriverEntryPointByVersion") }
                .map(|s| *s)
                .map_err(|e| {
                    format!(
                        "{path} has no cudaGetDriverEntryPointByVersion: {}",
                        why(&e)
                    )
                })?;
        Ok(Self {
            _lib: lib,
            entry,
            path,
        })
    }

    /// The path it was loaded from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The raw `cudaGetDriverEntryPointByVersion`.
    pub fn entry(&self) -> PfnEntryPointByVersion {
        self.entry
    }

    /// One lookup at `version` with the legacy stream flag; the pointer when found.
    pub fn lookup(&self, symbol: &CStr, version: u32) -> Option<*mut c_void> {
        let mut p = null_mut();
        let mut status: c_int = -1;
        // SAFETY: NUL-terminated symbol, valid out-parameters, the documented signature.
        let rc =
            unsafe { (self.entry)(symbol.as_ptr(), &mut p, version, LEGACY_STREAM, &mut status) };
        (rc == 0 && status == 0 && !p.is_null()).then_some(p)
    }
}

/// The loader's own message (`dlerror`), which libloading keeps as the error's source.
fn why(e: &libloading::Error) -> String {
    std::error::Error::source(e).map_or_else(|| e.to_string(), |s| s.to_string())
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: c_int, ts: *mut Timespec) -> c_int;
}

/// `CLOCK_MONOTONIC` on Linux.
const CLOCK_MONOTONIC: c_int = 1;

/// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds: the same clock in every process of the
/// machine, so a child can report when its first call returned and the parent can subtract the
/// time it started the child (`benches/c/spawn_timer.c`).
pub fn monotonic_ns() -> u64 {
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `struct timespec` (two 64-bit fields on 64-bit Linux).
    let rc = unsafe { clock_gettime(CLOCK_MONOTONIC, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_MONOTONIC) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The body of every cold-start program (`examples/cold_*.rs`): reads [`monotonic_ns`] as `main`
/// is entered, makes `first_call` (everything the program needs for its first
/// `cuDriverGetVersion`, loading included, returning the version), reads the clock again right
/// after it returns, and prints `version t0 t` for `c/spawn_timer.c`. A failure prints
/// `program: why` and exits with status 1.
pub fn cold_start(program: &str, first_call: impl FnOnce() -> Result<c_int, String>) -> ExitCode {
    let t0 = monotonic_ns();
    let result = first_call();
    let t = monotonic_ns();
    match result {
        Ok(version) => {
            println!("{version} {t0} {t}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{program}: {why}");
            ExitCode::FAILURE
        }
    }
}

/// Calls `cuDriverGetVersion` at ABI 2020, the pointer `lookup` (named in messages) handed out
/// for it: the first call of the Rust floors (`cold_raw`, `cold_raw_cudart`).
pub fn call_driver_get_version(p: Option<*mut c_void>, lookup: &str) -> Result<c_int, String> {
    let p = p.ok_or_else(|| format!("{lookup} found no cuDriverGetVersion"))?;
    // SAFETY: `cuDriverGetVersion` at ABI 2020 is `CUresult (int*)`.
    let f = unsafe { std::mem::transmute::<*mut c_void, PfnDriverGetVersion>(p) };
    let mut version = 0;
    // SAFETY: `version` is a valid out-parameter.
    match unsafe { f(&mut version) } {
        0 => Ok(version),
        rc => Err(format!("cuDriverGetVersion returned {rc}")),
    }
}

/// Whether criterion was asked to benchmark (`--bench`, as `cargo bench` passes) rather than to
/// run each benchmark once as a test (`cargo test --benches`).
pub fn benchmarking() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// Loads the driver and calls `cuInit(0)`, or ends the process: with status 2 and a clear message
/// when benchmarking, with status 0 and a note when criterion only tests (a machine without a GPU,
/// such as CI, still passes `cargo test --all-targets`).
pub fn driver_or_exit(bench: &str) -> RawDriver {
    match RawDriver::open().and_then(|d| d.init().map(|()| d)) {
        Ok(d) => d,
        Err(why) if benchmarking() => {
            eprintln!("{bench}: these benchmarks need an NVIDIA GPU and driver: {why}");
            std::process::exit(2);
        }
        Err(why) => {
            eprintln!("{bench}: skipped, no usable NVIDIA driver: {why}");
            std::process::exit(0);
        }
    }
}
