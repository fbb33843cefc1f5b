//! The `crate = path` option: tables in a crate that depends on cuda-driver-table under another
//! name (`cdt`), and a table here that names the macro and the runtime through that crate's
//! re-export, as users of a wrapper crate do. CPU only; nothing is loaded.

use cuda_driver_table_test_wrapper::{Renamed, RenamedString, ThroughReexport};

// The wrapper's user: the macro and the runtime crate through the wrapper's re-exports.
#[cuda_driver_table_test_wrapper::driver_table(
    cuInit,
    cuMemAlloc,
    crate = ::cuda_driver_table_test_wrapper::cdt
)]
struct ViaWrapper;

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
