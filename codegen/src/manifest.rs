//! The function manifest of one CUDA release, derived from bindgen's parse of the headers: every
//! driver function with every ABI that has a `PFN_<name>_v<N>` typedef, its parameters, its
//! per-thread (`_ptds`/`_ptsz`) twin, the exported symbol `cuda.h` declares for it and its doc text.
//!
//! It never reads the `#define PFN_x PFN_x_vN` aliases (bindgen does not see them, 13.x has none
//! and some 12.x ones are stale): the default ABI of a name is the newest versioned typedef.

use crate::parse::{self, Decl, Generated};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Every driver function of one release, by name.
#[derive(Clone, Debug, Default)]
pub struct Manifest {
    pub functions: BTreeMap<String, Function>,
    /// `_ptds`/`_ptsz` typedefs whose parameter list matches no legacy ABI of their name.
    pub orphan_per_thread: Vec<String>,
}

/// One driver function (`cuCtxCreate`) and all its ABIs, oldest first.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub abis: Vec<Abi>,
}

impl Function {
    /// The default ABI: the newest one that has a typedef in this release.
    pub fn default_abi(&self) -> &Abi {
        self.abis.last().expect("a function has at least one ABI")
    }

    /// The ABI introduced at `version`.
    pub fn abi(&self, version: u32) -> Option<&Abi> {
        self.abis.iter().find(|a| a.version == version)
    }

    /// Every ABI version, oldest first.
    pub fn versions(&self) -> Vec<u32> {
        self.abis.iter().map(|a| a.version).collect()
    }
}

/// One ABI of a function: `PFN_cuCtxCreate_v11040`.
#[derive(Clone, Debug, PartialEq)]
pub struct Abi {
    pub version: u32,
    pub typedef: String,
    pub params: Vec<Param>,
    /// The return type as Rust text (`CUresult`).
    pub ret: String,
    /// The prototype rendered in C, for docs: `CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)`.
    pub c_prototype: String,
    /// The exported symbol `cuda.h` declares with this signature (`cuCtxCreate_v3`), if any.
    pub export: Option<String>,
    /// The per-thread default stream twin, where the headers have one.
    pub per_thread: Option<PerThread>,
    /// The doc comment of the declaration in `cuda.h`.
    pub doc: Option<String>,
}

/// A `_ptds`/`_ptsz` typedef with the same parameters as its legacy ABI.
#[derive(Clone, Debug, PartialEq)]
pub struct PerThread {
    pub version: u32,
    pub typedef: String,
    pub export: Option<String>,
}

/// A parameter: its C name and its Rust type as text (`*mut CUdeviceptr`), versioned types shown
/// by their unversioned alias where the bindings have one (`ShownNames`).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: String,
    /// An out-value: a single value the driver writes through it on success, which a traced call
    /// reads back (`outputs` says which).
    pub out: bool,
}

