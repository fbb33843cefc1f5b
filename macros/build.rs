//! With the `cuda-local` feature: generates the function manifest (`local_release.rs`,
//! `manifest.txt`, `docs.txt`) of the CUDA toolkit on the build machine into `OUT_DIR`, through
//! the code that generates the committed releases (`cuda_driver_table_codegen::local`). Without
//! it: nothing, and the codegen is not even compiled (it is an optional build-dependency).

fn main() {
    #[cfg(feature = "cuda-local")]
    cuda_driver_table_codegen::local::build_script(cuda_driver_table_codegen::local::Crate::Macros);
    // Nothing to redo unless this file changes (cargo's default: whenever any file does).
    #[cfg(not(feature = "cuda-local"))]
    println!("cargo::rerun-if-changed=build.rs");
}
