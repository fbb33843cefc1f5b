//! Runs bindgen over `cuda.h` + `cudaTypedefs.h` and splits its output into the bindings we commit
//! (types, constants, enums, `PFN_*` typedefs) and the function declarations the manifest needs
//! (names, parameters, doc comments). Everything downstream reads bindgen's parsed output through
//! `syn`; nothing here looks at the C text itself.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::collections::BTreeSet;
use std::path::Path;

/// The bindgen version pinned in the workspace's Cargo.toml (`=0.73.2`), repeated in every generated
/// header. A test compares the two and the version in Cargo.lock.
pub const BINDGEN_VERSION: &str = "0.73.2";

/// Command-line macros passed to clang. `__CUDA_API_VERSION_INTERNAL` makes the headers declare the
/// old ABIs (`PFN_cuMemAlloc_v2000`, `CUdeviceptr_v1`, ...) and every exported function name.
pub const CLANG_DEFINES: &[&str] = &["-D__CUDA_API_VERSION_INTERNAL"];

const WRAPPER: &str = "#include <cuda.h>\n#include <cudaTypedefs.h>\n";

/// Loads libclang as bindgen will, so that a missing one is an error saying what to install
/// instead of a panic (bindgen's, on every worker thread at once). `who` starts the message: what
/// needs libclang, e.g. "the cuda-local feature runs bindgen".
pub fn check_libclang(who: &str) -> Result<(), String> {
    clang_sys::load().map_err(|e| {
        let searched = match std::env::var("LIBCLANG_PATH") {
            Ok(dir) => format!("searched LIBCLANG_PATH={dir}"),
            Err(_) => "searched the system library folders (LIBCLANG_PATH is not set)".to_string(),
        };
        format!(
            "{who}, which needs libclang, and none could be loaded ({searched}): {e}\n\
             Install it (Debian/Ubuntu: `apt-get install libclang-dev`; Fedora: `dnf install clang-devel`), \
             or set LIBCLANG_PATH to the folder that holds libclang.so."
        )
    })
}

/// Runs bindgen over the headers in `include` and returns its raw output.
pub fn run_bindgen(include: &Path) -> Result<String, String> {
    for header in ["cuda.h", "cudaTypedefs.h"] {
        if !include.join(header).is_file() {
            return Err(format!("{} has no {header}", include.display()));
        }
    }
    let builder = configure(bindgen::Builder::default())?
        .header_contents("cuda-driver-table-wrapper.h", WRAPPER)
        .clang_arg(format!("-I{}", include.display()))
        .clang_args(CLANG_DEFINES.iter().copied())
        .allowlist_file(r".*[/\\]cuda\.h")
        .allowlist_file(r".*[/\\]cudaTypedefs\.h");
    let bindings = builder
        .generate()
        .map_err(|e| format!("bindgen failed on {}: {e}", include.display()))?;
    Ok(bindings.to_string())
}

