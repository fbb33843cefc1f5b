//! `ptxjit`, after NVIDIA's sample of that name (cuda-samples, `Samples/3_CUDA_Features/ptxjit`):
//! just-in-time linking of PTX. A link state is created with an option array that asks for the
//! wall time and for the info and error logs in buffers of ours (verbose), the PTX of
//! `kernels/ptxjit.cu` is added and linked into a cubin, the log is printed, and the cubin is
//! loaded as a module with `cuModuleLoadData`. Its kernel writes each thread's index; every
//! element is checked. The device memory lives in the primary context, the one the CUDA runtime
//! uses (the original allocates it with `cudaMalloc`). Waived, as the original, when the driver
//! is older than the CUDA release that produced the PTX.
//!
//! `cargo run -p cuda-driver-table-samples --bin ptxjit [-- --driver]`
//!
//! `driver = 13000`: the PTX is nvcc 13.0's (ISA 9.0), which only a CUDA 13.0 driver links.

use crate::Failure;
use cuda_driver_table::{driver_table, kernel_args, sys};
use scopeguard::guard;
use std::ffi::{c_void, CStr};
use std::ptr;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDriverGetVersion,
    cuDeviceGet,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyDtoH,
    cuLinkCreate,
    cuLinkAddData,
    cuLinkComplete,
    cuLinkDestroy,
    cuModuleLoadData,
    cuModuleGetFunction,
    cuModuleUnload,
    cuLaunchKernel,
    driver = 13000
)]
pub struct Cuda;

/// Threads per block of the launch.
pub const THREADS: u32 = 256;
/// Blocks of the launch.
pub const BLOCKS: u32 = 64;
/// The size of each log buffer, as in the original.
const LOG_SIZE: usize = 8192;

/// The CUDA release (`cuDriverGetVersion`'s numbering) of the nvcc that wrote `ptx`, from the
/// header `kernels/generate.sh` puts on every PTX file (`// nvcc 13.0: ...`).
fn ptx_release(ptx: &str) -> Option<i32> {
    let line = ptx.lines().find_map(|l| l.strip_prefix("// nvcc "))?;
    let (version, _) = line.split_once(':')?;
    let (major, minor) = version.split_once('.')?;
    Some(major.parse::<i32>().ok()? * 1000 + minor.parse::<i32>().ok()? * 10)
}

/// The text a log buffer holds, up to its NUL.
fn log_text(buffer: &[u8]) -> String {
    CStr::from_bytes_until_nul(buffer)
        .map(|s| s.to_string_lossy().trim_end().to_owned())
        .unwrap_or_default()
}

