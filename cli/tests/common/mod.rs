//! What the tool's tests share.

use std::path::PathBuf;

/// The example program `recorded` (`cli/examples/recorded.rs`), which `cargo test` builds with
/// the package's tests, beside them in the target folder.
pub fn recorded() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    // target/<profile>/deps/<test> -> target/<profile>/examples/recorded
    let path = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| {
            profile
                .join("examples")
                .join(format!("recorded{}", std::env::consts::EXE_SUFFIX))
        })
        .expect("the target folder");
    assert!(
        path.exists(),
        "{} is missing: run the tests with `cargo test -p cuda-driver-table-cli` (which builds the \
         examples) or build it with `cargo build -p cuda-driver-table-cli --example recorded`",
        path.display()
    );
    path
}
