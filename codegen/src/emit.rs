//! Turns parsed releases into the committed files: the bindings of every release in one file with
//! each distinct item once (`sys` crate), the function records of every release with each distinct
//! record and doc text once plus one short list per release (macro crate), the compact ABI list
//! per release and the ABI history over all releases (runtime crate), and the files that select a
//! release by its cargo feature. Output is deterministic: the same inputs give byte-identical files.
//!
//! Storing what repeats once is what keeps the published crates small: consecutive releases share
//! most of their items and doc texts, and a `.crate` file is a gzip stream whose window (32 KiB)
//! cannot see that two 500 KB files are nearly the same.

use crate::manifest::{Function, Manifest};
use crate::parse::{self, BINDGEN_VERSION, CLANG_DEFINES};
use crate::releases::{release_name, Release, DEFAULT_RELEASE};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The command that regenerates every committed file.
pub const REGENERATE: &str = "cargo run -p cuda-driver-table-codegen --release -- generate";

/// Where a release's headers come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A pinned public wheel (see `releases.rs`).
    Wheel(Release),
    /// A local toolkit's include folder, for a release not pinned yet.
    Local { version: u32, include: PathBuf },
}

impl Source {
    pub fn version(&self) -> u32 {
        match self {
            Source::Wheel(r) => r.version,
            Source::Local { version, .. } => *version,
        }
    }

    fn describe(&self) -> String {
        let name = release_name(self.version());
        match self {
            Source::Wheel(r) => format!(
                "CUDA {name} cuda.h + cudaTypedefs.h from the wheel {}",
                r.requirement()
            ),
            Source::Local { include, .. } => {
                format!(
                    "CUDA {name} cuda.h + cudaTypedefs.h from {}",
                    include.display()
                )
            }
        }
    }

    fn regenerate(&self) -> String {
        match self {
            Source::Wheel(_) => REGENERATE.to_string(),
            Source::Local { version, include } => format!(
                "cargo run -p cuda-driver-table-codegen --release -- generate --include {} --version {version}",
                include.display()
            ),
        }
    }
}

/// One release, parsed.
pub struct ParsedRelease {
    pub source: Source,
    /// The bindings, formatted (bindgen's output less its `extern` blocks).
    pub bindings: String,
    /// The same bindings item by item, each formatted on its own, in bindgen's order.
    pub items: Vec<BindingItem>,
    /// Every name a doc comment may refer to with `::Name`, with its path below `sys`
    /// (`CUDA_SUCCESS` -> `cudaError_enum::CUDA_SUCCESS`, `CUfunction` -> `CUfunction`).
    pub sys_paths: BTreeMap<String, String>,
    pub manifest: Manifest,
}

/// One item of the bindings: the name it defines or implements, and its formatted text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingItem {
    pub name: String,
    pub text: String,
}

/// Runs bindgen over the release's headers and builds its manifest.
pub fn parse_release(source: Source, include: &Path) -> Result<ParsedRelease, String> {
    let raw = parse::run_bindgen(include)?;
    let mut generated = parse::split(&raw)?;
    let documented = parse::documented_decls(include)?;
    let docs: std::collections::HashMap<&str, &str> = documented
        .iter()
        .filter_map(|d| Some((d.name.as_str(), d.doc.as_deref()?)))
        .collect();
    for decl in &mut generated.decls {
        if decl.doc.is_none() {
            decl.doc = docs.get(decl.name.as_str()).map(|d| d.to_string());
        }
    }
    let manifest = crate::manifest::build(&generated)?;
    let items = generated
        .bindings
        .items
        .iter()
        .map(|item| BindingItem {
            name: item_name(item),
            text: prettyplease::unparse(&syn::File {
                shebang: None,
                attrs: Vec::new(),
                items: vec![item.clone()],
            }),
        })
        .collect();
    Ok(ParsedRelease {
        source,
        bindings: prettyplease::unparse(&generated.bindings),
        items,
        sys_paths: sys_paths(&generated.bindings),
        manifest,
    })
}

