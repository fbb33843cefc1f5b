//! Facts the generator states that live elsewhere too: each must agree with its other home.

use cuda_driver_table_codegen::parse::BINDGEN_VERSION;

fn workspace_file(name: &str) -> String {
    let path = cuda_driver_table_codegen::workspace_root().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The generated headers name `BINDGEN_VERSION`; the build uses the pin in Cargo.toml and the
/// version in Cargo.lock. A bump of one without the others fails here.
#[test]
fn bindgen_version_matches_the_pin_and_the_lock_file() {
    let toml = workspace_file("Cargo.toml");
    let pin = toml
        .lines()
        .find(|l| l.trim_start().starts_with("bindgen ="))
        .expect("Cargo.toml pins bindgen");
    assert!(
        pin.contains(&format!("version = \"={BINDGEN_VERSION}\"")),
        "Cargo.toml pins `{pin}`, the generator says {BINDGEN_VERSION}"
    );
    let lock = workspace_file("Cargo.lock");
    let locked: Vec<&str> = lock
        .split("[[package]]")
        .filter(|p| p.contains("\nname = \"bindgen\"\n"))
        .filter_map(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .collect();
    assert_eq!(locked, [format!("\"{BINDGEN_VERSION}\"")]);
}
