//! `cuda-driver-table`, the command-line tool of the cuda-driver-table crate: what a built program
//! needs of the CUDA driver (`inspect`), and whether a machine offers it (`doctor`).
//!
//! Exit codes: 0 every requirement met (for `inspect`: the file was read), 1 some not, 2 a usage
//! error or a file that cannot be read.

mod doctor;
mod inspect;

use std::ffi::OsString;
use std::path::PathBuf;

pub use doctor::SCHEMA as DOCTOR_SCHEMA;
pub use inspect::SCHEMA as INSPECT_SCHEMA;

/// The usage text.
pub const USAGE: &str = "\
usage: cuda-driver-table inspect [--json] BINARY
       cuda-driver-table doctor [--json] [BINARY]

inspect BINARY   the tables a built program (ELF or PE) records, its driver floor and what sets
                 it, per-thread default stream use, and the PTX in its read-only data, with the
                 driver that PTX needs. --json: the same as one JSON object (see the README).
doctor [BINARY]  on this machine: which libcuda and libcudart the crate's search finds and each
                 step it took, the driver's version, a stub libcuda; with BINARY, whether this
                 driver hands out every function the program records, at its exact ABI and flag.
                 --json: the same as one JSON object (see the README).

exit codes: 0 all requirements met, 1 some not, 2 usage error or unreadable input";

/// The plural ending of a count's noun: `"s"`, or nothing for 1.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Runs the tool with `args` (without the program's name): what to print on standard output, on
/// standard error, and the exit code.
pub fn run(args: &[OsString]) -> (String, String, u8) {
    let usage = |why: &str| (String::new(), format!("error: {why}\n\n{USAGE}\n"), 2);
    let args: Vec<&OsString> = args.iter().collect();
    let Some(command) = args.first().and_then(|a| a.to_str()) else {
        return usage("no command given");
    };
    let rest = &args[1..];
    match command {
        "inspect" => {
            let json = rest.iter().any(|a| *a == "--json");
            let files: Vec<&&OsString> = rest.iter().filter(|a| **a != "--json").collect();
            let [file] = files.as_slice() else {
                return usage("inspect takes one BINARY (and --json)");
            };
            match inspect::inspect(&PathBuf::from(file)) {
                Ok(i) if json => match serde_json::to_string_pretty(&i) {
                    Ok(text) => (text + "\n", String::new(), 0),
                    Err(e) => (String::new(), format!("error: {e}\n"), 2),
                },
                Ok(i) => (inspect::human(&i), String::new(), 0),
                Err(e) => (String::new(), format!("error: {e}\n"), 2),
            }
        }
        "doctor" => {
            let json = rest.iter().any(|a| *a == "--json");
            let files: Vec<&&OsString> = rest.iter().filter(|a| **a != "--json").collect();
            let binary = match files.as_slice() {
                [] => None,
                [file] if !file.to_string_lossy().starts_with('-') => Some(PathBuf::from(file)),
                _ => return usage("doctor takes at most one BINARY (and --json)"),
            };
            match doctor::doctor(binary.as_deref()) {
                Ok(d) => {
                    let code = if d.met { 0 } else { 1 };
                    if json {
                        match serde_json::to_string_pretty(&d.json) {
                            Ok(text) => (text + "\n", String::new(), code),
                            Err(e) => (String::new(), format!("error: {e}\n"), 2),
                        }
                    } else {
                        (d.text, String::new(), code)
                    }
                }
                Err(e) => (String::new(), format!("error: {e}\n"), 2),
            }
        }
        "-h" | "--help" | "help" => (format!("{USAGE}\n"), String::new(), 0),
        other => usage(&format!(
            "unknown command `{other}`; the commands are inspect and doctor"
        )),
    }
}
