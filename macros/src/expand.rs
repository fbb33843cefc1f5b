//! Emitting: the checked request turned into the table: the struct, whose one field holds the
//! runtime's state of the table, the binding of each function to its type, the constructors, one
//! method and one raw accessor per function. The prose of every doc comment is `docs`'s.
//!
//! The table is written as Rust source text ([`Output`]), which the compiler lexes with every
//! token at the call site (what `quote!` gives by default). What must point at the user's code
//! goes in as a placeholder for tokens instead, never as text: the user's own tokens (the struct's
//! name, visibility and attributes, a `crate = ...` path) and the names made at a user's span
//! (each function's name, typedefs and raw accessor, at its name in the list).
//!
//! Every name generated code uses goes through `<crate path>::__private` (the runtime crate's
//! path: `::cuda_driver_table`, or the `crate = ...` option): a path that does not lead to the
//! runtime fails there, once. The types of the functions are bound by the runtime's own
//! `bind!` macro, which names them through `$crate`: whatever the path leads to, a field is
//! never given another type. Manifest types are read here (`qualify`); single-name types are taken from
//! the runtime's `sys`, `::core` paths become `::std` ones (which edition 2015 also resolves).
//!
//! Hygiene: everything but the struct is emitted inside one `const _: () = { ... };` block that
//! also declares a function for every name a generated pattern binds (the C parameter names,
//! the locals). A pattern that names a function binds a new variable, so no constant or unit
//! struct of the user's module can be taken for a parameter; the parameters keep their C names,
//! which rustdoc shows. Every generated identifier but the user's names has the call-site span,
//! `self` included, so the expansion reads the same inside a user's `macro_rules!`. Every other
//! name is a path from the crate root (`::std::...`, the runtime crate's path) or `Self`.
//!
//! The code is plain loops and `write!`s onto a few `String`s: iterator adapters, closures and
//! string searches would be generic code compiled anew in every clean build of a user's program.

use crate::check::Checked;
use crate::diagnostics::Diagnostics;
use crate::docs;
use crate::manifest::Abi;
use crate::model::{BackendOption, CratePath, Request};
use crate::tokens::{Ident, Output, TokenStream};
use std::fmt::Write;

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

/// The default path of the runtime's `__private` module.
const PRIVATE: &str = "::cuda_driver_table::__private";

/// Writes a type of the manifest (Rust text, as the bindings spell it) to `out`, with single-name
/// types (`CUdeviceptr_v2`) taken from the runtime crate's `sys` (`private` is the path to its
/// `__private`) and primitives from `::std::primitive`: every identifier that does not follow
/// `::` and is not a keyword. Paths such as `::core::ffi::c_uint` keep their names, from `::std`.
/// `None` for text that is no type a binding has (an unclosed bracket or string, a character
/// such as `$`).
fn qualify(text: &str, private: &str, out: &mut String) -> Option<()> {
    let bytes = text.as_bytes();
    let mut closers = Vec::new();
    let mut after_colon = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        i += 1;
        if c.is_ascii_alphanumeric() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            if c.is_ascii_digit() || after_colon {
                out.push_str(if word == "core" { "std" } else { word });
            } else if listed(KEYWORDS, word) {
                out.push_str(word);
            } else if listed(PRIMITIVES, word) {
                out.push_str("::std::primitive::");
                out.push_str(word);
            } else {
                out.push_str(private);
                out.push_str("::__sys::");
                out.push_str(word);
            }
            out.push(' ');
            after_colon = false;
            continue;
        }
        match c {
            b' ' => continue,
            b'"' => {
                while bytes.get(i) != Some(&b'"') {
                    bytes.get(i)?;
                    i += 1;
                }
                i += 1;
                out.push_str(&text[start..i]);
                out.push(' ');
                after_colon = false;
                continue;
            }
            b'(' => closers.push(b')'),
            b'[' => closers.push(b']'),
            b')' | b']' if closers.pop() != Some(c) => return None,
            b')' | b']' | b':' | b'*' | b'&' | b'<' | b'>' | b',' | b';' | b'-' | b'=' | b'!' => {}
            _ => return None,
        }
        out.push(char::from(c));
        after_colon = c == b':';
    }
    closers.is_empty().then_some(())
}

/// Whether `words` has `word`.
fn listed(words: &[&str], word: &str) -> bool {
    for w in words {
        if *w == word {
            return true;
        }
    }
    false
}

