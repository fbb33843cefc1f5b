// The runtime's `bind!` (what `#[driver_table]` emits) cannot be made to bind a type to another
// function's or another ABI's spec, even when called by hand: the version is read off the
// typedef's name, the indices must count up from 0, and a per-thread twin must be the same type.
struct OtherFunction;
cuda_driver_table::__private::bind! {
    OtherFunction;
    0 cuMemAlloc PFN_cuMemAllocHost_v3020 "cuMemAlloc_v2";
}

struct OutOfOrder;
cuda_driver_table::__private::bind! {
    OutOfOrder;
    1 cuInit PFN_cuInit_v2000 "cuInit";
    0 cuMemAlloc PFN_cuMemAlloc_v3020 "cuMemAlloc_v2";
}

struct OtherTwin;
cuda_driver_table::__private::bind! {
    OtherTwin;
    0 cuMemcpy PFN_cuMemcpy_v4000 _ | PFN_cuLaunchKernel_v7000_ptsz _;
}

fn main() {}
