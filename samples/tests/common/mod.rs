//! What the samples' tests share: where the sample programs are.

use std::path::{Path, PathBuf};

/// The program of the sample `name`: from the folder of the package's binaries. Cargo builds
/// every binary of a package before it runs the package's integration tests, all into one folder
/// (`target/<profile>/`, or `target/<triple>/<profile>/` when cross-compiling), and names each to
/// the test at compile time as `CARGO_BIN_EXE_<name>`; one sample anchors that folder, the others
/// lie beside it. Staged by `cargo gpu-stage samples` and run on another machine, where that
/// folder is not, every program lies beside the test binary itself.
pub fn program(name: &str) -> PathBuf {
    let anchor = Path::new(env!("CARGO_BIN_EXE_vectorAddDrv"));
    let folder = match anchor.parent() {
        Some(dir) if anchor.is_file() => dir.to_owned(),
        _ => std::env::current_exe()
            .expect("the test knows its own path")
            .parent()
            .expect("the test binary lies in a folder")
            .to_owned(),
    };
    let exe = folder.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        exe.is_file(),
        "{} is missing: cargo builds every binary of the package before its integration tests \
         (staged, `cargo gpu-stage samples` lays them beside the tests)",
        exe.display()
    );
    exe
}
