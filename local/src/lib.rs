//! The CUDA toolkit on the build machine, for the `cuda-local` feature of `cuda-driver-table`: its
//! build script generates, once, what the three crates of `cuda-driver-table` would otherwise take
//! from a pinned release, and each takes its part from here, with no build script of its own.
//!
//! - `cuda-driver-table-sys` invokes `bindings!`: the bindings, as items of the calling crate.
//! - `cuda-driver-table-macros` reads `RECORDS` and `DOCS`: the function manifest, in the
//!   format of the committed `manifest.txt` and `docs.txt` (of this one release).
//! - `cuda-driver-table` invokes `abis!`: the ABI list of its `manifest` module.
//!
//! A macro carries the Rust items, not a module of this crate, so that they are the calling
//! crate's own, exactly as a pinned release's are. Without this crate's `cuda-local` feature
//! (which the three enable with theirs) it is empty. Not for direct use.

#![no_std]

#[cfg(feature = "cuda-local")]
include!(concat!(env!("OUT_DIR"), "/release.rs"));

/// The function records of the local release (the macro's `manifest.txt` format).
#[cfg(feature = "cuda-local")]
pub const RECORDS: &str = include_str!(concat!(env!("OUT_DIR"), "/manifest.txt"));

/// The doc texts `RECORDS` points into (the macro's `docs.txt` format).
#[cfg(feature = "cuda-local")]
pub const DOCS: &str = include_str!(concat!(env!("OUT_DIR"), "/docs.txt"));

#[cfg(feature = "cuda-local")]
include!(concat!(env!("OUT_DIR"), "/bindings.rs"));

#[cfg(feature = "cuda-local")]
include!(concat!(env!("OUT_DIR"), "/abis.rs"));
