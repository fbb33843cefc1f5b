use cuda_driver_table::kernel_args;

// The array borrows its values: it cannot outlive them, nor hold a temporary past its statement.
fn main() {
    let args;
    {
        let n = 1024u32;
        args = kernel_args![&n];
    }
    args.with_params(|_| ());

    let n = 1024u32;
    let halves = kernel_args![&(n / 2)];
    halves.with_params(|_| ());
}