/// A `PFN_` typedef name taken apart: `PFN_cuLaunchKernel_v7000_ptsz` -> (`cuLaunchKernel`, 7000, true).
pub fn typedef_parts(name: &str) -> Option<(&str, u32, bool)> {
    let rest = name.strip_prefix("PFN_")?;
    let (rest, per_thread) = match rest
        .strip_suffix("_ptds")
        .or_else(|| rest.strip_suffix("_ptsz"))
    {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let (base, digits) = rest.rsplit_once("_v")?;
    if base.is_empty() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((base, digits.parse().ok()?, per_thread))
}

struct Typedef {
    name: String,
    version: u32,
    params: Vec<(String, syn::Type)>,
    ret: syn::Type,
}

/// Builds the manifest from bindgen's split output.
pub fn build(generated: &Generated) -> Result<Manifest, String> {
    let aliases = Aliases::collect(&generated.bindings);
    let shown = ShownNames::collect(&generated.bindings);
    let mut legacy: BTreeMap<String, Vec<Typedef>> = BTreeMap::new();
    let mut threaded: BTreeMap<String, Vec<Typedef>> = BTreeMap::new();
    for item in &generated.bindings.items {
        let syn::Item::Type(t) = item else { continue };
        let name = t.ident.to_string();
        let Some((base, version, per_thread)) = typedef_parts(&name) else {
            continue;
        };
        let Some(f) = bare_fn(&t.ty) else {
            return Err(format!("{name} is not a function pointer type"));
        };
        let params = f
            .inputs
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let name = a
                    .name
                    .as_ref()
                    .map(|(n, _)| n.to_string())
                    .unwrap_or_else(|| format!("arg{i}"));
                (name, a.ty.clone())
            })
            .collect();
        let ret = match &f.output {
            syn::ReturnType::Default => syn::parse_quote!(()),
            syn::ReturnType::Type(_, ty) => (**ty).clone(),
        };
        let td = Typedef {
            name: name.clone(),
            version,
            params,
            ret,
        };
        let map = if per_thread {
            &mut threaded
        } else {
            &mut legacy
        };
        map.entry(base.to_string()).or_default().push(td);
    }
    for list in legacy.values_mut().chain(threaded.values_mut()) {
        list.sort_by_key(|t| t.version);
        list.dedup_by_key(|t| t.version);
    }

    let exports = Exports::match_all(&generated.decls, &legacy, &threaded, &aliases);
    let mut manifest = Manifest::default();
    for (base, list) in &legacy {
        let mut abis: Vec<Abi> = list
            .iter()
            .map(|t| {
                let (export, doc) = exports.of(&t.name);
                let params: Vec<(String, syn::Type)> = t
                    .params
                    .iter()
                    .map(|(n, ty)| (n.clone(), shown.of(ty)))
                    .collect();
                let ret = shown.of(&t.ret);
                Abi {
                    version: t.version,
                    typedef: t.name.clone(),
                    params: params
                        .iter()
                        .map(|(n, ty)| Param {
                            name: n.clone(),
                            ty: parse::type_text(ty),
                            out: false,
                        })
                        .collect(),
                    ret: parse::type_text(&ret),
                    c_prototype: c_prototype(base, &params, &ret),
                    export,
                    per_thread: None,
                    doc,
                }
            })
            .collect();
        // Pair each per-thread typedef with the legacy ABI of the same signature: the newest one
        // not newer than it, else the newest one at all.
        for pt in threaded.get(base).map(Vec::as_slice).unwrap_or_default() {
            let sig = aliases.signature(&pt.params, &pt.ret);
            let same: Vec<usize> = list
                .iter()
                .enumerate()
                .filter(|(_, l)| aliases.signature(&l.params, &l.ret) == sig)
                .map(|(i, _)| i)
                .collect();
            let pick = same
                .iter()
                .rev()
                .find(|&&i| list[i].version <= pt.version)
                .or(same.last())
                .copied();
            match pick {
                Some(i) if abis[i].per_thread.is_none() => {
                    let (export, doc) = exports.of(&pt.name);
                    if abis[i].doc.is_none() {
                        abis[i].doc = doc;
                    }
                    abis[i].per_thread = Some(PerThread {
                        version: pt.version,
                        typedef: pt.name.clone(),
                        export,
                    });
                }
                _ => manifest.orphan_per_thread.push(pt.name.clone()),
            }
        }
        manifest.functions.insert(
            base.clone(),
            Function {
                name: base.clone(),
                abis,
            },
        );
    }
    for (base, list) in &threaded {
        if !legacy.contains_key(base) {
            manifest
                .orphan_per_thread
                .extend(list.iter().map(|t| t.name.clone()));
        }
    }
    check_for_records(&manifest)?;
    Ok(manifest)
}

/// What the macro's records (`emit::Records`) take for granted: a typedef name is
/// `PFN_<function>_v<version>` (and `_ptds`/`_ptsz` after that for a twin), so it is not written;
/// no name, type or prototype holds a tab or a line break, which separate the fields and lines.
fn check_for_records(manifest: &Manifest) -> Result<(), String> {
    for f in manifest.functions.values() {
        for a in &f.abis {
            let mut typedefs = vec![(a.typedef.as_str(), format!("PFN_{}_v{}", f.name, a.version))];
            if let Some(p) = &a.per_thread {
                let suffix = if p.typedef.ends_with("_ptds") {
                    "ptds"
                } else {
                    "ptsz"
                };
                typedefs.push((
                    p.typedef.as_str(),
                    format!("PFN_{}_v{}_{suffix}", f.name, p.version),
                ));
            }
            for (typedef, expected) in typedefs {
                if typedef != expected {
                    return Err(format!(
                        "the typedef {typedef} is not named {expected}, which the macro's records assume"
                    ));
                }
            }
            let mut fields = vec![f.name.as_str(), a.ret.as_str(), a.c_prototype.as_str()];
            fields.extend(a.export.as_deref());
            fields.extend(a.per_thread.as_ref().and_then(|p| p.export.as_deref()));
            for p in &a.params {
                fields.extend([p.name.as_str(), p.ty.as_str()]);
            }
            if let Some(bad) = fields
                .iter()
                .find(|t| t.is_empty() || t.contains(['\t', '\n', '\r']))
            {
                return Err(format!(
                    "{}: {bad:?} is empty or holds a tab or line break, which the macro's records cannot hold",
                    a.typedef
                ));
            }
        }
    }
    Ok(())
}