/// Runs bindgen over the *preprocessed* headers (`cc -E -C`, comments kept) and returns the
/// function declarations with their doc comments.
///
/// clang attaches no doc comment to a declaration whose name comes from a macro, and `cuda.h`
/// renames most versioned functions that way (`#define cuMemAlloc cuMemAlloc_v2`). After the
/// preprocessor has run, the names are plain tokens and the comments attach.
///
/// This pass leaves `__CUDA_API_VERSION_INTERNAL` undefined: every documented declaration is
/// public, so each comment attaches to the symbol a user's build calls (`cuMemAlloc_v2`,
/// `cuLaunchKernel`), and the comment-less internal block, with the comment in front of its `#if`
/// that the preprocessor would otherwise leave next to its first declaration, is not there.
pub fn documented_decls(include: &Path) -> Result<Vec<Decl>, String> {
    // One folder per call: two parses of the same headers may run at once in one process
    // (`parse_sources` on every core, parallel tests), and a shared folder lets one call read a
    // half-written `expanded.h` or delete it under the other.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "cuda-driver-table-codegen-{}-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        include.display().to_string().replace(['/', '\\', ':'], "_")
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let wrapper = dir.join("wrapper.h");
    let expanded = dir.join("expanded.h");
    std::fs::write(&wrapper, WRAPPER)
        .map_err(|e| format!("cannot write {}: {e}", wrapper.display()))?;
    // The C library's headers carry compiler-specific attributes libclang may reject; this pass
    // only needs names and comments, so it sees minimal stand-ins instead (`-nostdinc`).
    for (name, text) in LIBC_STUBS {
        std::fs::write(dir.join(name), text)
            .map_err(|e| format!("cannot write a stub header: {e}"))?;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    // No `-P`: besides line markers it drops blank lines, and clang merges doc comments left on
    // adjacent lines, so a group's `\defgroup ... @{` comment became part of the next function's
    // doc (`cuCtxCreate`, `cuMemGetInfo`).
    let status = std::process::Command::new(&cc)
        .args(["-E", "-C", "-x", "c", "-nostdinc"])
        .arg(format!("-I{}", include.display()))
        .arg(format!("-I{}", dir.display()))
        .arg(&wrapper)
        .arg("-o")
        .arg(&expanded)
        .status()
        .map_err(|e| {
            format!("cannot run the C preprocessor `{cc} -E` (set CC or install gcc): {e}")
        })?;
    if !status.success() {
        return Err(format!(
            "`{cc} -E` failed on {} ({status})",
            include.display()
        ));
    }
    let result = configure(bindgen::Builder::default())?
        .header(expanded.display().to_string())
        .allowlist_function("cu.*")
        .generate()
        .map_err(|e| {
            format!(
                "bindgen failed on the preprocessed headers of {}: {e}",
                include.display()
            )
        });
    let _ = std::fs::remove_dir_all(&dir);
    Ok(read_bindgen_output(&result?.to_string())?.decls)
}

const LIBC_STUBS: &[(&str, &str)] = &[
    ("stdlib.h", "#include <stddef.h>\n"),
    ("stddef.h", "typedef unsigned long size_t;\n"),
    (
        "stdint.h",
        "typedef unsigned int uint32_t;\ntypedef unsigned long long uint64_t;\n",
    ),
];

fn configure(builder: bindgen::Builder) -> Result<bindgen::Builder, String> {
    let target = bindgen::RustTarget::stable(82, 0).map_err(|e| e.to_string())?;
    Ok(builder
        .rust_target(target)
        .use_core()
        .ctypes_prefix("::core::ffi")
        .default_enum_style(bindgen::EnumVariation::NewType {
            is_bitfield: false,
            is_global: false,
        })
        .derive_default(true)
        .derive_debug(true)
        .layout_tests(false)
        .generate_comments(true)
        .merge_extern_blocks(true)
        .parse_callbacks(Box::new(Comments))
        .formatter(bindgen::Formatter::None))
}

/// Cleans comments as bindgen hands them over.
#[derive(Debug)]
struct Comments;

impl bindgen::callbacks::ParseCallbacks for Comments {
    /// `cuda.h` documents struct fields with trailing `/**< ... */` comments; bindgen keeps the
    /// `<` that only tells Doxygen the comment belongs to the member before it.
    fn process_comment(&self, comment: &str) -> Option<String> {
        member_comment(comment)
    }
}

/// The text of a trailing member comment without its `<` marker, after one space as other
/// comments have it (`/// Size in bytes`); `None` for any other comment.
pub fn member_comment(comment: &str) -> Option<String> {
    let trimmed = comment.trim_start();
    trimmed
        .strip_prefix('<')
        .map(|text| format!(" {}", text.trim_start()))
}

/// The object-like macros of a header whose value is an `unsigned int` in C: an expression of
/// integer literals, at least one with a `u` suffix and none `long`, and operators. C computes it
/// in `unsigned int`; bindgen's macro evaluator keeps no signedness, so `(~0u)` comes out as the
/// 64-bit `-1` and the constant as `i32` (see [`type_unsigned_macros`]).
pub fn unsigned_macros(header: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in header.lines() {
        let Some(rest) = line.trim_start().strip_prefix("#define ") else {
            continue;
        };
        let Some((name, value)) = rest.trim().split_once(char::is_whitespace) else {
            continue;
        };
        if name.contains('(') {
            continue; // a function-like macro
        }
        let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let literals: Vec<&str> = value
            .split(|c| !is_word(c))
            .filter(|w| !w.is_empty())
            .collect();
        let only_arithmetic = value
            .chars()
            .filter(|&c| !is_word(c))
            .all(|c| c.is_whitespace() || "()~-+*/%|&^<>".contains(c));
        let suffix = |w: &str| {
            w.trim_start_matches("0x")
                .trim_start_matches(|c: char| c.is_ascii_hexdigit())
                .to_ascii_lowercase()
        };
        let integers = literals
            .iter()
            .all(|w| w.starts_with(|c: char| c.is_ascii_digit()));
        if only_arithmetic
            && integers
            && literals.iter().any(|w| suffix(w) == "u")
            && literals.iter().all(|w| !suffix(w).contains('l'))
        {
            out.insert(name.to_string());
        }
    }
    out
}

/// Gives the constants of `names` (from [`unsigned_macros`]) that bindgen typed `i32` with a
/// negative value their C type and value: `u32`, the same bits (`-1` -> `4294967295`). Returns how
/// many it changed.
pub fn type_unsigned_macros(bindings: &mut syn::File, names: &BTreeSet<String>) -> usize {
    let mut changed = 0;
    for item in &mut bindings.items {
        let syn::Item::Const(c) = item else {
            continue;
        };
        if !names.contains(&c.ident.to_string()) {
            continue;
        }
        let syn::Type::Path(ty) = &*c.ty else {
            continue;
        };
        if !ty.path.is_ident("i32") {
            continue;
        }
        let syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) = &*c.expr
        else {
            continue;
        };
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) = &**expr
        else {
            continue;
        };
        let Ok(magnitude) = lit.base10_parse::<i64>() else {
            continue;
        };
        let value = (-magnitude) as i32 as u32;
        let lit = syn::Lit::Int(syn::LitInt::new(&value.to_string(), lit.span()));
        *c.ty = syn::parse_quote!(u32);
        *c.expr = syn::Expr::Lit(syn::ExprLit {
            attrs: Vec::new(),
            lit,
        });
        changed += 1;
    }
    changed
}

