//! A program for the tool's tests: it links a library of two tables
//! (`cuda-driver-table-two-tables`) and uses one, whose record is the only one `inspect` may
//! list. Run, it prints the names `tables()` lists. It needs no GPU: it only refers to the
//! function that would call the driver, and calls it only when given an argument.

fn main() {
    if std::env::args().nth(1).is_some() {
        println!("{:?}", cuda_driver_table_two_tables::used_version());
    }
    for t in cuda_driver_table::tables() {
        println!("{}", t.name);
    }
}
