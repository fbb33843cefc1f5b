//! The Rust side's list of names: what the committed, merged bindings hold for one release, read
//! from `sys/src/generated/bindings.rs` with each item's `#[cfg(...)]` of release features. Only
//! names and field types come from here; the numbers come from the Rust compiler building the sys
//! crate with the release's feature (see `programs`), which a wrong reading here cannot change:
//! an item this reading keeps that the compiler drops (or the reverse) fails that build.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every item of the merged bindings, with the releases it is compiled for (`None`: all).
pub struct Bindings {
    items: Vec<(Option<BTreeSet<u32>>, syn::Item)>,
}

/// A struct or union with named fields (a newtype enum is in [`View::enums`]).
#[derive(Clone, Debug, Default)]
pub struct RustRecord {
    pub union: bool,
    /// bindgen's stand-in for a declared-only struct (one private `_unused: [u8; 0]`).
    pub opaque: bool,
    /// (name, type as text) of each public field, in order.
    pub fields: Vec<(String, String)>,
}

/// The bindings of one release.
#[derive(Clone, Debug, Default)]
pub struct View {
    pub records: BTreeMap<String, RustRecord>,
    /// Each newtype enum with its associated constants.
    pub enums: BTreeMap<String, BTreeSet<String>>,
    /// `pub type` and `pub use ... as` names.
    pub aliases: BTreeSet<String>,
    /// The other names of the newtype enums: `pub use self::CUresult as cudaError_enum;` (the
    /// generator names the struct by its typedef and keeps the C tag so) as `cudaError_enum` ->
    /// `CUresult`.
    pub enum_aliases: BTreeMap<String, String>,
    /// Integer constants (bindgen's reading of `#define NAME <integer>`), but `RELEASE`.
    pub constants: Vec<String>,
}

impl View {
    /// The newtype enum a C enum name (its tag, or the typedef of an untagged one) names, with
    /// its associated constants: the struct of that name, or the one it is another name of.
    pub fn enum_named(&self, name: &str) -> Option<(&str, &BTreeSet<String>)> {
        let rust = self.enum_aliases.get(name).map_or(name, String::as_str);
        self.enums.get_key_value(rust).map(|(k, v)| (k.as_str(), v))
    }

    /// Whether the bindings have a type of this name.
    pub fn has_type(&self, name: &str) -> bool {
        self.aliases.contains(name)
            || self.records.contains_key(name)
            || self.enums.contains_key(name)
    }
}

impl Bindings {
    /// Reads the merged bindings of the workspace at `root`.
    pub fn read(root: &Path) -> Result<Self, String> {
        let path = root.join(crate::emit::BINDINGS_PATH);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let file =
            syn::parse_file(&text).map_err(|e| format!("cannot parse {}: {e}", path.display()))?;
        let mut items = Vec::new();
        for item in file.items {
            let releases =
                releases_of(attrs(&item)).map_err(|e| format!("{}: {e}", path.display()))?;
            items.push((releases, item));
        }
        Ok(Bindings { items })
    }

    /// What the bindings hold for `version`.
    pub fn release(&self, version: u32) -> Result<View, String> {
        let mut view = View::default();
        let selected = self
            .items
            .iter()
            .filter(|(r, _)| r.as_ref().is_none_or(|r| r.contains(&version)))
            .map(|(_, item)| item);
        let mut impls = Vec::new();
        let mut renames = Vec::new();
        for item in selected {
            match item {
                syn::Item::Struct(s) => match &s.fields {
                    syn::Fields::Unnamed(_) => {
                        view.enums.entry(s.ident.to_string()).or_default();
                    }
                    fields => {
                        let record = record(fields.iter(), false);
                        view.records.insert(s.ident.to_string(), record);
                    }
                },
                syn::Item::Union(u) => {
                    let record = record(u.fields.named.iter(), true);
                    view.records.insert(u.ident.to_string(), record);
                }
                syn::Item::Type(t) => {
                    view.aliases.insert(t.ident.to_string());
                }
                syn::Item::Use(u) => {
                    if let Some(name) = use_rename(&u.tree) {
                        view.aliases.insert(name);
                    }
                    if let Some(pair) = use_target_and_rename(&u.tree) {
                        renames.push(pair);
                    }
                }
                syn::Item::Const(c)
                    if c.ident != "RELEASE" && is_integer(&crate::parse::type_text(&c.ty)) =>
                {
                    view.constants.push(c.ident.to_string());
                }
                syn::Item::Impl(i) if i.trait_.is_none() => impls.push(i),
                _ => {}
            }
        }
        for (target, name) in renames {
            if view.enums.contains_key(&target) {
                view.enum_aliases.insert(name, target);
            }
        }
        for i in impls {
            let syn::Type::Path(p) = &*i.self_ty else {
                continue;
            };
            let Some(name) = p.path.segments.last().map(|s| s.ident.to_string()) else {
                continue;
            };
            let consts = i.items.iter().filter_map(|m| match m {
                syn::ImplItem::Const(c) => Some(c.ident.to_string()),
                _ => None,
            });
            match view.enums.get_mut(&name) {
                Some(set) => set.extend(consts),
                None => {
                    return Err(format!(
                        "CUDA {version}: the bindings have associated constants of {name}, which is no newtype enum of this release"
                    ))
                }
            }
        }
        Ok(view)
    }
}

