//! The rule of `outputs`, on hand-written functions and bindings.

use super::{decide, says_returned, Decision, Types};
use crate::manifest::{Abi, Function, Param};
use std::collections::BTreeMap;

/// Bindings with the kinds of types the rule tells apart.
fn types() -> Types {
    Types::collect(
        &syn::parse_str(
            "pub type CUdeviceptr_v2 = ::core::ffi::c_ulonglong;\n\
             pub type CUdeviceptr = CUdeviceptr_v2;\n\
             pub type CUdevice_v1 = ::core::ffi::c_int;\n\
             pub type CUdevice = CUdevice_v1;\n\
             #[repr(C)] #[derive(Debug, Copy, Clone)] pub struct CUctx_st { _unused: [u8; 0] }\n\
             pub type CUcontext = *mut CUctx_st;\n\
             pub type CUgraphNode = *mut CUctx_st;\n\
             #[repr(transparent)] #[derive(Debug, Copy, Clone, Hash, PartialEq, Eq)]\n\
             pub struct CUmemorytype_enum(pub ::core::ffi::c_uint);\n\
             pub type CUmemorytype = CUmemorytype_enum;\n\
             #[repr(C)] #[derive(Debug, Copy, Clone)] pub struct CUuuid_st { pub bytes: [::core::ffi::c_char; 16usize] }\n\
             pub type CUuuid = CUuuid_st;\n\
             pub type CUhostFn = ::core::option::Option<unsafe extern \"C\" fn(userData: *mut ::core::ffi::c_void)>;",
        )
        .expect("the test's bindings parse"),
    )
}

/// One ABI of a function returning `CUresult`, with a doc of `\param` lines.
fn abi(version: u32, params: &[(&str, &str)], doc: Option<&[(&str, &str)]>) -> Abi {
    Abi {
        version,
        typedef: format!("PFN_cuX_v{version}"),
        params: params
            .iter()
            .map(|(name, ty)| Param {
                name: (*name).into(),
                ty: (*ty).into(),
                out: false,
            })
            .collect(),
        ret: "CUresult".into(),
        c_prototype: "CUresult cuX(...)".into(),
        export: None,
        per_thread: None,
        doc: doc.map(|d| {
            let mut text = String::from("\\brief Does X\n\n");
            for (name, desc) in d {
                text.push_str(&format!("\\param {name} - {desc}\n"));
            }
            text + "\n\\return\n::CUDA_SUCCESS"
        }),
    }
}

fn function(abis: Vec<Abi>) -> Function {
    Function {
        name: "cuX".into(),
        abis,
    }
}

/// The decisions of a one-ABI function whose every parameter is documented.
fn decided(params: &[(&str, &str, &str)]) -> BTreeMap<String, Decision> {
    let typed: Vec<(&str, &str)> = params.iter().map(|(n, t, _)| (*n, *t)).collect();
    let docs: Vec<(&str, &str)> = params.iter().map(|(n, _, d)| (*n, *d)).collect();
    decide(&function(vec![abi(1, &typed, Some(&docs))]), &types())
        .pop()
        .expect("one ABI")
}

fn left(why: &str) -> Decision {
    Decision::Left(why.into())
}

#[test]
fn single_returned_values_of_number_handle_pointer_and_enum_types_are_out_values() {
    let d = decided(&[
        ("dptr", "*mut CUdeviceptr_v2", "Returned device pointer"),
        ("pctx", "*mut CUcontext", "Returned context handle"),
        ("dev", "*mut CUdevice", "Returns the device"),
        (
            "pp",
            "*mut *mut ::core::ffi::c_void",
            "Returned pointer to host memory",
        ),
        (
            "kind",
            "*mut CUmemorytype",
            "Location to return the memory type",
        ),
        (
            "pfn",
            "*mut *mut ::core::ffi::c_void",
            "Pointer to store the function",
        ),
        ("bytesize", "usize", "Size in bytes"),
    ]);
    assert_eq!(
        d,
        BTreeMap::from(
            ["dptr", "pctx", "dev", "pp", "kind", "pfn"].map(|n| (n.to_string(), Decision::Out))
        )
    );
}

