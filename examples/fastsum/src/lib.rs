//! `fastsum`: the weighted sum `Σ values[i] · weights[i]` of two vectors, on the GPU, through a
//! `#[driver_table]`. An example of a library whose failure paths are tested without a GPU: its
//! tests (`tests/fake_driver.rs`) run this code against the fake driver of `cuda-driver-table`
//! (its `fake` feature, a dev-dependency), which emulates device memory and the kernel, runs out
//! of memory on the third allocation or fails the launch, and records every call.
//!
//! Everything allocated is freed on every path, errors included: device buffers, the module and
//! the context are owned by guards that free them when dropped.

use std::ffi::{c_void, CStr};
use std::fmt;
use std::ptr::null_mut;

use cuda_driver_table::{driver_table, sys, Error};

/// The driver functions `fastsum` uses.
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuStreamSynchronize,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuMemsetD32,
    cuLaunchKernel,
    driver = newest
)]
pub struct Cuda;

/// `*out += values[i] * weights[i]` for every `i < n`, one thread per element.
pub const PTX: &CStr = cr#"
.version 7.0
.target sm_52
.address_size 64
.visible .entry weighted_sum(.param .u64 values, .param .u64 weights, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [values];
    ld.param.u64 %rd2, [weights];
    ld.param.u64 %rd3, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    mul.f32 %f3, %f1, %f2;
    atom.global.add.f32 %f4, [%rd6], %f3;
DONE:
    ret;
}
"#;

/// The kernel's name in [`PTX`].
pub const KERNEL: &CStr = c"weighted_sum";

/// Threads per block of a launch.
pub const BLOCK: u32 = 256;

/// What can go wrong.
#[derive(Debug)]
pub enum FastsumError {
    /// The two vectors differ in length.
    LengthMismatch {
        /// The length of the values.
        values: usize,
        /// The length of the weights.
        weights: usize,
    },
    /// More elements than one launch covers (`u32::MAX`).
    TooLong(usize),
    /// The device could not allocate `bytes` more; everything allocated before was freed.
    OutOfMemory {
        /// The size of the allocation that failed.
        bytes: usize,
    },
    /// Any other failure of the driver (everything allocated was freed).
    Driver(Error),
}

impl fmt::Display for FastsumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LengthMismatch { values, weights } => {
                write!(f, "{values} values but {weights} weights")
            }
            Self::TooLong(n) => write!(f, "{n} elements are more than one launch covers"),
            Self::OutOfMemory { bytes } => {
                write!(f, "the GPU is out of memory (allocating {bytes} bytes)")
            }
            Self::Driver(e) => write!(f, "the CUDA driver failed: {e}"),
        }
    }
}

impl std::error::Error for FastsumError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Driver(e) => Some(e),
            _ => None,
        }
    }
}

impl From<Error> for FastsumError {
    fn from(e: Error) -> Self {
        Self::Driver(e)
    }
}

/// The primary context of a device, retained: released when dropped.
struct PrimaryContext<'a> {
    cu: &'a Cuda,
    device: sys::CUdevice,
    context: sys::CUcontext,
}

impl Drop for PrimaryContext<'_> {
    fn drop(&mut self) {
        // SAFETY: the context was retained for this device (`Fastsum::new`), once.
        let _ = unsafe { self.cu.cuDevicePrimaryCtxRelease(self.device) };
    }
}

/// A loaded module: unloaded when dropped.
struct Module<'a> {
    cu: &'a Cuda,
    module: sys::CUmodule,
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        // SAFETY: the module was loaded (`Fastsum::new`) and nothing uses it any more.
        let _ = unsafe { self.cu.cuModuleUnload(self.module) };
    }
}

/// Device memory: freed when dropped.
struct DeviceBuffer<'a> {
    cu: &'a Cuda,
    ptr: sys::CUdeviceptr,
}

impl Drop for DeviceBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from cuMemAlloc, and every use of it has completed (the kernel is
        // synchronized before results are read; on an error nothing is left running on it that
        // a free would not wait for).
        let _ = unsafe { self.cu.cuMemFree(self.ptr) };
    }
}

/// The weighted sum on one device: its context and the loaded kernel.
pub struct Fastsum<'a> {
    cu: &'a Cuda,
    // Dropped in this order: the module, then the context it lives in.
    module: Module<'a>,
    context: PrimaryContext<'a>,
    kernel: sys::CUfunction,
}

