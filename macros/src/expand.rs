//! Emitting: the checked [`Table`] turned into the table: the struct, whose one field holds the
//! runtime's state of the table, the binding of each function to its type, the constructors, one
//! method and one raw accessor per function. The prose of every doc comment is `docs`'s.
//!
//! Every generated token has the call-site span (as `quote!` gives), except what must point at
//! the user's code: the user's own tokens (the struct's name, visibility and attributes, a
//! `crate = ...` path) and the names made at a user's span (each function's name, typedefs and
//! raw accessor, at its name in the list).
//!
//! Every name generated code uses goes through `<crate path>::__private` (the runtime crate's
//! path: `::cuda_driver_table`, or the `crate = ...` option): a path that does not lead to the
//! runtime fails there, once. The types of the functions are bound by the runtime's own
//! `bind!` macro, which names them through `$crate`: whatever the path leads to, a field is
//! never given another type. The manifest's types are parsed as Rust types and named from the
//! crate root: single names from the runtime's `sys` (through the block's alias `sys`, as
//! the runtime's path through `__cdt`), primitives and `core::ffi`'s C types from the runtime's
//! `__private` (which re-exports them), other `::core` paths from `::std` (which edition 2015
//! also resolves).
//!
//! Hygiene: everything but the struct is emitted inside one `const _: () = { ... };` block that
//! also declares a function for every name a generated pattern binds (the C parameter names,
//! the locals). A pattern that names a function binds a new variable, so no constant or unit
//! struct of the user's module can be taken for a parameter; the parameters keep their C names,
//! which rustdoc shows. Every other name is a path from the crate root (`::std::...`, the
//! runtime crate's path) or `Self`.
//!
//! So rustc names a method `_::<impl Cuda>::cuInit` in its messages (E0133 for a call outside
//! `unsafe`, `tests/ui/method_call_needs_unsafe.stderr`): it says `Cuda::cuInit` only for an impl
//! at module level, where no shadow can be declared beside a user's item of the same name, and
//! prints any enclosing item the same way (`NAME::<impl Cuda>` for a named `const`, a function or
//! a module), while a parameter pattern of another form (`mut x`, `x @ _`) is refused (E0530)
//! instead of shadowing a constant.

use crate::check::{Checked, Table};
use crate::diagnostics::Errors;
use crate::docs;
use crate::manifest::Abi;
use crate::model::Backend;
use crate::model::FIELD;
use proc_macro2::{Delimiter, Group, Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use std::iter;
use syn::{GenericArgument, PathArguments, ReturnType, Type};

/// The primitive types a manifest may name, which the runtime's `__private` re-exports (its
/// list and these two are checked against each other, `tests/tests/private_names.rs`): named
/// through it, each is three tokens, not six, and rustdoc and the compiler's messages show it by
/// its own name.
const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char",
];
/// The C types of `core::ffi` a manifest may name, re-exported the same way (any other
/// `::core::ffi` name is named from `::std::ffi`).
const C_TYPES: &[&str] = &[
    "c_char",
    "c_schar",
    "c_uchar",
    "c_short",
    "c_ushort",
    "c_int",
    "c_uint",
    "c_long",
    "c_ulong",
    "c_longlong",
    "c_ulonglong",
    "c_float",
    "c_double",
    "c_void",
];

/// The names generated patterns bind besides the C parameters, shadowed like them (see the
/// module docs): the locals of the runtime's `call!` (`core/src/trace.rs`: the resolved
/// function, and with the `tracing` feature the time, code, result and value of a traced call)
/// and the constructors' parameters. `tests/tests/hygiene.rs` puts a constant of each name
/// beside a table.
const LOCALS: &[&str] = &[
    "__cdt_f",
    "__cdt_start",
    "__cdt_code",
    "__cdt_elapsed",
    "__cdt_r",
    "__cdt_e",
    "__cdt_value",
    "config",
    "name",
];

