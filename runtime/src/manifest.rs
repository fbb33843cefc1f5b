//! The ABIs of every driver function in the selected release, with the symbol `cuda.h` exports
//! for each: what tests and tools need to check resolved pointers (generated, see `generated/`).

/// A driver function and every ABI it has in the selected release, oldest first.
#[derive(Clone, Copy, Debug)]
pub struct FunctionAbis {
    /// The C name (`cuCtxCreate`).
    pub name: &'static str,
    /// The default ABI: the newest with a typedef in this release.
    pub default: u32,
    /// Every ABI, oldest first.
    pub abis: &'static [AbiInfo],
}

/// One ABI of a function.
#[derive(Clone, Copy, Debug)]
pub struct AbiInfo {
    /// The version in its typedef (`PFN_cuCtxCreate_v12050` -> 12050).
    pub version: u32,
    /// The exported symbol `cuda.h` declares for it (`cuCtxCreate_v4`).
    pub export: Option<&'static str>,
    /// Its `_ptds`/`_ptsz` twin, if any.
    pub per_thread: Option<PerThreadAbi>,
}

/// The per-thread default stream twin of an ABI.
#[derive(Clone, Copy, Debug)]
pub struct PerThreadAbi {
    /// The version in its typedef (`PFN_cuLaunchKernel_v7000_ptsz` -> 7000).
    pub version: u32,
    /// Its exported symbol (`cuLaunchKernel_ptsz`).
    pub export: Option<&'static str>,
}

#[cfg(all(
    feature = "cuda-11070",
    not(any(
        feature = "cuda-11080",
        feature = "cuda-12000",
        feature = "cuda-12010",
        feature = "cuda-12020",
        feature = "cuda-12030",
        feature = "cuda-12040",
        feature = "cuda-12050",
        feature = "cuda-12060",
        feature = "cuda-12080",
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_11070.rs");
#[cfg(all(
    feature = "cuda-11080",
    not(any(
        feature = "cuda-12000",
        feature = "cuda-12010",
        feature = "cuda-12020",
        feature = "cuda-12030",
        feature = "cuda-12040",
        feature = "cuda-12050",
        feature = "cuda-12060",
        feature = "cuda-12080",
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_11080.rs");
#[cfg(all(
    feature = "cuda-12000",
    not(any(
        feature = "cuda-12010",
        feature = "cuda-12020",
        feature = "cuda-12030",
        feature = "cuda-12040",
        feature = "cuda-12050",
        feature = "cuda-12060",
        feature = "cuda-12080",
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_12000.rs");
#[cfg(all(
    feature = "cuda-12010",
    not(any(
        feature = "cuda-12020",
        feature = "cuda-12030",
        feature = "cuda-12040",
        feature = "cuda-12050",
        feature = "cuda-12060",
        feature = "cuda-12080",
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_12010.rs");
#[cfg(all(
    feature = "cuda-12020",
    not(any(
        feature = "cuda-12030",
        feature = "cuda-12040",
        feature = "cuda-12050",
        feature = "cuda-12060",
        feature = "cuda-12080",
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_12020.rs");
#[cfg(all(
    feature = "cuda-12030",
    not(any(
        feature = "cuda-12040",
        feature = "cuda-12050",
        feature = "cuda-12060",
        feature = "cuda-12080",
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_12030.rs");
#[cfg(all(
    feature = "cuda-12040",
    not(any(
        feature = "cuda-12050",
        feature = "cuda-12060",
        feature = "cuda-12080",
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_12040.rs");
#[cfg(all(
    feature = "cuda-12050",
    not(any(
        feature = "cuda-12060",
        feature = "cuda-12080",
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_12050.rs");
#[cfg(all(
    feature = "cuda-12060",
    not(any(
        feature = "cuda-12080",
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_12060.rs");
#[cfg(all(
    feature = "cuda-12080",
    not(any(
        feature = "cuda-12090",
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_12080.rs");
#[cfg(all(
    feature = "cuda-12090",
    not(any(
        feature = "cuda-13000",
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_12090.rs");
#[cfg(all(
    feature = "cuda-13000",
    not(any(
        feature = "cuda-13010",
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_13000.rs");
#[cfg(all(
    feature = "cuda-13010",
    not(any(
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
include!("generated/abis_13010.rs");
#[cfg(all(
    feature = "cuda-13020",
    not(any(feature = "cuda-13030", feature = "cuda-13040", feature = "cuda-13050"))
))]
include!("generated/abis_13020.rs");
#[cfg(all(
    feature = "cuda-13030",
    not(any(feature = "cuda-13040", feature = "cuda-13050"))
))]
include!("generated/abis_13030.rs");
#[cfg(all(feature = "cuda-13040", not(any(feature = "cuda-13050"))))]
include!("generated/abis_13040.rs");
#[cfg(feature = "cuda-13050")]
include!("generated/abis_13050.rs");

/// Looks a function up by name in the selected release.
pub fn find(name: &str) -> Option<&'static FunctionAbis> {
    FUNCTIONS
        .binary_search_by(|f| f.name.cmp(name))
        .ok()
        .map(|i| &FUNCTIONS[i])
}
