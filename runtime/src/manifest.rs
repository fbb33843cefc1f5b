//! The ABIs of every driver function in the selected release, with the symbol `cuda.h` exports
//! for each: what tests and tools need to check resolved pointers; and the names of its
//! `CUresult` codes (generated, see `generated/`).

use crate::stream::StreamMode;

/// A driver function and every ABI it has in the selected release, oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionAbis {
    /// The C name (`cuCtxCreate`).
    pub name: &'static str,
    /// The default ABI: the newest with a typedef in this release.
    pub default: u32,
    /// Every ABI, oldest first.
    pub abis: &'static [AbiInfo],
}

/// One ABI of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbiInfo {
    /// The version in its typedef (`PFN_cuCtxCreate_v12050` -> 12050).
    pub version: u32,
    /// The exported symbol `cuda.h` declares for it (`cuCtxCreate_v4`).
    pub export: Option<&'static str>,
    /// Its `_ptds`/`_ptsz` twin, if any.
    pub per_thread: Option<PerThreadAbi>,
}

/// The per-thread default stream twin of an ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerThreadAbi {
    /// The version in its typedef (`PFN_cuLaunchKernel_v7000_ptsz` -> 7000).
    pub version: u32,
    /// Its exported symbol (`cuLaunchKernel_ptsz`).
    pub export: Option<&'static str>,
}

impl AbiInfo {
    /// What is asked of the driver for this ABI in `mode`: the version and the stream flag. In
    /// per-thread mode that is the per-thread twin where there is one; every other case is this
    /// ABI with the legacy flag. Resolution asks exactly this, nothing else.
    pub const fn request(&self, mode: StreamMode) -> (u32, StreamMode) {
        match (mode, self.per_thread) {
            (StreamMode::PerThread, Some(pt)) => (pt.version, StreamMode::PerThread),
            _ => (self.version, StreamMode::Legacy),
        }
    }

    /// The symbol the driver should hand out for [`request`](Self::request) in `mode` (compare
    /// with `dlsym`).
    pub const fn expected_export(&self, mode: StreamMode) -> Option<&'static str> {
        match (self.request(mode).1, self.per_thread) {
            (StreamMode::PerThread, Some(pt)) => pt.export,
            _ => self.export,
        }
    }
}

// `include!("abis_XXXXX.rs")` of the release behind its `cuda-XXXXX` feature.
#[cfg(not(feature = "cuda-local"))]
include!("generated/select.rs");
// With `cuda-local`: the ABI list of the toolkit on the build machine, from build.rs.
#[cfg(feature = "cuda-local")]
include!(concat!(env!("OUT_DIR"), "/local_abis.rs"));

/// The name of `CUresult` `code` in the bindings of the selected release
/// (`CUDA_ERROR_STUB_LIBRARY` for 34), if they have one: for a code the driver cannot name itself.
pub fn cu_result_name(code: u32) -> Option<&'static str> {
    CU_RESULTS
        .iter()
        .find(|(c, _)| c.0 == code)
        .map(|(_, name)| *name)
}

/// Looks a function up by name in the selected release.
pub fn find(name: &str) -> Option<&'static FunctionAbis> {
    FUNCTIONS
        .binary_search_by(|f| f.name.cmp(name))
        .ok()
        .map(|i| &FUNCTIONS[i])
}
