//! Kernels of a fake [`Device`](super::Device): Rust closures registered by name, their
//! parameters decoded from `cuLaunchKernel`'s `kernelParams`, run once per launch with its
//! geometry and bounds-checked access to the device's memory.

use std::ffi::c_void;
use std::fmt;
use std::mem::size_of;

use cuda_driver_table_core::sys::CUdeviceptr;
use cuda_driver_table_core::KernelParam;

use crate::findings::Fault;
use crate::memory::{Access, Memory};

/// A grid's or a block's size, or an index in one: `x`, `y`, `z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dim3 {
    /// The first dimension.
    pub x: u32,
    /// The second dimension.
    pub y: u32,
    /// The third dimension.
    pub z: u32,
}

impl Dim3 {
    /// How many threads (or blocks) this size holds: `x * y * z`.
    pub fn count(self) -> u64 {
        u64::from(self.x) * u64::from(self.y) * u64::from(self.z)
    }
}

/// One thread of a launch: its block's index in the grid and its index in the block, as CUDA's
/// `blockIdx` and `threadIdx`, with the block's size (`blockDim`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thread {
    /// `blockIdx`.
    pub block: Dim3,
    /// `threadIdx`.
    pub thread: Dim3,
    /// `blockDim`.
    pub block_dim: Dim3,
}

impl Thread {
    /// `blockIdx.x * blockDim.x + threadIdx.x`: the index a one-dimensional kernel computes.
    pub fn global_x(self) -> u64 {
        u64::from(self.block.x) * u64::from(self.block_dim.x) + u64::from(self.thread.x)
    }
}

/// A value a kernel reads from or writes to device memory: its bytes in memory are the value's
/// (native-endian), as a GPU's are. Implemented for the integers and floats; implement it for a
/// `#[repr(C)]` struct of yours by reading and writing its fields.
pub trait DeviceValue: Copy {
    /// The value's size in device memory.
    const SIZE: usize;
    /// Reads the value from exactly [`SIZE`](Self::SIZE) bytes.
    fn from_bytes(bytes: &[u8]) -> Self;
    /// Writes the value to exactly [`SIZE`](Self::SIZE) bytes.
    fn to_bytes(self, bytes: &mut [u8]);
}

macro_rules! device_values {
    ($($t:ty),*) => {$(
        impl DeviceValue for $t {
            const SIZE: usize = size_of::<$t>();
            fn from_bytes(bytes: &[u8]) -> Self {
                let mut raw = [0; size_of::<$t>()];
                raw.copy_from_slice(bytes);
                <$t>::from_ne_bytes(raw)
            }
            fn to_bytes(self, bytes: &mut [u8]) {
                bytes.copy_from_slice(&self.to_ne_bytes());
            }
        }
    )*};
}

device_values!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

/// The parameters of a kernel, as one tuple of [`KernelParam`]s in the kernel's order
/// (`(CUdeviceptr, CUdeviceptr, u32)`, `()` for none): what a launch's `kernelParams` holds,
/// one pointer per parameter, each to its value.
pub trait KernelParams: Sized + 'static {
    /// How many parameters.
    const LEN: usize;

    /// The size of each parameter, in order: what the device checks a launch's
    /// [`kernel_args!`](cuda_driver_table_core::kernel_args!) against.
    #[doc(hidden)]
    const SIZES: &'static [usize];

    /// The name of each parameter's type, in order, for the device's messages.
    #[doc(hidden)]
    fn type_names() -> Vec<&'static str>;

    /// Reads the parameters from `kernelParams`.
    ///
    /// # Safety
    ///
    /// `params` holds one pointer per parameter of `Self`, each valid for reads of its type
    /// (what `cuLaunchKernel`'s caller promises for the kernel launched).
    #[doc(hidden)]
    unsafe fn decode(params: *mut *mut c_void) -> Self;
}

macro_rules! kernel_params {
    ($($t:ident $i:tt),*) => {
        impl<$($t: KernelParam + 'static),*> KernelParams for ($($t,)*) {
            const LEN: usize = <[&str]>::len(&[$(stringify!($t)),*]);
            const SIZES: &'static [usize] = &[$(size_of::<$t>()),*];

            fn type_names() -> Vec<&'static str> {
                vec![$(std::any::type_name::<$t>()),*]
            }

            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn decode(params: *mut *mut c_void) -> Self {
                // SAFETY: `params` holds a pointer to a `$t` at index `$i` (the caller's
                // contract); the values need not be aligned.
                ($(unsafe { (*params.add($i)).cast::<$t>().read_unaligned() },)*)
            }
        }
    };
}

kernel_params!();
kernel_params!(A 0);
kernel_params!(A 0, B 1);
kernel_params!(A 0, B 1, C 2);
kernel_params!(A 0, B 1, C 2, D 3);
kernel_params!(A 0, B 1, C 2, D 3, E 4);
kernel_params!(A 0, B 1, C 2, D 3, E 4, F 5);
kernel_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
kernel_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
kernel_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
kernel_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
kernel_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
kernel_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// One launch of a kernel, as its closure sees it: the geometry, and the device's memory.
///
/// Memory is reached by device pointer and element index, bounds-checked as memcheck checks a
/// kernel: an access outside every live allocation is reported (naming the kernel, the
/// address, the allocation nearest to it and the call that made it) and returns a [`Fault`],
/// which the closure passes on with `?`.
pub struct Launch<'a> {
    pub(crate) kernel: &'a str,
    pub(crate) grid: Dim3,
    pub(crate) block: Dim3,
    pub(crate) shared_mem_bytes: u32,
    pub(crate) memory: &'a mut Memory,
    pub(crate) access: Access,
}

