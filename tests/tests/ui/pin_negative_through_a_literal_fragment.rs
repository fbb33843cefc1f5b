use cuda_driver_table::driver_table;

// A pin forwarded from a `macro_rules!` as `$v:literal` arrives as one token, `-3020`; written
// in the attribute it is two, `-` and `3020`.
macro_rules! table {
    ($v:literal) => {
        #[driver_table(cuInit, cuCtxCreate = $v, driver = newest)]
        pub struct Cuda;
    };
}

table!(-3020);

#[driver_table(cuInit, cuCtxCreate = -3020, driver = newest)]
pub struct Cuda2;

fn main() {}
