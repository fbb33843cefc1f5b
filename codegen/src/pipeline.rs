//! One release from its headers to what the files are written from: bindgen's output split
//! ([`parse`]), the doc comments put back on the declarations, the [`manifest`](crate::manifest)
//! built, and the bindings item by item with the paths doc links may point at
//! ([`ParsedRelease`]). Also where the headers come from ([`Source`]), and the parse of several
//! releases at once, on every core. Writes nothing: [`emit`](crate::emit) makes the files.

use crate::fetch;
use crate::manifest::Manifest;
use crate::parse;
use crate::releases::Release;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
}

/// One release, parsed.
pub struct ParsedRelease {
    pub source: Source,
    /// The bindings, formatted (bindgen's output less its `extern` blocks).
    pub bindings: String,
    /// The same bindings item by item, each formatted on its own, in bindgen's order.
    pub items: Vec<BindingItem>,
    /// Every name a doc comment may refer to with `::Name`, with its path below `sys`
    /// (`CUDA_SUCCESS` -> `CUresult::CUDA_SUCCESS`, `CUfunction` -> `CUfunction`).
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
    let mut generated = parse::read_bindgen_output(&raw)?;
    // `CUresult` where bindgen wrote `cudaError_enum`, before anything reads the bindings.
    let renamed = parse::name_enums_by_typedef(&mut generated.bindings);
    // `(~0u)` and the like: C's type and value, not the 64-bit evaluation bindgen's is.
    let cuda_h = include.join("cuda.h");
    let header = std::fs::read_to_string(&cuda_h)
        .map_err(|e| format!("cannot read {}: {e}", cuda_h.display()))?;
    parse::type_unsigned_macros(&mut generated.bindings, &parse::unsigned_macros(&header));
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
    let mut manifest = crate::manifest::build(&generated)?;
    // Which parameters are out-values: the rule reads the manifest and the bindings' types.
    crate::outputs::mark(
        &mut manifest,
        &crate::outputs::Types::collect(&generated.bindings),
    );
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
        sys_paths: sys_paths(&generated.bindings, &renamed),
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
/// enums (`CUDA_SUCCESS` of `CUresult`) where no item has that name. The C tag of an enum named by
/// its typedef (`renamed`, as `(tag, typedef)`) points at the struct: `::CUmemorytype_enum` in a
/// comment links to `CUmemorytype`, not to its re-export under the tag.
fn sys_paths(bindings: &syn::File, renamed: &[(String, String)]) -> BTreeMap<String, String> {
    let mut paths = BTreeMap::new();
    for item in &bindings.items {
        if !matches!(item, syn::Item::Impl(_)) {
            let name = item_name(item);
            paths.insert(name.clone(), name);
        }
    }
    for (tag, name) in renamed {
        paths.insert(tag.clone(), name.clone());
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

/// Parses several releases, fetching missing wheels first, then running bindgen on every core.
pub fn parse_releases(releases: &[Release]) -> Result<Vec<ParsedRelease>, String> {
    let mut jobs = Vec::new();
    for r in releases {
        let unpacked = fetch::fetch(r)?;
        jobs.push((Source::Wheel(*r), unpacked.include));
    }
    parse_sources(jobs)
}

/// Parses releases from include folders, in parallel; the result keeps the input order.
pub fn parse_sources(jobs: Vec<(Source, PathBuf)>) -> Result<Vec<ParsedRelease>, String> {
    parse::check_libclang("the generator parses the headers with bindgen")?;
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(jobs.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<ParsedRelease, String>>>> =
        jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((source, include)) = jobs.get(i) else {
                    break;
                };
                let parsed = parse_release(source.clone(), include)
                    .map_err(|e| format!("CUDA {}: {e}", source.version()));
                *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(parsed);
            });
        }
    });
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .unwrap_or_else(|| Err("a worker stopped early".to_string()))
        })
        .collect()
}