/// Names each of bindgen's newtype enums by the typedef that names it, the name users write:
/// for `typedef enum cudaError_enum { ... } CUresult;` bindgen emits
/// `pub struct cudaError_enum(pub c_uint)` with its constants and
/// `pub use self::cudaError_enum as CUresult;`, and rustdoc shows a re-exported type by its
/// definition's name, so a signature written with `CUresult` read `cudaError_enum` in another
/// crate's docs. A `pub type` alias would not do: it does not bring the tuple constructor
/// (`CUresult(code)`) into scope. So the struct, its impls and every reference to it in the
/// bindings take the typedef's name, and the C tag stays a name of the same type
/// (`pub use self::CUresult as cudaError_enum;`): code naming `cudaError_enum` or calling
/// `cudaError_enum(5)` still compiles.
///
/// Only a newtype struct (one unnamed field) that exactly one `pub use self::Tag as Name;` names
/// is renamed; each rename replaces the identifier tokens, never text inside a doc comment.
/// Returns the renames, `(tag, typedef)`, in the order of the bindings.
pub fn name_enums_by_typedef(bindings: &mut syn::File) -> Vec<(String, String)> {
    let newtypes: BTreeSet<String> = bindings
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s)
                if matches!(&s.fields, syn::Fields::Unnamed(f) if f.unnamed.len() == 1) =>
            {
                Some(s.ident.to_string())
            }
            _ => None,
        })
        .collect();
    // `pub use self::Tag as Name;`: (item index, tag, name).
    let uses: Vec<(usize, String, String)> = bindings
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let (tag, name) = self_use_rename(item)?;
            newtypes.contains(&tag).then_some((i, tag, name))
        })
        .collect();
    let mut renames: std::collections::BTreeMap<String, String> = Default::default();
    let mut order = Vec::new();
    for (_, tag, name) in &uses {
        if uses.iter().filter(|(_, t, _)| t == tag).count() == 1 && !newtypes.contains(name) {
            renames.insert(tag.clone(), name.clone());
            order.push((tag.clone(), name.clone()));
        }
    }
    if renames.is_empty() {
        return order;
    }
    for (i, item) in bindings.items.iter_mut().enumerate() {
        if let Some((_, tag, name)) = uses
            .iter()
            .find(|(j, t, _)| *j == i && renames.contains_key(t))
        {
            // The re-export the other way round: the tag names the typedef's struct.
            let tag = syn::Ident::new(tag, proc_macro2::Span::call_site());
            let name = syn::Ident::new(name, proc_macro2::Span::call_site());
            let doc = format!(
                " The C enum tag of [`{name}`] (`enum {tag}`): another name of the same type."
            );
            *item = syn::parse_quote! {
                #[doc = #doc]
                pub use self::#name as #tag;
            };
            continue;
        }
        let tokens = rename_idents(item.to_token_stream(), &renames);
        *item = syn::parse2(tokens).expect("renamed identifiers leave an item that parses");
    }
    order
}

