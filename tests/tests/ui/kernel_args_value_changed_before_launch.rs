use cuda_driver_table::kernel_args;

// A value cannot change while the array that points at it lives.
fn main() {
    let mut n = 1024u32;
    let mut args = kernel_args![&n];
    n += 1;
    let _ = args.as_mut_ptr();
    let _ = n;
}
