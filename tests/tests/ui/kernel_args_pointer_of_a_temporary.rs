use cuda_driver_table::kernel_args;

// There is no `as_mut_ptr`: its raw pointer would hold no borrow, so this `let` would drop the
// temporary array at its end, without a warning, and leave `params` pointing at freed stack. The
// pointer is lent only inside `with_params`, while the array lives.
fn main() {
    let n = 1024u32;
    let params = kernel_args![&n].as_mut_ptr();
    let _ = params;
}
