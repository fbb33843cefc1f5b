//! Which machine a fake device imitates: its driver's version, the exports that platform lacks,
//! device attributes, and the host's page size. A [`Profile`] is plain data; the device answers
//! by it (`device/contexts.rs`, `device/allocations.rs`) and the fake driver looks functions up
//! by it (`lib.rs`). It never says a platform lacks something that no cited report or NVIDIA
//! document says it lacks.

use std::collections::BTreeMap;
use std::ffi::c_int;
use std::fmt;

use cuda_driver_table_core::sys::CUdevice_attribute;

/// The machine a [`Device`](crate::Device) imitates: what `cuDriverGetVersion` answers (and
/// which ABIs a lookup finds), which exported symbols the platform's driver lacks, the device
/// attributes that differ from the fake's own, and the host's page size. Give it to a device
/// with [`Device::with_profile`](crate::Device::with_profile); a test can then exercise the
/// code's fallback paths without that machine.
///
/// A named profile is built only from what a cited report or NVIDIA's documentation says of that
/// platform (each one's docs cite them, by repository and number); everything else is the
/// fake's default device. A test builds its own from parts, starting from [`Profile::new`] or a
/// named one:
///
/// ```
/// use cuda_driver_table::fake::{Device, Profile};
///
/// let profile = Profile::new("a pool-less GPU behind an old driver")
///     .driver_version(12020)
///     .memory_pools(false)
///     .compute_capability(7, 5)
///     .multiprocessors(40);
/// let device = Device::new().with_profile(profile);
/// # drop(device);
/// ```
///
/// What each part does on the device:
///
/// - [`driver_version`](Self::driver_version): `cuDriverGetVersion` answers it, and a lookup of
///   an ABI newer than it fails as on such a driver (`ErrorKind::DriverTooOld`), so
///   `resolve_all` and each method's first call see what they would there. Without one, the
///   device answers the bindings' release and checks no lookup (as before profiles).
/// - [`lacks`](Self::lacks): an exported symbol (`cuCtxGetDevice_v2`, `cuDevSmResourceSplit`)
///   the platform's driver does not have. A lookup whose ABI is that export fails as the real
///   driver's does, symbol not found (`ErrorKind::SymbolNotFound`), even where a closure of
///   [`Fake::on`](crate::Fake::on) was given for it: the platform has no such function.
/// - [`attribute`](Self::attribute) and the named shorthands: what `cuDeviceGetAttribute`
///   answers. [`memory_pools(false)`](Self::memory_pools) also makes `cuDeviceGetMemPool`,
///   `cuDeviceGetDefaultMemPool`, `cuMemAllocAsync` and `cuMemAllocFromPoolAsync` fail with
///   `CUDA_ERROR_NOT_SUPPORTED`, as a device without stream-ordered memory pools does; the other
///   attributes are answered, and change nothing else the device does.
/// - [`host_page_size`](Self::host_page_size): pinned host memory (`cuMemAllocHost`,
///   `cuMemHostAlloc`) is whole pages of it, starting at a page boundary, as the host's
///   allocator pins it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub struct Profile {
    name: String,
    driver_version: Option<u32>,
    lacks: Vec<String>,
    /// By `CUdevice_attribute`'s number.
    attributes: BTreeMap<u32, c_int>,
    host_page_size: usize,
}

/// The host page size of a profile that does not name one: 4 KiB, that of x86-64 Linux and
/// Windows.
const DEFAULT_PAGE: usize = 4 << 10;

impl Default for Profile {
    fn default() -> Self {
        Self::new("the fake device")
    }
}

