//! With the `cuda-local` feature: generates the bindings, the function manifest and the ABI list
//! of the CUDA toolkit on the build machine into `OUT_DIR`, once for the three crates, through the
//! code that generates the committed releases (`cuda_driver_table_codegen::local`). Without it:
//! nothing, and the generator is not even compiled (it is an optional build-dependency).

fn main() {
    #[cfg(feature = "cuda-local")]
    cuda_driver_table_codegen::local::build_script();
    // Nothing to redo unless this file changes (cargo's default: whenever any file does).
    #[cfg(not(feature = "cuda-local"))]
    println!("cargo::rerun-if-changed=build.rs");
}
