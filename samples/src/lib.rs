//! What every sample shares: its command line, its exit codes and its one-line errors; and the
//! samples themselves.
//!
//! Each sample is a port of one of NVIDIA's driver-API samples (named in its header): a module
//! here with a `#[driver_table]` listing exactly the functions it calls and a `run` over that
//! table (`&Cuda`), which its program in `src/bin/` hands a table on the driver and the tests one
//! on the fake device. Its kernels are CUDA C in `kernels/`, compiled to the PTX in
//! `kernels/generated/` by `kernels/generate.sh`.
//!
//! Every sample takes `--driver` (resolve through libcuda's `cuGetProcAddress` instead of the
//! default configuration, which prefers libcudart and falls back to libcuda) and exits with
//! [`PASSED`], [`CUDA_FAILED`], [`CHECK_FAILED`] or [`WAIVED`].

use cuda_driver_table::{Config, Error, ErrorKind, Origin};
use std::fmt;
use std::process::ExitCode;

/// The sample ran and its result matched the CPU reference.
pub const PASSED: u8 = 0;
/// A driver call failed, or no driver could be loaded (the message says which).
pub const CUDA_FAILED: u8 = 1;
/// The sample ran but its result differs from the CPU reference.
pub const CHECK_FAILED: u8 = 2;
/// The machine lacks what the sample needs (a second GPU, a Hopper GPU): nothing was checked.
pub const WAIVED: u8 = 3;

/// The command line every sample understands.
#[derive(Debug, Clone)]
pub struct Args {
    /// `--driver`: libcuda's `cuGetProcAddress` instead of the default configuration.
    pub driver: bool,
    /// Everything else, in order, for the sample's own options.
    pub rest: Vec<String>,
}

impl Args {
    /// Reads the process's arguments.
    pub fn parse() -> Self {
        let mut driver = false;
        let mut rest = Vec::new();
        for arg in std::env::args().skip(1) {
            if arg == "--driver" {
                driver = true;
            } else {
                rest.push(arg);
            }
        }
        Args { driver, rest }
    }

    /// The configuration the sample's table uses: [`Config::driver`] with `--driver`, else
    /// [`Config::new`].
    pub const fn config(&self) -> Config {
        if self.driver {
            Config::driver()
        } else {
            Config::new()
        }
    }

    /// The configuration for a table whose default stream is per-thread (samples that use
    /// streams from several threads).
    pub const fn per_thread_config(&self) -> Config {
        self.config().per_thread()
    }

    /// `true` when `flag` was given.
    pub fn has(&self, flag: &str) -> bool {
        self.rest.iter().any(|a| a == flag)
    }
}

/// Why a sample did not pass.
#[derive(Debug)]
pub enum Failure {
    /// A driver call failed, or the library could not be loaded.
    Cuda(Error),
    /// The result differs from the CPU reference: what differs.
    Check(String),
    /// The machine lacks what the sample needs: what is missing.
    Waived(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Cuda(e)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Cuda(e) => match e.kind() {
                ErrorKind::NoCudaLibrary { runtime, driver } => {
                    write!(f, "{}; then {}", looked_for(runtime), looked_for(driver))
                }
                ErrorKind::LibraryNotFound { .. } => f.write_str(&looked_for(e)),
                _ => write!(f, "{e}"),
            },
            Failure::Check(what) => write!(f, "result check failed: {what}"),
            Failure::Waived(why) => write!(f, "waived: {why}"),
        }
    }
}

/// "could not load X; looked for A, B (what to do)" for a library that was not found, on one
/// line, the advice fitting where the path came from; else the error itself.
fn looked_for(e: &Error) -> String {
    match e.kind() {
        ErrorKind::LibraryNotFound {
            library,
            tried,
            origin,
        } => {
            let paths: Vec<&str> = tried.iter().map(|(p, _)| p.as_str()).collect();
            let advice = match origin {
                Origin::Environment => format!("fix or unset {}", library.env_var),
                Origin::Code => "fix the path given to Config::library".to_owned(),
                Origin::Search => format!("{}, or set {}", library.install, library.env_var),
            };
            format!(
                "could not load {}; looked for {} ({advice})",
                library.title,
                paths.join(", ")
            )
        }
        _ => e.to_string(),
    }
}

/// Runs a sample's body and turns its outcome into the exit code, printing the backend it used
/// and `NAME: PASSED`, or one line saying why not to standard error.
pub fn main(name: &str, body: impl FnOnce(&Args) -> Result<(), Failure>) -> ExitCode {
    let args = Args::parse();
    match body(&args) {
        Ok(()) => {
            // The library the sample ran on (loaded already: the sample's calls resolved).
            if let Ok(backend) = args.config().resolver() {
                println!("backend: {}", backend.describe());
            }
            println!("{name}: PASSED");
            ExitCode::from(PASSED)
        }
        Err(failure) => {
            eprintln!("{name}: {failure}");
            ExitCode::from(match failure {
                Failure::Cuda(_) => CUDA_FAILED,
                Failure::Check(_) => CHECK_FAILED,
                Failure::Waived(_) => WAIVED,
            })
        }
    }
}

/// A generated PTX file of `kernels/generated/`, as the NUL-terminated text `cuModuleLoadData`
/// and `cuLinkAddData` take.
#[macro_export]
macro_rules! ptx {
    ($name:literal) => {
        concat!(
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/kernels/generated/",
                $name,
                ".ptx"
            )),
            "\0"
        )
    };
}

/// `n` floats in `[0, 1)` from a fixed seed (the originals' `rand() / RAND_MAX` initialisation,
/// reproducible from run to run): a 64-bit linear congruential generator's top 24 bits.
pub fn random_floats(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

// The samples, each a module with its table (`Cuda`) and a `run` over `&Cuda`: its binary in
// `src/bin/` hands it a table on the driver, the tests one on the fake device.
pub mod cluster_launch;
pub mod matrix_mul_drv;
pub mod ptxjit;
pub mod simple_p2p;
pub mod simple_texture_drv;
pub mod stream_graphs;
pub mod stream_ordered_allocation;
pub mod tensor_map_tma;
pub mod thread_migration;
pub mod vector_add_drv;
pub mod vector_add_mmap;