impl Profile {
    /// A profile named `name` (its messages say it: "... on Jetson Orin (JetPack 6)") that
    /// changes nothing yet: the fake's default device, whose driver is the bindings' release.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            driver_version: None,
            lacks: Vec::new(),
            attributes: BTreeMap::new(),
            host_page_size: DEFAULT_PAGE,
        }
    }

    /// A Jetson AGX Orin on JetPack 6: a CUDA 12.6 driver, integrated memory, compute
    /// capability 8.7, 16 multiprocessors.
    ///
    /// - Its driver is CUDA 12.6, and so lacks `cuCtxGetDevice_v2` (ABI 13000 of
    ///   `cuCtxGetDevice`, new in CUDA 13.0): a program built against CUDA 13 headers that
    ///   loads it fails there (chelsea0x3b/cudarc #525, `objdump -T libcuda.so` shows only
    ///   `cuCtxGetDevice`; tracel-ai/burn #4405, the same panic through burn). A table pinned to
    ///   ABI 13000 gets `DriverTooOld`; pinned to ABI 2000, it runs.
    /// - Its GPU is integrated: device and host memory are the same physical DRAM (NVIDIA's
    ///   "CUDA for Tegra" application note), so `CU_DEVICE_ATTRIBUTE_INTEGRATED` is 1.
    /// - Compute capability 8.7 and 16 multiprocessors: the `deviceQuery` of a Jetson AGX Orin
    ///   64 GB (EricLBuehler/mistral.rs #867).
    pub fn jetson_orin_jetpack6() -> Self {
        Self::new("Jetson AGX Orin (JetPack 6)")
            .driver_version(12060)
            .integrated(true)
            .compute_capability(8, 7)
            .multiprocessors(16)
    }

    /// A Windows driver of CUDA 13.1 (WDDM): it lacks the checkpoint API and
    /// `cuDevSmResourceSplit`.
    ///
    /// - The checkpoint functions (`cuCheckpointProcess*`, NVIDIA's "CUDA Checkpointing"
    ///   group) exist on Linux only, so the Windows driver exports none of them
    ///   (chelsea0x3b/cudarc #385: `GetProcAddress` fails for them with CUDA 12.8 and older,
    ///   and cudarc's maintainer points to that group's Linux-only documentation).
    /// - `cuDevSmResourceSplit`, new in CUDA 13.1, is missing from the Windows driver of 13.1
    ///   (chelsea0x3b/cudarc #512).
    pub fn windows_driver_13_1() -> Self {
        Self::new("a Windows driver of CUDA 13.1")
            .driver_version(13010)
            .lacks("cuCheckpointProcessCheckpoint")
            .lacks("cuCheckpointProcessGetRestoreThreadId")
            .lacks("cuCheckpointProcessGetState")
            .lacks("cuCheckpointProcessLock")
            .lacks("cuCheckpointProcessRestore")
            .lacks("cuCheckpointProcessUnlock")
            .lacks("cuDevSmResourceSplit")
    }

    /// A GPU in TCC mode on Windows: no stream-ordered memory pools, so `cuDeviceGetMemPool`
    /// answers `CUDA_ERROR_NOT_SUPPORTED` (NVIDIA/cuda-python #206, a TCC-mode device;
    /// NVIDIA/cuda-python #208 and #257, the fallback to `cuMemAlloc` that cuda.core added for
    /// it), and `CU_DEVICE_ATTRIBUTE_TCC_DRIVER` is 1 (#208 names it). Its driver's version is
    /// not in the reports: the profile leaves it the bindings' release.
    pub fn windows_tcc() -> Self {
        Self::new("a Windows GPU in TCC mode")
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TCC_DRIVER, 1)
            .memory_pools(false)
    }

    /// A fractional vGPU (an AWS `g6f` instance's slice of an L4) on the GRID driver 580.159.03,
    /// CUDA 13.0: `CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED` is 0, and `cudaMallocAsync` fails
    /// with error 801, `CUDA_ERROR_NOT_SUPPORTED` (AcademySoftwareFoundation/openvdb #2255,
    /// with the attribute's query printed).
    pub fn vgpu_without_pools() -> Self {
        Self::new("a fractional vGPU without memory pools")
            .driver_version(13000)
            .memory_pools(false)
    }

    /// A Grace host (a Grace Hopper or Grace Blackwell superchip's CPU): 64 KiB pages, the page
    /// size NVIDIA recommends for Grace ("Grace Performance Tuning Guide", "Operating System
    /// Settings": "The recommended default value for the page size is 64K"). Pinned host
    /// memory is then whole 64 KiB pages. Its GPU is the fake's default device.
    pub fn grace() -> Self {
        Self::new("a Grace host (64 KiB pages)").host_page_size(64 << 10)
    }

    /// The driver's version, as `cuDriverGetVersion` gives it (`12060` for CUDA 12.6): what
    /// the device answers, and the newest ABI a lookup finds.
    pub fn driver_version(mut self, version: u32) -> Self {
        self.driver_version = Some(version);
        self
    }

    /// The platform's driver does not export `symbol`, the exact name it would have (the ABI's
    /// export in `cuda.h`: `cuCtxGetDevice_v2` for ABI 13000 of `cuCtxGetDevice`, `cuCtxGetDevice`
    /// for ABI 2000; `cuMemAllocAsync_ptsz` for the per-thread twin).
    pub fn lacks(mut self, symbol: impl Into<String>) -> Self {
        let symbol = symbol.into();
        if !self.lacks.contains(&symbol) {
            self.lacks.push(symbol);
        }
        self
    }

    /// `cuDeviceGetAttribute` answers `value` for `attribute`.
    pub fn attribute(mut self, attribute: CUdevice_attribute, value: c_int) -> Self {
        self.attributes.insert(attribute.0, value);
        self
    }

    /// Whether the device has stream-ordered memory pools
    /// (`CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED`). Without them, `cuDeviceGetMemPool`,
    /// `cuDeviceGetDefaultMemPool`, `cuMemAllocAsync` and `cuMemAllocFromPoolAsync` answer
    /// `CUDA_ERROR_NOT_SUPPORTED`.
    pub fn memory_pools(self, supported: bool) -> Self {
        let attribute = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED;
        self.attribute(attribute, c_int::from(supported))
    }

    /// Whether the device supports virtual memory management
    /// (`CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED`; the fake device implements
    /// none of its functions, so it answers 0 unless told otherwise).
    pub fn virtual_memory(self, supported: bool) -> Self {
        let attribute = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED;
        self.attribute(attribute, c_int::from(supported))
    }

    /// Whether the GPU is integrated, sharing the host's memory
    /// (`CU_DEVICE_ATTRIBUTE_INTEGRATED`).
    pub fn integrated(self, integrated: bool) -> Self {
        let attribute = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_INTEGRATED;
        self.attribute(attribute, c_int::from(integrated))
    }

    /// The compute capability, `major.minor` (`CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR`
    /// and `_MINOR`).
    pub fn compute_capability(self, major: c_int, minor: c_int) -> Self {
        use CUdevice_attribute as A;
        self.attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, major)
            .attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, minor)
    }

    /// The number of multiprocessors (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`).
    pub fn multiprocessors(self, count: c_int) -> Self {
        let attribute = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
        self.attribute(attribute, count)
    }

    /// The host's page size in bytes, a power of two: `64 << 10` for 64 KiB. (A size that is
    /// not one fails each pinned allocation with a misuse finding that says so.)
    pub fn host_page_size(mut self, bytes: usize) -> Self {
        self.host_page_size = bytes;
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The driver's version it sets, if it sets one.
    pub fn version(&self) -> Option<u32> {
        self.driver_version
    }

    /// The exported symbols it lacks.
    pub fn lacking(&self) -> impl Iterator<Item = &str> {
        self.lacks.iter().map(String::as_str)
    }

    /// Whether the platform's driver lacks the export `symbol`.
    pub fn lacks_export(&self, symbol: &str) -> bool {
        self.lacks.iter().any(|s| s == symbol)
    }

    /// What it sets `attribute` to, if it sets it.
    pub fn attribute_value(&self, attribute: CUdevice_attribute) -> Option<c_int> {
        self.attributes.get(&attribute.0).copied()
    }

    /// Its host page size in bytes.
    pub fn page_size(&self) -> usize {
        self.host_page_size
    }

    /// Whether the device has memory pools: unless the profile says otherwise, it does.
    pub(crate) fn has_pools(&self) -> bool {
        let attribute = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED;
        self.attribute_value(attribute) != Some(0)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}
