use cuda_driver_table::driver_table;

// The code the attribute writes names the runtime's bindings `sys` and the runtime `__cdt`.
#[driver_table(cuInit, driver = newest)]
#[allow(non_camel_case_types)]
pub struct sys;

#[driver_table(cuInit, driver = newest)]
#[allow(non_camel_case_types)]
pub struct __cdt;

fn main() {}
