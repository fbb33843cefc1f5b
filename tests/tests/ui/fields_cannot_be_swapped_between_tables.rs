// Safe code in the table's own module cannot swap a function between two tables of different
// stream modes: the functions are not fields, and the slots of the table's one field are private
// to the runtime crate. (Swapping that whole field swaps the configurations with the slots.)
use cuda_driver_table::{driver_table, Config};

#[driver_table(cuLaunchKernel, driver = newest)]
struct Table;

fn main() {
    let mut legacy = Table::new();
    let mut per_thread = Table::with_config(Config::runtime().per_thread());
    std::mem::swap(&mut legacy.cuLaunchKernel, &mut per_thread.cuLaunchKernel);
    std::mem::swap(&mut legacy.__cdt_table.slots, &mut per_thread.__cdt_table.slots);
}
