//! Hygiene: a table next to user items named like every name the expansion uses (the C
//! parameter names, the expansion's locals, the prelude's types and variants, primitives, `core`
//! and `std`) builds and works. A constant or unit struct named like a parameter would otherwise
//! be taken for the parameter's pattern. CPU only; nothing is loaded. The test command builds it
//! with the runtime's `tracing` and `fake` features too, whose expansions bind more locals.

#![allow(non_upper_case_globals, non_camel_case_types, dead_code, clippy::all)]

mod user {
    use ::cuda_driver_table::driver_table;

    // The C parameter names of the functions below.
    pub const dptr: u8 = 0;
    pub const bytesize: u8 = 0;
    pub const f: u8 = 0;
    pub const hStream: u8 = 0;
    pub static kernelParams: u8 = 0;
    pub struct Flags;
    pub struct extra;
    pub const pctx: u8 = 0;
    // The expansion's own locals and parameters.
    pub const __cdt_f: u8 = 0;
    pub const __cdt_r: u8 = 0;
    pub const e: u8 = 0;
    pub const errors: u8 = 0;
    pub const config: u8 = 0;
    pub const name: u8 = 0;
    pub const arg0: u8 = 0;
    // The locals of a traced call (`--features tracing`), and what they were named before.
    pub const __cdt_start: u8 = 0;
    pub const __cdt_code: u8 = 0;
    pub const __cdt_elapsed: u8 = 0;
    pub const __cdt_e: u8 = 0;
    pub const __cdt_value: u8 = 0;
    pub const start: u8 = 0;
    pub const code: u8 = 0;
    pub const elapsed_ns: u8 = 0;
    pub const result: u8 = 0;
    pub const error: u8 = 0;
    pub const value: u8 = 0;
    pub const v: u8 = 0;
    // Names the expansion writes as absolute paths.
    pub struct Option;
    pub struct Result;
    pub struct Some;
    pub struct None;
    pub struct Ok;
    pub struct Err;
    pub struct Vec;
    pub struct Default;
    pub struct usize;
    pub struct str;
    pub struct u32;
    pub mod core {}
    pub mod std {}
    pub mod sys {}
    pub mod cuda_driver_table {}
    /// A trait with the methods a field has, implemented for everything.
    pub trait Lookalike {
        fn loaded(&self) -> u8 {
            0
        }
        fn resolve(&self, _: u8) -> u8 {
            0
        }
        fn address(&self, _: u8) -> u8 {
            0
        }
    }
    impl<T> Lookalike for T {}

    /// A table whose functions bind all of the names above.
    #[driver_table(cuInit, cuMemAlloc, cuLaunchKernel, cuCtxCreate = 3020, backend = driver, driver = newest)]
    #[derive(Debug)]
    pub struct Cuda;
}

use cuda_driver_table::{Config, FunctionSpec};
use user::Cuda;

#[test]
fn a_table_beside_lookalike_items_builds_and_works() {
    let names = Cuda::FUNCTIONS
        .iter()
        .map(|s: &FunctionSpec| s.name)
        .collect::<std::vec::Vec<_>>();
    assert_eq!(
        names,
        ["cuInit", "cuMemAlloc", "cuLaunchKernel", "cuCtxCreate"]
    );
    // The methods take the C arguments by their bindings' types.
    let _: unsafe fn(&Cuda, *mut cuda_driver_table::sys::CUdeviceptr, usize) -> _ =
        Cuda::cuMemAlloc;
    // `resolve_all` and `raw_pointer` run their generated bodies: a library that does not exist
    // is an error for every function, and an unknown name is `None`.
    // SAFETY: no such file exists; loading it fails before anything is run.
    let t = Cuda::with_config(unsafe {
        Config::driver().library("/nonexistent/cuda-driver-table/libcuda.so.1")
    });
    let errors = t.resolve_all().unwrap_err();
    assert_eq!(errors.as_slice().len(), 4);
    assert!(t.raw_pointer("cuInit").is_some_and(|r| r.is_err()));
    assert!(t.raw_pointer("cuNothing").is_none());
    // `Debug` derives.
    assert!(format!("{t:?}").starts_with("Cuda"));
}
