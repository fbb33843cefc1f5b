//! Targeted assertions on the expansion of `#[driver_table]` (no whole-file snapshots): each test
//! expands a small table and checks the few tokens that carry the behaviour under test.
//!
//! The manifest is the selected release's, so run these with one release enabled:
//! `cargo test -p cuda-driver-table-macros --features cuda-13000`. The versions asserted are the
//! same in every supported release from 12.5 on (the tests of `driver =` and of exported symbols
//! use `cuCtxCreate`'s ABI 12050), except where a test reads them from the manifest.

use crate::manifest;
use proc_macro2::TokenStream;
use quote::quote;

/// Whether `args` give the `driver` option (not `backend = driver`).
fn gives_driver(args: &TokenStream) -> bool {
    let trees: Vec<proc_macro2::TokenTree> = args.clone().into_iter().collect();
    trees.iter().enumerate().any(|(i, t)| {
        matches!(t, proc_macro2::TokenTree::Ident(i) if i == "driver")
            && !matches!(i.checked_sub(1).map(|j| &trees[j]), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '=')
    })
}

/// The expansion as one line of tokens separated by single spaces (`:: cuda_driver_table :: sys`).
/// Arguments without the `driver` option get `driver = newest` in front, which every table needs.
fn expand(args: TokenStream, item: TokenStream) -> String {
    assert_ne!(
        manifest::RELEASE,
        0,
        "no CUDA release selected: run `cargo test -p cuda-driver-table-macros --features cuda-13000`"
    );
    let args = if gives_driver(&args) {
        args
    } else {
        quote!(driver = newest, #args)
    };
    let out = crate::table(args, item).to_string();
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn table(args: TokenStream) -> String {
    expand(
        args,
        quote!(
            pub struct Cuda;
        ),
    )
}

/// Fails with the expansion in the message, so a failure shows what was generated instead.
#[track_caller]
fn assert_has(out: &str, needle: &str) {
    assert!(
        out.contains(needle),
        "expected `{needle}` in the expansion:\n{out}"
    );
}

#[track_caller]
fn assert_lacks(out: &str, needle: &str) {
    assert!(
        !out.contains(needle),
        "did not expect `{needle}` in the expansion:\n{out}"
    );
}

fn compile_errors(out: &str) -> Vec<&str> {
    out.match_indices("compile_error !")
        .map(|(i, _)| {
            let rest = &out[i..];
            &rest[..rest.find("}").unwrap_or(rest.len())]
        })
        .collect()
}

#[test]
fn a_pin_binds_the_function_to_its_typedef_through_the_runtime() {
    let out = table(quote!(cuCtxCreate = 3020));
    // The table's one field: the runtime's state of a table of one function.
    assert_has(
        &out,
        "__cdt_table : :: cuda_driver_table :: __private :: TableCore < Self , 1 > ,",
    );
    // The runtime's `bind!` names the typedef from its own `sys` (`$crate`) and reads the
    // version off it; the macro gives the index, the name, the typedef and the export.
    assert_has(
        &out,
        r#"__cdt :: bind ! { Cuda ; 0 "cuCtxCreate\0" PFN_cuCtxCreate_v3020 ["cuCtxCreate_v2"] [] ; }"#,
    );
    assert_lacks(&out, "unsafe impl");
    assert!(compile_errors(&out).is_empty(), "{out}");
}

#[test]
fn no_pin_is_the_default_abi_of_the_release() {
    let default = manifest::find("cuCtxCreate").unwrap().default;
    assert_ne!(default, 3020);
    let out = table(quote!(cuCtxCreate));
    assert_has(
        &out,
        &format!("0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v{default} "),
    );
    assert_lacks(&out, "PFN_cuCtxCreate_v3020");
}

#[test]
fn the_binding_carries_the_per_thread_twin() {
    let out = table(quote!(cuLaunchKernel, cuInit));
    assert_has(
        &out,
        r#"bind ! { Cuda ; 0 "cuLaunchKernel\0" PFN_cuLaunchKernel_v4000 ["cuLaunchKernel"] [PFN_cuLaunchKernel_v7000_ptsz "cuLaunchKernel_ptsz"] ; 1 "cuInit\0" PFN_cuInit_v2000 ["cuInit"] [] ; }"#,
    );
}

#[test]
fn the_raw_accessor_returns_what_the_runtime_binds_as_the_method_types_it() {
    let out = table(quote!(cuMemAlloc));
    // `pointer` returns the bound type; this signature only compiles if it is the same. It is
    // `get` but refuses a fake driver (whose methods call closures, not pointers).
    assert_has(
        &out,
        r#"pub fn pfn_cuMemAlloc (& self) -> __cdt :: Result < unsafe extern "C" fn (* mut sys :: CUdeviceptr , __cdt :: usize) -> sys :: CUresult , __cdt :: Error > { self . __cdt_table . pointer :: < 0 > () }"#,
    );
}

#[test]
fn the_stream_mode_and_backend_options_choose_the_config_of_new() {
    let config = "__cdt :: Config ::";
    let plain = table(quote!(cuInit));
    assert_has(
        &plain,
        // The default configuration (libcudart, or libcuda where none is found).
        &format!("pub const fn new () -> Self {{ Self :: with_config ({config} new ()) }}"),
    );
    let per_thread = table(quote!(cuInit, per_thread));
    assert_has(
        &per_thread,
        &format!("Self :: with_config ({config} new () . per_thread ())"),
    );
    let driver = table(quote!(cuInit, backend = driver));
    assert_has(
        &driver,
        &format!("Self :: with_config ({config} driver ())"),
    );
    let both = table(quote!(backend = "driver", per_thread, cuInit));
    assert_has(
        &both,
        &format!("Self :: with_config ({config} driver () . per_thread ())"),
    );
    // `backend = runtime` written out: libcudart only.
    let runtime = table(quote!(cuInit, backend = runtime));
    assert_has(
        &runtime,
        &format!("Self :: with_config ({config} runtime ())"),
    );
    assert_has(&runtime, "the CUDA runtime backend only");
}

#[test]
fn the_method_is_unsafe_with_the_c_parameter_names_and_the_bindings_types() {
    let out = table(quote!(cuMemAlloc));
    assert_has(
        &out,
        "pub unsafe fn cuMemAlloc (& self , dptr : * mut sys :: CUdeviceptr , bytesize : __cdt :: usize) -> __cdt :: Result < () , __cdt :: Error >",
    );
    // It calls the function the table's state holds for its index, through its configuration.
    assert_has(
        &out,
        "__cdt :: call ! (check : self . __cdt_table , 0 , \"cuMemAlloc\"",
    );
    // The docs carry the prototype, the ABI and a safety section.
    assert_has(
        &out,
        "`CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)`",
    );
    assert_has(
        &out,
        "Pinned to ABI 3020 (`PFN_cuMemAlloc_v3020`, exported as `cuMemAlloc_v2`)",
    );
    assert_has(&out, "# Safety");
}

/// The call hands the runtime its parameters and out-values (the records' `out:` parameters),
/// each marked `Hex` when it is a device pointer, which a traced call shows in hex; a function
/// without out-values hands an empty list.
#[test]
fn the_call_names_the_out_values_the_records_mark() {
    let out = table(quote!(
        cuMemAlloc,
        cuMemFree,
        cuDriverGetVersion,
        cuInit,
        cuMemGetInfo
    ));
    assert_has(&out, "\"cuMemAlloc\" , (dptr , bytesize) , (dptr Hex))");
    assert_has(&out, "\"cuMemFree\" , (dptr Hex) , ())");
    assert_has(
        &out,
        "\"cuDriverGetVersion\" , (driverVersion) , (driverVersion))",
    );
    assert_has(&out, "\"cuInit\" , (Flags) , ())");
    assert_has(&out, "\"cuMemGetInfo\" , (free , total) , (free , total))");
}

#[test]
fn functions_keeps_the_order_listed_and_indexes_match() {
    let out = table(quote!(cuMemAlloc, cuInit));
    assert_has(
        &out,
        r#"bind ! { Cuda ; 0 "cuMemAlloc\0" PFN_cuMemAlloc_v3020 ["cuMemAlloc_v2"] [] ; 1 "cuInit\0" PFN_cuInit_v2000 ["cuInit"] [] ; }"#,
    );
    assert_has(&out, "TableCore < Self , 2 >");
    assert_has(
        &out,
        "pub const FUNCTIONS : & 'static [__cdt :: FunctionSpec] = __cdt :: functions :: < Self > () ;",
    );
    // Each method asks for its own index.
    assert_has(&out, "fn pfn_cuMemAlloc");
    let method = |index: &str, name: &str| {
        out.find(&format!(
            "call ! (check : self . __cdt_table , {index} , \"{name}\""
        ))
    };
    assert!(method("0", "cuMemAlloc").is_some(), "{out}");
    assert!(method("0", "cuMemAlloc") < method("1", "cuInit"), "{out}");
}

#[test]
fn the_struct_keeps_its_name_visibility_attributes_and_docs() {
    let out = expand(
        quote!(cuInit),
        quote! {
            /// The table.
            #[derive(Debug)]
            pub(crate) struct Gpu;
        },
    );
    assert_has(&out, "The table.");
    assert_has(&out, "# [derive (Debug)]");
    assert_has(&out, "pub (crate) struct Gpu {");
    assert_has(&out, "impl Gpu {");
    assert_has(
        &out,
        "impl :: std :: default :: Default for Gpu { fn default () -> Self { Self :: new () } }",
    );
    // Braces without fields are accepted like a unit struct.
    let braces = expand(
        quote!(cuInit),
        quote!(
            struct Gpu {}
        ),
    );
    assert!(compile_errors(&braces).is_empty(), "{braces}");
}

#[test]
fn the_docs_say_to_keep_a_table_in_a_static_not_a_const() {
    let out = table(quote!(cuInit, cuMemAlloc));
    let advice = "Keep the table in a `static` (`static CU: Cuda = Cuda::new();`), not a `const`: each use of a `const` is a new table, which resolves its functions again on every call";
    // In the struct's docs, after the user's, and in `new()`'s.
    assert_has(
        &out,
        "# [doc = \"\"] # [doc = \"A `#[driver_table]` of 2 CUDA driver functions",
    );
    assert_eq!(out.matches(advice).count(), 2, "{out}");
    let new = out.find("pub const fn new").unwrap();
    let advice_in_new = out[..new].rfind(advice).unwrap();
    assert!(
        out[advice_in_new..new].matches("# [doc").count() == 0,
        "{out}"
    );
}

#[test]
fn errors_are_collected_and_valid_entries_still_expanded() {
    let out = table(quote!(cuMemAloc, cuInit, cuDeviceGett));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 2, "{out}");
    assert!(errors[0].contains("`cuMemAloc`") && errors[0].contains("did you mean `cuMemAlloc`"));
    assert!(errors[1].contains("`cuDeviceGett`") && errors[1].contains("`cuDeviceGet`"));
    // The good function is still in the table, alone, at index 0.
    assert_has(
        &out,
        "pub unsafe fn cuInit (& self , Flags : __cdt :: c_uint)",
    );
    assert_has(&out, "TableCore < Self , 1 >");
    assert_has(&out, "bind ! { Cuda ; 0 \"cuInit\\0\" ");
    assert_lacks(&out, "fn cuMemAloc");
}

#[test]
fn option_and_check_errors_are_reported_together() {
    let out = table(quote!(
        cuInit,
        per_thred,
        cuCtxCreate = 3000,
        backend = gpu,
        cuInit
    ));
    let errors = compile_errors(&out);
    // `cuInit` listed twice gives two errors: the repeat and where it was first listed.
    assert_eq!(errors.len(), 5, "{out}");
    assert_has(&out, "did you mean `per_thread`?");
    assert_has(&out, "unknown backend `gpu`");
    assert_has(&out, "`cuCtxCreate` has no ABI 3000");
    assert_has(&out, "did you mean `cuCtxCreate = 3020`?");
    assert_has(&out, "`cuInit` is listed twice");
    assert_has(&out, "first listed here");
    // The first `cuInit` is expanded once.
    assert_eq!(out.matches("pub unsafe fn cuInit").count(), 1, "{out}");
}

#[test]
fn a_pin_that_is_not_a_number_lists_the_abis() {
    let out = table(quote!(cuCtxCreate = "v2"));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    // `v2` names the exported `cuCtxCreate_v2`, which is ABI 3020.
    assert_has(&out, "`cuCtxCreate = 3020`");
    assert_has(&out, "its ABIs in CUDA");
    assert_has(&out, "2000, 3020, 11040");
    assert_lacks(&out, "fn cuCtxCreate");

    let digits = table(quote!(cuCtxCreate = v11040));
    assert_has(&digits, "`cuCtxCreate = 11040`");
}

#[test]
fn a_function_of_another_release_names_the_releases_that_have_it() {
    // In one release's headers only (present from 13.1); skipped when that is the selected one.
    let name = "cuGraphGetId";
    let have = manifest::releases_with(name);
    assert!(!have.is_empty());
    if manifest::find(name).is_some() {
        return;
    }
    let ident = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
    let out = table(quote!(#ident));
    assert_has(&out, "is not in the CUDA");
    assert_has(
        &out,
        &format!("it is in CUDA {}", manifest::release_name(have[0])),
    );
}

#[test]
fn empty_list_is_an_error() {
    let out = table(quote!());
    assert_eq!(compile_errors(&out).len(), 1, "{out}");
    assert_has(&out, "needs at least one driver function");
}

#[test]
fn all_lists_every_function_with_pins_applied() {
    let out = table(quote!(all, cuCtxCreate = 3020));
    assert!(compile_errors(&out).is_empty());
    let count = manifest::functions().len();
    assert_has(&out, &format!("TableCore < Self , {count} >"));
    assert_eq!(out.matches("pub unsafe fn cu").count(), count);
    assert_has(&out, " \"cuCtxCreate\\0\" PFN_cuCtxCreate_v3020 ");
}

#[test]
fn not_a_struct_is_an_error_and_the_item_is_kept() {
    let cases = [
        (
            quote!(
                pub enum Cuda {
                    A,
                }
            ),
            "not an enum",
        ),
        (quote!(union Cuda { a: u32 }), "not a union"),
        (
            quote!(
                pub fn cuda() {}
            ),
            "not a function",
        ),
        (
            quote!(
                pub const unsafe fn cuda() {}
            ),
            "not a function",
        ),
        (
            quote!(
                const CUDA: u32 = 1;
            ),
            "not a constant",
        ),
        (quote!(impl Cuda {}), "not an impl block"),
        (
            quote!(
                #[inline]
                pub(crate) mod cuda {}
            ),
            "not a module",
        ),
        (
            quote!(
                pub struct Cuda(u32);
            ),
            "needs a struct without fields",
        ),
        (
            quote!(
                pub struct Cuda {
                    device: i32,
                }
            ),
            "needs a struct without fields",
        ),
        (
            quote!(
                pub struct Cuda<T>;
            ),
            "take no generic parameters",
        ),
    ];
    for (item, message) in cases {
        let out = expand(quote!(cuInit), item.clone());
        let errors = compile_errors(&out);
        assert_eq!(errors.len(), 1, "{item}: {out}");
        assert!(errors[0].contains(message), "{item}: {out}");
    }
    // An item that is not a struct is emitted unchanged after the error, so code using it still
    // type-checks.
    let out = expand(
        quote!(cuInit),
        quote!(
            pub fn cuda() -> u32 {
                1
            }
        ),
    );
    assert_has(&out, "pub fn cuda () -> u32 { 1 }");
}

#[test]
fn the_crate_option_names_every_path_and_doc_link() {
    for args in [
        quote!(cuMemAlloc, crate = cdt),
        quote!(cuMemAlloc, crate = "cdt"),
        quote!(crate = r"cdt", cuMemAlloc),
    ] {
        let out = table(args.clone());
        assert!(compile_errors(&out).is_empty(), "{args}: {out}");
        assert_lacks(&out, "cuda_driver_table");
        assert_has(
            &out,
            "__cdt_table : cdt :: __private :: TableCore < Self , 1 >",
        );
        assert_has(&out, "use cdt :: __private as __cdt ;");
        assert_has(&out, "__cdt :: bind ! { Cuda ; 0 \"cuMemAlloc\\0\"");
        assert_has(&out, "dptr : * mut sys :: CUdeviceptr");
        // The docs link through the block's alias of that path.
        assert_has(&out, "[`Error`](__cdt::Error)");
        // Generated code reaches the runtime through `__private` only, so a path that leads
        // elsewhere fails there, once.
        assert_eq!(
            out.matches(" cdt ::").count(),
            out.matches(" cdt :: __private ").count(),
            "{out}"
        );
    }
    let wrapper = table(quote!(cuInit, crate = ::my_wrapper::cdt));
    assert_lacks(&wrapper, "cuda_driver_table");
    assert_has(&wrapper, "use :: my_wrapper :: cdt :: __private as __cdt ;");
    assert_has(&wrapper, "__cdt :: Config :: new ()");
    assert_has(&wrapper, "[`Error`](__cdt::Error)");
    let reexport = table(quote!(cuInit, crate = "crate::cdt"));
    assert_has(&reexport, "use crate :: cdt :: __private as __cdt ;");
}

#[test]
fn a_crate_option_that_is_not_a_path_is_an_error() {
    for (args, message) in [
        (quote!(cuInit, crate = 42), "`42` is not a path"),
        (
            quote!(cuInit, crate = "cuda-driver-table"),
            "is a package name",
        ),
        (quote!(cuInit, crate = "a::"), "is not a path"),
        (quote!(cuInit, crate = "a\\x3a"), "is not a path"),
        (quote!(cuInit, crate = ::crate::cdt), "is not a path"),
        (quote!(cuInit, crate = a::fn), "is not a path"),
        (quote!(cuInit, crate = a<T>), "is not a path"),
        (quote!(cuInit, crate), "needs a path"),
        (quote!(cuInit, crate =), "needs a path"),
        (
            quote!(cuInit, crate = a, crate = b),
            "`crate` is given twice",
        ),
    ] {
        let out = table(args.clone());
        let errors = compile_errors(&out);
        assert_eq!(errors.len(), 1, "{args}: {out}");
        assert!(errors[0].contains(message), "{args}: {out}");
        // The table is still emitted, with the default path.
        assert_has(&out, "pub unsafe fn cuInit");
    }
}

#[test]
fn options_without_their_value_and_values_without_an_option_say_so() {
    let out = table(quote!(cuInit, backend));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("the `backend` option needs a value"),
        "{out}"
    );
    assert!(errors[0].contains("`backend = driver`"), "{out}");
    assert_lacks(&out, "did you mean");

    let out = table(quote!(cuInit, per_thread = true));
    assert_has(&out, "`per_thread` takes no value");
    let out = table(quote!(cuCtxCreate =));
    assert_has(
        &out,
        "needs an ABI version after `=`, e.g. `cuCtxCreate = 3020`",
    );
}

#[test]
fn a_per_thread_export_name_needs_the_per_thread_option() {
    let out = table(quote!(cuLaunchKernel_ptsz, cuMemcpyHtoD_ptds));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 2, "{out}");
    assert!(
        errors[0].contains("the legacy default stream: add the `per_thread` option (`#[driver_table(cuLaunchKernel_ptsz, per_thread)]`), or write `cuLaunchKernel = 4000` for the legacy stream"),
        "{out}"
    );
    // Not a symbol of the headers: the per-thread one it misspells, with its pin form.
    assert!(
        errors[1].contains(
            "did you mean `cuMemcpyHtoD_v2_ptds` (`cuMemcpyHtoD = 3020` with `per_thread`)"
        ),
        "{out}"
    );
}

#[test]
fn an_empty_slot_is_reported_at_its_comma_and_only_there() {
    let out = table(quote!(cuInit,, cuMemAlloc));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(errors[0].contains("nothing before this comma"), "{out}");
    // Both functions are still expanded.
    assert_has(&out, "pub unsafe fn cuInit");
    assert_has(&out, "pub unsafe fn cuMemAlloc");
}

#[test]
fn a_list_of_malformed_parts_is_not_also_called_empty() {
    let out = table(quote!(cuInit(), "cuMemAlloc", ,));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 3, "{out}");
    assert_lacks(&out, "needs at least one driver function");
    // A list of options alone still needs a function.
    let out = table(quote!(per_thread));
    assert_has(&out, "needs at least one driver function");
}

