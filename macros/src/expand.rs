//! Emitting: the checked request turned into the table: the struct with one typed, lazily
//! resolved field per function, the constructors, one method and one raw accessor per function.
//!
//! Types come from the manifest as text and are re-parsed here; single-name types are taken from
//! the runtime crate's `sys` module (the bindings of the `cuda-driver-table-sys` crate). Every
//! expansion also asserts, at compile time, that the method's parameter list is exactly its
//! `PFN_*` typedef's and that a per-thread twin has the same type.
//!
//! Hygiene: everything but the struct is emitted inside one `const _: () = { ... };` block that
//! also declares a function for every name a generated pattern binds (the C parameter names,
//! the locals). A pattern that names a function binds a new variable, so no constant or unit
//! struct of the user's module can be taken for a parameter; the parameters keep their C names,
//! which rustdoc shows. Every other name is a path from the crate root (`::core::...`, the
//! runtime crate's path) or `Self`.

use crate::check::Checked;
use crate::diagnostics::Diagnostics;
use crate::manifest;
use crate::model::{BackendOption, CratePath, Request};
use crate::parse::is_punct;
use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use std::collections::BTreeSet;
use std::str::FromStr;

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char",
];

const KEYWORDS: &[&str] = &["mut", "const", "unsafe", "extern", "fn", "dyn", "for"];

/// The names generated patterns bind besides the C parameters (locals, closure and constructor
/// parameters), shadowed like them (see the module docs).
const LOCALS: &[&str] = &["__cdt_f", "__cdt_r", "f", "e", "errors", "config", "name"];

/// What every part of one table's expansion needs.
struct Ctx<'a> {
    /// The runtime crate's path (`::cuda_driver_table`, or the `crate = ...` option).
    k: TokenStream,
    /// `[`Error`](<path>::Error)` for the docs, or plain `` `Error` `` where rustdoc cannot
    /// resolve the path.
    error_link: String,
    /// The runtime crate's path as rustdoc resolves it in the user's crate, for links into `sys`.
    doc_path: String,
    table: &'a Ident,
    /// Every name a generated pattern binds.
    bound: BTreeSet<String>,
}