impl<'a> Fastsum<'a> {
    /// Initialises the driver, makes device `ordinal`'s primary context current on this thread
    /// and loads the kernel.
    ///
    /// # Errors
    ///
    /// When the driver fails (no device, a PTX it cannot compile, ...); what was acquired is
    /// released.
    pub fn new(cu: &'a Cuda, ordinal: i32) -> Result<Self, FastsumError> {
        let mut device = 0;
        let mut raw_context = null_mut();
        // SAFETY: `device` and `raw_context` are valid places for what the driver returns.
        unsafe {
            cu.cuInit(0)?;
            cu.cuDeviceGet(&mut device, ordinal)?;
            cu.cuDevicePrimaryCtxRetain(&mut raw_context, device)?;
        }
        let context = PrimaryContext {
            cu,
            device,
            context: raw_context,
        };
        let mut raw_module = null_mut();
        // SAFETY: the context was just retained; `PTX` is NUL-terminated PTX text.
        unsafe {
            cu.cuCtxSetCurrent(context.context)?;
            cu.cuModuleLoadData(&mut raw_module, PTX.as_ptr().cast())?;
        }
        let module = Module {
            cu,
            module: raw_module,
        };
        let mut kernel = null_mut();
        // SAFETY: `module` is loaded; `KERNEL` is NUL-terminated.
        unsafe { cu.cuModuleGetFunction(&mut kernel, module.module, KERNEL.as_ptr()) }?;
        Ok(Self {
            cu,
            module,
            context,
            kernel,
        })
    }

    /// `Σ values[i] · weights[i]`, computed on the device.
    ///
    /// # Errors
    ///
    /// [`FastsumError::LengthMismatch`] and [`FastsumError::TooLong`] before the device is
    /// touched; [`FastsumError::OutOfMemory`] when a buffer cannot be allocated, and
    /// [`FastsumError::Driver`] for any other failure. Every buffer allocated is freed on every
    /// path.
    pub fn weighted_sum(&self, values: &[f32], weights: &[f32]) -> Result<f32, FastsumError> {
        if values.len() != weights.len() {
            return Err(FastsumError::LengthMismatch {
                values: values.len(),
                weights: weights.len(),
            });
        }
        let n = values.len();
        let mut count = u32::try_from(n).map_err(|_| FastsumError::TooLong(n))?;
        if n == 0 {
            return Ok(0.0);
        }
        let bytes = size_of_val(values);
        // SAFETY: the context was retained in `new` and lives as long as `self`.
        unsafe { self.cu.cuCtxSetCurrent(self.context.context) }?;
        let values_d = self.alloc(bytes)?;
        let weights_d = self.alloc(bytes)?;
        let out_d = self.alloc(size_of::<f32>())?;
        let mut result = 0f32;
        // SAFETY: each copy stays within its host slice and its device buffer (`bytes`, or one
        // f32); the kernel's parameters match the PTX entry (three u64 device pointers and a u32)
        // and point at locals that outlive the launch; the result is read after the synchronize.
        unsafe {
            self.cu
                .cuMemcpyHtoD(values_d.ptr, values.as_ptr().cast(), bytes)?;
            self.cu
                .cuMemcpyHtoD(weights_d.ptr, weights.as_ptr().cast(), bytes)?;
            self.cu.cuMemsetD32(out_d.ptr, 0, 1)?;
            let (mut v, mut w, mut o) = (values_d.ptr, weights_d.ptr, out_d.ptr);
            let mut params: [*mut c_void; 4] = [
                (&raw mut v).cast(),
                (&raw mut w).cast(),
                (&raw mut o).cast(),
                (&raw mut count).cast(),
            ];
            self.cu.cuLaunchKernel(
                self.kernel,
                count.div_ceil(BLOCK),
                1,
                1,
                BLOCK,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut(),
            )?;
            self.cu.cuStreamSynchronize(null_mut())?;
            self.cu
                .cuMemcpyDtoH((&raw mut result).cast(), out_d.ptr, size_of::<f32>())?;
        }
        Ok(result)
    }

    /// `bytes` of device memory; out of memory is [`FastsumError::OutOfMemory`].
    fn alloc(&self, bytes: usize) -> Result<DeviceBuffer<'a>, FastsumError> {
        let mut ptr = 0;
        // SAFETY: `ptr` is a valid place for the device pointer.
        match unsafe { self.cu.cuMemAlloc(&mut ptr, bytes) } {
            Ok(()) => Ok(DeviceBuffer { cu: self.cu, ptr }),
            Err(e) if e.code() == Some(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY.0) => {
                Err(FastsumError::OutOfMemory { bytes })
            }
            Err(e) => Err(e.into()),
        }
    }
}

impl fmt::Debug for Fastsum<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fastsum")
            .field("device", &self.context.device)
            .field("module", &self.module.module)
            .finish_non_exhaustive()
    }
}
