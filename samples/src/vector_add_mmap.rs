//! `vectorAddMMAP`, after NVIDIA's sample of that name (cuda-samples,
//! `Samples/0_Introduction/vectorAddMMAP`): `vectorAddDrv` with its device buffers made through
//! the virtual memory management API instead of `cuMemAlloc`. Each buffer is one contiguous
//! reserved address range (`cuMemAddressReserve`) backed by physical allocations
//! (`cuMemCreate`, pinned device memory) striped over every device the computing device can
//! access (itself, then each peer that supports virtual memory management: on a machine with one
//! GPU, that GPU alone), each stripe a multiple of the largest minimum granularity
//! (`cuMemGetAllocationGranularity`) and mapped (`cuMemMap`) into the range; the handles are
//! released at once (the mappings keep the memory), and the range is made readable and writable
//! from the computing device (`cuMemSetAccess`). At the end every range is unmapped and its
//! addresses freed. The sums are checked as in `vectorAddDrv`. Waived when the device does not
//! support virtual memory management.
//!
//! `cargo run -p cuda-driver-table-samples --bin vectorAddMMAP [-- --driver]`
//!
//! `driver = 13000`: the kernel is PTX of nvcc 13.0 (ISA 9.0), which only a CUDA 13.0 driver
//! compiles; `cuCtxCreate` is then its 12.5 ABI, as in the original.

use crate::{random_floats, Failure};
use cuda_driver_table::{driver_table, kernel_args, sys, Error};
use scopeguard::{guard, ScopeGuard};
use std::ptr;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuDeviceGetCount,
    cuDeviceGetAttribute,
    cuDeviceCanAccessPeer,
    cuCtxCreate,
    cuCtxDestroy,
    cuModuleLoadData,
    cuModuleGetFunction,
    cuModuleUnload,
    cuMemGetAllocationGranularity,
    cuMemAddressReserve,
    cuMemAddressFree,
    cuMemCreate,
    cuMemRelease,
    cuMemMap,
    cuMemUnmap,
    cuMemSetAccess,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuLaunchKernel,
    driver = 13000
)]
pub struct Cuda;

/// The vectors' length, as in the original.
pub const N: usize = 50_000;

/// A reserved address range with its backing mapped: what [`Cuda::free`] takes back.
#[derive(Clone, Copy)]
struct Mapped {
    ptr: sys::CUdeviceptr,
    size: usize,
}

impl Cuda {
    /// Whether `dev` supports the virtual memory management API.
    fn supports_vmm(&self, dev: sys::CUdevice) -> Result<bool, Error> {
        let mut value = 0;
        let attribute =
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED;
        // SAFETY: `value` is a live local.
        unsafe { self.cuDeviceGetAttribute(&mut value, attribute, dev)? };
        Ok(value != 0)
    }

    /// The devices whose memory `dev` can map: `dev`, then every peer it can access that supports
    /// virtual memory management.
    fn backing_devices(&self, dev: sys::CUdevice) -> Result<Vec<sys::CUdevice>, Error> {
        let mut count = 0;
        // SAFETY: `count` is a live local.
        unsafe { self.cuDeviceGetCount(&mut count)? };
        let mut devices = vec![dev];
        for ordinal in 0..count {
            let (mut peer, mut can_access) = (0, 0);
            // SAFETY: the out-pointers are live locals; the ordinal is below the count.
            unsafe { self.cuDeviceGet(&mut peer, ordinal)? };
            if peer == dev {
                continue;
            }
            // SAFETY: the out-pointer is a live local; both devices exist.
            unsafe { self.cuDeviceCanAccessPeer(&mut can_access, dev, peer)? };
            // The original asks the computing device here; the peer is the one that must map.
            if can_access != 0 && self.supports_vmm(peer)? {
                devices.push(peer);
            }
        }
        Ok(devices)
    }

