//! The environment the library search reads: the values its variables had when the program
//! started, read once before `main`, as the system loader reads `LD_LIBRARY_PATH`.
//!
//! Why before `main`: the environment chooses which library is loaded, and a loaded library's
//! exports are then called through CUDA's signatures, so choosing it must not be open to safe
//! code. Before edition 2024, `std::env::set_var` is safe; a program could set
//! `CUDA_DRIVER_TABLE_CUDART` in `main` and then make a safe call load the library it names. No
//! safe code runs before `main`, so values read earlier are the ones the program was started with,
//! chosen by whoever started it, as `LD_LIBRARY_PATH` is. The reading is a constructor: a
//! function pointer in the section the platform's start-up code calls before `main`
//! (`.init_array` on ELF systems, `.CRT$XCU` on Windows, `__mod_init_func` on Apple systems), or,
//! for a library loaded later (a Python extension), when that library is loaded, before any of its
//! code runs. Code that runs in another constructor is not safe code: writing one takes
//! `#[link_section]` or `#[no_mangle]`, which the `unsafe_code` lint counts as unsafe.
//!
//! A variable of this crate (`CUDA_DRIVER_TABLE_CUDART`, `CUDA_DRIVER_TABLE_LIBCUDA`) changed
//! after the start is refused at the search with an error saying so ([`changed_after_start`]),
//! rather than silently ignored; the others (`CUDA_PATH`, `LD_LIBRARY_PATH`, ...) are used as
//! they were at the start, as the loader uses `LD_LIBRARY_PATH`. On a system without such a
//! section no variable is read, and one of this crate's that is set is refused with why.

use std::ffi::OsString;
use std::sync::OnceLock;

use crate::backend::{ENV_CUDART, ENV_LIBCUDA};

/// Every variable the search reads: this crate's two, the toolkit's and the Python
/// environment's folders, and the loader's path (a test checks that the search reads no other).
pub(crate) const VARIABLES: &[&str] = &[
    ENV_CUDART,
    ENV_LIBCUDA,
    "CUDA_PATH",
    "CUDA_HOME",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "LD_LIBRARY_PATH",
];

/// Whether this system runs [`BEFORE_MAIN`] before `main`.
pub(crate) const READ_BEFORE_MAIN: bool = cfg!(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    target_os = "illumos",
    target_os = "solaris",
    windows,
    target_vendor = "apple",
));

/// The values of [`VARIABLES`] at the start, in their order.
static AT_START: OnceLock<Vec<Option<OsString>>> = OnceLock::new();

/// The constructor: the start-up code calls it before `main`.
// SAFETY: each section holds pointers to functions the start-up code calls with no arguments the
// function reads (ELF passes argc, argv and envp, which an `extern "C" fn()` ignores), before
// `main`, on the main thread. `read_at_start` reads the environment, allocates and never panics
// nor unwinds; it needs nothing of `main`'s set-up.
#[used]
#[cfg_attr(
    any(
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd",
        target_os = "dragonfly",
        target_os = "illumos",
        target_os = "solaris",
    ),
    unsafe(link_section = ".init_array")
)]
#[cfg_attr(windows, unsafe(link_section = ".CRT$XCU"))]
#[cfg_attr(
    target_vendor = "apple",
    unsafe(link_section = "__DATA,__mod_init_func")
)]
static BEFORE_MAIN: extern "C" fn() = read_at_start;

extern "C" fn read_at_start() {
    let _ = AT_START.set(read_now());
}

/// The values of [`VARIABLES`] now.
fn read_now() -> Vec<Option<OsString>> {
    VARIABLES.iter().map(std::env::var_os).collect()
}

/// The values at the start, or `None` where nothing was read before `main`.
fn at_start_all() -> Option<&'static [Option<OsString>]> {
    // Names the constructor, so that the linker keeps the object it is in.
    std::hint::black_box(&BEFORE_MAIN);
    AT_START.get().map(Vec::as_slice)
}

/// The value `var` (one of [`VARIABLES`]) had when the program started; `None` when it was unset,
/// is not one of them, or the system reads nothing before `main`.
pub(crate) fn at_start(var: &str) -> Option<OsString> {
    let i = VARIABLES.iter().position(|v| *v == var)?;
    at_start_all()?.get(i)?.clone()
}

/// The value `var` has now (for [`changed_after_start`] only: never used to load).
pub(crate) fn now(var: &str) -> Option<OsString> {
    std::env::var_os(var)
}

