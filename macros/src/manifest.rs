//! The function manifest of the selected CUDA release, as the codegen wrote it, and lookups on it.
//!
//! The release is chosen by a `cuda-XXXXX` feature (forwarded from `cuda-driver-table`); when
//! several are enabled the newest wins here, and the runtime crate reports the conflict.
//! Nothing here restates what CUDA contains: it all comes from `generated/`.

/// One driver function and its ABIs, oldest first.
pub struct Function {
    pub name: &'static str,
    /// The default ABI: the newest with a typedef in this release.
    pub default: u32,
    pub abis: &'static [Abi],
}

/// One ABI: a `PFN_<name>_v<version>` typedef.
pub struct Abi {
    pub version: u32,
    pub typedef: &'static str,
    /// (C parameter name, Rust type as the bindings spell it).
    pub params: &'static [(&'static str, &'static str)],
    pub ret: &'static str,
    pub c_prototype: &'static str,
    pub export: Option<&'static str>,
    pub per_thread: Option<PerThread>,
    pub doc: &'static str,
}

/// The `_ptds`/`_ptsz` twin of an ABI.
pub struct PerThread {
    pub version: u32,
    pub typedef: &'static str,
    pub export: Option<&'static str>,
}

impl Function {
    pub fn abi(&self, version: u32) -> Option<&'static Abi> {
        self.abis.iter().find(|a| a.version == version)
    }
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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 11070;
    include!("generated/manifest_11070.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 11080;
    include!("generated/manifest_11080.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 12000;
    include!("generated/manifest_12000.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 12010;
    include!("generated/manifest_12010.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 12020;
    include!("generated/manifest_12020.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 12030;
    include!("generated/manifest_12030.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 12040;
    include!("generated/manifest_12040.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 12050;
    include!("generated/manifest_12050.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 12060;
    include!("generated/manifest_12060.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 12080;
    include!("generated/manifest_12080.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 12090;
    include!("generated/manifest_12090.rs");
}

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
mod selected {
    use super::*;
    pub const RELEASE: u32 = 13000;
    include!("generated/manifest_13000.rs");
}

#[cfg(all(
    feature = "cuda-13010",
    not(any(
        feature = "cuda-13020",
        feature = "cuda-13030",
        feature = "cuda-13040",
        feature = "cuda-13050"
    ))
))]
mod selected {
    use super::*;
    pub const RELEASE: u32 = 13010;
    include!("generated/manifest_13010.rs");
}

#[cfg(all(
    feature = "cuda-13020",
    not(any(feature = "cuda-13030", feature = "cuda-13040", feature = "cuda-13050"))
))]
mod selected {
    use super::*;
    pub const RELEASE: u32 = 13020;
    include!("generated/manifest_13020.rs");
}

#[cfg(all(
    feature = "cuda-13030",
    not(any(feature = "cuda-13040", feature = "cuda-13050"))
))]
mod selected {
    use super::*;
    pub const RELEASE: u32 = 13030;
    include!("generated/manifest_13030.rs");
}

#[cfg(all(feature = "cuda-13040", not(any(feature = "cuda-13050"))))]
mod selected {
    use super::*;
    pub const RELEASE: u32 = 13040;
    include!("generated/manifest_13040.rs");
}

#[cfg(feature = "cuda-13050")]
mod selected {
    use super::*;
    pub const RELEASE: u32 = 13050;
    include!("generated/manifest_13050.rs");
}

#[cfg(not(any(
    feature = "cuda-11070",
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
)))]
mod selected {
    use super::*;
    pub const RELEASE: u32 = 0;
    pub static FUNCTIONS: &[Function] = &[];
}

mod availability {
    include!("generated/availability.rs");
}

/// The selected release (`12090`), or 0 when no `cuda-XXXXX` feature is enabled.
pub const RELEASE: u32 = selected::RELEASE;

/// Every function of the selected release, sorted by name.
pub fn functions() -> &'static [Function] {
    selected::FUNCTIONS
}

/// Looks a function up by name in the selected release.
pub fn find(name: &str) -> Option<&'static Function> {
    let all = functions();
    all.binary_search_by(|f| f.name.cmp(name))
        .ok()
        .map(|i| &all[i])
}

/// The releases whose headers declare `name` (any release, not only the selected one).
pub fn releases_with(name: &str) -> &'static [u32] {
    let all = availability::AVAILABILITY;
    match all.binary_search_by(|(n, _)| (*n).cmp(name)) {
        Ok(i) => all[i].1,
        Err(_) => &[],
    }
}

/// `12.9` for 12090.
pub fn release_name(version: u32) -> String {
    format!("{}.{}", version / 1000, (version % 1000) / 10)
}
