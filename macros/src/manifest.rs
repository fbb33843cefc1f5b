//! The function manifest of the selected CUDA release, as the codegen wrote it, and lookups on it.
//!
//! The release is chosen by a `cuda-XXXXX` feature (forwarded from `cuda-driver-table`); when
//! several are enabled the newest wins here, and `cuda-driver-table-sys` reports the conflict.
//! Nothing here restates what CUDA contains: it all comes from `generated/`, where each distinct
//! function record and doc text of all releases is stored once (`functions.rs`) and each release
//! lists its records (`manifest_<release>.rs`).

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
    /// `cuda.h`'s comment as Markdown: the summary, a blank line, the rest. Links to other
    /// functions are written `Self::cuX` and links to the bindings `sys::X`; `docs` resolves them.
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

// One `mod selected` per release, each behind its `cuda-XXXXX` feature (the newest enabled wins),
// and an empty one when none is enabled.
#[cfg(not(feature = "cuda-local"))]
include!("generated/select.rs");
// With `cuda-local`: the same two modules for the toolkit on the build machine, from build.rs.
#[cfg(feature = "cuda-local")]
include!(concat!(env!("OUT_DIR"), "/local_manifest.rs"));

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

/// `12.9` for 12090, as the generated files name it (the number itself for a release they do not
/// know).
pub fn release_name(version: u32) -> String {
    if version == RELEASE {
        return selected::RELEASE_NAME.to_string();
    }
    availability::RELEASE_NAMES
        .iter()
        .find(|(v, _)| *v == version)
        .map_or_else(|| version.to_string(), |(_, name)| name.to_string())
}
