//! Emitting: the checked request turned into the table: the struct, whose one field holds the
//! runtime's state of the table, the binding of each function to its type, the constructors, one
//! method and one raw accessor per function. The prose of every doc comment is `docs`'s.
//!
//! Every name generated code uses goes through `<crate path>::__private` (the runtime crate's
//! path: `::cuda_driver_table`, or the `crate = ...` option): a path that does not lead to the
//! runtime fails there, once. The types of the functions are bound by the runtime's own
//! `bind!` macro, which names them through `$crate`: whatever the path leads to, a field is
//! never given another type. Manifest types are re-parsed here; single-name types are taken from
//! the runtime's `sys`, `::core` paths become `::std` ones (which edition 2015 also resolves).
//!
//! Hygiene: everything but the struct is emitted inside one `const _: () = { ... };` block that
//! also declares a function for every name a generated pattern binds (the C parameter names,
//! the locals). A pattern that names a function binds a new variable, so no constant or unit
//! struct of the user's module can be taken for a parameter; the parameters keep their C names,
//! which rustdoc shows. Every generated identifier but the user's names has the call-site span,
//! `self` included, so the expansion reads the same inside a user's `macro_rules!`. Every other
//! name is a path from the crate root (`::std::...`, the runtime crate's path) or `Self`.

use crate::check::Checked;
use crate::diagnostics::Diagnostics;
use crate::docs;
use crate::manifest::Abi;
use crate::model::{BackendOption, CratePath, Request};
use crate::parse::is_punct;
use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use std::collections::BTreeSet;
use std::str::FromStr;

/// The name of a table's one field: also how a second `#[driver_table]` on the same struct,
/// under any name, sees that the struct is a table already.
pub const FIELD: &str = "__cdt_table";

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char",
];

const KEYWORDS: &[&str] = &["mut", "const", "unsafe", "extern", "fn", "dyn", "for"];

/// The names generated patterns bind besides the C parameters (locals and constructor
/// parameters), shadowed like them (see the module docs).
const LOCALS: &[&str] = &["__cdt_f", "config", "name"];

