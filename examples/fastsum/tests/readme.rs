//! The example of the README's "Testing without a GPU", compiled and run as it stands there
//! (`build.rs` copies its code block).

include!(concat!(env!("OUT_DIR"), "/readme_testing_without_a_gpu.rs"));
