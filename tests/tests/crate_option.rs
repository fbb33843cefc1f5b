//! The `crate = path` option: tables in a crate that depends on cuda-driver-table under another
//! name (`cdt`), a table here that names the macro and the runtime through that crate's
//! re-export, as users of a wrapper crate do, and a path to a module with a `sys` of its own,
//! which cannot retype a function. CPU only; nothing is loaded.

use cuda_driver_table_test_wrapper::{Renamed, RenamedString, ThroughReexport};

// The wrapper's user: the macro and the runtime crate through the wrapper's re-exports.
#[cuda_driver_table_test_wrapper::driver_table(
    cuInit,
    cuMemAlloc,
    crate = ::cuda_driver_table_test_wrapper::cdt,
    driver = newest
)]
struct ViaWrapper;

/// Re-exports the runtime but has a `sys` of its own, whose `PFN_cuMemAlloc_v3020` and
/// `CUdeviceptr_v2` are of another size: were the table's types taken from here, the driver's
/// `cuMemAlloc` would write eight bytes through a pointer to one.
mod retyped {
    pub use cuda_driver_table::*;

    // Never used: the table takes nothing from here.
    #[allow(non_camel_case_types, dead_code)]
    pub mod sys {
        pub use cuda_driver_table::sys::*;
        pub type CUdeviceptr_v2 = u8;
        pub type PFN_cuMemAlloc_v3020 =
            Option<unsafe extern "C" fn(*mut CUdeviceptr_v2, usize) -> CUresult>;
    }
}

#[cuda_driver_table::driver_table(cuMemAlloc, crate = crate::retyped, driver = newest)]
struct Retyped;

// The accessor and the method have the runtime's types, not `retyped::sys`'s.
const _: fn(&Retyped) -> cuda_driver_table::sys::PFN_cuMemAlloc_v3020 = |t| t.pfn_cuMemAlloc().ok();
const _: unsafe fn(&Retyped, *mut u64, usize) -> Result<(), cuda_driver_table::Error> =
    Retyped::cuMemAlloc;

#[test]
fn a_path_with_its_own_sys_cannot_retype_a_function() {
    assert_eq!(Retyped::FUNCTIONS[0].typedef, "PFN_cuMemAlloc_v3020");
    assert_eq!(Retyped::FUNCTIONS[0].abi.version, 3020);
}

#[test]
fn tables_of_a_renamed_dependency_are_the_same_tables() {
    let names = |specs: &[cuda_driver_table::FunctionSpec]| {
        specs.iter().map(|s| s.name).collect::<Vec<_>>()
    };
    assert_eq!(
        names(Renamed::FUNCTIONS),
        ["cuInit", "cuMemAlloc", "cuLaunchKernel"]
    );
    assert_eq!(RenamedString::FUNCTIONS[1].typedef, "PFN_cuCtxCreate_v3020");
    assert_eq!(names(ViaWrapper::FUNCTIONS), ["cuInit", "cuMemAlloc"]);
    // The types are the runtime's own: the wrapper's `cdt` is this crate's `cuda_driver_table`.
    let _: fn(&ViaWrapper) -> cuda_driver_table::sys::PFN_cuMemAlloc_v3020 =
        |t| t.pfn_cuMemAlloc().ok();
}

#[test]
fn options_still_choose_the_configuration() {
    let t = ThroughReexport::new();
    assert!(matches!(
        t.config().backend(),
        cuda_driver_table::Backend::Driver
    ));
    assert_eq!(
        t.config().stream_mode(),
        cuda_driver_table::StreamMode::PerThread
    );
}
