use cuda_driver_table::kernel_args;

// A value cannot change while the array that points at it lives.
fn main() {
    let mut n = 1024u32;
    let args = kernel_args![&n];
    n += 1;
    args.with_params(|_| ());
    let _ = n;
}
