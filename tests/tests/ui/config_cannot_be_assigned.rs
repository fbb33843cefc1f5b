// Safe code in the table's own module cannot change the configuration a table resolves its
// functions with, once some may be resolved: there is no configuration field to assign, the one
// in the table's state is private to the runtime crate.
use cuda_driver_table::{driver_table, Config};

#[driver_table(cuLaunchKernel, driver = newest)]
struct Table;

fn main() {
    let mut table = Table::new();
    table.__cdt_config = Config::runtime().per_thread();
    table.__cdt_table.config = Config::runtime().per_thread();
}
