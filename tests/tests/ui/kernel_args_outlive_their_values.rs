use cuda_driver_table::kernel_args;

// The array borrows its values: it cannot outlive them, nor hold a temporary past its statement.
fn main() {
    let mut args;
    {
        let n = 1024u32;
        args = kernel_args![&n];
    }
    let _ = args.as_mut_ptr();

    let n = 1024u32;
    let mut halves = kernel_args![&(n / 2)];
    let _ = halves.as_mut_ptr();
}
