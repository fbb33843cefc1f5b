//! What every sample shares: its command line, its exit codes and its one-line errors, and the
//! set-up of its context and module (`primary_context!`, `own_context!`, `module!`); and the
//! samples themselves.
//!
//! Each sample is a port of one of NVIDIA's driver-API samples (named in its header): a module
//! here with a `#[driver_table]` listing exactly the functions it calls and a `run` over that
//! table (`&Cuda`), which its program in `src/bin/` hands a table on the driver and the tests one
//! on the fake device. Its kernels are CUDA C in `kernels/`, compiled to the PTX in
//! `kernels/generated/` by `kernels/generate.sh`.
//!
//! Every sample takes `--driver` (resolve through libcuda's `cuGetProcAddress` instead of the
//! default configuration, which prefers libcudart and falls back to libcuda) and `--help`, and
//! exits with [`PASSED`], [`CUDA_FAILED`], [`CHECK_FAILED`], [`WAIVED`] or [`USAGE_ERROR`] (an
//! option it does not know, or a bad value: one line saying which, with the usage).

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
/// The command line is wrong: an unknown option, or a bad value (`EX_USAGE` of `sysexits.h`).
pub const USAGE_ERROR: u8 = 64;

/// The options of the samples that have their own, beyond `--driver` and `--help`: the sample,
/// each option as its usage line shows it, the prefixes that start it, and how many arguments
/// follow it.
const OPTIONS: &[(&str, &[Opt])] = &[
    (
        "threadMigration",
        &[Opt {
            usage: "--numthreads=N",
            prefixes: &["--numthreads=", "-numthreads="],
            values: 0,
        }],
    ),
    (
        "memMapIPCDrv",
        &[Opt {
            usage: "--child ORDINAL ID N",
            prefixes: &["--child"],
            values: 3,
        }],
    ),
];

/// One option of a sample ([`OPTIONS`]).
struct Opt {
    usage: &'static str,
    prefixes: &'static [&'static str],
    values: usize,
}

impl Opt {
    /// Whether `arg` is this option: one of its prefixes, ending there when values follow it.
    fn starts(&self, arg: &str) -> bool {
        self.prefixes.iter().any(|p| {
            arg.strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || self.values == 0)
        })
    }
}

/// The options of sample `name` (its name before a blank: `memMapIPCDrv (child)`).
fn options(name: &str) -> &'static [Opt] {
    let name = name.split(' ').next().unwrap_or(name);
    OPTIONS
        .iter()
        .find(|(sample, _)| *sample == name)
        .map_or(&[], |(_, opts)| opts)
}

/// The one line of usage of sample `name`.
pub fn usage(name: &str) -> String {
    let name_alone = name.split(' ').next().unwrap_or(name);
    let mut line = format!("usage: {name_alone} [--driver] [--help]");
    for opt in options(name) {
        line.push_str(&format!(" [{}]", opt.usage));
    }
    line
}

/// What a command line asks that is not a run.
#[derive(Debug, PartialEq, Eq)]
pub enum NotARun {
    /// `--help` or `-h`: print the usage.
    Help,
    /// A wrong command line: why.
    Usage(String),
}

/// The command line every sample understands.
#[derive(Debug, Clone)]
pub struct Args {
    /// `--driver`: libcuda's `cuGetProcAddress` instead of the default configuration.
    pub driver: bool,
    /// Everything else, in order, for the sample's own options.
    pub rest: Vec<String>,
}