/// Tokens interpolated many times (the runtime's path, the manifest's types), kept as trees: a
/// copy of a tree list is made in the macro, where a copy of a `TokenStream` is a request to the
/// compiler each time.
#[derive(Clone)]
struct Tokens(Vec<TokenTree>);

impl ToTokens for Tokens {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(self.0.iter().cloned());
    }
}

impl From<TokenStream> for Tokens {
    fn from(tokens: TokenStream) -> Self {
        Tokens(tokens.into_iter().collect())
    }
}

/// The manifest's types as the table names them, each parsed once per expansion.
struct Types<'a> {
    paths: Paths<'a>,
    /// Each text parsed so far, sorted by it.
    parsed: Vec<(&'static str, Option<Tokens>)>,
}

/// The paths the block names the runtime by (see [`expand`]).
#[derive(Clone, Copy)]
struct Paths<'a> {
    /// The runtime's `__private` (`__cdt`).
    private: &'a Tokens,
    /// Its bindings (`sys`).
    sys: &'a Tokens,
}

impl Types<'_> {
    /// The type the manifest spells `text`, or `None` for text that is no type a binding has.
    fn get(&mut self, text: &'static str) -> Option<Tokens> {
        match self.parsed.binary_search_by(|(t, _)| (*t).cmp(text)) {
            Ok(i) => self.parsed[i].1.clone(),
            Err(i) => {
                let tokens = syn::parse_str::<Type>(text).ok().and_then(|mut ty| {
                    qualify(&mut ty, self.paths).then(|| ty.into_token_stream().into())
                });
                self.parsed.insert(i, (text, tokens.clone()));
                tokens
            }
        }
    }
}

