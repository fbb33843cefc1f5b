//! Copies the code block of the README's "Testing without a GPU" into `OUT_DIR`, where
//! `tests/readme.rs` includes it: the README's example is compiled and run as a test as it
//! stands there.

use std::path::Path;

const SECTION: &str = "### Testing without a GPU";

fn main() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    println!("cargo::rerun-if-changed={}", readme.display());
    let text = std::fs::read_to_string(&readme)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", readme.display()));
    let code = example(&text).unwrap_or_else(|| {
        panic!(
            "{} has no section `{SECTION}` with a ```rust block: the test of its example needs one",
            readme.display()
        )
    });
    let out = Path::new(&std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("readme_testing_without_a_gpu.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}

/// The first ```rust block after the section's heading, before the next heading.
fn example(readme: &str) -> Option<String> {
    let mut lines = readme.lines().skip_while(|l| *l != SECTION).skip(1);
    lines
        .by_ref()
        .take_while(|l| !l.starts_with('#'))
        .find(|l| *l == "```rust")?;
    let code: Vec<&str> = lines.take_while(|l| *l != "```").collect();
    Some(code.join("\n") + "\n")
}
