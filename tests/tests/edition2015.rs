//! Tables declared in an edition-2015 crate (`tests/edition2015/`), where `::std` and
//! `::cuda_driver_table` are paths from that crate's root: they build there, with the same
//! functions, types and configurations as anywhere else. CPU only; nothing is loaded.

use cuda_driver_table::{sys, Backend, StreamMode};
use cuda_driver_table_test_edition2015::tables::{InModule, WithPath};
use cuda_driver_table_test_edition2015::Root;

// The pins give the same types as in this crate's edition.
const _: fn(&Root) -> sys::PFN_cuCtxCreate_v3020 = |t| t.pfn_cuCtxCreate().ok();
const _: fn(&Root) -> sys::PFN_cuMemAlloc_v3020 = |t| t.pfn_cuMemAlloc().ok();

#[test]
fn tables_of_an_edition_2015_crate_are_the_same_tables() {
    let names = |specs: &[cuda_driver_table::FunctionSpec]| {
        specs.iter().map(|s| s.name).collect::<Vec<_>>()
    };
    assert_eq!(
        names(Root::FUNCTIONS),
        ["cuInit", "cuDriverGetVersion", "cuCtxCreate", "cuMemAlloc"]
    );
    assert_eq!(Root::FUNCTIONS[2].abi.version, 3020);
    assert_eq!(names(WithPath::FUNCTIONS), ["cuInit"]);
    let t = InModule::new();
    assert!(matches!(t.config().backend(), Backend::Driver));
    assert_eq!(t.config().stream_mode(), StreamMode::PerThread);
    assert_eq!(InModule::MIN_DRIVER_VERSION, 11030);
    assert!(format!("{:?}", Root::new()).starts_with("Root"));
}
