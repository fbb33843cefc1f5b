//! clusterLaunch: thread-block clusters launched through the driver API (Hopper and newer).
//!
//! NVIDIA's samples repository has no driver-API sample of clusters; this one follows the CUDA
//! programming guide's "Thread Block Clusters" and "Distributed Shared Memory" sections, in the
//! manner of the samples here: one kernel, launched with `cuLaunchKernelEx` and a
//! `CUlaunchConfig` carrying the `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` attribute (the kernel
//! itself declares no cluster size), with clusters of 2, 4 and 8 blocks. Each block writes its
//! rank in its cluster, the cluster's size, the cluster's index and width (PTX's
//! `%cluster_ctarank`, `%cluster_nctarank`, `%clusterid`, `%cluster_nctaid`), and the value the
//! next block of its cluster stored in that block's own shared memory, read through the
//! cluster's shared window (`mapa`, `ld.shared::cluster`). The host checks every block's five
//! numbers against what the launch's shape implies.
//!
//! Waived on GPUs below compute capability 9.0 or without cluster launch.
//!
//! `cargo run -p cuda-driver-table-samples --bin clusterLaunch [-- --driver]`

use crate::Failure;
use cuda_driver_table::{driver_table, kernel_args, sys};
use scopeguard::guard;
use std::ptr;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuDeviceGetAttribute,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuCtxSynchronize,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuMemAlloc,
    cuMemFree,
    cuMemsetD32,
    cuMemcpyDtoH,
    cuLaunchKernelEx,
    // cuLaunchKernelEx came with CUDA 11.8, clusters' hardware after; a CUDA 12.0 driver has
    // every ABI here.
    driver = 12000
)]
pub struct Cuda;

/// Blocks in the grid (a multiple of every cluster size tried).
pub const BLOCKS: u32 = 64;
/// Threads per block.
pub const THREADS: u32 = 128;
/// The numbers each block writes.
pub const FIELDS: usize = 5;
/// Cluster sizes tried: 8 is the largest every cluster-capable GPU supports.
pub const CLUSTER_SIZES: [u32; 3] = [2, 4, 8];

/// The sample, on device 0 through `cu`.
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Waived`] on a GPU without clusters,
/// [`Failure::Check`] when a block reports the wrong numbers. Everything created is released on
/// every path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    let mut dev = 0;
    let (mut major, mut minor, mut cluster_launch) = (0, 0, 0);
    // SAFETY: valid places for the answers.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDeviceGet(&mut dev, 0)?;
        cu.cuDeviceGetAttribute(
            &mut major,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            dev,
        )?;
        cu.cuDeviceGetAttribute(
            &mut minor,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            dev,
        )?;
        cu.cuDeviceGetAttribute(
            &mut cluster_launch,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
            dev,
        )?;
    }
    if major < 9 || cluster_launch == 0 {
        return Err(Failure::Waived(format!(
            "thread-block clusters need compute capability 9.0 or newer and cluster launch; device 0 is {major}.{minor}, cluster launch {cluster_launch}"
        )));
    }

    let mut info: sys::CUdeviceptr = 0;
    let words = BLOCKS as usize * FIELDS;
    // Each guard releases its handle once, when `run` returns, after the device is idle, in
    // reverse order: the memory and the module before the context is made not current and
    // released.
    let _primary = primary_context!(cu, dev)?;
    let (_module, [func]) = module!(cu, ptx!("clusterLaunch"), [c"cluster_info"])?;
    // SAFETY: valid places; the module is loaded in the current context.
    unsafe {
        cu.cuMemAlloc(&mut info, words * size_of::<u32>())?;
    }
    let info = guard(info, |info| {
        // SAFETY: allocated above, once; every launch on it was synchronised.
        let _ = unsafe { cu.cuMemFree(info) };
    });

    let mut wrong = Vec::new();
    let mut host = vec![0u32; words];
    for size in CLUSTER_SIZES {
        // The one attribute of the launch. Zeroed first: the union's other bytes and the padding
        // are not read for this attribute, but are then defined.
        // SAFETY: the struct is plain data (an enum whose zero is a value, bytes, a union of
        // plain data).
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = size;
        attr.value.clusterDim.y = 1;
        attr.value.clusterDim.z = 1;
        let config = sys::CUlaunchConfig {
            gridDimX: BLOCKS,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: THREADS,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: 0,
            hStream: ptr::null_mut(),
            attrs: &raw mut attr,
            numAttrs: 1,
        };
        // SAFETY: `info` holds BLOCKS * FIELDS u32s, the kernel `cluster_info(unsigned int *)`
        // writes FIELDS per block; `config` and its one attribute are alive during the call; the
        // grid is a multiple of the cluster size.
        unsafe {
            // Not a value any block writes: a block that did not run is seen.
            cu.cuMemsetD32(*info, u32::MAX, words)?;
            kernel_args![&*info].with_params(|params| {
                cu.cuLaunchKernelEx(&config, func, params, ptr::null_mut())
            })?;
            cu.cuCtxSynchronize()?;
            cu.cuMemcpyDtoH(host.as_mut_ptr().cast(), *info, words * size_of::<u32>())?;
        }
        let mut bad = 0;
        for (b, got) in host.chunks_exact(FIELDS).enumerate() {
            let b = b as u32;
            let rank = b % size;
            let want = [rank, size, b / size, size, (rank + 1) % size];
            if got != want {
                if bad == 0 {
                    wrong.push(format!(
                        "clusters of {size}: block {b} reports [rank, size, cluster, cluster width, neighbour's rank] = {got:?}, expected {want:?}"
                    ));
                }
                bad += 1;
            }
        }
        println!(
            "Clusters of {size}: {} clusters over {BLOCKS} blocks, {} block(s) wrong",
            BLOCKS / size,
            bad
        );
    }

    if wrong.is_empty() {
        Ok(())
    } else {
        Err(Failure::Check(wrong.join("; ")))
    }
}