/// The sample, on device 0 through `cu`.
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Waived`] when the driver is older than
/// the PTX, [`Failure::Check`] when an element is wrong. Everything created is released on every
/// path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    println!("[PTX Just In Time (JIT) Compilation] - Starting...");
    let ptx = ptx!("ptxjit");
    let n = (THREADS * BLOCKS) as usize;
    let bytes = n * size_of::<i32>();
    let mut host = vec![-1i32; n];
    // SAFETY: every out-pointer is a live local; the option arrays and the buffers and float
    // they point at live until cuLinkDestroy (cuLinkCreate keeps them for the output options);
    // each option value has the type the option documents (a buffer, its size as an integer in
    // the pointer, a pointer to a float the driver may write); the PTX is NUL-terminated and its
    // size counts the NUL; the driver only reads it, though the parameter is not `const`; the
    // cubin is loaded before the link state that owns it is destroyed; the kernel takes one
    // `int *`; every handle is used between its creation and its guard's release, in the primary
    // context made current on this thread; each guard releases once, after the last use of its
    // handle, and they are dropped in reverse order: the module and the memory before the context.
    unsafe {
        cu.cuInit(0)?;
        let mut driver = 0;
        cu.cuDriverGetVersion(&mut driver)?;
        if let Some(release) = ptx_release(ptx).filter(|&r| driver < r) {
            return Err(Failure::Waived(format!(
                "the driver is CUDA {} ({driver}), older than the CUDA {} that produced the PTX",
                cuda_driver_table::CudaVersion(driver as u32),
                cuda_driver_table::CudaVersion(release as u32)
            )));
        }
        let mut dev = 0;
        cu.cuDeviceGet(&mut dev, 0)?;
        let mut ctx = ptr::null_mut();
        cu.cuDevicePrimaryCtxRetain(&mut ctx, dev)?;
        let _primary = guard(dev, |dev| {
            let _ = cu.cuDevicePrimaryCtxRelease(dev);
        });
        cu.cuCtxSetCurrent(ctx)?;
        let mut data = 0;
        cu.cuMemAlloc(&mut data, bytes)?;
        let data = guard(data, |data| {
            let _ = cu.cuMemFree(data);
        });

        let mut info_log = vec![0u8; LOG_SIZE];
        let mut error_log = vec![0u8; LOG_SIZE];
        let mut wall_ms = 0f32;
        let wall_slot: *mut c_void = (&raw mut wall_ms).cast();
        let mut options = [
            sys::CUjit_option::CU_JIT_WALL_TIME,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_LOG_VERBOSE,
        ];
        let mut values: [*mut c_void; 6] = [
            wall_slot,
            info_log.as_mut_ptr().cast(),
            ptr::without_provenance_mut(LOG_SIZE),
            error_log.as_mut_ptr().cast(),
            ptr::without_provenance_mut(LOG_SIZE),
            ptr::without_provenance_mut(1),
        ];
        let mut link = ptr::null_mut();
        cu.cuLinkCreate(
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
            &mut link,
        )?;
        let link = guard(link, |link| {
            let _ = cu.cuLinkDestroy(link);
        });
        println!("Loading ptxjit_kernel[] program");
        let added = cu.cuLinkAddData(
            *link,
            sys::CUjitInputType::CU_JIT_INPUT_PTX,
            ptx.as_ptr().cast_mut().cast(),
            ptx.len(),
            c"ptxjit.ptx".as_ptr(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        );
        let mut cubin = ptr::null_mut();
        let mut cubin_size = 0;
        let linked = added.and_then(|()| cu.cuLinkComplete(*link, &mut cubin, &mut cubin_size));
        if let Err(e) = linked {
            eprintln!("PTX linker error log: {}", log_text(&error_log));
            return Err(e.into());
        }
        // cuda.h: the driver overwrites the option's value with the time (a float in the
        // pointer-sized slot); the original passes the address of a float. Whichever it did:
        let wall_ms = if values[0] == wall_slot {
            wall_ms
        } else {
            f32::from_bits(values[0].addr() as u32)
        };
        println!(
            "CUDA Link Completed in {wall_ms}ms ({cubin_size} bytes of cubin). Linker Output:\n{}",
            log_text(&info_log)
        );
        let mut module = ptr::null_mut();
        cu.cuModuleLoadData(&mut module, cubin)?;
        let module = guard(module, |module| {
            let _ = cu.cuModuleUnload(module);
        });
        let mut kernel = ptr::null_mut();
        cu.cuModuleGetFunction(&mut kernel, *module, c"myKernel".as_ptr())?;
        // The cubin is loaded: the link state that owns it goes now, as in the original.
        drop(link);

        kernel_args![&*data].with_params(|params| {
            cu.cuLaunchKernel(
                kernel,
                BLOCKS,
                1,
                1,
                THREADS,
                1,
                1,
                0,
                ptr::null_mut(),
                params,
                ptr::null_mut(),
            )
        })?;
        println!("CUDA kernel launched");
        cu.cuMemcpyDtoH(host.as_mut_ptr().cast(), *data, bytes)?;
    }
    match host.iter().enumerate().find(|&(i, &v)| v != i as i32) {
        None => Ok(()),
        Some((i, v)) => Err(Failure::Check(format!("element {i} is {v}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_is_read_from_the_generated_header() {
        assert_eq!(ptx_release(ptx!("ptxjit")).map(|r| r >= 13000), Some(true));
        assert_eq!(
            ptx_release("// nvcc 12.8: nvcc -ptx\n.version 8.7"),
            Some(12080)
        );
        assert_eq!(ptx_release(".version 9.0"), None);
    }
}
