//! The environment the library search reads: the values its variables had when the program
//! started, as the system loader reads `LD_LIBRARY_PATH`.
//!
//! Why the start: the environment chooses which library is loaded, and a loaded library's exports
//! are then called through CUDA's signatures, so choosing it must not be open to safe code.
//! Before edition 2024, `std::env::set_var` is safe; a program could set
//! `CUDA_DRIVER_TABLE_CUDART` in `main`, or a dependency in a constructor it declares safely
//! (`#[ctor]` of the `ctor` crate before 0.3 takes a safe `fn`), and then make a safe call load
//! the library it names. The values the program was started with are chosen by whoever started
//! it, as `LD_LIBRARY_PATH` is.
//!
//! Where they come from:
//!
//! - On Linux and Android, `/proc/self/environ`: the environment block the kernel handed the
//!   process, which `setenv` never writes to. It is read when the search first needs it,
//!   whatever ran before (a constructor, a plug-in's registration, `main`), so no code of the
//!   program, however early, can choose a value. Not in secure-execution mode (a set-user-ID
//!   program): there the C library removes `LD_LIBRARY_PATH` before any constructor, as the
//!   loader ignores it, and the snapshot below holds what it left.
//! - Elsewhere (and where `/proc` cannot be read), a snapshot of the environment taken once, by a
//!   constructor: a function pointer in the section the platform's start-up code calls before
//!   `main` (`.init_array` on ELF systems, `.CRT$XCU` on Windows, `__mod_init_func` on Apple
//!   systems), or, for a library loaded later (a Python extension), when that library is
//!   loaded, before any of its code runs. No safe code runs before `main`, but other
//!   constructors do, in an order the linker chooses: one that runs earlier and sets a variable
//!   sets its value "at the start" there. A table used before the snapshot (from such a
//!   constructor) takes the snapshot then, so that it works with the values as they are.
//!
//! A variable of this crate (`CUDA_DRIVER_TABLE_CUDART`, `CUDA_DRIVER_TABLE_LIBCUDA`) changed
//! after the start is refused at the search with an error saying so ([`changed_after_start`]),
//! rather than silently ignored; the others (`CUDA_PATH`, `LD_LIBRARY_PATH`, ...) are used as
//! they were at the start, as the loader uses `LD_LIBRARY_PATH`. On a system that has neither
//! `/proc` nor such a section no variable is read, and one of this crate's that is set is refused
//! with why.

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

/// Whether this system runs [`BEFORE_MAIN`] before `main` (Linux has `/proc` as well).
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

/// The snapshot of [`VARIABLES`], in their order: taken by the constructor, or by the first
/// search if one runs before it.
static SNAPSHOT: OnceLock<Vec<Option<OsString>>> = OnceLock::new();

/// The constructor: the start-up code calls it before `main`.
// SAFETY: each section holds pointers to functions the start-up code calls with no arguments the
// function reads (ELF passes argc, argv and envp, which an `extern "C" fn()` ignores), before
// `main`, on the main thread. `take_snapshot` reads the environment, allocates and never panics
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
static BEFORE_MAIN: extern "C" fn() = take_snapshot;

extern "C" fn take_snapshot() {
    snapshot();
}

/// The snapshot, taken now if nothing took it yet (a search that runs in another constructor,
/// before [`BEFORE_MAIN`]).
fn snapshot() -> &'static [Option<OsString>] {
    SNAPSHOT.get_or_init(read_now)
}

/// The values of [`VARIABLES`] now.
fn read_now() -> Vec<Option<OsString>> {
    VARIABLES.iter().map(std::env::var_os).collect()
}

/// The file that holds the environment block the kernel handed the process.
#[cfg(all(any(target_os = "linux", target_os = "android"), not(miri)))]
const PROC_ENVIRON: &str = "/proc/self/environ";

/// The values of [`VARIABLES`] in the process's first environment block (`/proc/self/environ`),
/// read once; `None` where it cannot be read. Not under Miri, whose `/proc` is the interpreter's:
/// the snapshot is what is checked there.
fn from_proc() -> Option<&'static [Option<OsString>]> {
    #[cfg(all(any(target_os = "linux", target_os = "android"), not(miri)))]
    {
        static FROM_PROC: OnceLock<Option<Vec<Option<OsString>>>> = OnceLock::new();
        FROM_PROC
            .get_or_init(|| {
                if secure_execution() {
                    return None;
                }
                read_whole(PROC_ENVIRON)
                    .ok()
                    .map(|block| values_in_block(&block))
            })
            .as_deref()
    }
    #[cfg(not(all(any(target_os = "linux", target_os = "android"), not(miri))))]
    None
}

