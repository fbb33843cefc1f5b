//! Phase 3: the checked request turned into the table: the struct with one typed, lazily resolved
//! field per function, the constructors, one method and one raw accessor per function.
//!
//! Types come from the manifest as text and are re-parsed here; single-name types are taken from
//! `cuda_driver_table::sys`. Every expansion also asserts, at compile time, that the method's
//! parameter list is exactly its `PFN_*` typedef's and that a per-thread twin has the same type.

use crate::check::{self, Checked};
use crate::manifest;
use crate::model::{self, span_range, BackendOption, Errors, Request};
use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use std::str::FromStr;

/// The struct the attribute is on, taken apart: everything is re-emitted as written.
struct Input {
    /// Outer attributes (`#[derive(Debug)]`, doc comments), as tokens.
    attrs: TokenStream,
    /// `pub`, `pub(crate)`, or nothing.
    vis: TokenStream,
    ident: Ident,
}

/// What the item is, when it is not a struct this attribute can take.
enum NotATable {
    /// Not a struct at all: the span of its keyword and what it is.
    Other(Span, &'static str),
}

fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

/// Reads `attrs vis struct Name generics? (; | {} | (...);)` off the item's tokens. Problems with
/// the generics or fields are reported and the table is still expanded, so the rest of the user's
/// code type-checks; an item that is not a struct is returned as `Err` and re-emitted unchanged.
fn parse_input(item: &TokenStream, errors: &mut Errors) -> Result<Input, NotATable> {
    let tokens: Vec<TokenTree> = item.clone().into_iter().collect();
    let mut i = 0;
    let mut attrs = TokenStream::new();
    while i + 1 < tokens.len() && is_punct(&tokens[i], '#') {
        attrs.extend(tokens[i..i + 2].iter().cloned());
        i += 2;
    }
    let mut vis = TokenStream::new();
    if matches!(&tokens.get(i), Some(TokenTree::Ident(id)) if id == "pub") {
        vis.extend([tokens[i].clone()]);
        i += 1;
        if let Some(TokenTree::Group(g)) = tokens.get(i) {
            if g.delimiter() == Delimiter::Parenthesis {
                vis.extend([tokens[i].clone()]);
                i += 1;
            }
        }
    }
    match tokens.get(i) {
        Some(TokenTree::Ident(kw)) if kw == "struct" => {}
        Some(TokenTree::Ident(kw)) if kw == "enum" => {
            return Err(NotATable::Other(kw.span(), "an enum"))
        }
        Some(TokenTree::Ident(kw)) if kw == "union" => {
            return Err(NotATable::Other(kw.span(), "a union"))
        }
        _ => {
            let (span, what) = not_a_struct(item);
            return Err(NotATable::Other(span, what));
        }
    }
    let Some(TokenTree::Ident(ident)) = tokens.get(i + 1) else {
        let (span, what) = not_a_struct(item);
        return Err(NotATable::Other(span, what));
    };
    i += 2;
    // Generics: `<` ... the matching `>` (a `>` of `->` does not close).
    if tokens.get(i).is_some_and(|t| is_punct(t, '<')) {
        let start = i;
        let mut depth = 0usize;
        while let Some(t) = tokens.get(i) {
            if let TokenTree::Punct(p) = t {
                let arrow = p.as_char() == '>' && i > 0 && is_punct(&tokens[i - 1], '-');
                match p.as_char() {
                    '<' => depth += 1,
                    '>' if !arrow => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            i += 1;
            if depth == 0 {
                break;
            }
        }
        let generics: TokenStream = tokens[start..i].iter().cloned().collect();
        errors.spanned(
            &generics,
            "#[driver_table] tables take no generic parameters: remove them",
        );
    }
    match tokens.get(i) {
        Some(t) if is_punct(t, ';') => {}
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace && g.stream().is_empty() => {}
        Some(TokenTree::Group(g)) => errors.spanned(
            &TokenTree::Group(g.clone()).into(),
            "#[driver_table] needs a struct without fields (`pub struct Cuda;`): the attribute adds one private field per function",
        ),
        _ => errors.at(
            ident.span(),
            "#[driver_table] needs a unit struct such as `pub struct Cuda;`",
        ),
    }
    Ok(Input {
        attrs,
        vis,
        ident: ident.clone(),
    })
}

/// The whole attribute: parse, check, expand; errors are collected and emitted with the table.
pub fn driver_table(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let request = model::parse(args, &mut errors);
    let input = match parse_input(&item, &mut errors) {
        Ok(input) => input,
        Err(NotATable::Other(span, what)) => {
            errors.at(
                span,
                format!("#[driver_table] goes on a unit struct (`pub struct Cuda;`), not {what}; the attribute adds the fields and methods"),
            );
            let errors = errors.to_compile_errors();
            return quote!(#errors #item);
        }
    };
    let checked = check::check(&request, &mut errors);
    let table = expand(&input, &request, &checked, &mut errors);
    let errors = errors.to_compile_errors();
    quote!(#errors #table)
}

/// For an item that is not a struct, enum or union: the span of its keyword and what it is.
/// A token scan (attributes, visibility and qualifiers skipped).
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
    (span_range(item).0, "this item")
}

fn krate() -> TokenStream {
    quote!(::cuda_driver_table)
}

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char",
];

const KEYWORDS: &[&str] = &["mut", "const", "unsafe", "extern", "fn", "dyn", "for"];

/// Takes single-name types (`CUdeviceptr_v2`) from `cuda_driver_table::sys`: every identifier
/// that does not follow `::` and is neither a keyword nor a primitive. Paths such as
/// `::core::ffi::c_uint` stay as they are.
fn qualify(tokens: TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut after_colon = false;
    for t in tokens {
        let next_after_colon = is_punct(&t, ':');
        match t {
            TokenTree::Ident(id)
                if !after_colon
                    && !KEYWORDS.iter().any(|k| id == k)
                    && !PRIMITIVES.iter().any(|p| id == p) =>
            {
                let k = krate();
                out.extend(quote!(#k::sys::#id));
            }
            TokenTree::Group(g) => {
                let mut inner = proc_macro2::Group::new(g.delimiter(), qualify(g.stream()));
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
fn parse_type(text: &str, span: Span, errors: &mut Errors) -> Option<TokenStream> {
    match TokenStream::from_str(text) {
        Ok(tokens) => Some(qualify(tokens)),
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

fn emit_function(
    index: usize,
    c: &Checked,
    table: &[Checked],
    errors: &mut Errors,
) -> Option<Emitted> {
    let k = krate();
    let name = &c.name;
    let name_str = c.function.name;
    let abi = c.abi;
    let span = name.span();
    let mut params = Vec::new();
    let mut types = Vec::new();
    for (pname, pty) in abi.params {
        let ident = if is_identifier(pname) {
            Ident::new(pname, span)
        } else {
            format_ident!("arg{}", params.len(), span = span)
        };
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
    let has_method = |n: &str| table.iter().any(|t| t.function.name == n);
    let (summary, cuda_doc) = crate::docs::cuda_doc(abi.doc, &has_method, &k.to_string());
    let summary = if summary.is_empty() {
        String::new()
    } else {
        format!("{summary}\n\n")
    };
    let cuda_doc = if cuda_doc.is_empty() {
        String::new()
    } else {
        format!("\n\n*From `cuda.h`:*\n\n{cuda_doc}")
    };
    let method_doc = format!(
        "{summary}{doc_header}{cuda_doc}\n\n{errors_doc}\n\n# Safety\n\nThis calls the C function `{name_str}` as it is: every argument must satisfy its CUDA documentation (valid, live handles; pointers valid for the reads and writes it describes, for as long as it describes, including asynchronous work)."
    );
    let accessor_doc = format!(
        "The resolved `{name_str}` itself (`{}`), for hot loops and for code that wants the `CUresult`.\n\nResolves it on first use like [`Self::{name_str}`].\n\n# Errors\n\nAn [`Error`](::cuda_driver_table::Error) when it cannot be resolved.",
        abi.typedef
    );
    let index_lit = index;
    let body = if returns_result {
        quote! {
            let __cdt_f = match self.#name.loaded() {
                ::core::option::Option::Some(f) => f,
                ::core::option::Option::None => self.#accessor()?,
            };
            // SAFETY: `__cdt_f` is the driver's `#name` at exactly the ABI of its typedef; the
            // caller upholds the C function's contract (see `# Safety`).
            let __cdt_r = unsafe { __cdt_f(#(#params),*) };
            #k::__private::check(&self.__cdt_config, #name_str, __cdt_r)
        }
    } else {
        quote! {
            let __cdt_f = match self.#name.loaded() {
                ::core::option::Option::Some(f) => f,
                ::core::option::Option::None => self.#accessor()?,
            };
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
                if let ::core::option::Option::Some(f) = self.#name.loaded() {
                    return ::core::result::Result::Ok(f);
                }
                match self.#name.resolve(&self.__cdt_config, &Self::FUNCTIONS[#index_lit])? {
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

/// A plain (not raw) Rust identifier that is not a keyword bindgen would have renamed.
fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && text != "_"
}

fn expand(
    input: &Input,
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
        if let Some(e) = emit_function(emitted.len(), c, checked, errors) {
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
        #attrs
        #[allow(non_snake_case, dead_code)]
        #vis struct #ident {
            __cdt_config: #k::Config,
            #(#fields,)*
        }

        #[allow(clippy::type_complexity)]
        const _: () = {
            #(#checks)*
        };

        #[allow(
            non_snake_case,
            dead_code,
            clippy::too_many_arguments,
            clippy::type_complexity,
            clippy::self_named_constructors
        )]
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