fn bare_fn(ty: &syn::Type) -> Option<&syn::TypeBareFn> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(syn::Type::BareFn(f)) => Some(f),
        _ => None,
    }
}

/// Type aliases of the bindings (`CUdevice` -> `CUdevice_v1` -> `c_int`), to compare signatures
/// that spell the same type differently.
struct Aliases(HashMap<String, syn::Type>);

impl Aliases {
    fn collect(file: &syn::File) -> Self {
        let mut map = HashMap::new();
        for item in &file.items {
            match item {
                syn::Item::Type(t) if t.generics.params.is_empty() => {
                    map.insert(t.ident.to_string(), (*t.ty).clone());
                }
                syn::Item::Use(u) => {
                    if let syn::UseTree::Path(p) = &u.tree {
                        if let syn::UseTree::Rename(r) = &*p.tree {
                            let target = &r.ident;
                            map.insert(r.rename.to_string(), syn::parse_quote!(#target));
                        }
                    }
                }
                _ => {}
            }
        }
        Aliases(map)
    }

    fn canonical(&self, ty: &syn::Type, depth: usize) -> String {
        match ty {
            syn::Type::Ptr(p) if depth < 32 => format!(
                "*{} {}",
                if p.mutability.is_some() {
                    "mut"
                } else {
                    "const"
                },
                self.canonical(&p.elem, depth + 1)
            ),
            syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 && depth < 32 => {
                let name = p.path.segments[0].ident.to_string();
                match self.0.get(&name) {
                    Some(target) => self.canonical(target, depth + 1),
                    None => name,
                }
            }
            other => parse::tokens_text(other).replace(' ', ""),
        }
    }

    fn signature(&self, params: &[(String, syn::Type)], ret: &syn::Type) -> String {
        let mut s: Vec<String> = params.iter().map(|(_, t)| self.canonical(t, 0)).collect();
        s.push(format!("-> {}", self.canonical(ret, 0)));
        s.join(", ")
    }
}

/// The names users know the bindings' versioned types by: `CUdevice_v1` is shown as `CUdevice`
/// where the bindings have `pub type CUdevice = CUdevice_v1;`. `cudaTypedefs.h` spells the
/// parameters of the `PFN_` typedefs with the versioned name, `cuda.h` and its docs with the
/// unversioned one; as that alias is the very same type, showing it changes no ABI. A versioned
/// type that no unversioned name is an alias of (`CUdeviceptr_v1`, `cuMemAlloc`'s 32-bit pointer
/// of ABI 2000) keeps its name.
struct ShownNames(HashMap<String, String>);

impl ShownNames {
    /// Every `pub type X = X_v<N>;` of the bindings, as `X_v<N>` -> `X`.
    fn collect(file: &syn::File) -> Self {
        let names = file
            .items
            .iter()
            .filter_map(|item| {
                let syn::Item::Type(t) = item else {
                    return None;
                };
                let syn::Type::Path(p) = &*t.ty else {
                    return None;
                };
                let target = p.path.get_ident()?.to_string();
                let alias = t.ident.to_string();
                let digits = target.strip_prefix(&alias)?.strip_prefix("_v")?;
                let versioned = !digits.is_empty()
                    && digits.bytes().all(|b| b.is_ascii_digit())
                    && t.generics.params.is_empty()
                    && p.qself.is_none();
                versioned.then_some((target, alias))
            })
            .collect();
        ShownNames(names)
    }

    /// `ty` as shown: a versioned name replaced by its unversioned alias, also behind pointers
    /// (`*const *mut CUdeviceptr_v2` -> `*const *mut CUdeviceptr`). Other types are unchanged.
    fn of(&self, ty: &syn::Type) -> syn::Type {
        match ty {
            syn::Type::Ptr(p) => {
                let mut p = p.clone();
                *p.elem = self.of(&p.elem);
                syn::Type::Ptr(p)
            }
            syn::Type::Path(p) if p.qself.is_none() => {
                match p.path.get_ident().and_then(|i| self.0.get(&i.to_string())) {
                    Some(alias) => syn::Type::Path(syn::TypePath {
                        qself: None,
                        path: syn::Ident::new(alias, p.path.segments[0].ident.span()).into(),
                    }),
                    None => ty.clone(),
                }
            }
            other => other.clone(),
        }
    }
}

/// Which exported declaration belongs to which typedef.
struct Exports {
    by_typedef: HashMap<String, (String, Option<String>)>,
}

impl Exports {
    /// Declarations are grouped by the function they export (`cuCtxCreate_v3` -> `cuCtxCreate`,
    /// rank 3; `cuLaunchKernel_ptsz` -> `cuLaunchKernel`, per-thread). Within a group, ABIs are
    /// taken oldest first and each gets the lowest-ranked free declaration with an identical
    /// signature, so `cuCtxCreate` (v2000) and `cuCtxCreate_v2` (v3020), which share one, both land.
    fn match_all(
        decls: &[Decl],
        legacy: &BTreeMap<String, Vec<Typedef>>,
        threaded: &BTreeMap<String, Vec<Typedef>>,
        aliases: &Aliases,
    ) -> Self {
        let mut seen = HashSet::new();
        let mut groups: HashMap<(String, bool), Vec<(u32, &Decl)>> = HashMap::new();
        for d in decls {
            if !seen.insert(d.name.clone()) {
                continue;
            }
            let (stem, per_thread) = match d
                .name
                .strip_suffix("_ptds")
                .or_else(|| d.name.strip_suffix("_ptsz"))
            {
                Some(s) => (s, true),
                None => (d.name.as_str(), false),
            };
            let known = |b: &str| legacy.contains_key(b) || threaded.contains_key(b);
            let key = match stem.rsplit_once("_v") {
                Some((b, n))
                    if known(b) && n.bytes().all(|c| c.is_ascii_digit()) && !n.is_empty() =>
                {
                    Some((b.to_string(), n.parse().unwrap_or(u32::MAX)))
                }
                _ if known(stem) => Some((stem.to_string(), 1)),
                _ => None,
            };
            if let Some((base, rank)) = key {
                groups
                    .entry((base, per_thread))
                    .or_default()
                    .push((rank, d));
            }
        }
        let mut by_typedef = HashMap::new();
        for ((base, per_thread), mut candidates) in groups {
            candidates.sort_by_key(|(rank, _)| *rank);
            let map = if per_thread { threaded } else { legacy };
            let Some(typedefs) = map.get(&base) else {
                continue;
            };
            let mut taken = vec![false; candidates.len()];
            for t in typedefs {
                let sig = aliases.signature(&t.params, &t.ret);
                let found = candidates.iter().enumerate().find(|(i, (_, d))| {
                    !taken[*i] && {
                        let ret = d.output.clone().unwrap_or_else(|| syn::parse_quote!(()));
                        aliases.signature(&d.params, &ret) == sig
                    }
                });
                if let Some((i, (_, d))) = found {
                    taken[i] = true;
                    by_typedef.insert(t.name.clone(), (d.name.clone(), d.doc.clone()));
                }
            }
        }
        Exports { by_typedef }
    }

    fn of(&self, typedef: &str) -> (Option<String>, Option<String>) {
        match self.by_typedef.get(typedef) {
            Some((export, doc)) => (Some(export.clone()), doc.clone()),
            None => (None, None),
        }
    }
}

/// Renders `CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)`.
fn c_prototype(name: &str, params: &[(String, syn::Type)], ret: &syn::Type) -> String {
    let params: Vec<String> = params
        .iter()
        .map(|(n, t)| {
            let ty = c_type(t);
            if ty.ends_with('*') {
                format!("{ty}{n}")
            } else {
                format!("{ty} {n}")
            }
        })
        .collect();
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    format!("{} {name}({params})", c_type(ret))
}

fn c_type(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Ptr(p) => {
            let inner = c_type(&p.elem);
            let inner_is_ptr = inner.ends_with('*');
            match (p.const_token.is_some(), inner_is_ptr) {
                (true, false) => format!("const {inner} *"),
                (true, true) => format!("{inner}const *"),
                (false, false) => format!("{inner} *"),
                (false, true) => format!("{inner}*"),
            }
        }
        syn::Type::Path(p) if p.qself.is_none() && bare_fn(ty).is_none() => {
            let last = p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            match last.as_str() {
                "c_void" => "void",
                "c_char" => "char",
                "c_schar" => "signed char",
                "c_uchar" => "unsigned char",
                "c_short" => "short",
                "c_ushort" => "unsigned short",
                "c_int" => "int",
                "c_uint" => "unsigned int",
                "c_long" => "long",
                "c_ulong" => "unsigned long",
                "c_longlong" => "long long",
                "c_ulonglong" => "unsigned long long",
                "c_float" => "float",
                "c_double" => "double",
                "usize" => "size_t",
                "isize" => "ssize_t",
                "u8" => "uint8_t",
                "u16" => "uint16_t",
                "u32" => "uint32_t",
                "u64" => "uint64_t",
                "i8" => "int8_t",
                "i16" => "int16_t",
                "i32" => "int32_t",
                "i64" => "int64_t",
                other => return other.to_string(),
            }
            .to_string()
        }
        syn::Type::Tuple(t) if t.elems.is_empty() => "void".to_string(),
        other => parse::type_text(other),
    }
}

#[cfg(test)]
mod tests {
    use super::{c_prototype, parse, ShownNames};

