//! Every function of the default release's manifest in one table: the expansion asserts at
//! compile time that each method's parameters are exactly its `PFN_*` typedef's (and that each
//! per-thread twin has the same type), so this file compiling is the check for all of them.
use cuda_driver_table::{driver_table, manifest};

#[driver_table(all)]
struct All;

#[test]
fn the_all_table_has_every_function_of_the_release_at_its_default_abi() {
    assert_eq!(All::FUNCTIONS.len(), manifest::FUNCTIONS.len());
    for (spec, f) in All::FUNCTIONS.iter().zip(manifest::FUNCTIONS) {
        assert_eq!(spec.name, f.name);
        assert_eq!(spec.abi.version, f.default, "{}", f.name);
    }
}
