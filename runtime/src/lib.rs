// The front page is the README (the guide for users; the same text crates.io shows). Its links
// are absolute docs.rs addresses, for crates.io; the definitions below come first, so rustdoc
// takes these intra-doc links instead (the first definition of a name wins), which stay within
// the documentation being read.
//! [Error]: crate::Error
//! [Error::kind]: crate::Error::kind
//! [Config]: crate::Config
//! [Config::new]: crate::Config::new
//! [Config::driver]: crate::Config::driver
//! [Config::runtime]: crate::Config::runtime
//! [Config::library]: crate::Config::library
//! [kernel_args]: crate::kernel_args!
//! [sys]: crate::sys
//! [ptx]: crate::ptx::driver_for_isa
//! [guide-tables]: crate::guide::tables
//! [guide-loading]: crate::guide::loading
//! [guide-tracing]: crate::guide::call_tracing
//! [guide-local]: crate::guide::local_toolkit
//! [from-cudarc]: crate::guide::from_cudarc
//! [guide-owning]: crate::guide::owning
#![cfg_attr(feature = "fake", doc = "[fake-module]: crate::fake")]
// The definitions above are explicit on purpose, even where the name alone resolves: they must
// come before the README's own definitions (absolute addresses) to win.
#![allow(rustdoc::redundant_explicit_links)]
#![cfg_attr(
    feature = "fake",
    doc = "[guide-testing]: crate::guide::testing_without_a_gpu"
)]
#![doc = ""]
#![doc = include_str!("../README.md")]
// docs.rs (`--cfg docsrs`, nightly) shows each feature-gated item with its feature: `fake`.
#![cfg_attr(docsrs, feature(doc_cfg))]

// Everything but the attribute and the guide is the code of `cuda-driver-table-core`, a crate of
// its own so that a clean build compiles it side by side with the attribute's crate (which it
// does not need) instead of after it; this crate only puts the two together.
#[doc(inline)]
pub use cuda_driver_table_core::*;
pub use cuda_driver_table_macros::driver_table;

/// A fake driver and a fake device for tests without a GPU (the `fake` feature, meant for
/// `[dev-dependencies]`): a table configured with one calls Rust closures instead of driver
/// functions. A [`Device`](fake::Device) is a whole GPU of them, checked as compute-sanitizer
/// checks a real one (its page lists the functions and the checks); a [`Fake`](fake::Fake) fakes
/// single functions with closures and injects faults in front of the device;
/// [`Profile`](fake::Profile) makes a device imitate a machine users deploy to. The guide's
/// page [Testing without a GPU](crate::guide::testing_without_a_gpu) has the whole pattern, and
/// the `cuda-driver-table-fake` crate's front page, which this module re-exports, every detail.
#[cfg(feature = "fake")]
#[cfg_attr(docsrs, doc(cfg(feature = "fake")))]
pub mod fake {
    #[doc(inline)]
    pub use cuda_driver_table_fake::*;
}
#[cfg(feature = "fake")]
#[doc(hidden)]
pub use cuda_driver_table_fake::fake_function;

pub mod guide;
