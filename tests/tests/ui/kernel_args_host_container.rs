use cuda_driver_table::kernel_args;

// A host `Vec` is not a kernel parameter: the kernel would get its pointer, capacity and length.
fn main() {
    let v = vec![1.0f32; 4];
    let mut args = kernel_args![&v];
    let _ = args.as_mut_ptr();
}
