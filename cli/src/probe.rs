//! `doctor`'s probing in a child process with a time limit: loading a libcuda runs its code, and
//! asking it for a function calls its lookup, either of which may hang or crash (a broken or
//! crafted library, an interposer). The child is this same executable, run with the hidden
//! command [`COMMAND`]; it tells each step on standard error before taking it and prints its
//! findings on standard output after [`MARKER`]. A child that does not end within the limit is
//! killed; one that hangs or dies by a signal ends in a verdict that says which step it was on.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::doctor::{self, Diagnosis, Report};
use crate::inspect;
use crate::text::shown;

/// The hidden command that runs the probe.
pub const COMMAND: &str = "doctor-probe";

/// What the child prints before its findings (a library may print on standard output too).
const MARKER: &str = "\n--- cuda-driver-table doctor-probe findings ---\n";

/// What the child prints before each step on standard error.
const STEP: &str = "doctor-probe step: ";

/// The child's side: runs `doctor` and prints its findings; the exit code.
pub fn child(binary: Option<&Path>, verbose: bool) -> u8 {
    let mut progress = |what: &str| {
        let _ = writeln!(std::io::stderr(), "{STEP}{what}");
    };
    match doctor::doctor(binary, verbose, &mut progress) {
        Ok(d) => match serde_json::to_string(&d) {
            Ok(text) => {
                let mut out = std::io::stdout();
                let _ = write!(out, "{MARKER}{text}");
                let _ = out.flush();
                0
            }
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "error: {e}");
                2
            }
        },
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            2
        }
    }
}

/// The parent's side: `doctor` on `binary` run in a child process that must end within `limit`.
/// `Err` for an unreadable `binary` (exit code 2), as [`doctor::doctor`].
pub fn doctor(binary: Option<&Path>, verbose: bool, limit: Duration) -> Result<Diagnosis, String> {
    // An unreadable file is the user's mistake, said before any library is loaded.
    let file = binary.map(inspect::inspect).transpose()?.map(|i| i.file);
    let exe = std::env::current_exe().map_err(|e| {
        format!("cannot run the probe: this tool's own executable cannot be found ({e})")
    })?;
    let mut command = Command::new(exe);
    command.arg(COMMAND);
    if verbose {
        command.arg("--verbose");
    }
    if let Some(binary) = binary {
        command.arg("--").arg(binary);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run the probe (this tool, as a child process): {e}"))?;
    let stdout = Drain::start(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = Drain::start(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("cannot wait for the probe: {e}")),
        }
    };
    // The pipes close when the child ends; a process a library started may keep them open, so
    // what came is read after a short wait, not at their end.
    let out = stdout.finish();
    let err = stderr.finish();
    let steps: Vec<&str> = err.lines().filter_map(|l| l.strip_prefix(STEP)).collect();
    let last = steps.last().copied();
    let how = match status {
        Some(status) if status.success() => {
            let findings = out.rsplit_once(MARKER).map(|(_, f)| f).unwrap_or_default();
            return serde_json::from_str(findings).map_err(|e| {
                format!("the probe's findings cannot be read ({e}); its error output: {err}")
            });
        }
        Some(status) if status.code() == Some(2) => {
            let why = err
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("error: "))
                .unwrap_or("the probe failed");
            return Err(why.to_owned());
        }
        Some(status) => ended(status),
        None => format!("did not end within {} s", limit.as_secs_f64()),
    };
    let problem = match last {
        Some(step) => format!(
            "the probe of the CUDA libraries {how} while {step}: that library is broken or not \
             what it claims to be; run `doctor` without BINARY to see which files the search \
             loads, and check LD_PRELOAD and $CUDA_DRIVER_TABLE_LIBCUDA"
        ),
        None => {
            format!("the probe of the CUDA libraries {how} before its first step: check LD_PRELOAD")
        }
    };
    let subject = file
        .as_ref()
        .map(|f| format!(" of {}", shown(f)))
        .unwrap_or_default();
    let mut text = format!(
        "This machine does not meet 1 requirement{subject}:\n  - {}\n\nThe probe's steps (each \
         one is said before it is taken):\n",
        shown(&problem)
    );
    for (n, step) in steps.iter().enumerate() {
        text += &format!("    {}. {}\n", n + 1, shown(step));
    }
    let json = serde_json::to_value(Report::failed(file, problem)).map_err(|e| e.to_string())?;
    Ok(Diagnosis {
        text,
        met: false,
        json,
    })
}

/// A pipe read on a thread of its own into a buffer that can be taken before the pipe ends.
struct Drain {
    bytes: Arc<Mutex<Vec<u8>>>,
    thread: std::thread::JoinHandle<()>,
}

impl Drain {
    fn start(pipe: Option<Box<dyn Read + Send>>) -> Drain {
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&bytes);
        let thread = std::thread::spawn(move || {
            let Some(mut pipe) = pipe else { return };
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => match into.lock() {
                        Ok(mut bytes) => bytes.extend_from_slice(&chunk[..n]),
                        Err(_) => break,
                    },
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        Drain { bytes, thread }
    }

    /// What the pipe gave, once it ends or after two seconds at most.
    fn finish(self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        while !self.thread.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let bytes = match self.bytes.lock() {
            Ok(bytes) => bytes.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// How a child that did not succeed ended, in words.
fn ended(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                libc::SIGSEGV => " (SIGSEGV, a bad memory access)",
                libc::SIGBUS => " (SIGBUS, a bad memory access)",
                libc::SIGABRT => " (SIGABRT, an abort)",
                libc::SIGILL => " (SIGILL, an illegal instruction)",
                libc::SIGFPE => " (SIGFPE, an arithmetic fault)",
                libc::SIGKILL => " (SIGKILL)",
                _ => "",
            };
            return format!("crashed with signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with code {code} (a library ended the process)"),
        None => "ended abnormally".to_owned(),
    }
}