/// `pub use self::Tag as Name;` as `(Tag, Name)`.
fn self_use_rename(item: &syn::Item) -> Option<(String, String)> {
    let syn::Item::Use(u) = item else { return None };
    let syn::UseTree::Path(p) = &u.tree else {
        return None;
    };
    if p.ident != "self" {
        return None;
    }
    let syn::UseTree::Rename(r) = &*p.tree else {
        return None;
    };
    Some((r.ident.to_string(), r.rename.to_string()))
}

/// The tokens with every identifier of `renames` replaced (literals, doc text included, untouched).
fn rename_idents(
    tokens: TokenStream,
    renames: &std::collections::BTreeMap<String, String>,
) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(ident) => match renames.get(&ident.to_string()) {
                Some(name) => TokenTree::Ident(proc_macro2::Ident::new(name, ident.span())),
                None => TokenTree::Ident(ident),
            },
            TokenTree::Group(g) => {
                let mut renamed = Group::new(g.delimiter(), rename_idents(g.stream(), renames));
                renamed.set_span(g.span());
                TokenTree::Group(renamed)
            }
            other => other,
        })
        .collect()
}

/// bindgen's output, split.
pub struct Generated {
    /// Every item but the `extern "C"` blocks.
    pub bindings: syn::File,
    /// Every function declaration, in header order.
    pub decls: Vec<Decl>,
}

/// One C function declaration as bindgen saw it (after the preprocessor renamed it, so `name` is
/// the exported symbol: `cuMemAlloc_v2`, `cuLaunchKernel_ptsz`).
#[derive(Clone, Debug)]
pub struct Decl {
    pub name: String,
    pub params: Vec<(String, syn::Type)>,
    pub output: Option<syn::Type>,
    pub doc: Option<String>,
}

/// Parses bindgen's output and separates the extern blocks from the rest.
pub fn read_bindgen_output(source: &str) -> Result<Generated, String> {
    let file = syn::parse_file(source).map_err(|e| format!("cannot parse bindgen output: {e}"))?;
    let mut items = Vec::new();
    let mut decls = Vec::new();
    for item in file.items {
        match item {
            syn::Item::ForeignMod(block) => {
                for foreign in block.items {
                    if let syn::ForeignItem::Fn(f) = foreign {
                        decls.push(decl_of(&f.attrs, &f.sig));
                    }
                }
            }
            other => items.push(other),
        }
    }
    Ok(Generated {
        bindings: syn::File {
            shebang: None,
            attrs: file.attrs,
            items,
        },
        decls,
    })
}

