//! The user guide beyond the crate's front page, one page per topic. Nothing here is code.
//!
//! - [`tables`]: what a table is, which ABI each function gets, the driver a table needs,
//!   per-thread default streams, renamed dependencies and your own macros.
//! - [`loading`]: the two backends, where libraries are searched (Linux and Windows), your own
//!   resolver.
//! - [`owning`]: freeing driver objects on every path, with drop guards, and a library's own
//!   `Drop` types.
//! - [`libraries`]: a library's table handed to the application, its doc tests on the fake
//!   device, and who owns the context.
//! - [`call_tracing`]: the `tracing` feature's events.
//! - [`local_toolkit`]: the bindings of the build machine's CUDA toolkit (`cuda-local`).
//! - [`from_cudarc`]: cudarc's API side by side with this crate's, and a function translated.
//! - [Testing without a GPU][guide-testing]: the fake device, with code over `&Cuda`, a device
//!   per test, kernels as closures and the leak check (the `fake` feature).
//!
//! The fake driver for tests without a GPU is documented in its module, [`fake`][fake-module]
//! (the `fake` feature).
//!
#![cfg_attr(feature = "fake", doc = "[fake-module]: crate::fake")]
#![cfg_attr(
    not(feature = "fake"),
    doc = "[fake-module]: https://docs.rs/cuda-driver-table/latest/cuda_driver_table/fake/index.html"
)]
#![cfg_attr(
    feature = "fake",
    doc = "[guide-testing]: crate::guide::testing_without_a_gpu"
)]
#![cfg_attr(
    not(feature = "fake"),
    doc = "[guide-testing]: https://docs.rs/cuda-driver-table/latest/cuda_driver_table/guide/testing_without_a_gpu/index.html"
)]

// Each page links the `fake` module by the reference `[fake-module]`, defined below for it: an
// intra-doc link where the module is built, docs.rs's page of it where it is not.
macro_rules! page {
    ($(#[$m:meta])* $name:ident, $file:literal) => {
        $(#[$m])*
        #[doc = include_str!($file)]
        #[doc = ""]
        #[cfg_attr(feature = "fake", doc = "[fake-module]: crate::fake")]
        #[cfg_attr(
            not(feature = "fake"),
            doc = "[fake-module]: https://docs.rs/cuda-driver-table/latest/cuda_driver_table/fake/index.html"
        )]
        pub mod $name {}
    };
}

page!(tables, "guide/tables.md");
page!(loading, "guide/loading.md");
page!(owning, "guide/owning.md");
page!(libraries, "guide/libraries.md");
page!(call_tracing, "guide/call_tracing.md");
page!(local_toolkit, "guide/local_toolkit.md");
page!(from_cudarc, "guide/from_cudarc.md");
// Its examples use the fake device: the page is built with the `fake` feature (as docs.rs
// builds it), where they compile as doctests.
page!(
    #[cfg(feature = "fake")]
    testing_without_a_gpu,
    "guide/testing_without_a_gpu.md"
);