    fn shown() -> ShownNames {
        ShownNames::collect(&syn::parse_quote! {
            pub type CUdevice_v1 = ::core::ffi::c_int;
            pub type CUdevice = CUdevice_v1;
            pub type CUdeviceptr_v1 = ::core::ffi::c_uint;
            pub type CUdeviceptr_v2 = ::core::ffi::c_ulonglong;
            pub type CUdeviceptr = CUdeviceptr_v2;
            pub type CUDA_MEMCPY2D_v2 = CUDA_MEMCPY2D_st;
            pub type CUDA_MEMCPY2D = CUDA_MEMCPY2D_v2;
            pub type CUother = CUdevice_v1;
            pub type CUsame_v = CUsame;
            pub type CUletters = CUletters_vx;
        })
    }

    fn shown_text(ty: &str) -> String {
        let ty: syn::Type = syn::parse_str(ty).expect("a type");
        parse::type_text(&shown().of(&ty))
    }

    #[test]
    fn versioned_types_are_shown_by_their_unversioned_alias() {
        for (ty, expected) in [
            ("CUdevice_v1", "CUdevice"),
            ("CUdeviceptr_v2", "CUdeviceptr"),
            ("*mut CUdeviceptr_v2", "*mut CUdeviceptr"),
            ("*const CUDA_MEMCPY2D_v2", "*const CUDA_MEMCPY2D"),
            ("*const *mut CUdevice_v1", "*const *mut CUdevice"),
        ] {
            assert_eq!(shown_text(ty), expected, "{ty}");
        }
    }

