//! Which driver is really there: what `doctor` can tell from the files and the environment about
//! the libcuda the search found, beyond what the library itself answers.
//!
//! - A forward-compatibility libcuda (the `cuda-compat` package's, in a `compat` folder, loaded
//!   through `LD_LIBRARY_PATH`): it runs only on the data-center GPUs and kernel drivers NVIDIA
//!   supports it on; elsewhere every call fails with `CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE`
//!   (804).
//! - A kernel module (`/proc/driver/nvidia/version`) of another version than the user-space
//!   driver (the version in the loaded libcuda's file name): after a driver upgrade without a
//!   reboot, every call fails with `CUDA_ERROR_SYSTEM_DRIVER_MISMATCH` (803).
//! - A toolkit's stub libcuda (`.../stubs/libcuda.so`), which is for linking only.
//! - Nsight's injection library (`CUDA_INJECTION64_PATH`), which answers for the driver.
//! - WSL2's driver folder, `/usr/lib/wsl/lib`.
//!
//! `CUDA_DRIVER_TABLE_DOCTOR_ROOT` names a folder that stands for `/` where the kernel module's
//! version and WSL2's folder are read (the tests use it).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::text::shown;

/// The variable naming a folder that stands for `/` (for tests).
pub const ROOT_VAR: &str = "CUDA_DRIVER_TABLE_DOCTOR_ROOT";

/// What `doctor` sees of the driver: notes for the report, and the problems among them.
#[derive(Debug, Default)]
pub struct Situation {
    pub notes: Vec<String>,
    pub problems: Vec<String>,
}

/// `path` under the root [`ROOT_VAR`] names, or as it is.
fn under_root(path: &str) -> PathBuf {
    match std::env::var_os(ROOT_VAR) {
        Some(root) => Path::new(&root).join(path.trim_start_matches('/')),
        None => PathBuf::from(path),
    }
}

/// Looks at the libcuda the search found (`found`, as the search named it) and the environment,
/// and writes what it sees to `out`. `known_stub`: the library answered as a stub already (a
/// problem said once; its folder is then a note).
pub fn examine(found: Option<&Path>, known_stub: bool, out: &mut String) -> Situation {
    let mut s = Situation::default();
    // The file the loader really loaded: a bare name resolved, symbolic links followed.
    let loaded = found.map(|f| loaded_file(f).unwrap_or_else(|| f.to_owned()));
    if let Some(loaded) = &loaded {
        let text = loaded.to_string_lossy();
        let in_folder = |name: &str| loaded.components().any(|c| c.as_os_str() == name);
        if in_folder("compat") {
            s.notes.push(format!(
                "{text} is a forward-compatibility libcuda (the cuda-compat package's): it runs \
                 only on the data-center GPUs and kernel drivers NVIDIA supports it on; elsewhere \
                 every call fails with CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804): then take \
                 its folder out of LD_LIBRARY_PATH to use the installed driver"
            ));
        }
        if in_folder("stubs") {
            let list = if known_stub {
                &mut s.notes
            } else {
                &mut s.problems
            };
            list.push(format!(
                "{text} is a CUDA toolkit's stub libcuda (its stubs folder), for linking only: \
                 take that folder out of LD_LIBRARY_PATH (or the loader's configuration) so that \
                 the driver's libcuda is found"
            ));
        }
        if let Some(wsl) = loaded
            .to_str()
            .and_then(|l| l.strip_prefix("/usr/lib/wsl/lib/"))
        {
            s.notes.push(format!(
                "the libcuda is WSL2's (/usr/lib/wsl/lib/{wsl}): the Windows driver's, which \
                 the Windows side installs and updates"
            ));
        }
    }
    let kernel = kernel_module_version();
    let user = loaded.as_deref().and_then(user_space_version);
    match (&kernel, &user) {
        (Some((k, from)), Some(u))
            if k != u && !s.notes.iter().any(|n| n.contains("cuda-compat")) =>
        {
            s.problems.push(format!(
                "the kernel module is {k} ({from}) and the user-space driver is {u} (the libcuda \
                 loaded): every call fails with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803); after a \
                 driver upgrade, reboot (or reload the nvidia kernel module), or install the \
                 user-space driver of {k}"
            ));
        }
        (Some((k, from)), Some(_)) => {
            s.notes.push(format!(
                "the kernel module is {k} ({from}), as the user-space driver"
            ));
        }
        (Some((k, from)), None) => {
            s.notes.push(format!("the kernel module is {k} ({from})"));
        }
        (None, _) => {}
    }
    if let Some(injection) = std::env::var_os("CUDA_INJECTION64_PATH") {
        s.notes.push(format!(
            "an injection library is loaded into CUDA programs (CUDA_INJECTION64_PATH={}): \
             Nsight's, or another tool's; it answers for the driver, and a function it lacks may \
             come back null",
            injection.to_string_lossy()
        ));
    }
    wsl(loaded.as_deref(), &mut s);
    if !s.notes.is_empty() || !s.problems.is_empty() {
        let _ = writeln!(out, "\nWhich driver is there:");
        for line in s.problems.iter().chain(&s.notes) {
            let _ = writeln!(out, "  {}", shown(line));
        }
    }
    s
}

