//! `fastsum`: the weighted sum `Σ values[i] · weights[i]` of two vectors, on the GPU, through a
//! `#[driver_table]`. An example of a library tested without a GPU: its tests
//! (`tests/fake_driver.rs`) run this code on the fake device of `cuda-driver-table` (its `fake`
//! feature, a dev-dependency), which holds the memory, runs the kernel as a Rust closure and
//! checks that everything was released, and in front of which a test runs out of memory on the
//! third allocation or fails the launch.
//!
//! Everything allocated is freed on every path, errors included: inside a function, each device
//! buffer, module or context is owned by a `scopeguard` guard as soon as the driver returns it,
//! and released when the guard goes out of scope, in the reverse order of creation; what outlives
//! the function (the context and the module of a [`Fastsum`]) is handed from its guards to the
//! value that keeps it, whose `Drop` releases it.

use std::ffi::{c_void, CStr};
use std::fmt;
use std::ptr::null_mut;

use cuda_driver_table::{driver_table, sys, Error};
use scopeguard::{guard, ScopeGuard};

/// The driver functions `fastsum` uses, each at the newest ABI a CUDA 11.3 driver has: the oldest
/// driver with `cuGetProcAddress`, through which every table resolves, and newer than every ABI
/// these functions need (`cuDevicePrimaryCtxRelease_v2`, CUDA 11.0, is the newest). A number, not
/// `newest`: the ABIs stay the same whichever release the application's feature selects.
///
/// The application passes its own table to [`Fastsum::new`]; tables are independent, so this
/// one lives beside any table of the application's, or of another library, in one program.
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
    driver = 11030
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

/// The weighted sum on one device: its primary context, retained, and the loaded kernel. Dropping
/// it unloads the module and then releases the context.
///
/// The primary context is the device's one shared context: the application and every library
/// retain it (`cuDevicePrimaryCtxRetain`) and release what they retained, and the driver destroys
/// it when the last reference goes. `fastsum` never creates or destroys a context of its own, so
/// its buffers and the application's live in the same context and can be passed between them.
///
/// On the fake device (the hidden lines build the device, its kernel as a closure, and a table
/// configured with it; an application passes its `static` table instead):
///
/// ```
/// # use cuda_driver_table::fake::{Device, Fake, Launch};
/// # use cuda_driver_table::sys::CUdeviceptr;
/// # let device = Device::new();
/// # device.kernel(
/// #     "weighted_sum",
/// #     |k: &mut Launch, (values, weights, out, n): (CUdeviceptr, CUdeviceptr, CUdeviceptr, u32)| {
/// #         for t in k.threads() {
/// #             let i = t.global_x();
/// #             if i < u64::from(n) {
/// #                 let sum = k.read::<f32>(out, 0)? + k.read::<f32>(values, i)? * k.read::<f32>(weights, i)?;
/// #                 k.write(out, 0, sum)?;
/// #             }
/// #         }
/// #         Ok(())
/// #     },
/// # );
/// # let driver = Fake::new().device(&device).build();
/// # let cu = fastsum::Cuda::with_config(driver.config());
/// use fastsum::Fastsum;
///
/// let fastsum = Fastsum::new(&cu, 0)?;
/// assert_eq!(fastsum.weighted_sum(&[1.0, 2.0, 3.0], &[0.5, 0.25, 2.0])?, 7.0);
/// # drop(fastsum);
/// # device.finish().expect("everything was released");
/// # Ok::<(), fastsum::FastsumError>(())
/// ```
pub struct Fastsum<'a> {
    cu: &'a Cuda,
    device: sys::CUdevice,
    context: sys::CUcontext,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
}

impl Drop for Fastsum<'_> {
    fn drop(&mut self) {
        // SAFETY: the module was loaded into the context and the context retained for this
        // device, once each (`Fastsum::new`); nothing uses them after `self`. The module goes
        // first: it lives in the context.
        unsafe {
            let _ = self.cu.cuModuleUnload(self.module);
            let _ = self.cu.cuDevicePrimaryCtxRelease(self.device);
        }
    }
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
        let mut context = null_mut();
        let mut module = null_mut();
        let mut kernel = null_mut();
        // SAFETY: every out-pointer is a valid place for what the driver returns; `PTX` and
        // `KERNEL` are NUL-terminated; each guard releases its handle once, if a later step
        // fails: the module before the context it was loaded into. On success they are
        // defused, and the handles are the `Fastsum`'s, released when it is dropped.
        unsafe {
            cu.cuInit(0)?;
            cu.cuDeviceGet(&mut device, ordinal)?;
            cu.cuDevicePrimaryCtxRetain(&mut context, device)?;
            let retained = guard(device, |device| {
                let _ = cu.cuDevicePrimaryCtxRelease(device);
            });
            cu.cuCtxSetCurrent(context)?;
            cu.cuModuleLoadData(&mut module, PTX.as_ptr().cast())?;
            let loaded = guard(module, |module| {
                let _ = cu.cuModuleUnload(module);
            });
            cu.cuModuleGetFunction(&mut kernel, module, KERNEL.as_ptr())?;
            ScopeGuard::into_inner(loaded);
            ScopeGuard::into_inner(retained);
        }
        Ok(Self {
            cu,
            device,
            context,
            module,
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
        unsafe { self.cu.cuCtxSetCurrent(self.context) }?;
        // Freed when they go out of scope, on every path (the last allocated first).
        let values_d = self.alloc(bytes)?;
        let weights_d = self.alloc(bytes)?;
        let out_d = self.alloc(size_of::<f32>())?;
        let mut result = 0f32;
        // SAFETY: each copy stays within its host slice and its device buffer (`bytes`, or one
        // f32); the kernel's parameters match the PTX entry (three u64 device pointers and a u32)
        // and point at locals that outlive the launch; the result is read after the synchronize.
        unsafe {
            self.cu
                .cuMemcpyHtoD(*values_d, values.as_ptr().cast(), bytes)?;
            self.cu
                .cuMemcpyHtoD(*weights_d, weights.as_ptr().cast(), bytes)?;
            self.cu.cuMemsetD32(*out_d, 0, 1)?;
            let (mut v, mut w, mut o) = (*values_d, *weights_d, *out_d);
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
                .cuMemcpyDtoH((&raw mut result).cast(), *out_d, size_of::<f32>())?;
        }
        Ok(result)
    }

    /// `bytes` of device memory, freed when the guard is dropped; out of memory is
    /// [`FastsumError::OutOfMemory`].
    fn alloc(
        &self,
        bytes: usize,
    ) -> Result<ScopeGuard<sys::CUdeviceptr, impl FnOnce(sys::CUdeviceptr) + 'a>, FastsumError>
    {
        let cu = self.cu;
        let mut ptr = 0;
        // SAFETY: `ptr` is a valid place for the device pointer; the context is current
        // (`weighted_sum`).
        match unsafe { cu.cuMemAlloc(&mut ptr, bytes) } {
            Ok(()) => Ok(guard(ptr, move |ptr| {
                // SAFETY: `ptr` came from cuMemAlloc and is freed once, here; every use of it
                // has completed (the kernel is synchronized before results are read; on an
                // error nothing is left running on it that a free would not wait for).
                let _ = unsafe { cu.cuMemFree(ptr) };
            })),
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
            .field("device", &self.device)
            .field("module", &self.module)
            .finish_non_exhaustive()
    }
}