/// What `expand` writes each function into.
struct Emit<'a> {
    out: &'a mut Output,
    /// The path to the runtime's `__private`: text, or a placeholder for the user's path.
    private: String,
    docs: docs::Table<'a>,
    /// Every name a generated pattern binds, sorted, each once.
    bound: Vec<String>,
    /// The entries of the runtime's `bind!`.
    bindings: String,
    /// The methods and raw accessors.
    methods: String,
}

/// Writes one function's binding, method and raw accessor, or reports the type that cannot be
/// read and writes nothing.
fn emit_function(e: &mut Emit<'_>, index: usize, c: &Checked, diag: &mut Diagnostics) -> bool {
    let abi = c.abi;
    let span = c.name.span();
    let p = e.private.as_str();
    let mut names = Vec::with_capacity(abi.params.len());
    let mut params = String::new();
    let mut types = String::new();
    // What a traced call records for each argument: the argument, or for a device pointer (an
    // integer in C) the argument shown in hex like the host pointers.
    let mut traced = String::new();
    let mut ret = String::new();
    for (pname, pty) in abi.params {
        let i = names.len();
        let name = if is_identifier(pname) {
            (*pname).to_string()
        } else {
            format!("arg{i}")
        };
        let sep = if i == 0 { "" } else { ", " };
        let mut ty = String::new();
        if qualify(pty, p, &mut ty).is_none() {
            diag.at(span, unreadable(pty));
            return false;
        }
        let _ = write!(params, "{sep}{name}: {ty}");
        let _ = write!(types, "{sep}{ty}");
        if is_device_pointer(pty) {
            let _ = write!(traced, "{sep}{name} = {p}::Hex({name})");
        } else {
            let _ = write!(traced, "{sep}{name} = {name}");
        }
        names.push(name);
    }
    if qualify(abi.ret, p, &mut ret).is_none() {
        diag.at(span, unreadable(abi.ret));
        return false;
    }
    let written = out_values(p, abi, &names);
    let args = crate::diagnostics::join(&names, ", ");
    for name in &names {
        bind(&mut e.bound, name);
    }
    // The binding: the typedef's name carries the user's span, so an error about it points at
    // the function's name in the list.
    let name = e.out.ident(c.name.clone());
    let typedef = e.out.ident(Ident::new(abi.typedef, span));
    let _ = write!(e.bindings, "{index} {name} {typedef} ");
    write_export(&mut e.bindings, abi.export);
    if let Some(pt) = &abi.per_thread {
        let pt_typedef = e.out.ident(Ident::new(pt.typedef, span));
        let _ = write!(e.bindings, " | {pt_typedef} ");
        write_export(&mut e.bindings, pt.export);
    }
    e.bindings.push_str(";\n");

    let accessor = e
        .out
        .ident(Ident::new(&format!("pfn_{}", c.function.name), span));
    let (method_doc, accessor_doc) = e.docs.function(c);
    // The call, checked (`CUresult`) or returned, through the runtime's `call!`, which adds
    // tracing when the runtime's `tracing` feature is on and nothing otherwise. Its last argument
    // stays `unsafe { __cdt_f(params) }`: with the `fake` feature the runtime reads those tokens
    // (`__cdt_invoke!`) to hand the arguments to a fake. (The `SAFETY` of that block: `__cdt_f`
    // is the driver's function at exactly the ABI of its typedef; the caller upholds the C
    // function's contract, see the method's `# Safety`.)
    let (how, ok_type) = if abi.ret == "CUresult" {
        ("check", "()")
    } else {
        ("value", ret.as_str())
    };
    let c_name = c.function.name;
    let _ = write!(
        e.methods,
        "#[doc = {method_doc:?}]
        #[inline]
        pub unsafe fn {name}(&self, {params}) -> ::std::result::Result<{ok_type}, {p}::Error> {{
            let __cdt_f = self.{FIELD}.get:: <{index}>()? ;
            {p}::call!({how}: self.{FIELD}.config(), {c_name:?}, ({traced}), {written},
                unsafe {{ __cdt_f({args}) }}
            )
        }}
        #[doc = {accessor_doc:?}]
        #[inline]
        pub fn {accessor}(&self) -> ::std::result::Result<unsafe extern \"C\" fn({types}) -> {ret}, {p}::Error> {{
            self.{FIELD}.pointer:: <{index}>()
        }}
        "
    );
    true
}

/// Adds `name` to the sorted `bound` unless it is there.
fn bind(bound: &mut Vec<String>, name: &str) {
    let mut at = 0;
    while at < bound.len() && bound[at].as_str() < name {
        at += 1;
    }
    if at == bound.len() || bound[at] != name {
        bound.insert(at, name.to_string());
    }
}

