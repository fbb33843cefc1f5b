//! Phase 3: the checked request turned into the table: the struct with one typed, lazily resolved
//! field per function, the constructors, one method and one raw accessor per function.
//!
//! Types come from the manifest as text and are re-parsed here; single-name types are taken from
//! `cuda_driver_table::sys`. Every expansion also asserts, at compile time, that the method's
//! parameter list is exactly its `PFN_*` typedef's and that a per-thread twin has the same type.

use crate::check::{self, Checked};
use crate::manifest;
use crate::model::{self, BackendOption, Errors, Request};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Type};

/// The whole attribute: parse, check, expand; errors are collected and emitted with the table.
pub fn driver_table(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let request = model::parse(args, &mut errors);
    let input: DeriveInput = match syn::parse2(item.clone()) {
        Ok(input) => input,
        Err(_) => {
            let (span, what) = not_a_struct(&item);
            errors.at(
                span,
                format!("#[driver_table] goes on a unit struct (`pub struct Cuda;`), not {what}; the attribute adds the fields and methods"),
            );
            let errors = errors.to_compile_errors();
            return quote!(#errors #item);
        }
    };
    match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Unit => {}
            Fields::Named(f) if f.named.is_empty() => {}
            fields => errors.at(
                fields.span(),
                "#[driver_table] needs a struct without fields (`pub struct Cuda;`): the attribute adds one private field per function",
            ),
        },
        Data::Enum(e) => {
            errors.at(
                e.enum_token.span,
                "#[driver_table] goes on a unit struct (`pub struct Cuda;`), not an enum",
            );
            let errors = errors.to_compile_errors();
            return quote!(#errors #item);
        }
        Data::Union(u) => {
            errors.at(
                u.union_token.span,
                "#[driver_table] goes on a unit struct (`pub struct Cuda;`), not a union",
            );
            let errors = errors.to_compile_errors();
            return quote!(#errors #item);
        }
    }
    if !input.generics.params.is_empty() {
        errors.spanned(
            &input.generics,
            "#[driver_table] tables take no generic parameters: remove them",
        );
    }
    let checked = check::check(&request, &mut errors);
    let table = expand(&input, &request, &checked, &mut errors);
    let errors = errors.to_compile_errors();
    quote!(#errors #table)
}

/// For an item that is not a struct, enum or union: the span of its keyword and what it is.
/// A token scan (attributes, visibility and qualifiers skipped), so that syn's `full` feature
/// is not needed for an error message.
fn not_a_struct(item: &TokenStream) -> (Span, &'static str) {
    use proc_macro2::{Delimiter, TokenTree};
    let mut tokens = item.clone().into_iter().peekable();
    while let Some(token) = tokens.next() {
        match &token {
            // `#[...]`, `pub(crate)`, `extern "C"`: skip the group or literal that follows.
            TokenTree::Punct(p) if p.as_char() == '#' => {
                tokens.next();
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {}
            TokenTree::Literal(_) => {}
            TokenTree::Ident(ident) => {
                let what = match ident.to_string().as_str() {
                    // `const X: u32 = 1;` is a constant; `const fn`, `const unsafe fn` are not.
                    "const"
                        if !matches!(tokens.peek(), Some(TokenTree::Ident(next))
                            if ["fn", "unsafe", "async", "extern"].iter().any(|k| next == k)) =>
                    {
                        "a constant"
                    }
                    "pub" | "const" | "async" | "unsafe" | "extern" | "default" | "safe" => {
                        continue
                    }
                    "fn" => "a function",
                    "impl" => "an impl block",
                    "trait" => "a trait",
                    "mod" => "a module",
                    "type" => "a type alias",
                    "static" => "a static",
                    "use" => "a `use` declaration",
                    "crate" => "an `extern crate`",
                    "macro_rules" => "a macro",
                    _ => break,
                };
                return (ident.span(), what);
            }
            _ => break,
        }
    }
    (item.span(), "this item")
}

fn krate() -> TokenStream {
    quote!(::cuda_driver_table)
}

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char",
];

/// Takes single-name types (`CUdeviceptr_v2`) from `cuda_driver_table::sys`.
fn qualify(ty: &mut Type) {
    match ty {
        Type::Ptr(p) => qualify(&mut p.elem),
        Type::Array(a) => qualify(&mut a.elem),
        Type::Slice(s) => qualify(&mut s.elem),
        Type::Paren(p) => qualify(&mut p.elem),
        Type::Group(g) => qualify(&mut g.elem),
        Type::Reference(r) => qualify(&mut r.elem),
        Type::BareFn(f) => {
            for input in f.inputs.iter_mut() {
                qualify(&mut input.ty);
            }
            if let syn::ReturnType::Type(_, out) = &mut f.output {
                qualify(out);
            }
        }
        Type::Path(p) if p.qself.is_none() => {
            if p.path.leading_colon.is_none() && p.path.segments.len() == 1 {
                let seg = &p.path.segments[0];
                if matches!(seg.arguments, syn::PathArguments::None)
                    && !PRIMITIVES.contains(&seg.ident.to_string().as_str())
                {
                    let ident = &seg.ident;
                    let k = krate();
                    *ty = syn::parse_quote!(#k::sys::#ident);
                    return;
                }
            }
            for seg in p.path.segments.iter_mut() {
                if let syn::PathArguments::AngleBracketed(args) = &mut seg.arguments {
                    for arg in args.args.iter_mut() {
                        if let syn::GenericArgument::Type(t) = arg {
                            qualify(t);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

fn parse_type(text: &str, span: Span, errors: &mut Errors) -> Option<Type> {
    match syn::parse_str::<Type>(text) {
        Ok(mut ty) => {
            qualify(&mut ty);
            Some(ty)
        }
        Err(e) => {
            errors.at(
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
    spec: TokenStream,
    methods: TokenStream,
    checks: TokenStream,
    resolve: TokenStream,
    pointer_arm: TokenStream,
}

fn emit_function(index: usize, c: &Checked, errors: &mut Errors) -> Option<Emitted> {
    let k = krate();
    let name = &c.name;
    let name_str = c.function.name;
    let abi = c.abi;
    let span = name.span();
    let mut params = Vec::new();
    let mut types = Vec::new();
    for (pname, pty) in abi.params {
        let ident =
            syn::parse_str::<Ident>(pname).unwrap_or_else(|_| format_ident!("arg{}", params.len()));
        let ident = Ident::new(&ident.to_string(), span);
        params.push(ident);
        types.push(parse_type(pty, span, errors)?);
    }
    let ret = parse_type(abi.ret, span, errors)?;
    let typedef = Ident::new(abi.typedef, span);
    let version = abi.version;
    let fn_type = quote!(unsafe extern "C" fn(#(#types),*) -> #ret);
    let accessor = format_ident!("pfn_{}", name);
    let export = option_str(abi.export);
    let typedef_str = abi.typedef;
    let (per_thread_spec, pt_check, pt_doc) = match &abi.per_thread {
        Some(pt) => {
            let pt_typedef = Ident::new(pt.typedef, span);
            let pt_typedef_str = pt.typedef;
            let pt_version = pt.version;
            let pt_export = option_str(pt.export);
            (
                quote!(::core::option::Option::Some(#k::PerThreadSpec { version: #pt_version, typedef: #pt_typedef_str, export: #pt_export })),
                quote_spanned!(span=> let _: fn(#k::sys::#pt_typedef) -> #k::sys::#typedef = |f| f;),
                format!(
                    "In per-thread mode: `{}` (ABI {}{}), requested with the per-thread flag.",
                    pt.typedef,
                    pt.version,
                    pt.export
                        .map(|e| format!(", exported as `{e}`"))
                        .unwrap_or_default()
                ),
            )
        }
        None => (
            quote!(::core::option::Option::None),
            TokenStream::new(),
            "No per-thread variant: requested with the legacy flag in both stream modes."
                .to_string(),
        ),
    };
    let returns_result = abi.ret == "CUresult";
    let doc_header = format!(
        "`{}`\n\nPinned to ABI {} (`{}`{}) of CUDA {}. {}\n\nResolved on the first call through the table's backend; later calls cost one atomic load.",
        abi.c_prototype,
        version,
        abi.typedef,
        abi.export.map(|e| format!(", exported as `{e}`")).unwrap_or_default(),
        manifest::release_name(manifest::RELEASE),
        pt_doc,
    );
    let errors_doc = if returns_result {
        "# Errors\n\nAn [`Error`](::cuda_driver_table::Error) when the function cannot be resolved, or when it returns a `CUresult` other than `CUDA_SUCCESS` (with the code, its name and description)."
    } else {
        "# Errors\n\nAn [`Error`](::cuda_driver_table::Error) when the function cannot be resolved."
    };
    let cuda_doc = if abi.doc.is_empty() {
        String::new()
    } else {
        format!("\n\nFrom `cuda.h`:\n\n```text\n{}\n```", abi.doc)
    };
    let method_doc = format!(
        "{doc_header}{cuda_doc}\n\n{errors_doc}\n\n# Safety\n\nThis calls the C function `{name_str}` as it is: every argument must satisfy its CUDA documentation (valid, live handles; pointers valid for the reads and writes it describes, for as long as it describes, including asynchronous work)."
    );
    let accessor_doc = format!(
        "The resolved `{name_str}` itself (`{}`), for hot loops and for code that wants the `CUresult`.\n\nResolves it on first use like [`Self::{name_str}`].\n\n# Errors\n\nAn [`Error`](::cuda_driver_table::Error) when it cannot be resolved.",
        abi.typedef
    );
    let index_lit = index;
    let body = if returns_result {
        quote! {
            let __cdt_f = self.#accessor()?;
            // SAFETY: `__cdt_f` is the driver's `#name` at exactly the ABI of its typedef; the
            // caller upholds the C function's contract (see `# Safety`).
            let __cdt_r = unsafe { __cdt_f(#(#params),*) };
            #k::__private::check(&self.__cdt_config, #name_str, __cdt_r)
        }
    } else {
        quote! {
            let __cdt_f = self.#accessor()?;
            // SAFETY: as above.
            ::core::result::Result::Ok(unsafe { __cdt_f(#(#params),*) })
        }
    };
    let ok_type = if returns_result {
        quote!(())
    } else {
        quote!(#ret)
    };
    Some(Emitted {
        field: quote_spanned!(span=> #name: #k::__private::Lazy<#k::sys::#typedef>),
        // SAFETY (of `Lazy::new`): the field's type is the PFN typedef of exactly this spec's ABI.
        init: quote!(#name: unsafe { #k::__private::Lazy::new() }),
        spec: quote! {
            #k::FunctionSpec {
                name: #name_str,
                version: #version,
                typedef: #typedef_str,
                export: #export,
                per_thread: #per_thread_spec,
            }
        },
        methods: quote_spanned! {span=>
            #[doc = #method_doc]
            #[inline]
            pub unsafe fn #name(&self, #(#params: #types),*) -> ::core::result::Result<#ok_type, #k::Error> {
                #body
            }

            #[doc = #accessor_doc]
            #[inline]
            pub fn #accessor(&self) -> ::core::result::Result<#fn_type, #k::Error> {
                match self.#name.get(&self.__cdt_config, &Self::FUNCTIONS[#index_lit])? {
                    ::core::option::Option::Some(f) => ::core::result::Result::Ok(f),
                    ::core::option::Option::None => ::core::result::Result::Err(#k::__private::null_pointer(#name_str)),
                }
            }
        },
        checks: quote_spanned! {span=>
            let _: fn(#k::sys::#typedef) -> ::core::option::Option<#fn_type> = |f| f;
            #pt_check
        },
        resolve: quote! {
            if let ::core::result::Result::Err(e) = self.#name.pointer(&self.__cdt_config, &Self::FUNCTIONS[#index_lit]) {
                errors.push(e);
            }
        },
        pointer_arm: quote! {
            #name_str => ::core::option::Option::Some(self.#name.pointer(&self.__cdt_config, &Self::FUNCTIONS[#index_lit])),
        },
    })
}

fn option_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

fn expand(
    input: &DeriveInput,
    request: &Request,
    checked: &[Checked],
    errors: &mut Errors,
) -> TokenStream {
    let k = krate();
    let attrs = &input.attrs;
    let vis = &input.vis;
    let ident = &input.ident;
    // A function whose types cannot be read is left out (with an error), so a field's index in
    // `FUNCTIONS` is the number of functions emitted before it.
    let mut emitted: Vec<Emitted> = Vec::with_capacity(checked.len());
    for c in checked {
        if let Some(e) = emit_function(emitted.len(), c, errors) {
            emitted.push(e);
        }
    }
    let fields = emitted.iter().map(|e| &e.field);
    let inits = emitted.iter().map(|e| &e.init);
    let specs = emitted.iter().map(|e| &e.spec);
    let methods = emitted.iter().map(|e| &e.methods);
    let checks = emitted.iter().map(|e| &e.checks);
    let resolves = emitted.iter().map(|e| &e.resolve);
    let arms = emitted.iter().map(|e| &e.pointer_arm);
    let mut config = match request.backend {
        Some(BackendOption::Driver) => quote!(#k::Config::driver()),
        Some(BackendOption::Runtime) | None => quote!(#k::Config::runtime()),
    };
    let mut mode = "the legacy default stream";
    if request.per_thread.is_some() {
        config = quote!(#config.per_thread());
        mode = "the per-thread default stream (`_ptds`/`_ptsz` ABIs where they exist)";
    }
    let backend = match request.backend {
        Some(BackendOption::Driver) => "the driver backend (`libcuda.so.1`, `cuGetProcAddress`)",
        _ => "the CUDA runtime backend (libcudart, `cudaGetDriverEntryPointByVersion`)",
    };
    let new_doc = format!(
        "A table that uses {backend} and {mode}, searching for the library in the documented order. Nothing is loaded until the first call."
    );
    quote! {
        #(#attrs)*
        #[allow(non_snake_case, dead_code)]
        #vis struct #ident {
            __cdt_config: #k::Config,
            #(#fields,)*
        }

        #[allow(clippy::type_complexity)]
        const _: () = {
            #(#checks)*
        };

        #[allow(non_snake_case, dead_code, clippy::too_many_arguments, clippy::type_complexity)]
        impl #ident {
            /// Every function of this table, in the order listed, with the ABI it is pinned to.
            pub const FUNCTIONS: &'static [#k::FunctionSpec] = &[#(#specs),*];

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
            pub fn raw_pointer(&self, name: &str) -> ::core::option::Option<::core::result::Result<::core::ptr::NonNull<::core::ffi::c_void>, #k::Error>> {
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
    }
}