#[test]
fn derives_a_table_cannot_have_are_reported_and_left_out() {
    let out = expand(
        quote!(cuInit),
        quote! {
            #[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, core::cmp::Ord)]
            pub struct Cuda;
        },
    );
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 8, "{out}");
    assert!(errors[0].contains("already implements `Default`"), "{out}");
    assert!(errors[1].contains("cannot be `Clone`") && errors[1].contains("by reference"));
    assert!(errors[7].contains("cannot be `Ord`"), "{out}");
    // `Debug` works (the table's state implements it) and is kept; the rest are dropped.
    assert_has(&out, "# [derive (Debug)] # [doc = \"\"]");
    assert_lacks(&out, "Clone)");
    // A derive left empty is dropped whole.
    let out = expand(
        quote!(cuInit),
        quote! {
            #[derive(Clone)]
            struct Cuda;
        },
    );
    assert_lacks(&out, "# [derive");
}

#[test]
fn a_second_driver_table_attribute_is_reported_and_left_out() {
    for attr in [
        quote!(#[driver_table(cuMemAlloc)]),
        quote!(#[cuda_driver_table::driver_table]),
    ] {
        let out = expand(
            quote!(cuInit),
            quote! {
                #attr
                pub struct Cuda;
            },
        );
        let errors = compile_errors(&out);
        assert_eq!(errors.len(), 1, "{out}");
        assert!(errors[0].contains("has two `#[driver_table]` attributes"));
        assert_eq!(out.matches("driver_table (").count(), 0, "{out}");
    }
}

#[test]
fn every_name_a_pattern_binds_is_shadowed_by_a_function_in_the_block() {
    let out = table(quote!(cuMemAlloc, cuLaunchKernel));
    // The C parameter names stay (rustdoc shows them) ...
    assert_has(&out, "pub unsafe fn cuLaunchKernel (& self , f :");
    // ... and a function of each name, declared in the block, keeps a user's constant or unit
    // struct of that name from being taken for the pattern.
    for name in [
        "dptr",
        "bytesize",
        "f",
        "hStream",
        "kernelParams",
        "__cdt_f",
        "config",
        "name",
    ] {
        assert_has(&out, &format!("const fn {name} () {{ }}"));
    }
    // Primitives come from the runtime (its `__private` re-exports them) and `::std::primitive`,
    // so a user's `struct usize` is no matter.
    assert_has(&out, "bytesize : __cdt :: usize");
    assert_has(&out, "name : & :: std :: primitive :: str");
}

/// `tokens` as a `macro_rules!` fragment (`$e:expr`, `$v:vis`, `$p:path`) hands them over: in an
/// invisible group.
fn fragment(tokens: TokenStream) -> TokenStream {
    proc_macro2::TokenTree::Group(proc_macro2::Group::new(
        proc_macro2::Delimiter::None,
        tokens,
    ))
    .into()
}

#[test]
fn invisible_groups_of_macro_rules_fragments_are_transparent() {
    let pin = fragment(quote!(3020));
    let path = fragment(quote!(::cdt));
    let name = fragment(quote!(cuMemAlloc));
    let vis = fragment(quote!(pub(crate)));
    let out = expand(
        quote!(cuInit, cuCtxCreate = #pin, #name, crate = #path),
        quote!(#vis struct Cuda;),
    );
    assert!(compile_errors(&out).is_empty(), "{out}");
    assert_has(&out, "1 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v3020 ");
    assert_has(&out, "2 \"cuMemAlloc\\0\" PFN_cuMemAlloc_v3020 ");
    assert_has(&out, "use :: cdt :: __private as __cdt ;");
    assert_has(&out, "pub (crate) struct Cuda {");
    // A whole item, and an empty visibility, as fragments.
    let empty = fragment(TokenStream::new());
    let item = fragment(quote!(#[derive(Debug)] #empty struct Cuda;));
    let out = expand(quote!(cuInit), item);
    assert!(compile_errors(&out).is_empty(), "{out}");
    assert_has(&out, "# [derive (Debug)]");
}

#[test]
fn a_pin_may_be_any_integer_literal_that_fits_its_type() {
    for pin in [
        quote!(3020),
        quote!(3_020),
        quote!(3020u32),
        quote!(3020i32),
        quote!(3020usize),
        quote!(0xBCC),
        quote!(0xbccu16),
        quote!(0o5714),
        quote!(0b1011_1100_1100),
    ] {
        let out = table(quote!(cuCtxCreate = #pin));
        assert!(compile_errors(&out).is_empty(), "{pin}: {out}");
        assert_has(&out, "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v3020 ");
    }
    for (pin, problem) in [
        (
            quote!(3020u8),
            "`3020u8` does not fit in `u8`: pin `cuCtxCreate`",
        ),
        (quote!(3020i8), "`3020i8` does not fit in `i8`"),
        (quote!(3020.0), "`3020.0` is not a whole number: pin"),
        (quote!(3020f32), "`3020f32` is not a whole number"),
        (quote!(3e3), "`3e3` is not a whole number"),
        (
            quote!(99999999999),
            "`99999999999` is too large for an ABI version",
        ),
    ] {
        let out = table(quote!(cuCtxCreate = #pin));
        let errors = compile_errors(&out);
        assert_eq!(errors.len(), 1, "{pin}: {out}");
        assert!(errors[0].contains(problem), "{pin}: {out}");
        // The fix suggested is the ABI the number spells, where it is one.
        if problem.contains("3020") {
            assert!(errors[0].contains("`cuCtxCreate = 3020`"), "{pin}: {out}");
        }
    }
}

#[test]
fn a_raw_identifier_is_the_same_name() {
    let raw = proc_macro2::Ident::new_raw("cuInit", proc_macro2::Span::call_site());
    let out = table(quote!(#raw, r#per_thread));
    assert!(compile_errors(&out).is_empty(), "{out}");
    assert_has(&out, "pub unsafe fn cuInit (& self");
    assert_has(&out, "pub fn pfn_cuInit (& self)");
    assert_has(&out, "Config :: new () . per_thread ()");
}

#[test]
fn struct_shapes_a_table_cannot_take_get_their_own_message() {
    let out = expand(
        quote!(cuInit),
        quote!(
            pub struct Cuda();
        ),
    );
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("`struct Cuda()` declares a tuple struct; a table is a unit struct: write `struct Cuda;`"),
        "{out}"
    );
    let out = expand(quote!(cuInit), quote!(unit!(Cuda);));
    assert_has(
        &out,
        "not a macro call (put the attribute on the struct the macro writes",
    );
}

#[test]
fn reprs_a_table_cannot_have_are_reported_and_left_out() {
    let out = expand(
        quote!(cuInit),
        quote! {
            #[repr(C, packed(2))]
            #[repr(transparent)]
            #[repr(C, align(64))]
            pub struct Cuda;
        },
    );
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 2, "{out}");
    assert!(errors[0].contains("cannot be `repr(packed)`"), "{out}");
    assert!(errors[1].contains("cannot be `repr(transparent)`"), "{out}");
    assert_lacks(&out, "# [repr (C , packed");
    assert_lacks(&out, "# [repr (transparent)]");
    assert_has(&out, "# [repr (C , align (64))]");
}

#[test]
fn a_derive_written_as_a_path_is_checked_and_kept_as_written() {
    let out = expand(
        quote!(cuInit),
        quote! {
            #[::core::prelude::v1::derive(Debug, Clone)]
            pub struct Cuda;
        },
    );
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(errors[0].contains("cannot be `Clone`"), "{out}");
    assert_has(&out, "# [:: core :: prelude :: v1 :: derive (Debug)]");
}

#[test]
fn a_table_made_by_a_first_attribute_under_another_name_is_reported_and_kept() {
    // `#[a(cuInit)] #[b(cuMemAlloc)]`: `a` cannot tell that `b` is this attribute, and re-emits
    // it on the table it makes; `b` then sees that table.
    let first = crate::table(
        quote!(cuInit, driver = newest),
        quote! {
            #[b(cuMemAlloc)]
            pub struct Cuda;
        },
    );
    let struct_only: TokenStream = first
        .clone()
        .into_iter()
        .skip_while(|t| !matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == '#'))
        .take_while(|t| !matches!(t, proc_macro2::TokenTree::Ident(i) if i == "const"))
        .collect();
    let out = expand(quote!(cuMemAlloc), struct_only.clone());
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(errors[0].contains("`Cuda` has two `#[driver_table]` attributes"));
    // The first table is kept as it is, not made again.
    assert!(out.ends_with(
        &struct_only
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    ));
    assert_lacks(&out, "cuMemAlloc PFN");
}

// `driver = N` and exported symbols as names.

/// The binding of the first function (`0 name typedef`).
#[track_caller]
fn first_binding(args: TokenStream) -> String {
    let out = table(args);
    assert!(compile_errors(&out).is_empty(), "{out}");
    let start = out.find("bind ! { Cuda ; 0 ").expect("a binding") + "bind ! { Cuda ; ".len();
    // The index, the C name with its NUL, the typedef.
    let rest = &out[start..];
    let typedef = rest.find(" PFN_").expect("a typedef") + 1;
    let end = rest[typedef..]
        .find(' ')
        .map_or(rest.len(), |n| typedef + n);
    rest[..end].to_string()
}

#[test]
fn driver_picks_the_newest_abi_such_a_driver_has() {
    // cuCtxCreate: ABIs 2000, 3020, 11040, 12050.
    assert_eq!(
        first_binding(quote!(cuCtxCreate, driver = 12000)),
        "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v11040"
    );
    assert_eq!(
        first_binding(quote!(driver = 11040, cuCtxCreate)),
        "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v11040"
    );
    assert_eq!(
        first_binding(quote!(cuCtxCreate, driver = 11030)),
        "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v3020"
    );
    assert_eq!(
        first_binding(quote!(cuCtxCreate, driver = 12050)),
        "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v12050"
    );
    // A driver newer than the release (the newest release this crate knows): the release's
    // newest.
    let newest = manifest::find("cuCtxCreate")
        .expect("in every release")
        .default;
    let newest_release = *manifest::releases().last().expect("known releases");
    assert_eq!(
        first_binding(quote!(cuCtxCreate, driver = #newest_release)),
        format!("0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v{newest}")
    );
    // Every spelling of the same version.
    for driver in [
        quote!(12000),
        quote!(12_000),
        quote!(12000u32),
        quote!(0x2EE0),
        quote!("12.0"),
        quote!(" 12.0 "),
    ] {
        assert_eq!(
            first_binding(quote!(cuCtxCreate, driver = #driver)),
            "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v11040",
            "{driver}"
        );
    }
    assert_eq!(
        first_binding(quote!(cuCtxCreate, driver = "12.5")),
        "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v12050"
    );
}

#[test]
fn driver_holds_the_runtime_floor_to_it_at_compile_time() {
    let out = table(quote!(cuCtxCreate, driver = 12000));
    assert_has(
        &out,
        "const _ : () = :: std :: assert ! (__cdt :: min_driver_version (< Cuda as __cdt :: Functions > :: FUNCTIONS , __cdt :: StreamMode :: Legacy) <= 12000 && __cdt :: min_driver_version (< Cuda as __cdt :: Functions > :: FUNCTIONS , __cdt :: StreamMode :: PerThread) <= 12000",
    );
    // Nothing of the kind without the option.
    assert_lacks(&table(quote!(cuCtxCreate)), ":: std :: assert !");
}

#[test]
fn a_function_no_abi_of_which_the_driver_has_is_an_error_at_its_name() {
    let out = table(quote!(cuInit, cuLibraryLoadData, driver = 11080));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("`cuLibraryLoadData` needs a CUDA 12.0 driver (ABI 12000); this table targets CUDA 11.8 (`driver = 11080`): raise `driver` to at least 12000, or remove `cuLibraryLoadData`"),
        "{out}"
    );
    // The rest of the table is still there.
    assert_has(&out, "pub unsafe fn cuInit");
}

#[test]
fn a_pin_or_export_newer_than_the_driver_is_an_error_with_the_newest_it_allows() {
    let out = table(quote!(cuCtxCreate = 12050, driver = 12000));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("`cuCtxCreate = 12050` needs a CUDA 12.5 driver (ABI 12050); this table targets CUDA 12.0 (`driver = 12000`): pin `cuCtxCreate = 11040`, the newest ABI such a driver has, or raise `driver` to at least 12050"),
        "{out}"
    );
    let out = table(quote!(cuCtxCreate_v4, driver = 12000));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("`cuCtxCreate_v4` is ABI 12050 of `cuCtxCreate`, which needs a CUDA 12.5 driver (ABI 12050); this table targets CUDA 12.0 (`driver = 12000`): write `cuCtxCreate_v3` (`cuCtxCreate = 11040`), the newest ABI such a driver has, or raise `driver` to at least 12050"),
        "{out}"
    );
    // Older pins and exports are fine.
    assert_eq!(
        first_binding(quote!(cuCtxCreate = 3020, driver = 12000)),
        "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v3020"
    );
    assert_eq!(
        first_binding(quote!(cuCtxCreate_v2, driver = 12000)),
        "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v3020"
    );
}

#[test]
fn driver_values_a_table_cannot_target_say_how_to_write_one() {
    for (driver, message) in [
        (
            quote!(11000),
            "`driver = 11000` (CUDA 11.0) is older than any driver a table can use: every function is looked up through `cuGetProcAddress`, which came with CUDA 11.3: write `driver = 11030` or newer",
        ),
        (
            quote!(12),
            r#"`driver = 12` is not a driver version: versions are numbered as `cuDriverGetVersion` returns them, 1000 × major + 10 × minor; for CUDA 12.0 write `driver = 12000` (or `driver = \"12.0\"`)"#,
        ),
        (
            quote!(12.4),
            r#"`12.4` is a float, not a driver version: write `driver = 12040` (as `cuDriverGetVersion` numbers CUDA 12.4) or `driver = \"12.4\"`"#,
        ),
        (
            quote!("12"),
            r#"`\"12\"` is not a CUDA version of the form \"major.minor\""#,
        ),
        (quote!("12.0.1"), "is not a CUDA version of the form"),
        (
            quote!(500),
            "`driver = 500` is not a driver version: versions are numbered as `cuDriverGetVersion` returns them, 1000 × major + 10 × minor; for CUDA 12.0 write `driver = 12000`",
        ),
        (quote!(12000u8), "`12000u8` does not fit in `u8`; write the oldest driver"),
        (quote!(latest), "`latest` is not a driver version; write the oldest driver"),
        (
            quote!(-12000),
            "`-12000` is negative, and a driver version is not; write the oldest driver",
        ),
        // Numbers `cuDriverGetVersion` never returns, which would print as CUDA 4294967.29.
        (
            quote!(12345),
            r#"`driver = 12345` is not a CUDA release: `cuDriverGetVersion` numbers CUDA X.Y as 1000 × X + 10 × Y, whose minor Y has one digit (`driver = 12040` or `driver = \"12.4\"` for CUDA 12.4); did you mean `driver = 12030` (CUDA 12.3)?"#,
        ),
        (
            quote!(4294967295),
            r#"`driver = 4294967295` is not a CUDA release: `cuDriverGetVersion` numbers CUDA X.Y as 1000 × X + 10 × Y, whose minor Y has one digit (`driver = 12040` or `driver = \"12.4\"` for CUDA 12.4); the releases this crate knows are CUDA 11.7 (`driver = 11070`) to CUDA"#,
        ),
        (
            quote!("999.99"),
            r#"`driver = \"999.99\"` is not a CUDA release"#,
        ),
        // A release newer than any this crate knows.
        (
            quote!(99000),
            "`driver = 99000` (CUDA 99.0) is newer than every CUDA release this crate knows, the newest being CUDA",
        ),
    ] {
        let out = table(quote!(cuCtxCreate, driver = #driver));
        let errors = compile_errors(&out);
        assert_eq!(errors.len(), 1, "{driver}: {out}");
        assert!(errors[0].contains(message), "{driver}: {out}");
        // The table is still emitted, at the release's default ABIs.
        assert_has(&out, "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v");
        assert_lacks(&out, ":: std :: assert !");
    }
    let out = table(quote!(cuInit, driver));
    assert_has(
        &out,
        "the `driver` option needs a driver version: write the oldest driver",
    );
    assert_has(
        &out,
        "to resolve through libcuda.so.1, write `backend = driver`",
    );
    let out = table(quote!(cuInit, driver = 12000, driver = 12050));
    assert_has(&out, "`driver` is given twice; give it once");
    let out = table(quote!(cuInit, drvier = 12000));
    assert_has(&out, "unknown option `drvier`: did you mean `driver`?");
}

#[test]
fn all_under_a_driver_is_every_function_such_a_driver_has() {
    let driver = 12000;
    let out = table(quote!(all, driver = 12000));
    assert!(compile_errors(&out).is_empty(), "{out}");
    let mut count = 0;
    for function in manifest::functions() {
        let newest = function.abis.iter().rev().find(|a| {
            let twin = a.per_thread.as_ref().map_or(0, |pt| pt.version);
            a.version <= function.default && a.version.max(twin) <= driver
        });
        match newest {
            Some(abi) => {
                count += 1;
                assert_has(&out, &format!(" \"{}\\0\" {} ", function.name, abi.typedef));
            }
            None => assert_lacks(&out, &format!("pub unsafe fn {} (", function.name)),
        }
    }
    assert!(count < manifest::functions().len());
    assert_has(&out, &format!("TableCore < Self , {count} >"));
}

#[test]
fn an_exported_symbol_selects_its_abi_and_the_method_keeps_the_c_name() {
    assert_eq!(
        first_binding(quote!(cuCtxCreate_v2)),
        "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v3020"
    );
    assert_eq!(
        first_binding(quote!(cuMemAlloc_v2)),
        "0 \"cuMemAlloc\\0\" PFN_cuMemAlloc_v3020"
    );
    assert_eq!(
        first_binding(quote!(cuCtxCreate_v3)),
        "0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v11040"
    );
    let out = table(quote!(cuCtxCreate_v2));
    assert_has(&out, "pub unsafe fn cuCtxCreate (& self");
    assert_has(&out, "pub fn pfn_cuCtxCreate (& self)");
    assert_has(
        &out,
        "named by its exported symbol in the attribute (`cuCtxCreate_v2`)",
    );
    // The per-thread symbol in a per-thread table: the ABI whose twin it is.
    assert_eq!(
        first_binding(quote!(cuLaunchKernel_ptsz, per_thread)),
        "0 \"cuLaunchKernel\\0\" PFN_cuLaunchKernel_v4000"
    );
    assert_eq!(
        first_binding(quote!(per_thread, cuMemcpyHtoD_v2_ptds)),
        "0 \"cuMemcpyHtoD\\0\" PFN_cuMemcpyHtoD_v3020"
    );
}

#[test]
fn an_exported_symbol_with_a_pin_or_beside_its_c_name_is_an_error() {
    let out = table(quote!(cuCtxCreate_v2 = 3020));
    assert_has(
        &out,
        "`cuCtxCreate_v2` names ABI 3020 of `cuCtxCreate` already: write `cuCtxCreate_v2` without `= 3020`, or `cuCtxCreate = 3020`",
    );
    let out = table(quote!(cuCtxCreate_v2 = 11040));
    assert_has(
        &out,
        "`cuCtxCreate_v2` names ABI 3020 of `cuCtxCreate`, which a pin cannot change: write `cuCtxCreate = 11040` for ABI 11040, or `cuCtxCreate_v2` alone",
    );
    let out = table(quote!(cuCtxCreate, cuCtxCreate_v2));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 2, "{out}");
    assert!(
        errors[0].contains("`cuCtxCreate_v2` is `cuCtxCreate`, which is listed already (as `cuCtxCreate`): a table has one ABI of each function, list it once"),
        "{out}"
    );
    assert!(
        errors[1].contains("`cuCtxCreate` is first listed here"),
        "{out}"
    );
    // One method: the first.
    assert_eq!(out.matches("pub unsafe fn cuCtxCreate").count(), 1, "{out}");
}

#[test]
fn a_symbol_that_is_not_exported_suggests_the_exported_ones_in_pin_form() {
    let release = manifest::release_name(manifest::RELEASE);
    let out = table(quote!(cuCtxCreate_v9));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("`cuCtxCreate_v9` is not an exported symbol of `cuCtxCreate` in CUDA"),
        "{out}"
    );
    assert!(
        errors[0].contains("its ABIs are 2000, 3020 (`cuCtxCreate_v2`), 11040 (`cuCtxCreate_v3`), 12050 (`cuCtxCreate_v4`)"),
        "{out}"
    );
    assert!(
        errors[0].contains("did you mean `cuCtxCreate_v2` (`cuCtxCreate = 3020`)"),
        "{out}"
    );
    // A misspelt symbol: the symbol, with the pin it means.
    let out = table(quote!(cuMemAloc_v2));
    assert_has(
        &out,
        &format!("no driver function `cuMemAloc_v2` in the CUDA {release} headers; did you mean `cuMemAlloc_v2` (`cuMemAlloc = 3020`)?"),
    );
    // A per-thread suffix on a function without a per-thread variant.
    let out = table(quote!(cuMemAlloc_ptds));
    assert_has(
        &out,
        &format!("`cuMemAlloc_ptds` is not a symbol of CUDA {release}: `cuMemAlloc` has no per-thread default stream variant (it is requested with the legacy flag in both stream modes): list `cuMemAlloc`"),
    );
}

#[test]
fn method_docs_say_which_abi_was_picked_and_why() {
    let release = manifest::release_name(manifest::RELEASE);
    let out = table(quote!(
        cuInit,
        cuCtxCreate,
        cuMemAlloc = 2000,
        cuMemFree_v2,
        driver = 12000
    ));
    assert!(compile_errors(&out).is_empty(), "{out}");
    assert_has(
        &out,
        &format!("Pinned to ABI 2000 (`PFN_cuInit_v2000`, exported as `cuInit`) of CUDA {release}: the newest of this release, which a CUDA 12.0 driver (`driver = 12000`) has."),
    );
    assert_has(
        &out,
        &format!("Pinned to ABI 11040 (`PFN_cuCtxCreate_v11040`, exported as `cuCtxCreate_v3`) of CUDA {release}: the newest that a CUDA 12.0 driver (`driver = 12000`) has; the release's newest, ABI 12050, needs CUDA 12.5."),
    );
    assert_has(
        &out,
        &format!("Pinned to ABI 2000 (`PFN_cuMemAlloc_v2000`, exported as `cuMemAlloc`) of CUDA {release}: pinned in the attribute (`cuMemAlloc = 2000`)."),
    );
    assert_has(
        &out,
        &format!("Pinned to ABI 3020 (`PFN_cuMemFree_v3020`, exported as `cuMemFree_v2`) of CUDA {release}: named by its exported symbol in the attribute (`cuMemFree_v2`)."),
    );
    assert_has(
        &out,
        "It targets drivers from CUDA 12.0 on (`driver = 12000`)",
    );
    assert_has(&out, "At most 12000, as `driver = 12000` asks.");
    let out = table(quote!(cuInit));
    assert_has(
        &out,
        &format!("of CUDA {release}: the newest of this release."),
    );
}

#[test]
fn an_abi_is_taken_for_a_driver_only_when_its_per_thread_twin_is_too() {
    use crate::check::{needs, newest_for};
    use crate::manifest::{Abi, Function, PerThread};
    const fn abi(version: u32, twin: Option<u32>) -> Abi {
        Abi {
            version,
            typedef: "PFN_cuX",
            params: &[],
            outs: &[],
            ret: "CUresult",
            c_prototype: "CUresult cuX(void)",
            export: None,
            per_thread: match twin {
                Some(version) => Some(PerThread {
                    version,
                    typedef: "PFN_cuX_ptsz",
                    export: None,
                }),
                None => None,
            },
            doc: "",
        }
    }
    // A per-thread twin newer than its ABI: the ABI needs the twin's driver in both stream modes,
    // so that the floor of a table holds whichever mode it is configured with.
    static X: Function = Function {
        name: "cuX",
        default: 12000,
        abis: &[abi(3020, None), abi(11040, Some(12050)), abi(12000, None)],
    };
    assert_eq!(needs(&X.abis[1]), 12050);
    assert_eq!(needs(&X.abis[2]), 12000);
    assert_eq!(newest_for(&X, 11040).map(|a| a.version), Some(3020));
    assert_eq!(newest_for(&X, 12000).map(|a| a.version), Some(12000));
    assert_eq!(newest_for(&X, 3000).map(|a| a.version), None);
}

#[test]
fn a_colon_for_an_equals_sign_says_to_write_equals() {
    for (args, fix) in [
        (quote!(cuInit, driver: 12000), "write `driver = 12000`"),
        (quote!(cuCtxCreate: 3020), "write `cuCtxCreate = 3020`"),
    ] {
        let out = table(args.clone());
        let errors = compile_errors(&out);
        assert_eq!(errors.len(), 1, "{args}: {out}");
        assert!(errors[0].contains("after `=`, not `:`"), "{args}: {out}");
        assert!(errors[0].contains(fix), "{args}: {out}");
        assert_lacks(&out, "a path");
    }
}

#[test]
fn a_word_that_is_no_option_suggests_the_function_it_spells() {
    let out = table(quote!(CUINIT, cuMemAlloc));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(errors[0].contains("`CUINIT`"), "{out}");
    assert!(errors[0].contains("did you mean `cuInit`?"), "{out}");
    // An option's misspelling still gets the option.
    let out = table(quote!(cuInit, Per_Thread));
    assert_has(&out, "did you mean `per_thread`?");
}

#[test]
fn a_function_listed_under_two_names_names_both() {
    let out = table(quote!(cuMemcpyHtoD_v2, cuMemcpyHtoD));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 2, "{out}");
    assert!(
        errors[0].contains(
            "`cuMemcpyHtoD` is listed already (as `cuMemcpyHtoD_v2`): a table has one ABI of each function"
        ),
        "{out}"
    );
    assert_lacks(&out, "`cuMemcpyHtoD` is `cuMemcpyHtoD`");
}

#[test]
fn a_run_of_stray_commas_is_one_error() {
    let out = table(quote!(cuInit,,,, cuMemAlloc,));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("3 commas with nothing between them"),
        "{out}"
    );
    let out = table(quote!(, cuInit,, cuMemAlloc));
    assert_eq!(compile_errors(&out).len(), 2, "{out}");
    assert_has(&out, "pub unsafe fn cuMemAlloc");
}

#[test]
fn a_name_used_as_a_pin_says_pins_are_literals() {
    for pin in [quote!(MY_ABI), quote!(abi::CTX_CREATE)] {
        let out = table(quote!(cuCtxCreate = #pin));
        let errors = compile_errors(&out);
        assert_eq!(errors.len(), 1, "{pin}: {out}");
        assert!(errors[0].contains("is a name"), "{pin}: {out}");
        assert!(
            errors[0].contains("a pin is a number literal"),
            "{pin}: {out}"
        );
        assert!(errors[0].contains("`$v:literal`"), "{pin}: {out}");
    }
}

#[test]
fn backend_messages_say_what_each_backend_is() {
    let out = table(quote!(cuInit, backend = libcuda));
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(errors[0].contains("libcuda is `backend = driver`"), "{out}");
    assert!(
        errors[0].contains("`backend = runtime` (libcudart only)"),
        "{out}"
    );
    assert_lacks(&out, "the default");
}

#[test]
fn a_table_states_its_driver_floor() {
    // Without `driver`: one error, at the attribute, naming both spellings and what `newest` means
    // for these functions; the table is still emitted at the newest ABIs.
    let out = crate::table(
        quote!(cuInit, cuCtxCreate),
        quote!(
            pub struct Cuda;
        ),
    )
    .to_string();
    let errors = compile_errors(&out);
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("needs the oldest driver the table must work on"),
        "{out}"
    );
    assert!(errors[0].contains("add `driver = 12000`"), "{out}");
    assert!(
        errors[0].contains("`driver = newest` for the newest ABIs of the CUDA"),
        "{out}"
    );
    // cuCtxCreate's newest ABI, 12050, needs CUDA 12.5 from 13.0 on.
    if manifest::find("cuCtxCreate").unwrap().default == 12050 {
        assert!(
            errors[0].contains("need a CUDA 12.5 driver (12050)"),
            "{out}"
        );
    }
    assert!(out.contains("pub unsafe fn cuCtxCreate"), "{out}");
    // `driver = newest`: the release's newest ABIs, no error, no floor assertion, said in the docs.
    let newest = table(quote!(cuCtxCreate, driver = newest));
    assert!(compile_errors(&newest).is_empty(), "{newest}");
    let default = manifest::find("cuCtxCreate").unwrap().default;
    assert_has(
        &newest,
        &format!("0 \"cuCtxCreate\\0\" PFN_cuCtxCreate_v{default} "),
    );
    assert_lacks(&newest, ":: std :: assert !");
    assert_has(&newest, "(`driver = newest`)");
    // A `driver` written wrong is reported once, as itself.
    let wrong = table(quote!(cuInit, driver = "twelve"));
    assert_eq!(compile_errors(&wrong).len(), 1, "{wrong}");
    let bare = table(quote!(cuInit, driver));
    assert_eq!(compile_errors(&bare).len(), 1, "{bare}");
}

/// The module loads that can be given PTX keep their image for the error of PTX the driver
/// refuses (`ptx_image!`, with `cuLinkAddData`'s size), at every ABI; other functions do not.
#[test]
fn module_loads_keep_their_image_for_the_error() {
    for pin in [quote!(cuLinkAddData), quote!(cuLinkAddData = 5050)] {
        let out = table(quote!(
            cuInit,
            cuModuleLoadData,
            cuModuleLoadDataEx,
            #pin,
            cuLibraryLoadData
        ));
        assert_eq!(out.matches("ptx_image !").count(), 4, "{out}");
        assert_has(&out, "self . __cdt_table , image)");
        assert_has(&out, "self . __cdt_table , code)");
        assert_has(&out, "self . __cdt_table , data , size)");
    }
}

/// The record keeps the `driver` option: N of `driver = N`, and for `driver = newest` the
/// release of the bindings it took the newest ABIs of.
#[test]
fn the_record_keeps_the_driver_option() {
    let out = table(quote!(cuInit, driver = 12000));
    assert_has(
        &out,
        "record ! { Cuda ; Default ; Legacy ; Version (12000) }",
    );
    let out = table(quote!(cuInit, backend = driver, per_thread));
    assert_has(
        &out,
        &format!(
            "record ! {{ Cuda ; Driver ; PerThread ; Newest ({}) }}",
            manifest::RELEASE
        ),
    );
}
