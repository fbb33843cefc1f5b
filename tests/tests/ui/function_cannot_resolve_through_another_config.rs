// Safe code in the table's own module cannot resolve a table's function through another
// configuration: nothing resolves but the table's state, always through its own configuration.
use cuda_driver_table::{driver_table, Config};

#[driver_table(cuLaunchKernel, driver = newest)]
struct Table;

fn main() {
    let legacy = Table::new();
    let per_thread = Config::runtime().per_thread();
    let _ = legacy.cuLaunchKernel.resolve(&per_thread);
    let _ = legacy.__cdt_table.get::<0>(&per_thread);
    let _ = legacy.__cdt_table.resolve::<0>();
}