/// Takes single-name types (`CUdeviceptr_v2`) from the runtime crate's `sys` and primitives
/// from `::core::primitive`: every identifier that does not follow `::` and is not a keyword.
/// Paths such as `::core::ffi::c_uint` stay as they are.
fn qualify(tokens: TokenStream, k: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut after_colon = false;
    for t in tokens {
        let next_after_colon = is_punct(&t, ':');
        match t {
            TokenTree::Ident(id) if !after_colon && !KEYWORDS.iter().any(|kw| id == kw) => {
                if PRIMITIVES.iter().any(|p| id == p) {
                    out.extend(quote!(::core::primitive::#id));
                } else {
                    out.extend(quote!(#k::sys::#id));
                }
            }
            TokenTree::Group(g) => {
                let mut inner = proc_macro2::Group::new(g.delimiter(), qualify(g.stream(), k));
                inner.set_span(g.span());
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
    k: &TokenStream,
    diag: &mut Diagnostics,
) -> Option<TokenStream> {
    match TokenStream::from_str(text) {
        Ok(tokens) => Some(qualify(tokens, k)),
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
    field: TokenStream,
    init: TokenStream,
    binding: TokenStream,
    spec: TokenStream,
    methods: TokenStream,
    checks: TokenStream,
    resolve: TokenStream,
    pointer_arm: TokenStream,
}

/// The docs of a function's method and of its raw accessor (`pfn_*`): the `cuda.h` summary first,
/// then what this table does with the function, the rest of the `cuda.h` text (Markdown, with
/// links to the table's own methods where it has them, see `docs`), errors and safety.
fn function_docs(
    c: &Checked,
    table: &[Checked],
    krate: &str,
    error_link: &str,
) -> (String, String) {
    let abi = c.abi;
    let name = c.function.name;
    let exported = |export: Option<&str>| {
        export
            .map(|e| format!(", exported as `{e}`"))
            .unwrap_or_default()
    };
    let per_thread = match &abi.per_thread {
        Some(pt) => format!(
            "In per-thread mode: `{}` (ABI {}{}), requested with the per-thread flag.",
            pt.typedef,
            pt.version,
            exported(pt.export)
        ),
        None => "No per-thread variant: requested with the legacy flag in both stream modes."
            .to_string(),
    };
    let header = format!(
        "`{}`\n\nPinned to ABI {} (`{}`{}) of CUDA {}. {per_thread}\n\nResolved on the first call through the table's backend; later calls cost one atomic load.",
        abi.c_prototype,
        abi.version,
        abi.typedef,
        exported(abi.export),
        manifest::release_name(manifest::RELEASE),
    );
    let errors = if abi.ret == "CUresult" {
        format!("# Errors\n\nAn {error_link} when the function cannot be resolved, or when it returns a `CUresult` other than `CUDA_SUCCESS` (with the code, its name and description).")
    } else {
        format!("# Errors\n\nAn {error_link} when the function cannot be resolved.")
    };
    let has_method = |n: &str| table.iter().any(|t| t.function.name == n);
    let (summary, cuda) = crate::docs::cuda_doc(abi.doc, &has_method, krate);
    let summary = if summary.is_empty() {
        String::new()
    } else {
        format!("{summary}\n\n")
    };
    let cuda = if cuda.is_empty() {
        String::new()
    } else {
        format!("\n\n*From `cuda.h`:*\n\n{cuda}")
    };
    let method = format!(
        "{summary}{header}{cuda}\n\n{errors}\n\n# Safety\n\nThis calls the C function `{name}` as it is: every argument must satisfy its CUDA documentation (valid, live handles; pointers valid for the reads and writes it describes, for as long as it describes, including asynchronous work)."
    );
    let accessor = format!(
        "The resolved `{name}` itself (`{}`), for hot loops and for code that wants the `CUresult`.\n\nResolves it on first use like [`Self::{name}`].\n\n# Errors\n\nAn {error_link} when it cannot be resolved.",
        abi.typedef
    );
    (method, accessor)
}

fn emit_function(
    ctx: &mut Ctx<'_>,
    index: usize,
    c: &Checked,
    table_functions: &[Checked],
    diag: &mut Diagnostics,
) -> Option<Emitted> {
    let k = &ctx.k;
    let table = ctx.table;
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
            Ident::new(pname, span)
        } else {
            format_ident!("arg{}", params.len(), span = span)
        };
        traced.push(if is_device_pointer(pty) {
            quote!(#ident = #k::__private::Hex(#ident))
        } else {
            quote!(#ident = #ident)
        });
        params.push(ident);
        types.push(parse_type(pty, span, k, diag)?);
    }
    let ret = parse_type(abi.ret, span, k, diag)?;
    for p in &params {
        ctx.bound.insert(p.to_string());
    }
    let typedef = Ident::new(abi.typedef, span);
    let version = abi.version;
    let fn_type = quote!(unsafe extern "C" fn(#(#types),*) -> #ret);
    let accessor = format_ident!("pfn_{}", name);
    let export = option_str(abi.export);
    let typedef_str = abi.typedef;
    let (per_thread_abi, per_thread_typedef, pt_check) = match &abi.per_thread {
        Some(pt) => {
            let pt_typedef = Ident::new(pt.typedef, span);
            let pt_typedef_str = pt.typedef;
            let pt_version = pt.version;
            let pt_export = option_str(pt.export);
            (
                quote!(::core::option::Option::Some(#k::manifest::PerThreadAbi { version: #pt_version, export: #pt_export })),
                quote!(::core::option::Option::Some(#pt_typedef_str)),
                quote_spanned!(span=> let _: fn(#k::sys::#pt_typedef) -> #k::sys::#typedef = |f| f;),
            )
        }
        None => (
            quote!(::core::option::Option::None),
            quote!(::core::option::Option::None),
            TokenStream::new(),
        ),
    };
    let returns_result = abi.ret == "CUresult";
    let (method_doc, accessor_doc) =
        function_docs(c, table_functions, &ctx.doc_path, &ctx.error_link);
    let index_lit = proc_macro2::Literal::usize_unsuffixed(index);
    let load = quote! {
        let __cdt_f = match self.#name.loaded() {
            ::core::option::Option::Some(__cdt_f) => __cdt_f,
            ::core::option::Option::None => self.#accessor()?,
        };
    };
    // The call, checked (`CUresult`) or returned, through the runtime's `__cdt_call!`, which adds
    // tracing when the runtime's `tracing` feature is on and nothing otherwise.
    let how = if returns_result {
        quote!(check)
    } else {
        quote!(value)
    };
    let body = quote! {
        #load
        #k::__cdt_call!(#how: &self.__cdt_config, #name_str, (#(#traced),*),
            // SAFETY: `__cdt_f` is the driver's `#name` at exactly the ABI of its typedef; the
            // caller upholds the C function's contract (see `# Safety`).
            unsafe { __cdt_f(#(#params),*) }
        )
    };
    let ok_type = if returns_result {
        quote!(())
    } else {
        quote!(#ret)
    };
    Some(Emitted {
        field: quote_spanned!(span=> #name: #k::__private::Lazy<#table, #index_lit>),
        init: quote!(#name: #k::__private::Lazy::new()),
        binding: quote! {
            // SAFETY: `Pfn` is the typedef of exactly `SPEC.abi` (both come from the same entry
            // of the manifest), and the per-thread twin's typedef is the same type (asserted
            // below, next to the method's signature).
            unsafe impl #k::__private::Field<#index_lit> for #table {
                type Pfn = #k::sys::#typedef;
                const SPEC: #k::FunctionSpec = #k::FunctionSpec {
                    name: #name_str,
                    typedef: #typedef_str,
                    per_thread_typedef: #per_thread_typedef,
                    abi: #k::manifest::AbiInfo {
                        version: #version,
                        export: #export,
                        per_thread: #per_thread_abi,
                    },
                };
            }
        },
        spec: quote!(<Self as #k::__private::Field<#index_lit>>::SPEC),
        methods: quote_spanned! {span=>
            #[doc = #method_doc]
            #[inline]
            pub unsafe fn #name(&self, #(#params: #types),*) -> ::core::result::Result<#ok_type, #k::Error> {
                #body
            }

            #[doc = #accessor_doc]
            #[inline]
            pub fn #accessor(&self) -> ::core::result::Result<#fn_type, #k::Error> {
                if let ::core::option::Option::Some(f) = self.#name.loaded() {
                    return ::core::result::Result::Ok(f);
                }
                self.#name
                    .resolve(&self.__cdt_config)?
                    .ok_or_else(|| #k::__private::null_pointer(#name_str))
            }
        },
        checks: quote_spanned! {span=>
            let _: fn(#k::sys::#typedef) -> ::core::option::Option<#fn_type> = |f| f;
            #pt_check
        },
        resolve: quote! {
            if let ::core::result::Result::Err(e) = self.#name.address(&self.__cdt_config) {
                errors.push(e);
            }
        },
        pointer_arm: quote! {
            #name_str => ::core::option::Option::Some(self.#name.address(&self.__cdt_config)),
        },
    })
}

fn option_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
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
    let path = request.krate.as_ref().map_or_else(
        || CratePath::default_path().to_tokens(),
        CratePath::to_tokens,
    );
    let doc_path = match request.krate.as_ref() {
        None => Some("::cuda_driver_table".to_string()),
        Some(p) => p.doc_path(),
    };
    let error_link = doc_path.as_ref().map_or_else(
        || "`Error`".to_string(),
        |p| format!("[`Error`]({p}::Error)"),
    );
    let mut ctx = Ctx {
        error_link,
        doc_path: doc_path.unwrap_or_else(|| path.to_string()),
        k: path,
        table: ident,
        bound: LOCALS.iter().map(|l| (*l).to_string()).collect(),
    };
    // A function whose types cannot be read is left out (with an error), so a field's index in
    // `FUNCTIONS` is the number of functions emitted before it.
    let mut emitted: Vec<Emitted> = Vec::with_capacity(checked.len());
    for c in checked {
        if let Some(e) = emit_function(&mut ctx, emitted.len(), c, checked, diag) {
            emitted.push(e);
        }
    }
    let k = &ctx.k;
    let fields = emitted.iter().map(|e| &e.field);
    let inits = emitted.iter().map(|e| &e.init);
    let bindings = emitted.iter().map(|e| &e.binding);
    let specs = emitted.iter().map(|e| &e.spec);
    let methods = emitted.iter().map(|e| &e.methods);
    let checks = emitted.iter().map(|e| &e.checks);
    let resolves = emitted.iter().map(|e| &e.resolve);
    let arms = emitted.iter().map(|e| &e.pointer_arm);
    let shadows = ctx.bound.iter().map(|name| {
        let name = Ident::new(name, Span::call_site());
        quote!(const fn #name() {})
    });
    let mut config = match request.backend {
        Some(BackendOption::Driver) => quote!(#k::Config::driver()),
        Some(BackendOption::Runtime) | None => quote!(#k::Config::runtime()),
    };
    let mut mode = "the legacy default stream";
    let mut mode_value = quote!(#k::StreamMode::Legacy);
    if request.per_thread.is_some() {
        config = quote!(#config.per_thread());
        mode = "the per-thread default stream (`_ptds`/`_ptsz` ABIs where they exist)";
        mode_value = quote!(#k::StreamMode::PerThread);
    }
    let floor_doc = format!(
        "The lowest driver version (`cuDriverGetVersion`'s number, e.g. `12050` for CUDA 12.5) on which every function of this table resolves with {mode}, as [`Self::new`] makes it: the newest ABI version a field is requested at, and at least what the lookup needs (`cuGetProcAddress`, 11030). Set by `min_driver_version`, the runtime crate's function of that name, at compile time.\n\nCompare it with `cuDriverGetVersion` at start-up to fail with a clear message on an older driver, or print it in `--version`. With the runtime backend, the libcudart in use also needs a driver of at least its own major release."
    );
    let backend = match request.backend {
        Some(BackendOption::Driver) => "the driver backend (`libcuda.so.1`, `cuGetProcAddress`)",
        _ => "the CUDA runtime backend (libcudart, `cudaGetDriverEntryPointByVersion`)",
    };
    let new_doc = format!(
        "A table that uses {backend} and {mode}, searching for the library in the documented order. Nothing is loaded until the first call."
    );
    quote! {
        #attrs
        #[allow(non_snake_case, dead_code)]
        #vis struct #ident {
            __cdt_config: #k::Config,
            #(#fields,)*
        }

        #[allow(
            non_snake_case,
            dead_code,
            clippy::too_many_arguments,
            clippy::type_complexity,
            clippy::self_named_constructors,
        )]
        const _: () = {
            #(#shadows)*

            #(#bindings)*

            const _: () = {
                #(#checks)*
            };

            impl #ident {
                /// Every function of this table, in the order listed, with the ABI it is pinned to.
                // A constant's array is promoted to static memory, never built on the stack.
                #[allow(clippy::large_stack_arrays)]
                pub const FUNCTIONS: &'static [#k::FunctionSpec] = &[#(#specs),*];

                #[doc = #floor_doc]
                pub const MIN_DRIVER_VERSION: ::core::primitive::u32 = #k::min_driver_version(Self::FUNCTIONS, #mode_value);

                /// The lowest driver version on which every function of this table resolves with
                /// the stream mode of its actual configuration ([`Self::config`]); see
                /// [`Self::MIN_DRIVER_VERSION`].
                pub const fn min_driver_version(&self) -> ::core::primitive::u32 {
                    #k::min_driver_version(Self::FUNCTIONS, self.__cdt_config.stream_mode())
                }

                #[doc = #new_doc]
                pub const fn new() -> Self {
                    Self::with_config(#config)
                }

                /// A table with an explicit configuration: backend, library path and stream mode.
                /// Nothing is loaded until the first call.
                pub const fn with_config(config: #k::Config) -> Self {
                    Self {
                        __cdt_config: config,
                        #(#inits,)*
                    }
                }

                /// The configuration this table resolves its functions with.
                pub const fn config(&self) -> &#k::Config {
                    &self.__cdt_config
                }

                /// Resolves every function now (loading the library if needed), for programs that
                /// want to fail fast at start-up.
                ///
                /// # Errors
                ///
                /// Every function that could not be resolved, not only the first.
                pub fn resolve_all(&self) -> ::core::result::Result<(), #k::Errors> {
                    let mut errors = ::std::vec::Vec::new();
                    #(#resolves)*
                    #k::Errors::from_vec(errors)
                }

                /// Resolves the function named `name` and returns its raw address; `None` when this
                /// table has no such function.
                pub fn raw_pointer(&self, name: &::core::primitive::str) -> ::core::option::Option<::core::result::Result<::core::ptr::NonNull<::core::ffi::c_void>, #k::Error>> {
                    match name {
                        #(#arms)*
                        _ => ::core::option::Option::None,
                    }
                }

                #(#methods)*
            }

            impl ::core::default::Default for #ident {
                fn default() -> Self {
                    Self::new()
                }
            }
        };
    }
}
