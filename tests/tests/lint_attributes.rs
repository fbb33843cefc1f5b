//! Lint attributes on a table's struct, and a crate that denies every warning, reach none of the
//! generated code: `#[deprecated]`, `#[deny(unsafe_code)]`, `unreachable_pub` and clippy's
//! restriction lints on the struct give no error and no warning, on a small table and on an
//! `all` table. `cargo test` checks rustc's lints; the test command's
//! `cargo clippy --workspace --all-targets -- -D warnings` checks clippy's.

#![deny(warnings, unreachable_pub, missing_docs)]

/// The tables, in a private module: `pub` items here are unreachable from the crate root.
mod tables {
    use cuda_driver_table::driver_table;

    /// A deprecated table that denies unsafe code and unreachable `pub` items on itself.
    #[driver_table(cuInit, cuMemAlloc, cuCtxCreate = 3020, cuLaunchKernel, driver = newest)]
    #[deprecated = "use `Every`"]
    #[deny(unsafe_code, unreachable_pub, missing_docs, non_snake_case)]
    #[derive(Debug)]
    pub(crate) struct Old;

    /// Every function, under clippy's restriction group and `unsafe_code` denied.
    #[driver_table(all, driver = newest)]
    #[deprecated]
    #[deny(unsafe_code, clippy::restriction, clippy::pedantic, clippy::nursery)]
    #[expect(
        clippy::blanket_clippy_restriction_lints,
        reason = "every lint, on purpose"
    )]
    pub(crate) struct Every;

    /// A private table with the same attributes.
    #[driver_table(cuInit, per_thread, driver = newest)]
    #[deny(unsafe_code, unreachable_pub, clippy::restriction)]
    #[expect(
        clippy::blanket_clippy_restriction_lints,
        reason = "every lint, on purpose"
    )]
    struct Private;

    #[allow(
        deprecated,
        reason = "the tables are deprecated to check their expansion"
    )]
    pub(crate) fn lengths() -> [usize; 3] {
        [
            Old::FUNCTIONS.len(),
            Every::FUNCTIONS.len(),
            Private::FUNCTIONS.len(),
        ]
    }
}

#[test]
fn the_tables_are_there() {
    let [old, every, private] = tables::lengths();
    assert_eq!((old, private), (4, 1));
    assert!(every > 400);
}
