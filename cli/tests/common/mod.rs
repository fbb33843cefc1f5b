//! What the tool's tests share.

use std::path::PathBuf;

/// The example program `recorded` (`cli/examples/recorded.rs`), which `cargo test` builds with
/// the package's tests, beside them in the target folder.
pub fn recorded() -> PathBuf {
    example("recorded")
}

/// The example program `name` (`cli/examples/NAME.rs`), built beside the tests (see
/// [`recorded`]).
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    // target/<profile>/deps/<test> -> target/<profile>/examples/recorded
    let path = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| {
            profile
                .join("examples")
                .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
        })
        .expect("the target folder");
    assert!(
        path.exists(),
        "{} is missing: run the tests with `cargo test -p cuda-driver-table-cli` (which builds the \
         examples) or build it with `cargo build -p cuda-driver-table-cli --example {name}`",
        path.display()
    );
    path
}
