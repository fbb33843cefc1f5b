//! Compile-fail tests of `#[driver_table]`: one file per mistake in `tests/ui/`, each with the
//! compiler output it must produce in the `.stderr` next to it. CPU only.
//!
//! Re-bless after a deliberate change to a message:
//! `TRYBUILD=overwrite cargo test -p cuda-driver-table-tests --test ui`, then read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