/// Takes single-name types (`CUdeviceptr_v2`) from the runtime crate's `sys` and primitives
/// from `::std::primitive`: every identifier that does not follow `::` and is not a keyword.
/// Paths such as `::core::ffi::c_uint` keep their names, from `::std`.
fn qualify(tokens: TokenStream, private: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut after_colon = false;
    for t in tokens {
        let next_after_colon = is_punct(&t, ':');
        match t {
            TokenTree::Ident(id) if after_colon && id == "core" => {
                out.extend(quote!(std));
            }
            TokenTree::Ident(id) if !after_colon && !KEYWORDS.iter().any(|kw| id == kw) => {
                let id = Ident::new(&id.to_string(), Span::call_site());
                if PRIMITIVES.iter().any(|p| id == p) {
                    out.extend(quote!(::std::primitive::#id));
                } else {
                    out.extend(quote!(#private::__sys::#id));
                }
            }
            TokenTree::Group(g) => {
                let inner = proc_macro2::Group::new(g.delimiter(), qualify(g.stream(), private));
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other]),
        }
        after_colon = next_after_colon;
    }
    out
}

/// A type of the manifest (Rust text, as the bindings spell it), ready to emit.
fn parse_type(
    text: &str,
    span: Span,
    private: &TokenStream,
    diag: &mut Diagnostics,
) -> Option<TokenStream> {
    match TokenStream::from_str(text) {
        Ok(tokens) => Some(qualify(tokens, private)),
        Err(e) => {
            diag.at(
                span,
                format!(
                    "the manifest has a type this macro cannot read (`{text}`: {e}); regenerate it"
                ),
            );
            None
        }
    }
}

/// One function, ready to emit.
struct Emitted {
    /// Its entry in the runtime's `bind!`.
    binding: TokenStream,
    /// Its method and raw accessor.
    methods: TokenStream,
}

fn emit_function(
    private: &TokenStream,
    docs: &docs::Table<'_>,
    bound: &mut BTreeSet<String>,
    index: usize,
    c: &Checked,
    diag: &mut Diagnostics,
) -> Option<Emitted> {
    let name = &c.name;
    let name_str = c.function.name;
    let abi = c.abi;
    let span = name.span();
    let mut params = Vec::new();
    let mut types = Vec::new();
    // What a traced call records for each argument: the argument, or for a device pointer (an
    // integer in C) the argument shown in hex like the host pointers.
    let mut traced = Vec::new();
    for (pname, pty) in abi.params {
        let ident = if is_identifier(pname) {
            Ident::new(pname, Span::call_site())
        } else {
            format_ident!("arg{}", params.len())
        };
        traced.push(if is_device_pointer(pty) {
            quote!(#ident = #private::Hex(#ident))
        } else {
            quote!(#ident = #ident)
        });
        params.push(ident);
        types.push(parse_type(pty, span, private, diag)?);
    }
    let ret = parse_type(abi.ret, span, private, diag)?;
    let written = out_values(private, abi, &params);
    for p in &params {
        bound.insert(p.to_string());
    }
    let index = Literal::usize_unsuffixed(index);
    // The binding: the typedef's name carries the user's span, so an error about it points at
    // the function's name in the list.
    let typedef = Ident::new(abi.typedef, span);
    let export = |export: Option<&str>| match export {
        Some(e) => quote!(#e),
        None => quote!(_),
    };
    let abi_export = export(abi.export);
    let per_thread = abi.per_thread.as_ref().map(|pt| {
        let pt_typedef = Ident::new(pt.typedef, span);
        let pt_export = export(pt.export);
        quote!(| #pt_typedef #pt_export)
    });
    let binding = quote!(#index #name #typedef #abi_export #per_thread;);

    let fn_type = quote!(unsafe extern "C" fn(#(#types),*) -> #ret);
    let accessor = format_ident!("pfn_{}", name, span = span);
    let returns_result = abi.ret == "CUresult";
    let (method_doc, accessor_doc) = docs.function(c);
    // The call, checked (`CUresult`) or returned, through the runtime's `call!`, which adds
    // tracing when the runtime's `tracing` feature is on and nothing otherwise. Its last argument
    // stays `unsafe { __cdt_f(params) }`: with the `fake` feature the runtime reads those tokens
    // (`__cdt_invoke!`) to hand the arguments to a fake.
    let (how, ok_type) = if returns_result {
        (quote!(check), quote!(()))
    } else {
        (quote!(value), ret)
    };
    let field = Ident::new(FIELD, Span::call_site());
    let methods = quote! {
        #[doc = #method_doc]
        #[inline]
        pub unsafe fn #name(&self, #(#params: #types),*) -> ::std::result::Result<#ok_type, #private::Error> {
            let __cdt_f = self.#field.get::<#index>()?;
            #private::call!(#how: self.#field.config(), #name_str, (#(#traced),*), #written,
                // SAFETY: `__cdt_f` is the driver's `#name` at exactly the ABI of its typedef;
                // the caller upholds the C function's contract (see `# Safety`).
                unsafe { __cdt_f(#(#params),*) }
            )
        }

        #[doc = #accessor_doc]
        #[inline]
        pub fn #accessor(&self) -> ::std::result::Result<#fn_type, #private::Error> {
            self.#field.pointer::<#index>()
        }
    };
    Some(Emitted { binding, methods })
}

/// The out-values of a call, for the runtime's `call!`: `(dptr = <how it is shown>, ...)`, the
/// parameters the records mark `out:` (single values the driver writes through them on success),
/// each with the function that makes its value `Debug` for the event: a device pointer (an integer
/// in C) in hex like the host pointers, anything else as it is. A traced call reads them after
/// `CUDA_SUCCESS` only, so a function that does not return `CUresult` has none. `params` are the
/// parameters' identifiers, in order.
fn out_values(private: &TokenStream, abi: &Abi, params: &[Ident]) -> TokenStream {
    if abi.ret != "CUresult" {
        return quote!(());
    }
    let outs = abi
        .params
        .iter()
        .zip(params)
        .filter(|((name, _), _)| abi.outs.contains(name))
        .map(|((_, ty), ident)| {
            let pointee = ty.strip_prefix("*mut ").unwrap_or(ty);
            if is_device_pointer(pointee) {
                quote!(#ident = #private::Hex)
            } else {
                quote!(#ident = ::std::convert::identity)
            }
        });
    quote!((#(#outs),*))
}

/// `CUdeviceptr` by value (`CUdeviceptr`, `CUdeviceptr_v2`): a device address typed as an integer.
fn is_device_pointer(ty: &str) -> bool {
    ty.strip_prefix("CUdeviceptr")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with("_v"))
}

/// A plain (not raw) Rust identifier that is not a keyword bindgen would have renamed.
fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && text != "_"
}

/// The table: the struct (`attrs` are the struct's attributes as `check` let them through), then
/// everything else inside one `const _` block (see the module docs).
pub fn expand(
    attrs: &TokenStream,
    vis: &TokenStream,
    ident: &Ident,
    request: &Request,
    checked: &[Checked],
    diag: &mut Diagnostics,
) -> TokenStream {
    let default_path = CratePath::default_path();
    let krate = request.krate.as_ref().unwrap_or(&default_path);
    let private = krate.private();
    let doc_path = krate.doc_path();
    let backend = request.backend;
    let per_thread = request.per_thread.is_some();
    let driver = crate::check::target(request);
    let docs = docs::Table {
        name: ident,
        functions: checked,
        linkable: doc_path.is_some(),
        krate: doc_path.unwrap_or_else(|| krate.to_tokens().to_string()),
        backend,
        per_thread,
        driver,
    };
    let mut bound: BTreeSet<String> = LOCALS.iter().map(|l| (*l).to_string()).collect();
    // A function whose types cannot be read is left out (with an error), so a function's index
    // in `FUNCTIONS` is the number of functions emitted before it.
    let mut emitted: Vec<Emitted> = Vec::with_capacity(checked.len());
    for c in checked {
        if let Some(e) = emit_function(&private, &docs, &mut bound, emitted.len(), c, diag) {
            emitted.push(e);
        }
    }
    let count = Literal::usize_unsuffixed(emitted.len());
    let bindings = emitted.iter().map(|e| &e.binding);
    let methods = emitted.iter().map(|e| &e.methods);
    let shadows = bound.iter().map(|name| {
        let name = Ident::new(name, Span::call_site());
        quote!(const fn #name() {})
    });
    let mut config = match backend {
        Some(BackendOption::Driver) => quote!(#private::Config::driver()),
        Some(BackendOption::Runtime) => quote!(#private::Config::runtime()),
        None => quote!(#private::Config::new()),
    };
    let mut mode = quote!(#private::StreamMode::Legacy);
    if per_thread {
        config = quote!(#config.per_thread());
        mode = quote!(#private::StreamMode::PerThread);
    }
    // `driver = N`: the runtime's own floor, in both stream modes, is at most N, or the build
    // stops (the macro chose the ABIs so; this holds it to the rule the runtime applies).
    let driver_floor = driver.map(|driver| {
        let driver = Literal::u32_unsuffixed(driver);
        let floor = |mode| quote!(#private::min_driver_version(<#ident as #private::Functions>::FUNCTIONS, #private::StreamMode::#mode));
        let (legacy, per_thread) = (floor(quote!(Legacy)), floor(quote!(PerThread)));
        quote! {
            const _: () = ::std::assert!(
                #legacy <= #driver && #per_thread <= #driver,
                "cuda-driver-table: a function of this table needs a newer driver than its `driver` option; the macro should have refused it"
            );
        }
    });
    let field = Ident::new(FIELD, Span::call_site());
    let d = docs.items();
    let (struct_doc, field_doc, functions_doc, floor_doc, floor_fn_doc) = (
        d.table,
        d.field,
        d.functions,
        d.min_driver_version,
        d.min_driver_version_fn,
    );
    let (new_doc, with_config_doc, config_doc, resolve_all_doc, raw_pointer_doc) =
        (d.new, d.with_config, d.config, d.resolve_all, d.raw_pointer);
    quote! {
        #attrs
        #[doc = ""]
        #[doc = #struct_doc]
        #vis struct #ident {
            #[doc = #field_doc]
            #[doc(hidden)]
            #field: #private::TableCore<Self, #count>,
        }

        #[allow(
            non_snake_case,
            dead_code,
            deprecated,
            clippy::too_many_arguments,
            clippy::type_complexity,
            clippy::self_named_constructors,
        )]
        const _: () = {
            #(#shadows)*

            #private::bind! { #ident; #(#bindings)* }

            #driver_floor

            impl #ident {
                #[doc = #functions_doc]
                pub const FUNCTIONS: &'static [#private::FunctionSpec] =
                    #private::functions::<Self>();

                #[doc = #floor_doc]
                pub const MIN_DRIVER_VERSION: ::std::primitive::u32 =
                    #private::min_driver_version(Self::FUNCTIONS, #mode);

                #[doc = #floor_fn_doc]
                pub const fn min_driver_version(&self) -> ::std::primitive::u32 {
                    self.#field.min_driver_version()
                }

                #[doc = #new_doc]
                pub const fn new() -> Self {
                    Self::with_config(#config)
                }

                #[doc = #with_config_doc]
                pub const fn with_config(config: #private::Config) -> Self {
                    Self {
                        #field: #private::TableCore::new(config),
                    }
                }

                #[doc = #config_doc]
                pub const fn config(&self) -> &#private::Config {
                    self.#field.config()
                }

                #[doc = #resolve_all_doc]
                pub fn resolve_all(&self) -> ::std::result::Result<(), #private::Errors> {
                    self.#field.resolve_all()
                }

                #[doc = #raw_pointer_doc]
                pub fn raw_pointer(&self, name: &::std::primitive::str) -> ::std::option::Option<::std::result::Result<::std::ptr::NonNull<::std::ffi::c_void>, #private::Error>> {
                    self.#field.raw_pointer(name)
                }

                #(#methods)*
            }

            impl ::std::default::Default for #ident {
                fn default() -> Self {
                    Self::new()
                }
            }
        };
    }
}