/// Names `ty` from the crate root (see the module docs): the bindings' names from `sys`, the
/// primitives and `core::ffi`'s C types from `__private`; `false` for a kind of type no binding
/// has.
fn qualify(ty: &mut Type, paths: Paths<'_>) -> bool {
    match ty {
        Type::Ptr(t) => qualify(&mut t.elem, paths),
        Type::Reference(t) => qualify(&mut t.elem, paths),
        Type::Array(t) => qualify(&mut t.elem, paths),
        Type::Slice(t) => qualify(&mut t.elem, paths),
        Type::Paren(t) => qualify(&mut t.elem, paths),
        Type::Tuple(t) => t.elems.iter_mut().all(|t| qualify(t, paths)),
        Type::Never(_) => true,
        Type::FnPtr(f) => {
            let output = match &mut f.output {
                ReturnType::Type(_, t) => qualify(&mut *t, paths),
                ReturnType::Default => true,
            };
            output && f.inputs.iter_mut().all(|arg| qualify(&mut arg.ty, paths))
        }
        Type::Path(t) if t.qself.is_none() => {
            let path = &mut t.path;
            let arguments = path.segments.iter_mut().all(|s| match &mut s.arguments {
                PathArguments::None => true,
                PathArguments::AngleBracketed(a) => a.args.iter_mut().all(|arg| match arg {
                    GenericArgument::Type(t) => qualify(t, paths),
                    _ => false,
                }),
                PathArguments::Parenthesized(_) => false,
            });
            let Paths { private, sys } = paths;
            if path.leading_colon.is_some() {
                // `::core::ffi::c_uint` (or `::std::...`): one of `__private`'s C types.
                let segments: Vec<&Ident> = path.segments.iter().map(|s| &s.ident).collect();
                match segments[..] {
                    [krate, ffi, name]
                        if (krate == "core" || krate == "std")
                            && ffi == "ffi"
                            && C_TYPES.iter().any(|c| name == c) =>
                    {
                        let name = name.clone();
                        *ty = Type::Verbatim(quote!(#private::#name));
                    }
                    _ => {
                        if let Some(first) = path.segments.first_mut().filter(|s| s.ident == "core")
                        {
                            first.ident = Ident::new("std", first.ident.span());
                        }
                    }
                }
            } else if let Some(name) = path.get_ident() {
                *ty = Type::Verbatim(if PRIMITIVES.iter().any(|p| name == p) {
                    quote!(#private::#name)
                } else {
                    quote!(#sys::#name)
                });
            }
            arguments
        }
        _ => false,
    }
}

/// `CUdeviceptr` by value (`CUdeviceptr`, `CUdeviceptr_v2`): a device address typed as an integer.
fn is_device_pointer(ty: &str) -> bool {
    ty.strip_prefix("CUdeviceptr")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with("_v"))
}

/// A plain (not raw) identifier of ASCII letters, digits and `_`, not `_` alone.
fn is_identifier(text: &str) -> bool {
    text != "_"
        && text.starts_with(|c: char| c == '_' || c.is_ascii_alphabetic())
        && text.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The module loads that can be given PTX: the index of the image parameter and, where the
/// function takes one, of its size, for the functions whose parameters there have those types
/// (`*const c_void` or `*mut c_void`; `usize`) and which return `CUresult` (a unit test checks
/// that every ABI of the four is).
fn ptx_image(function: &str, abi: &Abi) -> Option<(usize, Option<usize>)> {
    let (image, size) = match function {
        "cuModuleLoadData" | "cuModuleLoadDataEx" | "cuLibraryLoadData" => (1, None),
        "cuLinkAddData" => (2, Some(3)),
        _ => return None,
    };
    let is = |i: usize, types: &[&str]| abi.params.get(i).is_some_and(|(_, ty)| types.contains(ty));
    (abi.ret == "CUresult"
        && is(
            image,
            &["*const ::core::ffi::c_void", "*mut ::core::ffi::c_void"],
        )
        && size.is_none_or(|size| is(size, &["usize"])))
    .then_some((image, size))
}

/// One function's part of the table.
struct Function {
    /// Its entry in the runtime's `bind!`.
    binding: TokenStream,
    /// Its method and raw accessor.
    methods: TokenStream,
    /// The names its method's parameters bind.
    params: Vec<String>,
}

/// One function's binding, method and raw accessor; `Err` with the manifest's type that cannot be
/// read.
fn function(
    c: &Checked,
    index: usize,
    private: &Tokens,
    types: &mut Types<'_>,
    docs: &docs::Table<'_>,
) -> Result<Function, &'static str> {
    let abi = c.abi;
    let span = c.name.span();
    let p = private;
    let field = format_ident!("{FIELD}");
    let index = Literal::usize_unsuffixed(index);
    let names: Vec<String> = abi
        .params
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            if is_identifier(name) {
                (*name).to_string()
            } else {
                format!("arg{i}")
            }
        })
        .collect();
    let params: Vec<Ident> = names.iter().map(|n| format_ident!("{n}")).collect();
    let param_types = abi
        .params
        .iter()
        .map(|(_, ty)| types.get(ty).ok_or(*ty))
        .collect::<Result<Vec<_>, _>>()?;
    let ret = types.get(abi.ret).ok_or(abi.ret)?;
    // What a traced call records for each argument: the argument, or for a device pointer (an
    // integer in C) the argument shown in hex like the host pointers: `dptr Hex` in the list.
    let hex = Ident::new("Hex", Span::call_site());
    let device_pointer = |ty: &str| is_device_pointer(ty).then_some(&hex);
    let traced = abi.params.iter().map(|(_, ty)| device_pointer(ty));
    // The out-values, for the runtime's `call!`: the parameters the records mark `out:` (single
    // values the driver writes through them on success), each marked `Hex` when its value is a
    // device pointer, shown in hex in the event. A traced call reads them after `CUDA_SUCCESS`
    // only, so a function that does not return `CUresult` has none.
    let checked = abi.ret == "CUresult";
    let mut outs = Vec::new();
    let mut outs_hex = Vec::new();
    for (ident, (name, ty)) in params.iter().zip(abi.params) {
        if checked && abi.outs.contains(name) {
            outs.push(ident);
            outs_hex.push(device_pointer(ty.strip_prefix("*mut ").unwrap_or(ty)));
        }
    }
    // The binding: the typedef's name carries the user's span, so an error about it points at
    // the function's name in the list.
    let name = &c.name;
    // The C name as the lookup takes it, with its NUL.
    let symbol = Literal::string(&format!("{}\0", c.function.name));
    let typedef = Ident::new(abi.typedef, span);
    let export = abi.export;
    let twin = abi.per_thread.as_ref().map(|pt| {
        let typedef = Ident::new(pt.typedef, span);
        let export = pt.export;
        quote!(#typedef #export)
    });
    let binding = quote!(#index #symbol #typedef [#export] [#twin];);

    let accessor = Ident::new(&format!("pfn_{}", c.function.name), span);
    let (method_doc, accessor_doc) = docs.function(c);
    // The lookup and the call, checked (`CUresult`) or returned, through the runtime's `call!`,
    // which adds tracing when the runtime's `tracing` feature is on, hands the arguments to a fake
    // with its `fake` feature, and does nothing else otherwise; its `unsafe` block, with its
    // `SAFETY`, is the runtime's.
    let (how, ok) = if checked {
        (
            "check",
            Tokens(vec![
                Group::new(Delimiter::Parenthesis, TokenStream::new()).into()
            ]),
        )
    } else {
        ("value", ret.clone())
    };
    let how = Ident::new(how, Span::call_site());
    let c_abi = Literal::string("C");
    let c_name = c.function.name;
    let mut call = quote! {
        #p::call!(#how: self.#field, #index, #c_name, (#(#params #traced),*), (#(#outs #outs_hex),*))
    };
    // A module load keeps its image, so that the error of PTX the driver refuses can say what the
    // PTX needs (the runtime's `ptx_image!`).
    if let Some((image, size)) = ptx_image(c_name, abi) {
        let image = &params[image];
        let size = size.map(|size| &params[size]).into_iter();
        call = quote!(#p::ptx_image!(#call, self.#field, #image #(, #size)*));
    }
    let methods = quote! {
        #[doc = #method_doc]
        #[inline]
        pub unsafe fn #name(&self, #(#params: #param_types),*) -> #p::Result<#ok, #p::Error> {
            #call
        }
        #[doc = #accessor_doc]
        #[inline]
        pub fn #accessor(&self) -> #p::Result<unsafe extern #c_abi fn(#(#param_types),*) -> #ret, #p::Error> {
            self.#field.pointer::<#index>()
        }
    };
    Ok(Function {
        binding,
        methods,
        params: names,
    })
}

/// The table: the struct (with the attributes `check` let through), then everything else inside
/// one `const _` block (see the module docs). A function whose types cannot be read is left out,
/// with an error, so a function's index in `FUNCTIONS` is the number emitted before it.
pub fn expand(table: &Table, errors: &mut Errors) -> TokenStream {
    // `::__private` takes the span of the path's last name, so a path that does not lead to the
    // runtime is reported there (`could not find __private in std`): at the struct's field and at
    // the alias below, and nowhere else.
    let last = table
        .krate
        .as_ref()
        .and_then(|path| path.segments.last())
        .map_or_else(Span::call_site, |s| s.ident.span());
    let private = match &table.krate {
        Some(path) => quote_spanned!(last=> #path::__private),
        None => quote!(::cuda_driver_table::__private),
    };
    let alias = quote_spanned!(last=> use #private as __cdt;);
    // Inside the block every name goes through one short alias of that path, and the bindings,
    // which name most parameter types, through `sys`: fewer tokens for the macro to write and the
    // compiler to read, for each function. The docs' links name the two the same way (`docs`).
    let p = &Tokens::from(quote!(__cdt));
    let docs = docs::Table::new(table);
    let sys = &Tokens::from(quote!(sys));
    let mut types = Types {
        paths: Paths { private: p, sys },
        parsed: Vec::new(),
    };
    let mut bound: Vec<String> = LOCALS.iter().map(ToString::to_string).collect();
    let mut bindings = TokenStream::new();
    let mut methods = TokenStream::new();
    let mut count = 0;
    for c in &table.functions {
        match function(c, count, p, &mut types, &docs) {
            Ok(f) => {
                // Streams appended whole (`Extend<TokenStream>`): extending by a stream's trees
                // would take it apart into trees and hand each to the compiler again.
                bindings.extend(iter::once(f.binding));
                methods.extend(iter::once(f.methods));
                bound.extend(f.params);
                count += 1;
            }
            Err(ty) => errors.at(
                c.name.span(),
                format!("the manifest has a type this macro cannot read (`{ty}`); regenerate it"),
            ),
        }
    }
    let Table {
        attrs, vis, ident, ..
    } = table;
    let field = format_ident!("{FIELD}");
    let count = Literal::usize_unsuffixed(count);
    bound.sort_unstable();
    bound.dedup();
    let shadows = bound.iter().map(|name| format_ident!("{name}"));
    let config = match table.backend {
        Some(Backend::Driver) => quote!(driver),
        Some(Backend::Runtime) => quote!(runtime),
        None => quote!(new),
    };
    let (per_thread, mode) = if table.per_thread {
        (quote!(.per_thread()), quote!(PerThread))
    } else {
        (quote!(), quote!(Legacy))
    };
    // `driver = N`: the runtime's own floor, in both stream modes, is at most N, or the build
    // stops (the macro chose the ABIs so; this holds it to the rule the runtime applies).
    let driver_floor = table.driver.map(|driver| {
        let driver = Literal::u32_unsuffixed(driver);
        let floor = |mode: TokenStream| {
            quote!(#p::min_driver_version(<#ident as #p::Functions>::FUNCTIONS, #p::StreamMode::#mode))
        };
        let (legacy, per_thread) = (floor(quote!(Legacy)), floor(quote!(PerThread)));
        quote! {
            const _: () = ::std::assert!(
                #legacy <= #driver && #per_thread <= #driver,
                "cuda-driver-table: a function of this table needs a newer driver than its `driver` option; the macro should have refused it"
            );
        }
    });
    // The table's record in the built file (the runtime's `registry`): its name, backend,
    // declared stream mode and `driver` option (`newest` with the release of the bindings); the
    // runtime's `record!` reads the functions off the binding.
    let backend = match table.backend {
        Some(Backend::Driver) => quote!(Driver),
        Some(Backend::Runtime) => quote!(Runtime),
        None => quote!(Default),
    };
    let declared = match table.driver {
        Some(driver) => {
            let driver = Literal::u32_unsuffixed(driver);
            quote!(Version(#driver))
        }
        None => {
            let release = Literal::u32_unsuffixed(crate::manifest::RELEASE);
            quote!(Newest(#release))
        }
    };
    let record = quote!(#p::record! { #ident; #backend; #mode; #declared });
    let d = docs.items();
    let (table_doc, field_doc, functions_doc) = (&d.table, &d.field, &d.functions);
    let (min_doc, min_fn_doc, new_doc) = (&d.min_driver_version, &d.min_driver_version_fn, &d.new);
    let (with_config_doc, config_doc) = (&d.with_config, &d.config);
    let (resolve_all_doc, raw_pointer_doc) = (&d.resolve_all, &d.raw_pointer);

    let the_struct = quote! {
        #attrs
        #[doc = ""]
        #[doc = #table_doc]
        #vis struct #ident {
            #[doc = #field_doc]
            #[doc(hidden)]
            #field: #private::TableCore<Self, #count>,
        }
    };
    let the_impl = quote! {
        impl #ident {
            #[doc = #functions_doc]
            pub const FUNCTIONS: &'static [#p::FunctionSpec] = #p::functions::<Self>();

            #[doc = #min_doc]
            pub const MIN_DRIVER_VERSION: ::std::primitive::u32 =
                #p::min_driver_version(Self::FUNCTIONS, #p::StreamMode::#mode);

            #[doc = #min_fn_doc]
            pub const fn min_driver_version(&self) -> ::std::primitive::u32 {
                self.#field.min_driver_version()
            }

            #[doc = #new_doc]
            pub const fn new() -> Self {
                Self::with_config(#p::Config::#config()#per_thread)
            }

            #[doc = #with_config_doc]
            pub const fn with_config(config: #p::Config) -> Self {
                Self {
                    #field: #p::TableCore::new(config),
                }
            }

            #[doc = #config_doc]
            pub const fn config(&self) -> &#p::Config {
                self.#field.config()
            }

            #[doc = #resolve_all_doc]
            pub fn resolve_all(&self) -> ::std::result::Result<(), #p::Errors> {
                self.#field.resolve_all()
            }

            #[doc = #raw_pointer_doc]
            pub fn raw_pointer(&self, name: &::std::primitive::str) -> ::std::option::Option<::std::result::Result<::std::ptr::NonNull<::std::ffi::c_void>, #p::Error>> {
                self.#field.raw_pointer(name)
            }

            #methods
        }
    };
    quote! {
        #the_struct

        #[allow(
            non_snake_case,
            dead_code,
            deprecated,
            clippy::too_many_arguments,
            clippy::type_complexity,
            clippy::self_named_constructors,
        )]
        const _: () = {
            #alias
            use __cdt::__sys as sys;
            #(const fn #shadows() {})*

            #p::bind! { #ident; #bindings }
            #record

            #driver_floor

            #the_impl

            impl ::std::default::Default for #ident {
                fn default() -> Self {
                    Self::new()
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::{Paths, Types};
    use quote::quote;

    fn qualified(text: &'static str) -> Option<String> {
        let (private, sys) = (quote!(P).into(), quote!(S).into());
        let mut types = Types {
            paths: Paths {
                private: &private,
                sys: &sys,
            },
            parsed: Vec::new(),
        };
        types
            .get(text)
            .map(|t| quote::ToTokens::to_token_stream(&t).to_string())
    }

    fn tokens(text: &str) -> String {
        text.parse::<proc_macro2::TokenStream>()
            .expect("lexes")
            .to_string()
    }

    #[test]
    fn manifest_types_name_the_runtime_s_bindings_and_std() {
        for (text, expected) in [
            ("CUdeviceptr_v2", "S::CUdeviceptr_v2"),
            ("usize", "P::usize"),
            ("*mut *mut ::core::ffi::c_void", "*mut *mut P::c_void"),
            ("::core::ffi::c_uint", "P::c_uint"),
            ("::core::ffi::CStr", "::std::ffi::CStr"),
            ("*const CUDA_MEMCPY2D_v2", "*const S::CUDA_MEMCPY2D_v2"),
            (
                "::core::option::Option<unsafe extern \"C\" fn(u32, [u8; 16]) -> CUresult>",
                "::std::option::Option<unsafe extern \"C\" fn(P::u32, [P::u8; 16]) -> S::CUresult>",
            ),
        ] {
            assert_eq!(qualified(text), Some(tokens(expected)), "{text}");
        }
    }

    #[test]
    fn text_that_is_no_type_is_refused() {
        for text in [
            "[u8; 16",
            "(u32",
            "u32)",
            "(u32]",
            "$x",
            "'a",
            "\"C",
            "{ x }",
            "impl Fn()",
        ] {
            assert_eq!(qualified(text), None, "{text}");
        }
    }
}