/// Why this crate's variable `var` cannot be used, when its value `now` differs from its value
/// at the start (`start`; `read_before_main` false: nothing was read): the path to report and the
/// reason. `None` when it did not change.
pub(crate) fn changed_after_start(
    var: &str,
    start: Option<OsString>,
    now: Option<OsString>,
    read_before_main: bool,
) -> Option<(OsString, String)> {
    // Empty is unset, to the search.
    let start = start.filter(|v| !v.is_empty());
    let now = now.filter(|v| !v.is_empty());
    if !read_before_main {
        let now = now?;
        return Some((
            now,
            format!(
                "not used: on this system the crate cannot read ${var} before main, and a value \
                 read later could have been set by the program itself; name the library in code \
                 with Config::library instead"
            ),
        ));
    }
    if start == now {
        return None;
    }
    let was = match &start {
        Some(v) => format!(
            "it was {} when the program started",
            crate::error::quoted(v)
        ),
        None => "it was unset when the program started".to_owned(),
    };
    let why = format!(
        "changed after the program started ({was}): not used, since ${var} is read once, before \
         main, so that no code of the program can choose the library; set it before the program \
         starts"
    );
    Some((now.or(start).unwrap_or_default(), why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Os, DRIVER, RUNTIME};

    #[test]
    fn the_values_are_those_the_program_started_with() {
        const { assert!(READ_BEFORE_MAIN) };
        assert!(at_start_all().is_some(), "the constructor did not run");
        // Nothing in this test binary changes its environment.
        for var in VARIABLES {
            assert_eq!(at_start(var), std::env::var_os(var), "{var}");
        }
        assert_eq!(at_start("PATH"), None, "not a variable of the search");
    }

    #[test]
    fn the_search_reads_no_other_variable() {
        let read = std::sync::Mutex::new(Vec::new());
        let env = |var: &str| {
            read.lock().unwrap().push(var.to_owned());
            // Set, absolute and relative, so that every branch reads what it would.
            match var {
                "LD_LIBRARY_PATH" => Some(OsString::from("/opt/lib::lib")),
                _ => None,
            }
        };
        for os in [Os::Unix, Os::Windows] {
            for built_in in [&RUNTIME, &DRIVER] {
                let _ = super::super::plan(built_in, os, &env);
            }
            for var in ["CUDA_PATH", "CUDA_HOME", "VIRTUAL_ENV", "CONDA_PREFIX"] {
                let with = |v: &str| {
                    read.lock().unwrap().push(v.to_owned());
                    (v == var).then(|| OsString::from("/opt/x"))
                };
                let _ = super::super::plan(&RUNTIME, os, &with);
            }
        }
        let read = read.into_inner().unwrap();
        assert!(read.iter().any(|v| v == "CUDA_PATH"), "{read:?}");
        for var in &read {
            assert!(VARIABLES.contains(&var.as_str()), "the search reads ${var}");
        }
    }

    #[test]
    fn a_variable_changed_after_the_start_is_refused_saying_so() {
        let v = |s: &str| Some(OsString::from(s));
        assert_eq!(
            changed_after_start(ENV_CUDART, v("/a.so"), v("/a.so"), true),
            None
        );
        assert_eq!(changed_after_start(ENV_CUDART, None, None, true), None);
        // Empty is unset.
        assert_eq!(changed_after_start(ENV_CUDART, None, v(""), true), None);
        assert_eq!(
            changed_after_start(ENV_CUDART, None, v("/planted.so"), true),
            Some((
                "/planted.so".into(),
                "changed after the program started (it was unset when the program started): not \
                 used, since $CUDA_DRIVER_TABLE_CUDART is read once, before main, so that no code \
                 of the program can choose the library; set it before the program starts"
                    .into()
            ))
        );
        let (path, why) =
            changed_after_start(ENV_LIBCUDA, v("/a/libcuda.so.1"), v("/b.so"), true).unwrap();
        assert_eq!(path, "/b.so");
        assert!(
            why.starts_with(
                "changed after the program started (it was \"/a/libcuda.so.1\" when the program \
                 started)"
            ),
            "{why}"
        );
        // Unset after the start: the value that was there is reported.
        let (path, _) = changed_after_start(ENV_LIBCUDA, v("/a.so"), None, true).unwrap();
        assert_eq!(path, "/a.so");
        // A system that reads nothing before `main` refuses any value.
        assert_eq!(changed_after_start(ENV_CUDART, None, None, false), None);
        let (path, why) = changed_after_start(ENV_CUDART, None, v("/x.so"), false).unwrap();
        assert_eq!(path, "/x.so");
        assert!(
            why.contains("cannot read $CUDA_DRIVER_TABLE_CUDART before main"),
            "{why}"
        );
    }
}