#[test]
fn a_returned_array_is_not_an_out_value() {
    // Counted by a parameter named after it.
    let d = decided(&[
        ("hGraph", "CUcontext", "Graph to query"),
        ("nodes", "*mut CUgraphNode", "Pointer to return the nodes"),
        ("numNodes", "*mut usize", "See description"),
    ]);
    assert_eq!(d["nodes"], left("an array counted by numNodes"));
    // Counted by a count that names no parameter: every candidate is left out but the count.
    let d = decided(&[
        (
            "from",
            "*mut CUgraphNode",
            "Location to return edge endpoints",
        ),
        (
            "to",
            "*mut CUgraphNode",
            "Location to return edge endpoints",
        ),
        ("numEdges", "*mut usize", "Returned number of edges"),
    ]);
    assert_eq!(d["from"], left("maybe the array counted by numEdges"));
    assert_eq!(d["to"], left("maybe the array counted by numEdges"));
    assert_eq!(d["numEdges"], Decision::Out);
    let d = decided(&[
        (
            "capabilities",
            "*mut ::core::ffi::c_uint",
            "Returned capability details of each requested operation",
        ),
        (
            "operations",
            "*const ::core::ffi::c_uint",
            "Requested operations",
        ),
        (
            "count",
            "::core::ffi::c_uint",
            "Number of requested operations",
        ),
    ]);
    assert_eq!(d["capabilities"], left("maybe the array counted by count"));
    // Said to be several in its own text, without a count.
    let d = decided(&[("devices", "*mut CUdevice", "Returned array of devices")]);
    assert_eq!(
        d["devices"],
        left("described as several values: \"Returned array of devices\"")
    );
    // Text: a `char *` of a given length.
    let d = decided(&[
        (
            "name",
            "*mut ::core::ffi::c_char",
            "Returned identifier string for the device",
        ),
        (
            "len",
            "::core::ffi::c_int",
            "Maximum length of string to store in name",
        ),
        ("dev", "CUdevice", "Device to get identifier string for"),
    ]);
    assert_eq!(d["name"], left("text or bytes (c_char)"));
    // A handle called an array is one handle (`CUarray`), and a count of another parameter
    // leaves it alone.
    let d = decided(&[
        ("phNode", "*mut CUgraphNode", "Returns newly created node"),
        (
            "dependencies",
            "*const CUgraphNode",
            "Dependencies of the node",
        ),
        ("numDependencies", "usize", "Number of dependencies"),
        ("pHandle", "*mut CUcontext", "Returned array"),
    ]);
    assert_eq!(d["phNode"], Decision::Out);
    assert_eq!(d["pHandle"], Decision::Out);
    assert!(!d.contains_key("dependencies"));
    // `numParams` counts `paramsArray`, not the context.
    let d = decided(&[
        (
            "pctx",
            "*mut CUcontext",
            "Returned context handle of the new context",
        ),
        (
            "paramsArray",
            "*mut CUuuid",
            "Execution affinity parameters",
        ),
        (
            "numParams",
            "::core::ffi::c_int",
            "Number of execution affinity parameters",
        ),
    ]);
    assert_eq!(d["pctx"], Decision::Out);
}

#[test]
fn the_arrays_listed_by_name_are_not_out_values() {
    let mut f = function(vec![abi(
        1,
        &[
            ("pBorderColor", "*mut ::core::ffi::c_float"),
            ("hTexRef", "CUcontext"),
        ],
        Some(&[
            ("pBorderColor", "Returned Type and Value of RGBA color"),
            ("hTexRef", "Texture reference"),
        ]),
    )]);
    assert_eq!(decide(&f, &types())[0]["pBorderColor"], Decision::Out);
    f.name = "cuTexRefGetBorderColor".into();
    assert_eq!(
        decide(&f, &types())[0]["pBorderColor"],
        left("an array of four floats (RGBA)")
    );
}