impl Launch<'_> {
    /// The kernel's name, as registered.
    pub fn kernel(&self) -> &str {
        self.kernel
    }

    /// The grid's size in blocks (`gridDim`).
    pub fn grid(&self) -> Dim3 {
        self.grid
    }

    /// A block's size in threads (`blockDim`).
    pub fn block(&self) -> Dim3 {
        self.block
    }

    /// The dynamic shared memory the launch asked for, in bytes.
    pub fn shared_mem_bytes(&self) -> u32 {
        self.shared_mem_bytes
    }

    /// Every thread of the launch, block by block (x fastest), as the closure runs them: one
    /// after the other, on the calling thread.
    pub fn threads(&self) -> impl Iterator<Item = Thread> + 'static {
        let (grid, block) = (self.grid, self.block);
        let each = |d: Dim3| {
            (0..d.z).flat_map(move |z| {
                (0..d.y).flat_map(move |y| (0..d.x).map(move |x| Dim3 { x, y, z }))
            })
        };
        each(grid).flat_map(move |b| {
            each(block).map(move |t| Thread {
                block: b,
                thread: t,
                block_dim: block,
            })
        })
    }

    /// Element `index` of the `T`s at `ptr`.
    ///
    /// # Errors
    ///
    /// When those bytes are not all in one live allocation (reported by the device).
    pub fn read<T: DeviceValue>(&self, ptr: CUdeviceptr, index: u64) -> Result<T, Fault> {
        let addr = element(ptr, index, T::SIZE);
        let bytes = self
            .memory
            .bytes(addr, T::SIZE, &self.access.reading(self.kernel))?;
        Ok(T::from_bytes(bytes))
    }

    /// Writes element `index` of the `T`s at `ptr`.
    ///
    /// # Errors
    ///
    /// When those bytes are not all in one live allocation (reported by the device).
    pub fn write<T: DeviceValue>(
        &mut self,
        ptr: CUdeviceptr,
        index: u64,
        value: T,
    ) -> Result<(), Fault> {
        let addr = element(ptr, index, T::SIZE);
        let access = self.access.writing(self.kernel);
        let bytes = self.memory.bytes_mut(addr, T::SIZE, &access)?;
        value.to_bytes(bytes);
        Ok(())
    }

    /// The `len` elements of `T` at `ptr`.
    ///
    /// # Errors
    ///
    /// When those bytes are not all in one live allocation (reported by the device).
    pub fn read_slice<T: DeviceValue>(
        &self,
        ptr: CUdeviceptr,
        len: usize,
    ) -> Result<Vec<T>, Fault> {
        let bytes = self.memory.bytes(
            ptr,
            len.saturating_mul(T::SIZE),
            &self.access.reading(self.kernel),
        )?;
        if T::SIZE == 0 {
            // A value of no bytes: `len` of them, read from nothing.
            return Ok((0..len).map(|_| T::from_bytes(&[])).collect());
        }
        Ok(bytes.chunks_exact(T::SIZE).map(T::from_bytes).collect())
    }

    /// Writes `values` to the elements of `T` at `ptr`.
    ///
    /// # Errors
    ///
    /// When those bytes are not all in one live allocation (reported by the device).
    pub fn write_slice<T: DeviceValue>(
        &mut self,
        ptr: CUdeviceptr,
        values: &[T],
    ) -> Result<(), Fault> {
        let access = self.access.writing(self.kernel);
        let bytes = self
            .memory
            .bytes_mut(ptr, values.len().saturating_mul(T::SIZE), &access)?;
        if T::SIZE == 0 {
            return Ok(());
        }
        for (chunk, v) in bytes.chunks_exact_mut(T::SIZE).zip(values) {
            v.to_bytes(chunk);
        }
        Ok(())
    }
}

impl fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launch")
            .field("kernel", &self.kernel)
            .field("grid", &self.grid)
            .field("block", &self.block)
            .field("shared_mem_bytes", &self.shared_mem_bytes)
            .finish_non_exhaustive()
    }
}

/// The address of element `index` of `size` bytes each at `ptr` (wrapping: a wild index is an
/// address outside every allocation).
fn element(ptr: CUdeviceptr, index: u64, size: usize) -> CUdeviceptr {
    ptr.wrapping_add(index.wrapping_mul(size as u64))
}

/// A registered kernel: its closure over decoded parameters.
pub(crate) type KernelFn = dyn Fn(&mut Launch<'_>, RawParams) -> Result<(), Fault> + Send + Sync;

/// A launch's `kernelParams`, valid for the kernel's parameters (made only where the launch's
/// caller promised it).
#[derive(Clone, Copy)]
pub(crate) struct RawParams(*mut *mut c_void);

impl RawParams {
    /// # Safety
    ///
    /// `params` holds one pointer per parameter of the kernel being launched, each valid for
    /// reads of its type, for as long as the value lives.
    pub(crate) unsafe fn new(params: *mut *mut c_void) -> Self {
        Self(params)
    }
}

/// A closure over typed parameters as a [`KernelFn`].
pub(crate) fn erase<P, F>(body: F) -> Box<KernelFn>
where
    P: KernelParams,
    F: Fn(&mut Launch<'_>, P) -> Result<(), Fault> + Send + Sync + 'static,
{
    Box::new(move |launch, params: RawParams| {
        // SAFETY: `RawParams` holds the launch's parameters, one per parameter of this kernel,
        // whose signature `P` is (its constructor's contract).
        let decoded = unsafe { P::decode(params.0) };
        body(launch, decoded)
    })
}