fn record<'a>(fields: impl Iterator<Item = &'a syn::Field>, union: bool) -> RustRecord {
    let mut out = RustRecord {
        union,
        ..RustRecord::default()
    };
    for f in fields {
        let Some(name) = f.ident.as_ref().map(ToString::to_string) else {
            continue;
        };
        if matches!(f.vis, syn::Visibility::Inherited) {
            out.opaque |= name == "_unused";
            continue;
        }
        out.fields.push((name, crate::parse::type_text(&f.ty)));
    }
    out
}

fn is_integer(ty: &str) -> bool {
    let last = ty.rsplit("::").next().unwrap_or(ty);
    matches!(
        last,
        "u8" | "u16" | "u32" | "u64" | "i8" | "i16" | "i32" | "i64" | "usize" | "isize"
    ) || (last.starts_with("c_") && !matches!(last, "c_char" | "c_void" | "c_float" | "c_double"))
}

fn use_rename(tree: &syn::UseTree) -> Option<String> {
    match tree {
        syn::UseTree::Path(p) => use_rename(&p.tree),
        syn::UseTree::Rename(r) => Some(r.rename.to_string()),
        syn::UseTree::Name(n) => Some(n.ident.to_string()),
        _ => None,
    }
}

/// `use self::A as B` as `(A, B)`.
fn use_target_and_rename(tree: &syn::UseTree) -> Option<(String, String)> {
    match tree {
        syn::UseTree::Path(p) => use_target_and_rename(&p.tree),
        syn::UseTree::Rename(r) => Some((r.ident.to_string(), r.rename.to_string())),
        _ => None,
    }
}

fn attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The releases an item's `#[cfg]` selects: `feature = "cuda-N"` or `any(...)` of those; `None`
/// without one. Any other condition is an error: this reading would not know what it selects.
fn releases_of(attrs: &[syn::Attribute]) -> Result<Option<BTreeSet<u32>>, String> {
    let mut out: Option<BTreeSet<u32>> = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
        let meta: syn::Meta = attr
            .parse_args()
            .map_err(|e| format!("unreadable #[cfg]: {e}"))?;
        let set = releases_of_meta(&meta)?;
        out = Some(match out {
            Some(prev) => prev.intersection(&set).copied().collect(),
            None => set,
        });
    }
    Ok(out)
}

fn releases_of_meta(meta: &syn::Meta) -> Result<BTreeSet<u32>, String> {
    let text = || crate::parse::tokens_text(meta);
    match meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("feature") => {
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            else {
                return Err(format!("#[cfg({})] is no release feature", text()));
            };
            s.value()
                .strip_prefix("cuda-")
                .and_then(|v| v.parse().ok())
                .map(|v| BTreeSet::from([v]))
                .ok_or_else(|| format!("#[cfg({})] is no release feature", text()))
        }
        syn::Meta::List(list) if list.path.is_ident("any") => {
            let nested = list
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                )
                .map_err(|e| format!("unreadable #[cfg({})]: {e}", text()))?;
            let mut out = BTreeSet::new();
            for m in &nested {
                out.extend(releases_of_meta(m)?);
            }
            Ok(out)
        }
        _ => Err(format!(
            "#[cfg({})] is neither a release feature nor any(...) of them",
            text()
        )),
    }
}
