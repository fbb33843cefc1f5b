//! The function manifest of the selected CUDA release, as the generator wrote it, and lookups on
//! it.
//!
//! The release is chosen by a `cuda-XXXXX` feature (forwarded from `cuda-driver-table`); when
//! several are enabled the newest wins here, and `cuda-driver-table-sys` reports the conflict.
//! Nothing here restates what CUDA contains: it all comes from `generated/`, as text the compiler
//! only embeds (`records` says how it is written): the records of every release, each once with
//! the releases that have it (`manifest.txt`), and their doc texts, each once (`docs.txt`). A table
//! reads the records of the functions it names in the selected release, and decodes their doc
//! texts, when the macro runs; each is read once per process (one compiler process expands many
//! tables) and kept for the process's life, like the statics it replaces.

mod records;
#[cfg(test)]
mod tests;

use std::sync::OnceLock;

/// One driver function and its ABIs, oldest first.
#[derive(Clone, Copy)]
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
    /// The out-values among them: parameters through which the driver writes one value on
    /// success, which a traced call reads back (the records' `out:` names).
    pub outs: &'static [&'static str],
    pub ret: &'static str,
    pub c_prototype: &'static str,
    pub export: Option<&'static str>,
    pub per_thread: Option<PerThread>,
    /// `cuda.h`'s comment as Markdown: the summary, a blank line, the rest. Links to other
    /// functions are written `Self::cuX` and links to the bindings `sys::X`, or short, their
    /// target without the name they show (`` [`cuX`](Self::) ``); `docs` resolves them.
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

/// The records of every pinned release: those of the selected one, and which releases have which
/// function, for errors that name them (`records` says how it is written).
const PINNED: &str = include_str!("generated/manifest.txt");

// One `mod selected` per release, each behind its `cuda-XXXXX` feature (the newest enabled wins),
// and one of release 0 when none is enabled: `RELEASE` and `RELEASE_NAME`.
#[cfg(not(feature = "cuda-local"))]
include!("generated/select.rs");
/// The texts the selected release is read from: the records and their doc texts.
#[cfg(not(feature = "cuda-local"))]
mod texts {
    pub const RECORDS: &str = super::PINNED;
    pub const DOCS: &str = include_str!("generated/docs.txt");
}
// With `cuda-local`: the same for the toolkit on the build machine, from cuda-driver-table-local
// (records of that one release).
#[cfg(feature = "cuda-local")]
mod selected {
    pub use cuda_driver_table_local::{RELEASE, RELEASE_NAME};
}
#[cfg(feature = "cuda-local")]
mod texts {
    pub use cuda_driver_table_local::{DOCS, RECORDS};
}

/// The selected release (`12090`), or 0 when no `cuda-XXXXX` feature is enabled.
pub const RELEASE: u32 = selected::RELEASE;

/// The selected release's records, read and checked once per process, with each function's
/// record once it is asked for.
struct Selected {
    index: records::Index<'static>,
    functions: Vec<OnceLock<Result<Function, String>>>,
}

/// The selected release's records, read on first use and kept for the process's life.
fn selected() -> Result<&'static Selected, &'static str> {
    static SELECTED: OnceLock<Result<Selected, String>> = OnceLock::new();
    SELECTED
        .get_or_init(read_selected)
        .as_ref()
        .map_err(String::as_str)
}

fn read_selected() -> Result<Selected, String> {
    let index = if RELEASE == 0 {
        records::Index::empty()
    } else {
        read(texts::RECORDS, texts::DOCS)?
    };
    let functions = index.entries.iter().map(|_| OnceLock::new()).collect();
    Ok(Selected { index, functions })
}

/// What the user sees at the attribute for a damaged manifest (`e` says where).
fn damaged(e: &str) -> String {
    format!(
        "cuda-driver-table-macros cannot read its function manifest of CUDA {} ({e}): its files \
         are damaged; download and build it again (`cargo clean -p cuda-driver-table-macros`)",
        selected::RELEASE_NAME
    )
}

/// Reads the records of the selected release, or says what the user sees at the attribute.
fn read(records: &'static str, docs: &'static str) -> Result<records::Index<'static>, String> {
    let e = match records::Index::read(records, docs, RELEASE) {
        Ok(index) if index.release == RELEASE && index.release_name == selected::RELEASE_NAME => {
            return Ok(index)
        }
        Ok(index) => format!(
            "its records are of CUDA {} ({})",
            index.release_name, index.release
        ),
        Err(e) => e,
    };
    Err(damaged(&e))
}

