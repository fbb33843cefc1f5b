// The attribute sees the macro call, not the struct the macro writes.
use cuda_driver_table::driver_table;

macro_rules! unit {
    ($name:ident) => {
        pub struct $name;
    };
}

#[driver_table(cuInit, driver = newest)]
unit!(Cuda);

fn main() {}