    /// At least `size` bytes of contiguous addresses, backed by pinned memory striped evenly over
    /// `backing` and readable and writable from every device of `mapping`. On failure, whatever
    /// was mapped and reserved is given back before the error is returned.
    fn malloc_striped(
        &self,
        size: usize,
        backing: &[sys::CUdevice],
        mapping: &[sys::CUdevice],
    ) -> Result<Mapped, Error> {
        let mut prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            ..Default::default()
        };
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        // Every stripe must be a multiple of each device's minimum granularity.
        let mut granularity = 0;
        for &dev in backing.iter().chain(mapping) {
            prop.location.id = dev;
            let mut g = 0;
            let minimum = sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM;
            // SAFETY: `g` is a live local and `prop` a complete, zero-initialised description.
            unsafe { self.cuMemGetAllocationGranularity(&mut g, &prop, minimum)? };
            granularity = granularity.max(g);
        }
        let size = size.next_multiple_of(backing.len() * granularity);
        let stripe = size / backing.len();
        let mut ptr = 0;
        // SAFETY: `ptr` is a live local; no fixed address, default alignment, no flags.
        unsafe { self.cuMemAddressReserve(&mut ptr, size, 0, 0, 0)? };
        // Until the range is complete, guards give back what was made when a step fails: the
        // stripes mapped, then the addresses. Cleanup errors are dropped: the first failure says
        // what went wrong.
        let reserved = guard(ptr, |ptr| {
            // SAFETY: the range was reserved above, and nothing is mapped in it any more.
            let _ = unsafe { self.cuMemAddressFree(ptr, size) };
        });
        let mut stripes = Vec::with_capacity(backing.len());
        for (i, &dev) in backing.iter().enumerate() {
            prop.location.id = dev;
            let mut handle = 0;
            // SAFETY: `handle` is a live local; the stripe is a multiple of the granularity.
            unsafe { self.cuMemCreate(&mut handle, stripe, &prop, 0)? };
            let address = ptr + (i * stripe) as u64;
            // SAFETY: the stripe lies inside the reserved range and is not mapped yet.
            let map = unsafe { self.cuMemMap(address, stripe, 0, handle, 0) };
            // The mapping keeps the memory alive: the handle is released whether or not the
            // mapping succeeded.
            // SAFETY: `handle` came from cuMemCreate above and is released once.
            let release = unsafe { self.cuMemRelease(handle) };
            map?;
            stripes.push(guard(address, |address| {
                // SAFETY: the stripe was mapped above and is unmapped once.
                let _ = unsafe { self.cuMemUnmap(address, stripe) };
            }));
            release?;
        }
        let access: Vec<sys::CUmemAccessDesc> = mapping
            .iter()
            .map(|&dev| {
                let mut desc = sys::CUmemAccessDesc {
                    flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
                    ..Default::default()
                };
                desc.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
                desc.location.id = dev;
                desc
            })
            .collect();
        // SAFETY: the whole range is mapped; `access` holds `access.len()` descriptors.
        unsafe { self.cuMemSetAccess(ptr, size, access.as_ptr(), access.len()) }?;
        // Complete: the range is the caller's, given back by `free`.
        for mapped in stripes {
            ScopeGuard::into_inner(mapped);
        }
        Ok(Mapped {
            ptr: ScopeGuard::into_inner(reserved),
            size,
        })
    }

    /// Unmaps `m` (which frees its memory: the handles were released) and frees its addresses.
    fn free(&self, m: Mapped) -> Result<(), Error> {
        // SAFETY: `m` is a range `malloc_striped` reserved and mapped in full, freed once; no
        // work that uses it is pending (the copies that read it back are synchronous).
        unsafe {
            self.cuMemUnmap(m.ptr, m.size)?;
            self.cuMemAddressFree(m.ptr, m.size)
        }
    }
}

/// The sample, on device 0 through `cu`.
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Waived`] without virtual memory
/// management, [`Failure::Check`] when a sum differs from the CPU's. Everything created is
/// released on every path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    println!("Vector Addition (Driver API), memory mapped with cuMemMap");
    let a = random_floats(N, 1);
    let b = random_floats(N, 2);
    let mut c = vec![0f32; N];
    let bytes = N * size_of::<f32>();
    let n = N as i32;
    // SAFETY: `dev` is a live local; nothing else is passed.
    let dev = unsafe {
        cu.cuInit(0)?;
        let mut dev = 0;
        cu.cuDeviceGet(&mut dev, 0)?;
        dev
    };
    let vmm = cu.supports_vmm(dev)?;
    println!(
        "Device {dev} VIRTUAL ADDRESS MANAGEMENT SUPPORTED = {}",
        u8::from(vmm)
    );
    if !vmm {
        return Err(Failure::Waived(format!(
            "device {dev} does not support virtual address management"
        )));
    }
    // The kernel runs on `dev`: the memory is mapped there, and backed by every device it can
    // reach.
    let mapping = [dev];
    let backing = cu.backing_devices(dev)?;
    println!("Backing devices: {backing:?}");
    let _ctx = own_context!(cu, dev)?;
    let (_module, [kernel]) = module!(cu, ptx!("vectorAdd"), [c"VecAdd_kernel"])?;
    // SAFETY: every out-pointer is a live local; the host buffers hold `bytes` bytes and the
    // device ranges at least that; the kernel's parameters are what `VecAdd_kernel(const float *,
    // const float *, float *, int)` takes, read by the launch before it returns; every handle is
    // used in the context current on this thread, between its creation and its guard's release,
    // which runs once, after its last use; the guards are dropped in reverse order, the ranges
    // and the module before the context.
    unsafe {
        let free = |m| {
            let _ = cu.free(m);
        };
        let da = guard(cu.malloc_striped(bytes, &backing, &mapping)?, free);
        let db = guard(cu.malloc_striped(bytes, &backing, &mapping)?, free);
        let dc = guard(cu.malloc_striped(bytes, &backing, &mapping)?, free);
        println!(
            "Each vector: {bytes} bytes in a mapped range of {}",
            da.size
        );
        cu.cuMemcpyHtoD(da.ptr, a.as_ptr().cast(), bytes)?;
        cu.cuMemcpyHtoD(db.ptr, b.as_ptr().cast(), bytes)?;
        let threads = 256;
        kernel_args![&da.ptr, &db.ptr, &dc.ptr, &n].with_params(|params| {
            cu.cuLaunchKernel(
                kernel,
                N.div_ceil(threads) as u32,
                1,
                1,
                threads as u32,
                1,
                1,
                0,
                ptr::null_mut(),
                params,
                ptr::null_mut(),
            )
        })?;
        // Synchronous on the legacy default stream: waits for the kernel.
        cu.cuMemcpyDtoH(c.as_mut_ptr().cast(), dc.ptr, bytes)?;
    }
    match (0..N).find(|&i| (c[i] - (a[i] + b[i])).abs() > 1e-7) {
        None => Ok(()),
        Some(i) => Err(Failure::Check(format!(
            "element {i}: {} + {} gave {}",
            a[i], b[i], c[i]
        ))),
    }
}
