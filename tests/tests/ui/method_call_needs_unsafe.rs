// A method of a table calls the C function as it is: calling it outside `unsafe` is E0133 at the
// call, naming the table and the method as written (`Cuda`, `cuInit`). The compiler puts `_::` in
// front: the impl is inside the `const _` block that keeps a user's items named like a C parameter
// from being taken for its pattern (tests/hygiene.rs), and no stable attribute changes that path.
use cuda_driver_table::driver_table;

#[driver_table(cuInit, cuMemAlloc, driver = newest)]
pub struct Cuda;

static CU: Cuda = Cuda::new();

fn main() {
    let _ = CU.cuInit(0);
    let mut dptr = 0;
    let _ = CU.cuMemAlloc(&mut dptr, 16);
}