/// Reads the selected release's manifest: an error (for the attribute) when it cannot be read.
/// The availability of functions, which only errors need, is read when one asks for it.
pub fn load() -> Result<(), &'static str> {
    selected().map(drop)
}

/// The availability of functions, read and checked once per process.
fn availability() -> Result<&'static records::Availability<'static>, &'static str> {
    static AVAILABILITY: OnceLock<Result<records::Availability<'static>, String>> = OnceLock::new();
    AVAILABILITY
        .get_or_init(|| read_availability(PINNED))
        .as_ref()
        .map_err(String::as_str)
}

/// Reads the availability of functions, or says what the user sees at the attribute.
fn read_availability(text: &'static str) -> Result<records::Availability<'static>, String> {
    match records::Availability::read(text) {
        Ok(read) => Ok(read),
        Err(e) => Err(format!(
            "cuda-driver-table-macros cannot read which releases have which function \
             (manifest.txt: {e}): its files are damaged; download and build it again \
             (`cargo clean -p cuda-driver-table-macros`)"
        )),
    }
}

/// `s`, kept for the process's life.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The function of entry `i`, read on first use.
fn function(selected: &'static Selected, i: usize) -> Result<&'static Function, &'static str> {
    selected.functions[i]
        .get_or_init(|| {
            let entry = &selected.index.entries[i];
            let abis = selected.index.abis(entry).map_err(|e| damaged(&e))?;
            let abis: Vec<Abi> = abis
                .into_iter()
                .map(|a| Abi {
                    version: a.version,
                    typedef: leak(records::typedef(entry.name, a.version)),
                    params: a.params.leak(),
                    outs: a.outs.leak(),
                    ret: a.ret,
                    c_prototype: a.c_prototype,
                    export: a.export,
                    per_thread: a.per_thread.map(|pt| PerThread {
                        version: pt.version,
                        typedef: leak(records::per_thread_typedef(entry.name, &pt)),
                        export: pt.export,
                    }),
                    doc: leak(a.doc),
                })
                .collect();
            // The newest ABI of the release is its default.
            let default = abis.last().map_or(0, |a| a.version);
            Ok(Function {
                name: entry.name,
                default,
                abis: abis.leak(),
            })
        })
        .as_ref()
        .map_err(String::as_str)
}

/// Every function of the selected release, sorted by name (each read now, if not yet), or what
/// the user sees for a damaged manifest.
pub fn all() -> Result<&'static [Function], &'static str> {
    static ALL: OnceLock<Result<Vec<Function>, &'static str>> = OnceLock::new();
    ALL.get_or_init(|| {
        let s = selected()?;
        (0..s.functions.len())
            .map(|i| function(s, i).copied())
            .collect()
    })
    .as_deref()
    .map_err(|e| *e)
}

/// [`all`], or none for a damaged manifest.
pub fn functions() -> &'static [Function] {
    all().unwrap_or_default()
}

/// Looks a function up by name in the selected release: `Ok(None)` when it has none of that
/// name, `Err` when its records are damaged.
pub fn read_function(name: &str) -> Result<Option<&'static Function>, &'static str> {
    let s = selected()?;
    s.index.position(name).map(|i| function(s, i)).transpose()
}

/// [`read_function`], with damaged records as none.
pub fn find(name: &str) -> Option<&'static Function> {
    read_function(name).ok().flatten()
}

/// The releases whose headers declare `name` (any release, not only the selected one).
pub fn releases_with(name: &str) -> &'static [u32] {
    let Ok(all) = availability() else {
        return &[];
    };
    all.functions
        .binary_search_by(|(here, _)| (*here).cmp(name))
        .map_or(&[], |i| &all.functions[i].1)
}

/// Every release this crate knows, oldest first: those of the manifest, and the selected one
/// (which `cuda-local` may add).
pub fn releases() -> Vec<u32> {
    let mut out: Vec<u32> = availability()
        .map(|all| all.releases.iter().map(|(v, _)| *v).collect())
        .unwrap_or_default();
    if RELEASE != 0 && !out.contains(&RELEASE) {
        out.push(RELEASE);
        out.sort_unstable();
    }
    out
}

/// `12.9` for 12090, as the generated files name it (the number itself for a release they do not
/// know).
pub fn release_name(version: u32) -> String {
    if version == RELEASE {
        return selected::RELEASE_NAME.to_string();
    }
    availability()
        .ok()
        .and_then(|all| all.releases.iter().find(|(v, _)| *v == version))
        .map_or_else(|| version.to_string(), |(_, name)| (*name).to_string())
}
