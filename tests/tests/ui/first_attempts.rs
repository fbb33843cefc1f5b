// Mistakes a newcomer makes on a first table: `:` for `=`, a function in capitals, a comma too
// many, a constant as a pin, the library's name as the backend, a function listed twice.
use cuda_driver_table::driver_table;

#[driver_table(cuInit, driver: 12000)]
pub struct Colon;

#[driver_table(CUINIT, driver = newest)]
pub struct Capitals;

#[driver_table(cuInit,,, cuMemAlloc, driver = newest)]
pub struct Commas;

const CTX_ABI: u32 = 3020;

#[driver_table(cuCtxCreate = CTX_ABI, driver = newest)]
pub struct ConstantPin;

#[driver_table(cuInit, backend = libcuda, driver = newest)]
pub struct LibraryName;

#[driver_table(cuMemcpyHtoD_v2, cuMemcpyHtoD, driver = newest)]
pub struct Twice;

fn main() {
    let _ = CTX_ABI;
}