/// The name an item defines (`impl X` and `impl Trait for X` count as `X`, `use a as b` as `b`).
fn item_name(item: &syn::Item) -> String {
    fn type_name(ty: &syn::Type) -> String {
        match ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default(),
            other => parse::tokens_text(other),
        }
    }
    fn use_name(tree: &syn::UseTree) -> String {
        match tree {
            syn::UseTree::Path(p) => use_name(&p.tree),
            syn::UseTree::Name(n) => n.ident.to_string(),
            syn::UseTree::Rename(r) => r.rename.to_string(),
            syn::UseTree::Glob(_) => "*".to_string(),
            syn::UseTree::Group(g) => g.items.first().map(use_name).unwrap_or_default(),
        }
    }
    match item {
        syn::Item::Const(i) => i.ident.to_string(),
        syn::Item::Enum(i) => i.ident.to_string(),
        syn::Item::Static(i) => i.ident.to_string(),
        syn::Item::Struct(i) => i.ident.to_string(),
        syn::Item::Type(i) => i.ident.to_string(),
        syn::Item::Union(i) => i.ident.to_string(),
        syn::Item::Fn(i) => i.sig.ident.to_string(),
        syn::Item::Impl(i) => type_name(&i.self_ty),
        syn::Item::Use(i) => use_name(&i.tree),
        other => parse::tokens_text(other),
    }
}

/// What doc links can point at: every item's name, and the associated constants of the newtype
/// enums (`CUDA_SUCCESS` of `cudaError_enum`) where no item has that name.
fn sys_paths(bindings: &syn::File) -> BTreeMap<String, String> {
    let mut paths = BTreeMap::new();
    for item in &bindings.items {
        if !matches!(item, syn::Item::Impl(_)) {
            let name = item_name(item);
            paths.insert(name.clone(), name);
        }
    }
    for item in &bindings.items {
        let syn::Item::Impl(i) = item else { continue };
        if i.trait_.is_some() {
            continue;
        }
        let ty = item_name(item);
        for member in &i.items {
            if let syn::ImplItem::Const(c) = member {
                paths
                    .entry(c.ident.to_string())
                    .or_insert_with(|| format!("{ty}::{}", c.ident));
            }
        }
    }
    paths
}

fn header(source_line: &str, regenerate: &str, what: &str) -> String {
    format!(
        "// @generated by cuda-driver-table-codegen: {what}. Do not edit by hand.\n\
         // Input: {source_line}.\n\
         // Parsed by bindgen {BINDGEN_VERSION} with {}.\n\
         // Regenerate: {regenerate}\n\n",
        CLANG_DEFINES.join(" ")
    )
}

/// The header of a file built from several releases: every input on its own line.
fn header_all(releases: &[&ParsedRelease], what: &str) -> String {
    let mut out = format!(
        "// @generated by cuda-driver-table-codegen: {what}. Do not edit by hand.\n// Input:\n"
    );
    for r in releases {
        let _ = writeln!(out, "//   {}", r.source.describe());
    }
    let regenerate = releases
        .iter()
        .find(|r| matches!(r.source, Source::Local { .. }))
        .map_or_else(|| REGENERATE.to_string(), |r| r.source.regenerate());
    let _ = write!(
        out,
        "// Parsed by bindgen {BINDGEN_VERSION} with {}.\n// Regenerate: {regenerate}\n\n",
        CLANG_DEFINES.join(" ")
    );
    out
}

/// Relative paths (from the workspace root) of the files each release has on its own: its ABI
/// list (runtime crate) and the list of its function records (macro crate).
pub fn release_paths(version: u32) -> [PathBuf; 2] {
    [
        PathBuf::from(format!("runtime/src/generated/abis_{version}.rs")),
        PathBuf::from(format!("macros/src/generated/manifest_{version}.rs")),
    ]
}

/// Relative path of the bindings of every release.
pub const BINDINGS_PATH: &str = "sys/src/generated/bindings.rs";

/// Relative path of the function records and doc texts of every release.
pub const FUNCTIONS_PATH: &str = "macros/src/generated/functions.rs";