#[test]
fn a_parameter_is_found_in_the_comment_whatever_the_case_of_its_name() {
    let f = function(vec![abi(
        1,
        &[("hStream", "CUcontext"), ("pctx", "*mut CUcontext")],
        Some(&[
            ("hStream", "Stream to query"),
            ("pCtx", "Returned regular context"),
        ]),
    )]);
    assert_eq!(decide(&f, &types())[0]["pctx"], Decision::Out);
}

#[test]
fn structs_void_and_function_pointers_are_not_out_values() {
    let d = decided(&[
        ("uuid", "*mut CUuuid", "Returned UUID"),
        (
            "data",
            "*mut ::core::ffi::c_void",
            "Returned attribute value",
        ),
        ("fn_", "*mut CUhostFn", "Returned callback"),
    ]);
    assert_eq!(d["uuid"], left("a struct or union (CUuuid_st)"));
    assert_eq!(d["data"], left("untyped (void)"));
    assert_eq!(d["fn_"], left("a function pointer"));
}

#[test]
fn only_mutable_pointers_documented_as_returned_of_cu_result_functions_are_considered() {
    let d = decided(&[
        (
            "src",
            "*const CUdeviceptr_v2",
            "Returned nothing: a const pointer is read",
        ),
        ("dst", "*mut CUdeviceptr_v2", "Destination of the copy"),
        ("n", "usize", "Returned by value: not a pointer"),
    ]);
    assert!(d.is_empty(), "{d:?}");
    let mut f = function(vec![abi(
        1,
        &[("dptr", "*mut CUdeviceptr_v2")],
        Some(&[("dptr", "Returned device pointer")]),
    )]);
    f.abis[0].ret = "::core::ffi::c_uint".into();
    assert_eq!(
        decide(&f, &types())[0]["dptr"],
        left("the function returns ::core::ffi::c_uint, not CUresult")
    );
}

#[test]
fn an_abi_without_a_comment_takes_the_text_of_the_newest_documented_one() {
    let f = function(vec![
        abi(
            2000,
            &[
                ("dptr", "*mut ::core::ffi::c_uint"),
                ("bytesize", "::core::ffi::c_uint"),
            ],
            None,
        ),
        abi(
            3020,
            &[("dptr", "*mut CUdeviceptr_v2"), ("bytesize", "usize")],
            Some(&[
                ("dptr", "Returned device pointer"),
                ("bytesize", "Requested allocation size in bytes"),
            ]),
        ),
    ]);
    let d = decide(&f, &types());
    assert_eq!(d[0]["dptr"], Decision::Out);
    assert_eq!(d[1]["dptr"], Decision::Out);
    assert_eq!(d[0].len(), 1);
}

#[test]
fn returned_means_the_words_cuda_h_uses_for_it() {
    for yes in [
        "Returned device pointer",
        "Returns newly created event",
        "Pointer to return the event",
        "Location to store a handle to the graph",
        "Optional location to return an id for the capture sequence",
    ] {
        assert!(says_returned(yes), "{yes}");
    }
    for no in [
        "Pointer to memory to free",
        "Location to prefetch to",
        "Device pointer to return to the pool",
        "Size of the returned buffer",
        "",
    ] {
        assert!(!says_returned(no), "{no}");
    }
}

/// One ABI whose comment has `body` before its `\param` lines.
fn with_body(body: &str, params: &[(&str, &str, &str)]) -> BTreeMap<String, Decision> {
    let typed: Vec<(&str, &str)> = params.iter().map(|(n, t, _)| (*n, *t)).collect();
    let docs: Vec<(&str, &str)> = params.iter().map(|(n, _, d)| (*n, *d)).collect();
    let mut a = abi(1, &typed, Some(&docs));
    a.doc = a
        .doc
        .map(|d| d.replacen("\n\n", &format!("\n\n{body}\n\n"), 1));
    decide(&function(vec![a]), &types()).pop().expect("one ABI")
}

