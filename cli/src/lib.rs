//! `cuda-driver-table`, the command-line tool of the cuda-driver-table crate: what a built program
//! needs of the CUDA driver (`inspect`), and whether a machine offers it (`doctor`).
//!
//! Exit codes: 0 every requirement met (for `inspect`: the file was read), 1 some not, 2 a usage
//! error or a file that cannot be read.

mod doctor;
mod inspect;
mod probe;
mod situation;
mod text;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

pub use doctor::SCHEMA as DOCTOR_SCHEMA;
pub use inspect::SCHEMA as INSPECT_SCHEMA;

/// The usage lines, as `--help` and a usage error print them after `Usage:`.
const USAGE: &str = "\
cuda-driver-table inspect [--json] BINARY
       cuda-driver-table doctor [--json] [-v] [BINARY]";

/// What `--help` prints after the commands.
const AFTER_HELP: &str =
    "Exit codes: 0 all requirements met, 1 some not, 2 usage error or unreadable input.";

/// The tool's arguments.
#[derive(Debug, Parser)]
#[command(
    name = "cuda-driver-table",
    version,
    about = "What a built program needs of the CUDA driver, and whether this machine has it.",
    override_usage = USAGE,
    after_help = AFTER_HELP,
    subcommand_required = true,
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// What a built program needs of the CUDA driver, read from its file
    ///
    /// The tables a built program or library (ELF or PE) records, every table linked into it
    /// whether the program uses it or not; its driver floor and what sets it; per-thread default
    /// stream use; and the PTX in its read-only data with the driver that PTX needs. The file is
    /// read, never run.
    #[command(after_help = AFTER_HELP)]
    Inspect {
        /// The same as one JSON object (see the README).
        #[arg(long)]
        json: bool,
        /// The program or library to read.
        #[arg(value_name = "BINARY")]
        binary: PathBuf,
    },
    /// Whether this machine's CUDA driver offers what a program needs
    ///
    /// On this machine: which libcuda and libcudart the crate's search finds and each step it
    /// took, the driver's version, a stub libcuda; with BINARY, whether this driver hands out
    /// every function the program records, at its exact ABI and flag.
    #[command(after_help = AFTER_HELP)]
    Doctor {
        /// The same as one JSON object (see the README).
        #[arg(long)]
        json: bool,
        /// List every recorded function, also those that could not be checked.
        #[arg(short, long)]
        verbose: bool,
        /// The most seconds the probe of the libraries may take: a library whose loading or
        /// lookup hangs ends in a verdict after this.
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
        timeout: f64,
        /// The program or library whose records to check.
        #[arg(value_name = "BINARY")]
        binary: Option<PathBuf>,
    },
    /// `doctor`'s probe of the libraries, which `doctor` runs in a child process.
    #[command(name = probe::COMMAND, hide = true)]
    Probe {
        #[arg(short, long)]
        verbose: bool,
        binary: Option<PathBuf>,
    },
}

/// The plural ending of a count's noun: `"s"`, or nothing for 1.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The output of a failure (exit code 2): `error: ` and the message, escaped as every text the
/// tool prints (it may name a file whose name holds control characters).
fn failure(e: impl std::fmt::Display) -> (String, String, u8) {
    (
        String::new(),
        format!("error: {}\n", text::shown(&e.to_string())),
        2,
    )
}

/// Runs the tool with `args` (without the program's name): what to print on standard output, on
/// standard error, and the exit code.
///
/// `doctor` runs its probe of the libraries in a child process of this same executable (so that a
/// library that hangs or crashes ends in a verdict): call this from the `cuda-driver-table`
/// binary.
pub fn run(args: &[OsString]) -> (String, String, u8) {
    let cli = match Cli::try_parse_from(
        std::iter::once(OsString::from("cuda-driver-table")).chain(args.iter().cloned()),
    ) {
        Ok(cli) => cli,
        // `--help` and `--version` are "errors" that go to standard output with exit code 0.
        Err(e) if !e.use_stderr() => return (e.render().to_string(), String::new(), 0),
        Err(e) => return (String::new(), e.render().to_string(), 2),
    };
    match cli.command {
        Command::Inspect { json, binary } => match inspect::inspect(&binary) {
            Ok(i) if json => match serde_json::to_string_pretty(&i) {
                Ok(text) => (text + "\n", String::new(), 0),
                Err(e) => failure(e),
            },
            Ok(i) => (inspect::human(&i), String::new(), 0),
            Err(e) => failure(e),
        },
        Command::Probe { verbose, binary } => (
            String::new(),
            String::new(),
            probe::child(binary.as_deref(), verbose),
        ),
        Command::Doctor {
            json,
            verbose,
            timeout,
            binary,
        } => match Duration::try_from_secs_f64(timeout)
            .map_err(|_| format!("--timeout {timeout}: give a number of seconds"))
            .and_then(|limit| probe::doctor(binary.as_deref(), verbose, limit))
        {
            Ok(d) => {
                let code = if d.met { 0 } else { 1 };
                if json {
                    match serde_json::to_string_pretty(&d.json) {
                        Ok(text) => (text + "\n", String::new(), code),
                        Err(e) => failure(e),
                    }
                } else {
                    (d.text, String::new(), code)
                }
            }
            Err(e) => failure(e),
        },
    }
}