/// Relative path of the ABI history over all releases.
pub const HISTORY_PATH: &str = "runtime/src/generated/abi_history.rs";

/// Relative paths of the files that pick one release's files by its `cuda-XXXXX` feature.
pub const SELECT_PATHS: [&str; 3] = [
    "sys/src/generated/select.rs",
    "runtime/src/generated/select.rs",
    "macros/src/generated/select.rs",
];

/// The crates whose `Cargo.toml` declares one `cuda-XXXXX` feature per release.
pub const FEATURE_MANIFESTS: [&str; 3] =
    ["sys/Cargo.toml", "runtime/Cargo.toml", "macros/Cargo.toml"];

/// The feature that takes the bindings from the toolkit on the build machine (see `local.rs`).
pub const LOCAL_FEATURE: &str = "feature = \"cuda-local\"";

/// `feature = "cuda-13000"`.
fn feature(version: u32) -> String {
    format!("feature = \"cuda-{version}\"")
}

/// The `cfg` under which release `version` is the selected one: its feature is on and no newer
/// release's is (the newest enabled wins; the `sys` crate refuses any other number than one).
fn select_cfg(version: u32, all: &[u32]) -> String {
    let newer: Vec<String> = all
        .iter()
        .filter(|v| **v > version)
        .map(|v| feature(*v))
        .collect();
    if newer.is_empty() {
        feature(version)
    } else {
        format!("all({}, not(any({})))", feature(version), newer.join(", "))
    }
}

/// The three selection files for these releases, keyed by relative path.
pub fn select_files(versions: &[u32]) -> Vec<(PathBuf, String)> {
    let mut all = versions.to_vec();
    all.sort_unstable();
    all.dedup();
    let head = |what: &str| {
        format!(
            "// @generated by cuda-driver-table-codegen: {what}. Do not edit by hand.\n\
             // Input: the releases {}.\n\
             // Regenerate: {REGENERATE}\n\n",
            all.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let features: Vec<String> = all.iter().map(|v| feature(*v)).collect();

    let mut sys = head("the bindings of the selected release, and the errors for any other number of releases than one");
    sys.push_str(
        "// The bindings are included only when exactly one `cuda-XXXXX` feature is enabled (each of\n\
         // their items carries the features of the releases that have it), and `cuda-local` is not\n\
         // (its bindings come from `OUT_DIR`, see `lib.rs`). Otherwise the only error is one of those\n\
         // below, which says what is enabled and what to change.\n#[cfg(any(\n",
    );
    for v in &all {
        let others: Vec<String> = all
            .iter()
            .filter(|o| *o != v)
            .map(|o| feature(*o))
            .chain([LOCAL_FEATURE.to_string()])
            .collect();
        let _ = writeln!(
            sys,
            "    all({}, not(any({}))),",
            feature(*v),
            others.join(", ")
        );
    }
    sys.push_str("))]\ninclude!(\"bindings.rs\");\n\n");
    let _ = writeln!(
        sys,
        "#[cfg(not(any({}, {LOCAL_FEATURE})))]\ncompile_error!({:?});",
        features.join(", "),
        format!(
            "cuda-driver-table: no CUDA release feature is enabled. Enable exactly one cuda-XXXXX \
             feature of cuda-driver-table, e.g. features = [\"cuda-{DEFAULT_RELEASE}\"] (its default), \
             or cuda-local for the bindings of the toolkit installed on the build machine."
        )
    );
    for v in &all {
        let _ = writeln!(
            sys,
            "#[cfg(all({LOCAL_FEATURE}, {}))]\ncompile_error!({:?});",
            feature(*v),
            format!(
                "cuda-driver-table: the features cuda-local and cuda-{v} are both enabled; exactly \
                 one release may be. cuda-local takes the release from the local toolkit's headers: \
                 depend on cuda-driver-table with default-features = false (the default enables \
                 cuda-{DEFAULT_RELEASE}), and make sure no other crate in the build enables a \
                 cuda-XXXXX feature (`cargo tree -e features -i cuda-driver-table` shows which does)."
            )
        );
    }
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            let _ = writeln!(
                sys,
                "#[cfg(all({}, {}))]\ncompile_error!({:?});",
                feature(*a),
                feature(*b),
                format!(
                    "cuda-driver-table: the CUDA release features cuda-{a} and cuda-{b} are both \
                     enabled; exactly one may be. To pick a release other than the default \
                     cuda-{DEFAULT_RELEASE}, depend on cuda-driver-table with default-features = false. \
                     Cargo enables every feature that any crate in the build asks for: a library \
                     that depends on cuda-driver-table must set default-features = false and leave \
                     the release to the application."
                )
            );
        }
    }

    let mut runtime = head("the ABI list of the selected release");
    let mut macros = head("the manifest of the selected release");
    macros.push_str(
        "// The function records and doc texts of every release; each release's manifest lists its own.\n\
         #[allow(dead_code, non_upper_case_globals)]\nmod functions {\n    use super::*;\n    include!(\"functions.rs\");\n}\n\n",
    );
    for v in &all {
        let cfg = select_cfg(*v, &all);
        let _ = writeln!(runtime, "#[cfg({cfg})]\ninclude!(\"abis_{v}.rs\");");
        let _ = writeln!(
            macros,
            "#[cfg({cfg})]\nmod selected {{\n    use super::functions::*;\n    use super::*;\n    pub const RELEASE: u32 = {v};\n    include!(\"manifest_{v}.rs\");\n}}"
        );
    }
    let _ = write!(
        macros,
        "#[cfg(not(any({})))]\nmod selected {{\n    use super::*;\n    pub const RELEASE: u32 = 0;\n    pub const RELEASE_NAME: &str = \"(none)\";\n    pub static FUNCTIONS: &[Function] = &[];\n}}\n",
        features.join(", ")
    );
    vec![
        (PathBuf::from(SELECT_PATHS[0]), sys),
        (PathBuf::from(SELECT_PATHS[1]), runtime),
        (PathBuf::from(SELECT_PATHS[2]), macros),
    ]
}

