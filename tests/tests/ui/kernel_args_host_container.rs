use cuda_driver_table::kernel_args;

// A host `Vec` is not a kernel parameter: the kernel would get its pointer, capacity and length.
fn main() {
    let v = vec![1.0f32; 4];
    let args = kernel_args![&v];
    args.with_params(|_| ());
}