#[test]
fn a_parameter_whose_text_names_a_condition_is_not_an_out_value() {
    // Rule 6a.
    let d = decided(&[
        (
            "phGraph",
            "*mut CUcontext",
            "Returned graph, only if the stream is capturing",
        ),
        (
            "pctx",
            "*mut CUcontext",
            "Returned context when one is current",
        ),
        (
            "pGreenCtx",
            "*mut CUcontext",
            "Returned green context if the stream is associated with a green context or NULL if \
             not",
        ),
        (
            "dev",
            "*mut CUdevice",
            "Returned device if there is one, otherwise -1",
        ),
    ]);
    assert_eq!(
        d["phGraph"],
        left("returned under a condition: \"Returned graph, only if the stream is capturing\"")
    );
    assert_eq!(
        d["pctx"],
        left("returned under a condition: \"Returned context when one is current\"")
    );
    // Written either way: the text says what is written otherwise.
    assert_eq!(d["pGreenCtx"], Decision::Out);
    assert_eq!(d["dev"], Decision::Out);
}

#[test]
fn values_the_function_returns_only_under_a_condition_are_not_out_values() {
    // Rule 6b, as cuStreamGetCaptureInfo says it: all but the value it excepts.
    let body = "Query stream state related to stream capture.\n\n\
                Valid data (other than capture status) is returned only if both of the following \
                are true:\n- the call returns CUDA_SUCCESS\n- the returned capture status is \
                ::CU_STREAM_CAPTURE_STATUS_ACTIVE";
    let d = with_body(
        body,
        &[
            ("hStream", "CUcontext", "The stream to query"),
            (
                "captureStatus_out",
                "*mut CUmemorytype",
                "Location to return the capture status of the stream; required",
            ),
            (
                "id_out",
                "*mut ::core::ffi::c_ulonglong",
                "Optional location to return an id for the capture sequence",
            ),
            (
                "graph_out",
                "*mut CUcontext",
                "Optional location to return the graph being captured into",
            ),
        ],
    );
    let why = left(
        "returned only under a condition: \"Valid data (other than capture status) is returned \
         only if both of the following are true:\"",
    );
    assert_eq!(d["captureStatus_out"], Decision::Out);
    assert_eq!(d["id_out"], why);
    assert_eq!(d["graph_out"], why);
    // A subject that names a parameter covers that one only (CUDA 11's first ABI).
    let d = with_body(
        "A valid id is returned only if both of the following are true:\n- the call returns \
         CUDA_SUCCESS",
        &[
            (
                "captureStatus_out",
                "*mut CUmemorytype",
                "Returns the stream's capture status",
            ),
            (
                "id_out",
                "*mut ::core::ffi::c_ulonglong",
                "Returns the unique id of the capture sequence",
            ),
        ],
    );
    assert_eq!(d["captureStatus_out"], Decision::Out);
    assert_eq!(
        d["id_out"],
        left(
            "returned only under a condition: \"A valid id is returned only if both of the \
             following are true:\""
        )
    );
    // A sentence about something else (errors) leaves the values alone.
    let d = with_body(
        "If no function of that name exists, cuModuleGetFunction() returns CUDA_ERROR_NOT_FOUND.",
        &[("hfunc", "*mut CUcontext", "Returned function handle")],
    );
    assert_eq!(d["hfunc"], Decision::Out);
}

#[test]
fn an_abi_without_a_comment_follows_the_conditions_of_the_newest_documented_one() {
    let mut documented = abi(
        2,
        &[
            ("captureStatus_out", "*mut CUmemorytype"),
            ("id_out", "*mut ::core::ffi::c_ulonglong"),
        ],
        Some(&[
            ("captureStatus_out", "Location to return the capture status"),
            ("id_out", "Optional location to return an id"),
        ]),
    );
    documented.doc = documented.doc.map(|d| {
        d.replacen(
            "\n\n",
            "\n\nValid data (other than capture status) is returned only if the stream is \
             capturing.\n\n",
            1,
        )
    });
    let old = abi(
        1,
        &[
            ("captureStatus_out", "*mut CUmemorytype"),
            ("id_out", "*mut ::core::ffi::c_ulonglong"),
        ],
        None,
    );
    let d = decide(&function(vec![old, documented]), &types());
    for abi in &d {
        assert_eq!(abi["captureStatus_out"], Decision::Out);
        assert!(matches!(abi["id_out"], Decision::Left(_)), "{abi:?}");
    }
}
