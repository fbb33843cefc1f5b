//! The library variables as the program was started with them, whatever another constructor does
//! before this crate's (Linux, where `/proc/self/environ` holds them). A constructor of this test
//! program, in a section that runs before the crate's own (`.init_array.00200` comes before
//! `.init_array`), either sets `CUDA_DRIVER_TABLE_CUDART`, as a dependency's `#[ctor]` could, or
//! uses a table. Each case runs in a child process started with the environment it needs; the
//! constructor acts only there. CPU only; the second case builds a stand-in libcuda with `cc`.
#![cfg(target_os = "linux")]

use cuda_driver_table::{driver_table, ENV_CUDART, ENV_LIBCUDA};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

#[driver_table(cuInit, driver = newest)]
struct Cuda;

#[driver_table(cuDriverGetVersion, driver = newest, backend = driver)]
struct Driver;

/// What the child's constructor does: [`PLANT`] or [`USE`].
const CHILD_VAR: &str = "CUDA_DRIVER_TABLE_TEST_CONSTRUCTOR";
const PLANT: &str = "plant";
const USE: &str = "use";

/// The library the constructor names: any library loaded from it would be the program's choice.
const PLANTED: &str = "/nonexistent/planted/libcudart.so.13";

/// What the table used in the constructor answered.
static IN_THE_CONSTRUCTOR: OnceLock<String> = OnceLock::new();

// SAFETY: `.init_array.*` holds functions the start-up code calls before `main` with argc, argv and
// envp, which an `extern "C" fn()` ignores. `before_the_crate` reads and sets the environment
// (single-threaded: no other thread exists yet) and calls a table, whose errors are values; it
// catches any panic, so nothing unwinds out of it.
#[used]
#[unsafe(link_section = ".init_array.00200")]
static BEFORE_THE_CRATE: extern "C" fn() = before_the_crate;

extern "C" fn before_the_crate() {
    let _ = std::panic::catch_unwind(|| match std::env::var(CHILD_VAR).as_deref() {
        Ok(PLANT) => std::env::set_var(ENV_CUDART, PLANTED),
        Ok(USE) => {
            let _ = IN_THE_CONSTRUCTOR.set(driver_version());
        }
        _ => {}
    });
}

/// `cuDriverGetVersion` through the driver backend: the version, or the error.
fn driver_version() -> String {
    let mut version = 0;
    // SAFETY: `version` is a valid out-parameter.
    match unsafe { Driver::new().cuDriverGetVersion(&mut version) } {
        Ok(()) => format!("version {version}"),
        Err(e) => format!("error: {e}"),
    }
}

/// Runs test `test` of this program in a child process whose constructor does `what`, with
/// neither library variable set but those `configure` sets; returns what it printed after
/// `RESULT: ` (and the test harness's lines after it).
fn run_child(test: &str, what: &str, configure: impl FnOnce(&mut Command)) -> String {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, what)
        .env_remove(ENV_CUDART)
        .env_remove(ENV_LIBCUDA);
    configure(&mut child);
    let out = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, result) = stdout
        .split_once("RESULT: ")
        .unwrap_or_else(|| panic!("the child printed no result: {stdout}"));
    result.to_owned()
}

#[test]
fn a_library_variable_set_by_an_earlier_constructor_is_refused() {
    if std::env::var(CHILD_VAR).as_deref() == Ok(PLANT) {
        assert_eq!(std::env::var(ENV_CUDART).as_deref(), Ok(PLANTED));
        match Cuda::new().pfn_cuInit() {
            Ok(_) => println!("RESULT: loaded"),
            Err(e) => println!("RESULT: {e}"),
        }
        return;
    }
    let result = run_child(
        "a_library_variable_set_by_an_earlier_constructor_is_refused",
        PLANT,
        |_| {},
    );
    let expected = format!(
        "could not load the CUDA runtime library (libcudart); tried:\n  \"{PLANTED}\" (from \
         ${ENV_CUDART}): changed after the program started (it was unset when the program \
         started): not used"
    );
    assert!(result.starts_with(&expected), "{result}");
}

/// A stand-in `libcuda.so.1`: `cuGetProcAddress_v2` hands out `cuDriverGetVersion` (which says
/// 12345) at any version from 2020, the rest is "not found".
const STAND_IN_LIBCUDA_C: &str = r#"
#include <string.h>
static int driver_get_version(int *v) { *v = 12345; return 0; }
int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags,
                        int *status) {
    (void)flags;
    if (strcmp(symbol, "cuDriverGetVersion") == 0 && version >= 2020) {
        *pfn = (void *)driver_get_version;
        if (status) *status = 0;
    } else {
        *pfn = 0;
        if (status) *status = 1;
    }
    return 0;
}
"#;

#[test]
fn a_table_used_in_an_earlier_constructor_works_with_the_start_values() {
    if std::env::var(CHILD_VAR).as_deref() == Ok(USE) {
        let early = IN_THE_CONSTRUCTOR.get().expect("the constructor ran");
        println!("RESULT: {early} / in main: {}", driver_version());
        return;
    }
    let dir = std::env::temp_dir().join(format!("cdt-constructor-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("stand_in.c"), STAND_IN_LIBCUDA_C).unwrap();
    let library: PathBuf = dir.join("libcuda.so.1");
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg(dir.join("stand_in.c"))
        .status();
    if !built.is_ok_and(|s| s.success()) {
        eprintln!("no C compiler (cc) here: the constructor test is skipped");
        return;
    }
    let result = run_child(
        "a_table_used_in_an_earlier_constructor_works_with_the_start_values",
        USE,
        |child| {
            child.env(ENV_LIBCUDA, &library);
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
    // Resolved in the constructor through the library the program was started with, and the
    // outcome kept: main's call gets the same.
    assert_eq!(
        result.lines().next(),
        Some("version 12345 / in main: version 12345"),
        "{result}"
    );
}