/// WSL2: where the Windows driver's libcuda is, and whether the search found that one.
fn wsl(loaded: Option<&Path>, s: &mut Situation) {
    if cfg!(windows) {
        s.notes.push(
            "Windows: the driver's nvcuda.dll is loaded from the system folder (System32), never \
             from the current directory or PATH; libcudart from %CUDA_PATH%\\bin\\x64, \
             %CUDA_PATH%\\bin and the Python environment's wheels (the steps above)"
                .to_owned(),
        );
        return;
    }
    let folder = under_root("/usr/lib/wsl/lib");
    if !folder.is_dir() {
        return;
    }
    let libcuda = folder.join("libcuda.so.1");
    let found_there = loaded.is_some_and(|l| l.starts_with(&folder));
    s.notes.push(format!(
        "WSL2: the Windows driver's libcuda is {} ({}); {}",
        libcuda.display(),
        if libcuda.exists() {
            "present"
        } else {
            "missing"
        },
        if found_there {
            "the search found it there"
        } else {
            "the loader finds it through /etc/ld.so.conf.d (ld.wsl.conf); a libcuda.so.1 \
             installed elsewhere (a Linux driver package) shadows it and fails under WSL2"
        }
    ));
}

/// The NVIDIA kernel module's version, and the file it was read from:
/// `NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  ...`.
fn kernel_module_version() -> Option<(String, String)> {
    let path = under_root("/proc/driver/nvidia/version");
    let text = std::fs::read_to_string(&path).ok()?;
    let line = text.lines().find(|l| l.starts_with("NVRM version:"))?;
    let version = line
        .split_whitespace()
        .find(|word| is_driver_version(word))?
        .to_owned();
    Some((version, path.display().to_string()))
}

/// A driver version: `580.65.06`, `575.57`.
fn is_driver_version(word: &str) -> bool {
    let parts: Vec<&str> = word.split('.').collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The user-space driver's version, from the loaded libcuda's file name: `libcuda.so.580.65.06`.
fn user_space_version(loaded: &Path) -> Option<String> {
    let name = loaded.file_name()?.to_str()?;
    let version = name.strip_prefix("libcuda.so.")?;
    is_driver_version(version).then(|| version.to_owned())
}

/// The file the loader loaded for `found` (a path or a bare name), symbolic links followed: the
/// library's own path as `dladdr` reports it for one of its exports.
#[cfg(unix)]
fn loaded_file(found: &Path) -> Option<PathBuf> {
    // SAFETY: `found` is the file the crate's search loaded just before as libcuda; the loader
    // hands out that copy again, its initialisers have run already.
    let lib = unsafe { libloading::Library::new(found) }.ok()?;
    // SAFETY: the address is only looked up, never called.
    let symbol = unsafe { lib.get::<*mut std::ffi::c_void>(b"cuGetProcAddress_v2\0") }
        .or_else(|_| {
            // SAFETY: as above.
            unsafe { lib.get::<*mut std::ffi::c_void>(b"cuInit\0") }
        })
        .ok()
        .map(|s| *s);
    // Kept loaded, like every library the crate loads.
    std::mem::forget(lib);
    let address = symbol?;
    // SAFETY: a zeroed `Dl_info` is a valid value to fill in.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: `dladdr` only looks the address up in the loader's tables.
    if unsafe { libc::dladdr(address.cast_const(), &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: `dladdr` set `dli_fname` to a NUL-terminated path in the loader's tables.
    let file = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let file = PathBuf::from(std::ffi::OsStr::new(file.to_str().ok()?));
    Some(std::fs::canonicalize(&file).unwrap_or(file))
}

#[cfg(not(unix))]
fn loaded_file(found: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(found).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_the_module_line_and_the_file_name() {
        assert!(is_driver_version("580.65.06") && is_driver_version("575.57"));
        assert!(
            !is_driver_version("1") && !is_driver_version("x86_64") && !is_driver_version("5.a")
        );
        assert_eq!(
            user_space_version(Path::new("/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06")),
            Some("580.65.06".to_owned())
        );
        assert_eq!(user_space_version(Path::new("/x/libcuda.so.1")), None);
    }
}
