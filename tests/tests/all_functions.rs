//! Every function of the default release's manifest in one table: each raw accessor's signature,
//! written from the macro's manifest, must be the type the runtime's `bind!` gives the function
//! (its `PFN_*` typedef, whose per-thread twin it checks is the same type), so this file compiling
//! is the check for all of them; and the spec `bind!` reads off each typedef is the runtime
//! manifest's ABI, export and per-thread twin included.
use cuda_driver_table::{driver_table, manifest};

#[driver_table(all, driver = newest)]
struct All;

#[test]
fn the_all_table_has_every_function_of_the_release_at_its_default_abi() {
    assert_eq!(All::FUNCTIONS.len(), manifest::functions().len());
    for (spec, f) in All::FUNCTIONS.iter().zip(manifest::functions()) {
        assert_eq!(spec.name, f.name);
        assert_eq!(spec.abi.version, f.default, "{}", f.name);
        let abi = f.abis.iter().find(|a| a.version == f.default);
        assert_eq!(Some(&spec.abi), abi, "{}", f.name);
    }
}