/// An exported symbol as a string literal, or `_` for none.
fn write_export(out: &mut String, export: Option<&str>) {
    match export {
        Some(e) => {
            let _ = write!(out, "{e:?}");
        }
        None => out.push('_'),
    }
}

fn unreadable(ty: &str) -> String {
    format!("the manifest has a type this macro cannot read (`{ty}`); regenerate it")
}

/// The out-values of a call, for the runtime's `call!`: `(dptr = <how it is shown>, ...)`, the
/// parameters the records mark `out:` (single values the driver writes through them on success),
/// each with the function that makes its value `Debug` for the event: a device pointer (an integer
/// in C) in hex like the host pointers, anything else as it is. A traced call reads them after
/// `CUDA_SUCCESS` only, so a function that does not return `CUresult` has none. `params` are the
/// parameters' identifiers, in order.
fn out_values(private: &str, abi: &Abi, params: &[String]) -> String {
    let mut out = String::from("(");
    if abi.ret == "CUresult" {
        // `params` are the identifiers of `abi.params`, one each.
        let mut i = 0;
        while i < params.len() && i < abi.params.len() {
            let (ident, (name, ty)) = (&params[i], abi.params[i]);
            i += 1;
            if !listed(abi.outs, name) {
                continue;
            }
            if out.len() > 1 {
                out.push_str(", ");
            }
            let pointee = ty.strip_prefix("*mut ").unwrap_or(ty);
            if is_device_pointer(pointee) {
                let _ = write!(out, "{ident} = {private}::Hex");
            } else {
                let _ = write!(out, "{ident} = ::std::convert::identity");
            }
        }
    }
    out.push(')');
    out
}

/// `CUdeviceptr` by value (`CUdeviceptr`, `CUdeviceptr_v2`): a device address typed as an integer.
fn is_device_pointer(ty: &str) -> bool {
    ty.strip_prefix("CUdeviceptr")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with("_v"))
}

/// A plain (not raw) Rust identifier that is not a keyword bindgen would have renamed.
fn is_identifier(text: &str) -> bool {
    crate::parse::is_identifier(text)
}