impl Args {
    /// Reads the arguments `args` (without the program's name) of sample `name`: `--driver`,
    /// `--help`, and the sample's own options (`OPTIONS`), each with the values that follow it;
    /// anything else is refused.
    ///
    /// # Errors
    ///
    /// [`NotARun::Help`] for `--help` or `-h`; [`NotARun::Usage`] for an unknown option or an
    /// option without its values.
    pub fn parse_from(name: &str, args: impl IntoIterator<Item = String>) -> Result<Self, NotARun> {
        let mut driver = false;
        let mut rest = Vec::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--driver" => driver = true,
                "--help" | "-h" => return Err(NotARun::Help),
                _ => {
                    let opt = options(name)
                        .iter()
                        .find(|o| o.starts(&arg))
                        .ok_or_else(|| NotARun::Usage(format!("unknown option {arg:?}")))?;
                    rest.push(arg);
                    for _ in 0..opt.values {
                        let value = args.next().ok_or_else(|| {
                            NotARun::Usage(format!("{} needs {} values", opt.usage, opt.values))
                        })?;
                        rest.push(value);
                    }
                }
            }
        }
        Ok(Args { driver, rest })
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
    /// The command line is wrong (a bad value): what is wrong.
    Usage(String),
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
            Failure::Usage(why) => f.write_str(why),
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
/// and `NAME: PASSED`, or one line saying why not to standard error. `--help` prints the usage
/// and runs nothing; a wrong command line, one line with the usage and [`USAGE_ERROR`].
pub fn main(name: &str, body: impl FnOnce(&Args) -> Result<(), Failure>) -> ExitCode {
    let args = match Args::parse_from(name, std::env::args().skip(1)) {
        Ok(args) => args,
        Err(NotARun::Help) => {
            println!("{}", usage(name));
            return ExitCode::from(PASSED);
        }
        Err(NotARun::Usage(why)) => {
            eprintln!("{name}: {why}; {}", usage(name));
            return ExitCode::from(USAGE_ERROR);
        }
    };
    match body(&args) {
        Ok(()) => {
            // The library the sample ran on (loaded already: the sample's calls resolved).
            if let Ok(backend) = args.config().resolver() {
                println!("backend: {}", backend.describe());
            }
            println!("{name}: PASSED");
            ExitCode::from(PASSED)
        }
        Err(Failure::Usage(why)) => {
            eprintln!("{name}: {why}; {}", usage(name));
            ExitCode::from(USAGE_ERROR)
        }
        Err(failure) => {
            eprintln!("{name}: {failure}");
            ExitCode::from(match failure {
                Failure::Cuda(_) => CUDA_FAILED,
                Failure::Check(_) => CHECK_FAILED,
                Failure::Waived(_) => WAIVED,
                Failure::Usage(_) => USAGE_ERROR,
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

#[macro_use]
mod setup;

/// What the set-up macros of `setup` name, from wherever they are expanded.
#[doc(hidden)]
pub mod __private {
    pub use cuda_driver_table::sys::{CUctxCreateParams, CUdevice};
    pub use scopeguard::guard;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(name: &str, args: &[&str]) -> Result<Args, NotARun> {
        Args::parse_from(name, args.iter().map(|a| (*a).to_owned()))
    }

    #[test]
    fn known_options_are_read_and_the_others_refused() {
        let a = parse("threadMigration", &["--driver", "--numthreads=4"]).unwrap();
        assert!(a.driver);
        assert_eq!(a.rest, ["--numthreads=4"]);
        let a = parse("memMapIPCDrv (child)", &["--child", "0", "1", "2"]).unwrap();
        assert_eq!(a.rest, ["--child", "0", "1", "2"]);
        assert_eq!(
            parse("vectorAddDrv", &["--drvier"]).unwrap_err(),
            NotARun::Usage("unknown option \"--drvier\"".into())
        );
        // Another sample's option is unknown here.
        assert!(parse("vectorAddDrv", &["--numthreads=2"]).is_err());
        assert_eq!(
            parse("memMapIPCDrv", &["--child", "0"]).unwrap_err(),
            NotARun::Usage("--child ORDINAL ID N needs 3 values".into())
        );
        assert!(parse("memMapIPCDrv", &["--childish"]).is_err());
        assert_eq!(parse("ptxjit", &["--help"]).unwrap_err(), NotARun::Help);
        assert_eq!(parse("ptxjit", &["-h"]).unwrap_err(), NotARun::Help);
    }

    #[test]
    fn the_usage_is_one_line_with_the_samples_options() {
        assert_eq!(
            usage("vectorAddDrv"),
            "usage: vectorAddDrv [--driver] [--help]"
        );
        assert_eq!(
            usage("threadMigration"),
            "usage: threadMigration [--driver] [--help] [--numthreads=N]"
        );
        assert_eq!(
            usage("memMapIPCDrv (child)"),
            "usage: memMapIPCDrv [--driver] [--help] [--child ORDINAL ID N]"
        );
    }
}