/// A file of `/proc`, read in one go: `/proc` files say their size is 0, so `fs::read` would
/// start with a small buffer and read a few bytes a call (each call of `/proc/self/environ`
/// copies from the process's memory again, and this runs in every program's first call).
#[cfg(all(any(target_os = "linux", target_os = "android"), not(miri)))]
fn read_whole(path: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(64 * 1024);
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether the process runs in secure-execution mode (a set-user-ID or set-group-ID program, or
/// one with file capabilities), where the loader ignores `LD_LIBRARY_PATH` and the C library
/// removes it from the environment before any constructor runs: `/proc/self/environ` still holds
/// it, so the snapshot is used instead. Read off the auxiliary vector's `AT_SECURE`, which the
/// kernel always gives.
#[cfg(all(any(target_os = "linux", target_os = "android"), not(miri)))]
fn secure_execution() -> bool {
    use std::ffi::c_ulong;
    extern "C" {
        // glibc 2.16, musl and bionic (Android API 18) have it.
        fn getauxval(kind: c_ulong) -> c_ulong;
    }
    const AT_SECURE: c_ulong = 23;
    // SAFETY: `getauxval` reads the auxiliary vector the kernel gave the process, for any key; it
    // answers 0 for a key that is not there.
    unsafe { getauxval(AT_SECURE) != 0 }
}

/// The values of [`VARIABLES`] in an environment block: `NAME=value` entries, each ended by a NUL.
/// The first entry of a name counts, as `getenv` reads it; an entry without `=` names nothing.
#[cfg(any(target_os = "linux", target_os = "android"))]
// Under Miri only its unit test reads a block.
#[cfg_attr(miri, allow(dead_code))]
fn values_in_block(block: &[u8]) -> Vec<Option<OsString>> {
    use std::os::unix::ffi::OsStrExt;
    let mut values = vec![None; VARIABLES.len()];
    for entry in block.split(|&b| b == 0) {
        let Some(eq) = entry.iter().position(|&b| b == b'=') else {
            continue;
        };
        let (name, value) = (&entry[..eq], &entry[eq + 1..]);
        if let Some(i) = VARIABLES.iter().position(|v| v.as_bytes() == name) {
            values[i].get_or_insert_with(|| std::ffi::OsStr::from_bytes(value).to_owned());
        }
    }
    values
}

/// The values at the start: `/proc`'s where it can be read, else the snapshot; `None` where the
/// system has neither.
fn at_start_all() -> Option<&'static [Option<OsString>]> {
    // Names the constructor, so that the linker keeps the object it is in.
    std::hint::black_box(&BEFORE_MAIN);
    if let Some(values) = from_proc() {
        return Some(values);
    }
    READ_BEFORE_MAIN.then(snapshot)
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
        "changed after the program started ({was}): not used, since ${var} counts as the program \
         was started with it, so that no code of the program can choose the library; set it \
         before the program starts"
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
        assert!(SNAPSHOT.get().is_some(), "the constructor did not run");
        #[cfg(all(target_os = "linux", not(miri)))]
        assert!(from_proc().is_some(), "{PROC_ENVIRON} was not read");
        // Nothing in this test binary changes its environment.
        for var in VARIABLES {
            assert_eq!(at_start(var), std::env::var_os(var), "{var}");
        }
        assert_eq!(at_start("PATH"), None, "not a variable of the search");
    }

    #[test]
    #[cfg(all(any(target_os = "linux", target_os = "android"), not(miri)))]
    fn this_test_program_is_not_in_secure_execution_mode_and_proc_reads_whole() {
        // No set-user-ID program: the start values come from `/proc`.
        assert!(!secure_execution());
        // A `/proc` file read in one go is the same as one read a few bytes at a time.
        assert_eq!(
            read_whole(PROC_ENVIRON).expect("readable"),
            std::fs::read(PROC_ENVIRON).expect("readable")
        );
    }

    #[test]
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn an_environment_block_is_read_as_getenv_reads_it() {
        use std::os::unix::ffi::OsStrExt;
        let block = b"PATH=/bin\0CUDA_PATH=/opt/cuda\0CUDA_PATH=/second\0CUDA_HOME\0\
                      LD_LIBRARY_PATH=a=b:\xFF\0CONDA_PREFIX=\0=VIRTUAL_ENV\0CUDA_DRIVER_TABLE_CUDART";
        let values = values_in_block(block);
        let value = |var: &str| values[VARIABLES.iter().position(|v| *v == var).unwrap()].clone();
        // The first entry of a name, as getenv; an entry without `=` names nothing.
        assert_eq!(value("CUDA_PATH"), Some("/opt/cuda".into()));
        assert_eq!(value("CUDA_HOME"), None);
        assert_eq!(value(ENV_CUDART), None);
        assert_eq!(value("VIRTUAL_ENV"), None);
        // Empty is a value here (the search reads it as unset); the value is everything after
        // the first `=`, bytes that are not UTF-8 included.
        assert_eq!(value("CONDA_PREFIX"), Some(OsString::new()));
        assert_eq!(
            value("LD_LIBRARY_PATH"),
            Some(std::ffi::OsStr::from_bytes(b"a=b:\xFF").to_owned()),
            "{values:?}"
        );
        assert_eq!(value(ENV_LIBCUDA), None);
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
                 used, since $CUDA_DRIVER_TABLE_CUDART counts as the program was started with \
                 it, so that no code of the program can choose the library; set it before the \
                 program starts"
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