/// Writes the table to `out`: the struct (`attrs` are the struct's attributes as `check` let them
/// through), then everything else inside one `const _` block (see the module docs).
pub fn expand(
    out: &mut Output,
    attrs: TokenStream,
    vis: &TokenStream,
    ident: &Ident,
    request: &Request,
    checked: &[Checked],
    diag: &mut Diagnostics,
) {
    let default_path = CratePath::default_path();
    let krate = request.krate.as_ref().unwrap_or(&default_path);
    let private = match &request.krate {
        Some(path) => out.placeholder(path.private()),
        None => PRIVATE.to_string(),
    };
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
    let mut e = Emit {
        out,
        private,
        docs,
        bound: Vec::new(),
        bindings: String::new(),
        methods: String::new(),
    };
    // A function whose types cannot be read is left out (with an error), so a function's index
    // in `FUNCTIONS` is the number of functions emitted before it.
    for local in LOCALS {
        bind(&mut e.bound, local);
    }
    let mut count = 0;
    for c in checked {
        if emit_function(&mut e, count, c, diag) {
            count += 1;
        }
    }
    let Emit {
        out,
        private: p,
        docs,
        bound,
        bindings,
        methods,
    } = e;
    let name = out.ident(ident.clone());
    let vis = if vis.is_empty() {
        String::new()
    } else {
        out.placeholder(vis.clone())
    };
    let mut shadows = String::new();
    for local in &bound {
        let _ = writeln!(shadows, "const fn {local}() {{}}");
    }
    let config = match backend {
        Some(BackendOption::Driver) => "driver",
        Some(BackendOption::Runtime) => "runtime",
        None => "new",
    };
    let (per_thread_config, mode) = if per_thread {
        (".per_thread()", "PerThread")
    } else {
        ("", "Legacy")
    };
    // `driver = N`: the runtime's own floor, in both stream modes, is at most N, or the build
    // stops (the macro chose the ABIs so; this holds it to the rule the runtime applies).
    let mut driver_floor = String::new();
    if let Some(driver) = driver {
        let floor = |mode: &str| {
            format!("{p}::min_driver_version(<{name} as {p}::Functions> ::FUNCTIONS, {p}::StreamMode::{mode})")
        };
        let _ = write!(
            driver_floor,
            "const _: () = ::std::assert!(
                {} <= {driver} && {} <= {driver},
                \"cuda-driver-table: a function of this table needs a newer driver than its `driver` option; the macro should have refused it\"
            );",
            floor("Legacy"),
            floor("PerThread")
        );
    }
    // The table's record in the built file (the runtime's `registry`): its name, backend and
    // declared stream mode; the runtime's `record!` reads the functions off the binding.
    let record = format!(
        "{p}::record! {{ {name}; {}; {mode} }}",
        match backend {
            Some(BackendOption::Driver) => "Driver",
            Some(BackendOption::Runtime) => "Runtime",
            None => "Default",
        }
    );
    let d = docs.items();
    out.push_tokens(attrs);
    let _ = write!(
        out.text,
        "#[doc = \"\"]
        #[doc = {:?}]
        {vis} struct {name} {{
            #[doc = {:?}]
            #[doc(hidden)]
            {FIELD}: {p}::TableCore<Self, {count}> ,
        }}

        #[allow(
            non_snake_case,
            dead_code,
            deprecated,
            clippy::too_many_arguments,
            clippy::type_complexity,
            clippy::self_named_constructors,
        )]
        const _: () = {{
            {shadows}
            {p}::bind! {{ {name}; {bindings} }}
            {record}

            {driver_floor}

            impl {name} {{
                #[doc = {:?}]
                pub const FUNCTIONS: & 'static [{p}::FunctionSpec] =
                    {p}::functions:: <Self>();

                #[doc = {:?}]
                pub const MIN_DRIVER_VERSION: ::std::primitive::u32 =
                    {p}::min_driver_version(Self::FUNCTIONS, {p}::StreamMode::{mode});

                #[doc = {:?}]
                pub const fn min_driver_version(&self) -> ::std::primitive::u32 {{
                    self.{FIELD}.min_driver_version()
                }}

                #[doc = {:?}]
                pub const fn new() -> Self {{
                    Self::with_config({p}::Config::{config}(){per_thread_config})
                }}

                #[doc = {:?}]
                pub const fn with_config(config: {p}::Config) -> Self {{
                    Self {{
                        {FIELD}: {p}::TableCore::new(config),
                    }}
                }}

                #[doc = {:?}]
                pub const fn config(&self) -> & {p}::Config {{
                    self.{FIELD}.config()
                }}

                #[doc = {:?}]
                pub fn resolve_all(&self) -> ::std::result::Result<(), {p}::Errors> {{
                    self.{FIELD}.resolve_all()
                }}

                #[doc = {:?}]
                pub fn raw_pointer(&self, name: & ::std::primitive::str) -> ::std::option::Option< ::std::result::Result< ::std::ptr::NonNull< ::std::ffi::c_void> , {p}::Error>> {{
                    self.{FIELD}.raw_pointer(name)
                }}

                {methods}
            }}

            impl ::std::default::Default for {name} {{
                fn default() -> Self {{
                    Self::new()
                }}
            }}
        }};
        ",
        d.table,
        d.field,
        d.functions,
        d.min_driver_version,
        d.min_driver_version_fn,
        d.new,
        d.with_config,
        d.config,
        d.resolve_all,
        d.raw_pointer,
    );
}

#[cfg(test)]
mod tests {
    use super::qualify;
    use std::str::FromStr;

    /// The tokens `qualify` writes for `text`, as `proc-macro2` prints them.
    fn qualified(text: &str) -> Option<String> {
        let mut out = String::new();
        qualify(text, "P", &mut out)?;
        Some(tokens(&out))
    }

    fn tokens(text: &str) -> String {
        proc_macro2::TokenStream::from_str(text)
            .expect("lexes")
            .to_string()
    }

    #[test]
    fn manifest_types_name_the_runtime_s_bindings_and_std() {
        for (text, expected) in [
            ("CUdeviceptr_v2", "P::__sys::CUdeviceptr_v2"),
            ("usize", "::std::primitive::usize"),
            ("*mut *mut ::core::ffi::c_void", "*mut *mut ::std::ffi::c_void"),
            ("*const CUDA_MEMCPY2D_v2", "*const P::__sys::CUDA_MEMCPY2D_v2"),
            (
                "::core::option::Option<unsafe extern \"C\" fn(u32, [u8; 16]) -> CUresult>",
                "::std::option::Option<unsafe extern \"C\" fn(::std::primitive::u32, [::std::primitive::u8; 16]) -> P::__sys::CUresult>",
            ),
        ] {
            assert_eq!(qualified(text), Some(tokens(expected)), "{text}");
        }
    }

    #[test]
    fn text_that_is_no_type_is_refused() {
        for text in [
            "[u8; 16", "(u32", "u32)", "(u32]", "$x", "'a", "\"C", "{ x }",
        ] {
            assert_eq!(qualified(text), None, "{text}");
        }
    }
}
