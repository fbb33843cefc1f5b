// Safe code beside a table cannot make a function of it hold another function: the functions are
// methods, not fields, and the table's one field holds no function safe code can reach, even
// where two functions share one C signature (`cuCtxSetCurrent` and `cuCtxPushCurrent` both take a
// `CUcontext`).
use cuda_driver_table::driver_table;

#[driver_table(cuCtxSetCurrent, cuCtxPushCurrent, driver = newest)]
struct Table;

#[driver_table(cuMemAlloc, driver = newest)]
struct Other;

fn main() {
    let mut a = Table::new();
    let mut b = Table::new();
    // Asking a function to resolve another table's function.
    let _ = a.cuCtxSetCurrent.resolve(a.config(), &Other::FUNCTIONS[0]);
    // Swapping functions of the same C signature.
    std::mem::swap(&mut a.cuCtxSetCurrent, &mut b.cuCtxPushCurrent);
    // Assigning a function of another table.
    let other = Other::new();
    a.cuCtxSetCurrent = other.cuMemAlloc;
}
