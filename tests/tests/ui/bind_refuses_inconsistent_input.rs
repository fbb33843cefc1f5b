// The runtime's `bind!` (what `#[driver_table]` emits) cannot be made to bind a type to another
// function's or another ABI's spec, even when called by hand: the version is read off the
// typedef's name, the indices must count up from 0, a per-thread twin must be the same type, and
// the name the lookup takes must be one C name and its NUL.
struct OtherFunction;
cuda_driver_table::__private::bind! {
    OtherFunction;
    0 "cuMemAlloc\0" PFN_cuMemAllocHost_v3020 ["cuMemAlloc_v2"] [];
}

struct OutOfOrder;
cuda_driver_table::__private::bind! {
    OutOfOrder;
    1 "cuInit\0" PFN_cuInit_v2000 ["cuInit"] [];
    0 "cuMemAlloc\0" PFN_cuMemAlloc_v3020 ["cuMemAlloc_v2"] [];
}

struct OtherTwin;
cuda_driver_table::__private::bind! {
    OtherTwin;
    0 "cuMemcpy\0" PFN_cuMemcpy_v4000 [] [PFN_cuLaunchKernel_v7000_ptsz];
}

struct NoNul;
cuda_driver_table::__private::bind! {
    NoNul;
    0 "cuInit" PFN_cuInit_v2000 ["cuInit"] [];
}

fn main() {}