/// The `cuda-XXXXX` features a crate's `Cargo.toml` text declares (lines `cuda-NNNNN = [...]`).
pub fn declared_features(cargo_toml: &str) -> Vec<u32> {
    cargo_toml
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("cuda-")?
                .split_once('=')?
                .0
                .trim()
                .parse()
                .ok()
        })
        .collect()
}

/// The `cuda-XXXXX` features a crate's `Cargo.toml` text enables by default (`default = [...]`).
pub fn default_features(cargo_toml: &str) -> Vec<u32> {
    cargo_toml
        .lines()
        .filter_map(|l| l.trim().strip_prefix("default")?.trim().strip_prefix('='))
        .flat_map(|list| {
            list.split(['[', ']', ',', '"'])
                .filter_map(|f| f.trim().strip_prefix("cuda-")?.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// Relative path of the table of which releases have which function (for the macro's errors).
pub const AVAILABILITY_PATH: &str = "macros/src/generated/availability.rs";

/// The files of one release, keyed by relative path: its ABI list and its list of function
/// records (the records themselves are in [`Records::functions_text`]).
pub fn release_files(r: &ParsedRelease, records: &Records) -> Vec<(PathBuf, String)> {
    let [abis, manifest] = release_paths(r.source.version());
    vec![
        (abis, abis_file(r)),
        (
            manifest,
            header(
                &r.source.describe(),
                &r.source.regenerate(),
                "function manifest",
            ) + &records.manifest_text(r.source.version()),
        ),
    ]
}

/// A release's ABI list and `CUresult` names with its header: `abis_<release>.rs`, and a local
/// build's `local_abis.rs`.
fn abis_file(r: &ParsedRelease) -> String {
    header(
        &r.source.describe(),
        &r.source.regenerate(),
        "ABI versions, exported names and CUresult names",
    ) + &abis_text(&r.manifest)
        + &cu_results_text(r)
}

/// Every `CUresult` code of the release's bindings with its name, as the runtime names a code the
/// driver cannot (a toolkit's stub library, a code the driver's `cuGetErrorName` does not know):
/// each entry is the bindings' own constant, so the list cannot drift from them.
fn cu_results_text(r: &ParsedRelease) -> String {
    let mut out = String::from(
        "\n/// Every `CUresult` of the bindings with its name, in `cuda.h`'s order.\n\
         pub(crate) static CU_RESULTS: &[(crate::sys::CUresult, &str)] = &[\n",
    );
    for name in cu_result_names(r) {
        let _ = writeln!(out, "    (crate::sys::CUresult::{name}, {}),", lit(&name));
    }
    out.push_str("];\n");
    out
}

/// The associated constants of `cudaError_enum` (which `CUresult` names) in the bindings, in
/// bindgen's order.
fn cu_result_names(r: &ParsedRelease) -> Vec<String> {
    r.items
        .iter()
        .filter(|item| item.name == "cudaError_enum")
        .filter_map(|item| syn::parse_file(&item.text).ok())
        .flat_map(|file| file.items)
        .filter_map(|item| match item {
            syn::Item::Impl(i) if i.trait_.is_none() => Some(i.items),
            _ => None,
        })
        .flatten()
        .filter_map(|member| match member {
            syn::ImplItem::Const(c) => Some(c.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// The runtime crate's file for a local toolkit (`cuda-local`): the release's ABI list, as
/// `abis_<release>.rs` of a pinned release.
pub fn local_abis_text(r: &ParsedRelease) -> String {
    abis_file(r)
}

/// The macro crate's file for a local toolkit (`cuda-local`): what `select.rs` assembles for a
/// pinned release (a `functions` module with the records and doc texts, a `selected` module with
/// the release's list), from this release alone.
pub fn local_manifest_text(r: &ParsedRelease) -> String {
    let records = Records::collect(&[r]);
    let version = r.source.version();
    let indent = |text: String| {
        text.lines()
            .map(|l| {
                if l.is_empty() {
                    "\n".to_string()
                } else {
                    format!("    {l}\n")
                }
            })
            .collect::<String>()
    };
    format!(
        "{}#[allow(dead_code, non_upper_case_globals)]\nmod functions {{\n    use super::*;\n{}}}\n\n\
         mod selected {{\n    use super::functions::*;\n    use super::*;\n    pub const RELEASE: u32 = {version};\n{}}}\n",
        header(
            &r.source.describe(),
            &r.source.regenerate(),
            "function manifest of the local toolkit",
        ),
        indent(records.functions_text(&[r])),
        indent(records.manifest_text(version)),
    )
}

/// The `sys` crate's file for a local toolkit (`cuda-local`): the release's bindings, as
/// [`bindings_text`] gives them for this release alone, and its `RELEASE`.
pub fn local_bindings_text(r: &ParsedRelease) -> String {
    let mut out = header_all(
        &[r],
        "types, constants and PFN typedefs of the local toolkit",
    );
    let _ = writeln!(
        out,
        "/// The CUDA release of these bindings (`1000 * major + 10 * minor`).\npub const RELEASE: u32 = {};",
        r.source.version()
    );
    push_items(&[r], &mut out);
    out
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn opt_lit(s: &Option<String>) -> String {
    match s {
        Some(s) => format!("Some({})", lit(s)),
        None => "None".to_string(),
    }
}

/// The bindings of every release in one file: each distinct item once, sorted by the name it
/// defines, behind the features of the releases that have it (none when every release has it).
pub fn bindings_text(releases: &[&ParsedRelease]) -> String {
    let all: Vec<u32> = releases.iter().map(|r| r.source.version()).collect();
    let mut out = header_all(
        releases,
        "types, constants and PFN typedefs of every release",
    );
    out.push_str(
        "// Each item is here once, behind the features of the releases whose headers give exactly\n\
         // this text (no attribute: every release). `select.rs` includes this file only when exactly\n\
         // one release feature is enabled.\n\n",
    );
    for v in &all {
        let _ = writeln!(
            out,
            "/// The CUDA release of these bindings (`1000 * major + 10 * minor`).\n#[cfg({})]\npub const RELEASE: u32 = {v};",
            feature(*v)
        );
    }
    push_items(releases, &mut out);
    out
}

/// Each distinct item of these releases once, sorted by the name it defines, behind the features
/// of the releases that have it (none when every release has it).
fn push_items(releases: &[&ParsedRelease], out: &mut String) {
    let all: Vec<u32> = releases.iter().map(|r| r.source.version()).collect();
    // Item text -> (name, releases), in order of first appearance.
    let mut order: Vec<&str> = Vec::new();
    let mut seen: HashMap<&str, (&str, Vec<u32>)> = HashMap::new();
    for r in releases {
        for item in &r.items {
            let entry = seen.entry(item.text.as_str()).or_insert_with(|| {
                order.push(item.text.as_str());
                (item.name.as_str(), Vec::new())
            });
            if entry.1.last() != Some(&r.source.version()) {
                entry.1.push(r.source.version());
            }
        }
    }
    // A stable sort: the variants of one name stay in the order of the releases that brought them.
    order.sort_by_key(|text| seen[text].0);
    for text in order {
        let versions = &seen[text].1;
        if versions.len() != all.len() {
            let features: Vec<String> = versions.iter().map(|v| feature(*v)).collect();
            let _ = writeln!(out, "#[cfg(any({}))]", features.join(", "));
        }
        out.push_str(text);
    }
}

/// The function records of every release, each distinct record and doc text once.
pub struct Records {
    /// Doc text -> (the constant that holds it, the function it is listed under).
    docs: HashMap<String, (String, String)>,
    /// Record text -> (constant, function, releases), in order of first appearance.
    records: Vec<(String, String, String, Vec<u32>)>,
    record_index: HashMap<String, usize>,
    /// Per release: its records' constants, sorted by function name.
    per_release: BTreeMap<u32, Vec<String>>,
    /// Per release: its name (`12.9`).
    names: BTreeMap<u32, String>,
    doc_count: HashMap<String, usize>,
    doc_order: Vec<String>,
}

impl Records {
    /// Collects the records of these releases, with each ABI's doc turned into Markdown whose
    /// links point at what the release has.
    pub fn collect(releases: &[&ParsedRelease]) -> Self {
        let mut this = Records {
            docs: HashMap::new(),
            records: Vec::new(),
            record_index: HashMap::new(),
            per_release: BTreeMap::new(),
            names: BTreeMap::new(),
            doc_count: HashMap::new(),
            doc_order: Vec::new(),
        };
        for r in releases {
            let version = r.source.version();
            this.names.insert(version, release_name(version));
            let refs = |name: &str| {
                if r.manifest.functions.contains_key(name) {
                    crate::doc::Ref::Function
                } else if let Some(path) = r.sys_paths.get(name) {
                    crate::doc::Ref::Sys(path.clone())
                } else {
                    crate::doc::Ref::Plain
                }
            };
            let mut list = Vec::new();
            for f in r.manifest.functions.values() {
                let text = this.record_text(f, &refs);
                let index = match this.record_index.get(&text) {
                    Some(i) => *i,
                    None => {
                        let constant = format!("{}_{version}", f.name);
                        this.records
                            .push((text.clone(), constant, f.name.clone(), Vec::new()));
                        this.record_index.insert(text, this.records.len() - 1);
                        this.records.len() - 1
                    }
                };
                this.records[index].3.push(version);
                list.push(this.records[index].1.clone());
            }
            this.per_release.insert(version, list);
        }
        this
    }

    fn doc_constant(&mut self, function: &str, markdown: String) -> String {
        if let Some((constant, _)) = self.docs.get(&markdown) {
            return constant.clone();
        }
        let n = self.doc_count.entry(function.to_string()).or_default();
        *n += 1;
        let constant = format!("{function}_doc_{n}");
        self.docs
            .insert(markdown.clone(), (constant.clone(), function.to_string()));
        self.doc_order.push(markdown);
        constant
    }

    fn record_text(&mut self, f: &Function, refs: &dyn Fn(&str) -> crate::doc::Ref) -> String {
        let mut out = format!(
            "Function {{\n    name: {},\n    default: {},\n    abis: &[\n",
            lit(&f.name),
            f.default_abi().version
        );
        for a in &f.abis {
            let params: Vec<String> = a
                .params
                .iter()
                .map(|p| format!("({}, {})", lit(&p.name), lit(&p.ty)))
                .collect();
            let per_thread = match &a.per_thread {
                Some(p) => format!(
                    "Some(PerThread {{ version: {}, typedef: {}, export: {} }})",
                    p.version,
                    lit(&p.typedef),
                    opt_lit(&p.export)
                ),
                None => "None".to_string(),
            };
            let doc = match a.doc.as_deref().map(|d| crate::doc::markdown(d, refs)) {
                Some(md) if !md.is_empty() => self.doc_constant(&f.name, md),
                _ => "\"\"".to_string(),
            };
            let _ = writeln!(
                out,
                "        Abi {{\n            version: {},\n            typedef: {},\n            params: &[{}],\n            ret: {},\n            c_prototype: {},\n            export: {},\n            per_thread: {},\n            doc: {doc},\n        }},",
                a.version,
                lit(&a.typedef),
                params.join(", "),
                lit(&a.ret),
                lit(&a.c_prototype),
                opt_lit(&a.export),
                per_thread,
            );
        }
        out.push_str("    ],\n}");
        out
    }

    /// The list of one release's records, as the macro crate's `manifest_<release>.rs`.
    pub fn manifest_text(&self, version: u32) -> String {
        let mut out = format!(
            "/// The name of this release, as messages and docs show it.\npub const RELEASE_NAME: &str = {};\n\n\
             /// Every function of this release, sorted by name (the records are in `functions.rs`).\n\
             pub static FUNCTIONS: &[Function] = &[\n",
            lit(self.names.get(&version).map_or("", String::as_str))
        );
        for constant in self.per_release.get(&version).into_iter().flatten() {
            let _ = writeln!(out, "    {constant},");
        }
        out.push_str("];\n");
        out
    }

    /// Every record and doc text, grouped by function: its doc texts, then its records in the
    /// order of the releases that brought them, each with the releases that use it.
    pub fn functions_text(&self, releases: &[&ParsedRelease]) -> String {
        let mut out = header_all(releases, "function records and doc texts of every release");
        out.push_str(
            "// Each distinct record (a function with all its ABIs in one release) and each distinct doc\n\
             // text (`cuda.h`'s comment as Markdown) is here once; `manifest_<release>.rs` lists the\n\
             // records of one release. Doc links: `Self::cuX` is kept by the macro when the table has\n\
             // `cuX`; `sys::` gets the crate's path in front.\n",
        );
        let mut by_function: BTreeMap<&str, (Vec<&str>, Vec<usize>)> = BTreeMap::new();
        for md in &self.doc_order {
            let (_, function) = &self.docs[md];
            by_function.entry(function).or_default().0.push(md);
        }
        for (i, (_, _, function, _)) in self.records.iter().enumerate() {
            by_function.entry(function).or_default().1.push(i);
        }
        for (function, (docs, records)) in by_function {
            let _ = writeln!(out, "\n// {function}");
            for md in docs {
                let _ = writeln!(out, "const {}: &str = {};", self.docs[md].0, lit(md));
            }
            for i in records {
                let (text, constant, _, versions) = &self.records[i];
                let names: Vec<&str> = versions
                    .iter()
                    .map(|v| self.names.get(v).map_or("?", String::as_str))
                    .collect();
                let _ = writeln!(
                    out,
                    "/// CUDA {}.\npub const {constant}: Function = {text};",
                    names.join(", ")
                );
            }
        }
        out
    }
}

/// The compact per-release ABI list of the runtime crate.
pub fn abis_text(m: &Manifest) -> String {
    let mut out = String::from("pub static FUNCTIONS: &[FunctionAbis] = &[\n");
    for f in m.functions.values() {
        let abis: Vec<String> = f
            .abis
            .iter()
            .map(|a| {
                let pt = match &a.per_thread {
                    Some(p) => format!(
                        "Some(PerThreadAbi {{ version: {}, export: {} }})",
                        p.version,
                        opt_lit(&p.export)
                    ),
                    None => "None".to_string(),
                };
                format!(
                    "AbiInfo {{ version: {}, export: {}, per_thread: {pt} }}",
                    a.version,
                    opt_lit(&a.export)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "    FunctionAbis {{ name: {}, default: {}, abis: &[{}] }},",
            lit(&f.name),
            f.default_abi().version,
            abis.join(", ")
        );
    }
    out.push_str("];\n");
    out
}

/// Every ABI (legacy and per-thread) of every function over all releases, sorted by name.
pub fn history_text(releases: &[&ParsedRelease]) -> String {
    let mut all: BTreeMap<&str, (BTreeSet<u32>, BTreeSet<u32>)> = BTreeMap::new();
    for r in releases {
        for f in r.manifest.functions.values() {
            let entry = all.entry(f.name.as_str()).or_default();
            add_history(f, entry);
        }
    }
    let names: Vec<String> = releases.iter().map(|r| r.source.describe()).collect();
    let mut out = format!(
        "// @generated by cuda-driver-table-codegen: ABI history. Do not edit by hand.\n\
         // Input: the union of {} releases, from {} to {}.\n\
         // Parsed by bindgen {BINDGEN_VERSION} with {}.\n\
         // Regenerate: {REGENERATE}\n\n",
        releases.len(),
        names.first().map(String::as_str).unwrap_or("-"),
        names.last().map(String::as_str).unwrap_or("-"),
        CLANG_DEFINES.join(" ")
    );
    out.push_str(
        "/// (function, every legacy ABI version, every per-thread ABI version), sorted by function.\n\
         pub(crate) static ABI_HISTORY: &[(&str, &[u32], &[u32])] = &[\n",
    );
    for (name, (legacy, threaded)) in all {
        let l: Vec<String> = legacy.iter().map(u32::to_string).collect();
        let t: Vec<String> = threaded.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "    ({}, &[{}], &[{}]),",
            lit(name),
            l.join(", "),
            t.join(", ")
        );
    }
    out.push_str("];\n");
    out
}

/// Which releases declare each function, sorted by name: the macro names them when a function is
/// missing from the selected release.
pub fn availability_text(releases: &[&ParsedRelease]) -> String {
    let mut all: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for r in releases {
        for name in r.manifest.functions.keys() {
            all.entry(name.as_str())
                .or_default()
                .push(r.source.version());
        }
    }
    let mut out = format!(
        "// @generated by cuda-driver-table-codegen: function availability. Do not edit by hand.\n\
         // Input: the manifests of {} releases.\n\
         // Regenerate: {REGENERATE}\n\n\
         /// (function, every release whose headers declare it), sorted by function.\n\
         pub static AVAILABILITY: &[(&str, &[u32])] = &[\n",
        releases.len()
    );
    for (name, versions) in all {
        let v: Vec<String> = versions.iter().map(u32::to_string).collect();
        let _ = writeln!(out, "    ({}, &[{}]),", lit(name), v.join(", "));
    }
    out.push_str("];\n\n/// (release, its name), oldest first.\npub static RELEASE_NAMES: &[(u32, &str)] = &[\n");
    for r in releases {
        let v = r.source.version();
        let _ = writeln!(out, "    ({v}, {}),", lit(&release_name(v)));
    }
    out.push_str("];\n");
    out
}

fn add_history(f: &Function, entry: &mut (BTreeSet<u32>, BTreeSet<u32>)) {
    for a in &f.abis {
        entry.0.insert(a.version);
        if let Some(p) = &a.per_thread {
            entry.1.insert(p.version);
        }
    }
}