    #[test]
    fn types_without_an_alias_of_exactly_their_name_keep_it() {
        for ty in [
            // An old ABI's type: `CUdeviceptr` is an alias of `CUdeviceptr_v2`, not of it.
            "CUdeviceptr_v1",
            "*mut CUdeviceptr_v1",
            "CUdevice",
            "::core::ffi::c_uint",
            "usize",
            "CUletters_vx",
            "CUsame",
            "::core::option::Option<unsafe extern \"C\" fn(CUdevice_v1)>",
        ] {
            assert_eq!(shown_text(ty), ty);
        }
    }

    #[test]
    fn the_prototype_shows_the_unversioned_names() {
        let shown = shown();
        let params: Vec<(String, syn::Type)> = [
            ("dptr", syn::parse_quote!(*mut CUdeviceptr_v2)),
            ("old", syn::parse_quote!(*mut CUdeviceptr_v1)),
            ("dev", syn::parse_quote!(CUdevice_v1)),
        ]
        .into_iter()
        .map(|(n, t)| (n.to_string(), shown.of(&t)))
        .collect();
        assert_eq!(
            c_prototype("cuX", &params, &syn::parse_quote!(CUresult)),
            "CUresult cuX(CUdeviceptr *dptr, CUdeviceptr_v1 *old, CUdevice dev)"
        );
    }
}
