//! Compile-fail tests of the fake driver (`--features fake`): one file per mistake in
//! `tests/ui_fake/`, each with the compiler output it must produce in the `.stderr` next to it.
//!
//! Re-bless after a deliberate change to a message:
//! `TRYBUILD=overwrite cargo test -p cuda-driver-table-tests --features fake --test ui_fake`,
//! then read the diff.
#![cfg(feature = "fake")]

#[test]
fn ui_fake() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_fake/*.rs");
}