fn decl_of(attrs: &[syn::Attribute], sig: &syn::Signature) -> Decl {
    let params = sig
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(i, arg)| match arg {
            syn::FnArg::Typed(pt) => Some((param_name(&pt.pat, i), (*pt.ty).clone())),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let output = match &sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    Decl {
        name: sig.ident.to_string(),
        params,
        output,
        doc: doc_of(attrs),
    }
}

/// The name bindgen gave a parameter (`arg1`, ... when the C declaration had none).
pub fn param_name(pat: &syn::Pat, index: usize) -> String {
    match pat {
        syn::Pat::Ident(p) => p.ident.to_string(),
        _ => format!("arg{index}"),
    }
}

/// Joins the `#[doc = "..."]` attributes into one text with the leading space of each line removed
/// and blank edges trimmed; `None` when there is no text.
///
/// Doxygen group markup is not a function's documentation: clang attaches `/** @} */` to the next
/// declaration when only blank lines follow it (`cuGetExportTable` after
/// `/** @} */ /* END CUDA_DRIVER_ENTRY_POINT */`), so lines that only open or close a group are
/// dropped, and a comment that defines a group (`\defgroup`, `\addtogroup`) yields `None`.
pub fn doc_of(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                for line in s.value().lines() {
                    let line = line.strip_prefix(' ').unwrap_or(line);
                    if matches!(line.trim(), "@{" | "@}" | "\\{" | "\\}") {
                        continue;
                    }
                    lines.push(line.trim_end().to_string());
                }
            }
        }
    }
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let first = lines.first().map_or("", |l| l.trim_start());
    if first.starts_with("\\defgroup") || first.starts_with("\\addtogroup") {
        return None;
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// A type as compact Rust text (`*mut CUdeviceptr_v2`, `::core::ffi::c_uint`).
pub fn type_text(ty: &syn::Type) -> String {
    let item: syn::File = syn::parse_quote!(type __T = #ty;);
    let text = prettyplease::unparse(&item);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = text.trim_start_matches("type __T = ").trim_end_matches(';');
    text.replace("( ", "(")
        .replace(" )", ")")
        .replace(", )", ")")
}

/// Token text of anything, for comparisons.
pub fn tokens_text(t: &impl ToTokens) -> String {
    let mut ts = TokenStream::new();
    t.to_tokens(&mut ts);
    ts.to_string()
}

#[cfg(test)]
mod unsigned_tests {
    use super::*;

    #[test]
    fn macros_of_unsigned_literals_are_found() {
        let header = "#define ANY (~0u)\n#define MASK 0x0fU | 0x10u\n#define SIGNED (~0)\n\
                      #define LONG (~0ul)\n#define NAMED (FOO | 1u)\n#define FN(x) (x + 1u)\n\
                      #define TEXT \"1u\"\n  #define INDENTED 7u\n";
        let names: Vec<String> = unsigned_macros(header).into_iter().collect();
        assert_eq!(names, ["ANY", "INDENTED", "MASK"]);
    }

    #[test]
    fn a_negative_i32_of_an_unsigned_macro_becomes_its_u32_bits() {
        let mut file: syn::File = syn::parse_quote! {
            pub const ANY: i32 = -1;
            pub const OTHER: i32 = -1;
            pub const SMALL: u32 = 7;
        };
        let names = ["ANY".to_string(), "SMALL".to_string()].into();
        assert_eq!(type_unsigned_macros(&mut file, &names), 1);
        let text = file.to_token_stream().to_string();
        assert!(
            text.contains("pub const ANY : u32 = 4294967295 ;"),
            "{text}"
        );
        assert!(text.contains("pub const OTHER : i32 = - 1 ;"), "{text}");
        assert!(text.contains("pub const SMALL : u32 = 7 ;"), "{text}");
    }
}

#[cfg(test)]
mod enum_name_tests {
    use super::*;

    #[test]
    fn a_newtype_enum_takes_its_typedefs_name_and_the_tag_names_it_too() {
        let mut file: syn::File = syn::parse_quote! {
            impl cudaError_enum {
                pub const CUDA_SUCCESS: cudaError_enum = cudaError_enum(0);
            }
            #[repr(transparent)]
            #[doc = " Error codes (cudaError_enum)"]
            #[derive(Debug, Copy, Clone, Hash, PartialEq, Eq)]
            pub struct cudaError_enum(pub ::core::ffi::c_uint);
            #[doc = " Error codes"]
            pub use self::cudaError_enum as CUresult;
            pub type PFN_cuInit = ::core::option::Option<unsafe extern "C" fn(flags: u32) -> cudaError_enum>;
            impl A_enum {
                pub const A: A_enum = A_enum(0);
            }
            pub struct A_enum(pub ::core::ffi::c_uint);
            pub use self::A_enum as A;
            pub use self::A as B;
            pub struct Two_enum(pub ::core::ffi::c_uint);
            pub use self::Two_enum as Two;
            pub use self::Two_enum as Other;
            pub struct Named { pub x: u32 }
            pub use self::Named as Alias;
        };
        let renames = name_enums_by_typedef(&mut file);
        assert_eq!(
            renames,
            [
                ("cudaError_enum".to_string(), "CUresult".to_string()),
                ("A_enum".to_string(), "A".to_string()),
            ]
        );
        let text = prettyplease::unparse(&file);
        for expected in [
            "pub const CUDA_SUCCESS: CUresult = CUresult(0);",
            "pub struct CUresult(pub ::core::ffi::c_uint);",
            "/// Error codes (cudaError_enum)\n",
            "pub use self::CUresult as cudaError_enum;",
            "-> CUresult",
            "impl A {",
            "pub const A: A = A(0);",
            "pub struct A(pub ::core::ffi::c_uint);",
            "pub use self::A as A_enum;",
            "pub use self::A as B;",
            // Two typedefs name it: which one users write is not known, so nothing changes.
            "pub struct Two_enum(pub ::core::ffi::c_uint);",
            "pub use self::Two_enum as Two;",
            "pub use self::Named as Alias;",
        ] {
            assert!(text.contains(expected), "no `{expected}` in:\n{text}");
        }
        assert!(!text.contains("struct cudaError_enum"), "{text}");
        assert!(!text.contains("as CUresult"), "{text}");
    }
}
