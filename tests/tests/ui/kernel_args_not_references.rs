use cuda_driver_table::kernel_args;

// Arguments are references to the values (`&n`), which the driver reads.
fn main() {
    let n = 1024u32;
    let args = kernel_args![n];
    args.with_params(|_| ());
}
