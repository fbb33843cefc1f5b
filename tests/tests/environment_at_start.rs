//! The library a program loads is chosen by the environment it was started with, never by one its
//! own safe code sets later: this file has no `unsafe`, and in edition 2021 `std::env::set_var`
//! is safe. A child process of this test sets `CUDA_DRIVER_TABLE_CUDART` in its `main` (here: the
//! test function) and then calls a safe accessor; the search refuses the value, saying why, and
//! loads nothing from it. CPU only.
#![forbid(unsafe_code)]

use cuda_driver_table::{driver_table, ENV_CUDART, ENV_LIBCUDA};
use std::process::Command;

#[driver_table(cuInit, driver = newest)]
struct Cuda;

/// Set in the child's environment by its parent.
const CHILD_VAR: &str = "CUDA_DRIVER_TABLE_TEST_SET_VAR_CHILD";

/// A library path set after the start: any loaded library of that name would be the program's
/// choice.
const PLANTED: &str = "/nonexistent/planted/libcudart.so.13";

#[test]
fn a_library_variable_set_after_the_start_is_not_used() {
    if std::env::var_os(CHILD_VAR).is_some() {
        std::env::set_var(ENV_CUDART, PLANTED);
        match Cuda::new().pfn_cuInit() {
            Ok(_) => println!("RESULT: loaded"),
            Err(e) => println!("RESULT: {e}"),
        }
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_library_variable_set_after_the_start_is_not_used",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_VAR, "1")
        .env_remove(ENV_CUDART)
        .env_remove(ENV_LIBCUDA)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, result) = stdout
        .split_once("RESULT: ")
        .unwrap_or_else(|| panic!("the child printed no result: {stdout}"));
    let expected = format!(
        "could not load the CUDA runtime library (libcudart); tried:\n  \"{PLANTED}\" (from \
         ${ENV_CUDART}): changed after the program started (it was unset when the program \
         started): not used, since ${ENV_CUDART} counts as the program was started with it, so \
         that no code of the program can choose the library; set it before the program starts"
    );
    assert!(result.starts_with(&expected), "{stdout}");
}
