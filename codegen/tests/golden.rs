//! Golden tests of the generator on small hand-written headers, one folder per edge case under
//! `tests/golden/<case>/`: `include/{cuda.h,cudaTypedefs.h}` is the input, `expected.txt` the
//! committed rendering of the manifest built from it (as in bindgen's `bindgen-tests/`).
//!
//! The whole pipeline runs: bindgen over the headers, the `cc -E -C` pass that recovers doc
//! comments, and `manifest::build`. Each test also asserts the facts of its case directly, so a
//! careless re-bless cannot hide a regression.
//!
//! Cases: `three_abis` (cuCtxCreate v3020/v11040/v12050), `ptsz_variant` (cuLaunchKernel v4000 +
//! `_v7000_ptsz`, cuMemcpyHtoD + `_ptds`), `internal_old_abi` (cuMemAlloc v2000 with
//! `CUdeviceptr_v1`), `aliasless_13x` (no `PFN_x` aliases), `stale_alias_12x` (`PFN_cuCtxCreate`
//! naming v11040 while v12050 exists) and `doc_comments` (Doxygen groups and the internal block).
//!
//! Re-bless after an intended change, then review the diff of the `expected.txt` files:
//!
//! ```text
//! CDT_BLESS=1 cargo test -p cuda-driver-table-codegen --release --test golden
//! ```
//!
//! Needs libclang and a C preprocessor (`cc`), nothing else: no wheels, no network, no GPU.

use cuda_driver_table_codegen::manifest::{Abi, Function, Manifest};
use cuda_driver_table_codegen::pipeline::{self, ParsedRelease, Source};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const BLESS_VAR: &str = "CDT_BLESS";
const BLESS_COMMAND: &str =
    "CDT_BLESS=1 cargo test -p cuda-driver-table-codegen --release --test golden";

fn case_dir(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(case)
}

/// Parses the case's headers as release `version`, compares the rendering with `expected.txt`
/// (or rewrites it when blessing) and returns the parse for the case's own assertions.
fn run_case(case: &str, version: u32) -> ParsedRelease {
    let include = case_dir(case).join("include");
    let parsed = pipeline::parse_release(
        Source::Local {
            version,
            include: include.clone(),
        },
        &include,
    )
    .unwrap_or_else(|e| panic!("golden case `{case}`: the pipeline failed: {e}"));
    let actual = render(&parsed);
    compare(case, &actual);
    parsed
}

fn blessing() -> bool {
    std::env::var_os(BLESS_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

fn compare(case: &str, actual: &str) {
    let path = case_dir(case).join("expected.txt");
    if blessing() {
        std::fs::write(&path, actual)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let expected = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => panic!(
            "golden case `{case}`: cannot read {} ({e}).\nCreate it with `{BLESS_COMMAND}`, then \
             review it.\nActual output:\n{actual}",
            path.display()
        ),
    };
    if expected != actual {
        panic!(
            "golden case `{case}`: the output differs from {} (- expected, + actual):\n{}\n\
             If the change is intended, run `{BLESS_COMMAND}` and review the diff of expected.txt.",
            path.display(),
            diff(&expected, actual)
        );
    }
}

/// A line diff (longest common subsequence) with two lines of context around each change.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        ops[k.saturating_sub(2)..(k + 3).min(ops.len())]
            .iter()
            .any(|(c, _)| *c != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (c, line)) in ops.iter().enumerate() {
        if near_change(k) {
            if skipped {
                out.push_str("  ...\n");
                skipped = false;
            }
            let _ = writeln!(out, "{c} {line}");
        } else {
            skipped = true;
        }
    }
    if a.len() == b.len() && out.is_empty() {
        out.push_str("  (only line endings differ)\n");
    }
    out
}

/// A compact, reviewable rendering of what the pipeline derived from a case's headers.
fn render(parsed: &ParsedRelease) -> String {
    let m = &parsed.manifest;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# PFN typedefs in the bindings: {}",
        pfn_typedefs(&parsed.bindings).join(", ")
    );
    for f in m.functions.values() {
        let _ = writeln!(
            out,
            "\nfunction {} (default ABI v{})",
            f.name,
            f.default_abi().version
        );
        for a in &f.abis {
            let params: Vec<String> = a
                .params
                .iter()
                .map(|p| format!("{}: {}", p.name, p.ty))
                .collect();
            let _ = writeln!(out, "  abi v{} {}", a.version, a.typedef);
            let _ = writeln!(out, "    rust: ({}) -> {}", params.join(", "), a.ret);
            let _ = writeln!(out, "    c: {}", a.c_prototype);
            let _ = writeln!(out, "    export: {}", a.export.as_deref().unwrap_or("-"));
            match &a.per_thread {
                Some(p) => {
                    let _ = writeln!(
                        out,
                        "    per-thread: v{} {} export {}",
                        p.version,
                        p.typedef,
                        p.export.as_deref().unwrap_or("-")
                    );
                }
                None => out.push_str("    per-thread: -\n"),
            }
            match &a.doc {
                Some(doc) => {
                    out.push_str("    doc:\n");
                    for line in doc.lines() {
                        let _ = writeln!(
                            out,
                            "      |{}{line}",
                            if line.is_empty() { "" } else { " " }
                        );
                    }
                }
                None => out.push_str("    doc: -\n"),
            }
        }
    }
    let _ = writeln!(
        out,
        "\norphan per-thread typedefs: {}",
        if m.orphan_per_thread.is_empty() {
            "-".to_string()
        } else {
            m.orphan_per_thread.join(", ")
        }
    );
    out
}

/// The names of the `PFN_*` type aliases in the bindings, in their order.
fn pfn_typedefs(bindings: &str) -> Vec<String> {
    let file = syn::parse_file(bindings).expect("the bindings parse as Rust");
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Type(t) if t.ident.to_string().starts_with("PFN_") => {
                Some(t.ident.to_string())
            }
            _ => None,
        })
        .collect()
}

fn function<'m>(m: &'m Manifest, name: &str) -> &'m Function {
    m.functions.get(name).unwrap_or_else(|| {
        panic!(
            "no function {name} in the manifest; it has {:?}",
            m.functions.keys().collect::<Vec<_>>()
        )
    })
}

fn abi(f: &Function, version: u32) -> &Abi {
    f.abi(version).unwrap_or_else(|| {
        panic!(
            "{} has no ABI v{version}; it has {:?}",
            f.name,
            f.versions()
        )
    })
}

fn doc(a: &Abi) -> &str {
    a.doc
        .as_deref()
        .unwrap_or_else(|| panic!("{} has no doc text", a.typedef))
}

/// Checks that the bindings are bindings only: no `extern` blocks (nothing links against CUDA).
fn assert_no_extern(parsed: &ParsedRelease) {
    let file = syn::parse_file(&parsed.bindings).expect("the bindings parse as Rust");
    assert!(
        !file
            .items
            .iter()
            .any(|item| matches!(item, syn::Item::ForeignMod(_))),
        "the bindings declare extern functions"
    );
}

/// `cuCtxCreate` with three ABIs, each declared in `cuda.h` under its own exported name (the first
/// through `#define cuCtxCreate cuCtxCreate_v2`), each with its own doc comment.
#[test]
fn three_abis() {
    let parsed = run_case("three_abis", 12090);
    assert_no_extern(&parsed);
    let m = &parsed.manifest;
    assert_eq!(m.functions.len(), 1);
    let f = function(m, "cuCtxCreate");
    assert_eq!(f.versions(), [3020, 11040, 12050]);
    assert_eq!(f.default_abi().version, 12050);
    let exports: Vec<Option<&str>> = f.abis.iter().map(|a| a.export.as_deref()).collect();
    assert_eq!(
        exports,
        [
            Some("cuCtxCreate_v2"),
            Some("cuCtxCreate_v3"),
            Some("cuCtxCreate_v4")
        ]
    );
    let v3020 = abi(f, 3020);
    let params: Vec<(&str, &str)> = v3020
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.ty.as_str()))
        .collect();
    assert_eq!(
        params,
        [
            ("pctx", "*mut CUcontext"),
            ("flags", "::core::ffi::c_uint"),
            ("dev", "CUdevice")
        ]
    );
    assert_eq!(v3020.ret, "CUresult");
    assert_eq!(abi(f, 11040).params.len(), 5);
    assert_eq!(abi(f, 12050).params[1].ty, "*mut CUctxCreateParams");
    // Each ABI carries the comment of its own declaration.
    assert!(doc(v3020).starts_with("\\brief Create a CUDA context\n"));
    assert!(doc(abi(f, 11040)).contains("execution affinity"));
    assert!(doc(abi(f, 12050)).contains("ctxCreateParams"));
    assert!(f.abis.iter().all(|a| a.per_thread.is_none()));
    assert!(m.orphan_per_thread.is_empty());
}

/// Collects `(name, type)` of an ABI's parameters.
fn params(a: &Abi) -> Vec<(&str, &str)> {
    a.params
        .iter()
        .map(|p| (p.name.as_str(), p.ty.as_str()))
        .collect()
}

fn exports(f: &Function) -> Vec<Option<&str>> {
    f.abis.iter().map(|a| a.export.as_deref()).collect()
}

fn header_text(case: &str, header: &str) -> String {
    let path = case_dir(case).join("include").join(header);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// `cuLaunchKernel` (v4000) with its `_ptsz` twin introduced at 7000, and `cuMemcpyHtoD` (v3020)
/// with a `_ptds` twin at 7000. The documented declarations are renamed to the per-thread symbols
/// by `__CUDA_API_PTSZ`/`__CUDA_API_PTDS`; the legacy symbols are declared without comments.
#[test]
fn ptsz_variant() {
    let parsed = run_case("ptsz_variant", 12090);
    assert_no_extern(&parsed);
    let m = &parsed.manifest;
    assert_eq!(
        m.functions.keys().collect::<Vec<_>>(),
        ["cuLaunchKernel", "cuMemcpyHtoD"]
    );

    let launch = function(m, "cuLaunchKernel");
    assert_eq!(launch.versions(), [4000]);
    assert_eq!(launch.default_abi().version, 4000);
    let v4000 = abi(launch, 4000);
    assert_eq!(v4000.export.as_deref(), Some("cuLaunchKernel"));
    assert_eq!(v4000.params.len(), 11);
    assert_eq!(v4000.params[8], param("hStream", "CUstream"));
    let pt = v4000
        .per_thread
        .as_ref()
        .expect("cuLaunchKernel has a per-thread twin");
    assert_eq!(pt.version, 7000);
    assert_eq!(pt.typedef, "PFN_cuLaunchKernel_v7000_ptsz");
    assert_eq!(pt.export.as_deref(), Some("cuLaunchKernel_ptsz"));
    // The comment sits on the declaration renamed to `cuLaunchKernel_ptsz`; the ABI gets it.
    assert!(doc(v4000).starts_with("\\brief Launches a CUDA function"));

    let htod = function(m, "cuMemcpyHtoD");
    assert_eq!(htod.versions(), [3020]);
    let v3020 = abi(htod, 3020);
    // The 32-bit `cuMemcpyHtoD(CUdeviceptr_v1, ..., unsigned int)` of the internal block has no
    // typedef here and a different signature: it must not be taken as v3020's export.
    assert_eq!(v3020.export.as_deref(), Some("cuMemcpyHtoD_v2"));
    let pt = v3020
        .per_thread
        .as_ref()
        .expect("cuMemcpyHtoD has a per-thread twin");
    assert_eq!(
        (pt.version, pt.typedef.as_str(), pt.export.as_deref()),
        (
            7000,
            "PFN_cuMemcpyHtoD_v7000_ptds",
            Some("cuMemcpyHtoD_v2_ptds")
        )
    );
    assert!(doc(v3020).contains("Copies from host memory to device memory"));
    assert!(m.orphan_per_thread.is_empty());
}

fn param(name: &str, ty: &str) -> cuda_driver_table_codegen::manifest::Param {
    cuda_driver_table_codegen::manifest::Param {
        name: name.to_string(),
        ty: ty.to_string(),
        out: false,
    }
}

/// `PFN_cuMemAlloc_v2000` and `PFN_cuCtxCreate_v2000` exist only under
/// `__CUDA_API_VERSION_INTERNAL`, as do the `CUdeviceptr_v1` type and the unrenamed symbols.
#[test]
fn internal_old_abi() {
    let parsed = run_case("internal_old_abi", 12090);
    assert_no_extern(&parsed);
    assert!(
        parsed.bindings.contains("pub type CUdeviceptr_v1 ="),
        "the internal CUdeviceptr_v1 is missing from the bindings"
    );
    let m = &parsed.manifest;

    let alloc = function(m, "cuMemAlloc");
    assert_eq!(alloc.versions(), [2000, 3020]);
    assert_eq!(alloc.default_abi().version, 3020);
    assert_eq!(
        params(abi(alloc, 2000)),
        [
            ("dptr", "*mut CUdeviceptr_v1"),
            ("bytesize", "::core::ffi::c_uint")
        ]
    );
    assert_eq!(
        params(abi(alloc, 3020)),
        [("dptr", "*mut CUdeviceptr"), ("bytesize", "usize")]
    );
    assert_eq!(exports(alloc), [Some("cuMemAlloc"), Some("cuMemAlloc_v2")]);
    assert!(doc(abi(alloc, 3020)).contains("Allocates \\p bytesize bytes"));
    // The internal declarations carry no comment.
    assert_eq!(abi(alloc, 2000).doc, None);

    // v2000 and v3020 of cuCtxCreate have the same signature: the older typedef takes the
    // lower-ranked symbol.
    let ctx = function(m, "cuCtxCreate");
    assert_eq!(ctx.versions(), [2000, 3020]);
    assert_eq!(ctx.default_abi().version, 3020);
    assert_eq!(params(abi(ctx, 2000)), params(abi(ctx, 3020)));
    assert_eq!(exports(ctx), [Some("cuCtxCreate"), Some("cuCtxCreate_v2")]);
    assert!(m.orphan_per_thread.is_empty());
}

/// A 13.x-style `cudaTypedefs.h`: no `#define PFN_x PFN_x_vN` aliases at all. Defaults, exports
/// and per-thread twins come from the versioned typedefs and the declarations alone.
#[test]
fn aliasless_13x() {
    assert!(
        !header_text("aliasless_13x", "cudaTypedefs.h").contains("#define PFN_"),
        "the 13.x-style input must have no PFN aliases"
    );
    let parsed = run_case("aliasless_13x", 13050);
    assert_no_extern(&parsed);
    let m = &parsed.manifest;

    let ctx = function(m, "cuCtxCreate");
    assert_eq!(ctx.versions(), [2000, 3020, 11040, 12050]);
    assert_eq!(ctx.default_abi().version, 12050);
    assert_eq!(
        exports(ctx),
        [
            Some("cuCtxCreate"),
            Some("cuCtxCreate_v2"),
            Some("cuCtxCreate_v3"),
            Some("cuCtxCreate_v4")
        ]
    );
    // 13.x documents only the newest ABI (`#define cuCtxCreate cuCtxCreate_v4`).
    assert!(doc(abi(ctx, 12050)).starts_with("\\brief Create a CUDA context"));

    let info = function(m, "cuStreamGetCaptureInfo");
    assert_eq!(info.versions(), [10010, 11030, 12030]);
    assert_eq!(info.default_abi().version, 12030);
    assert_eq!(
        exports(info),
        [
            Some("cuStreamGetCaptureInfo"),
            Some("cuStreamGetCaptureInfo_v2"),
            Some("cuStreamGetCaptureInfo_v3")
        ]
    );
    let twins: Vec<(u32, u32, Option<&str>)> = info
        .abis
        .iter()
        .map(|a| {
            let pt = a.per_thread.as_ref().expect("every ABI has a _ptsz twin");
            (a.version, pt.version, pt.export.as_deref())
        })
        .collect();
    assert_eq!(
        twins,
        [
            (10010, 10010, Some("cuStreamGetCaptureInfo_ptsz")),
            (11030, 11030, Some("cuStreamGetCaptureInfo_v2_ptsz")),
            (12030, 12030, Some("cuStreamGetCaptureInfo_v3_ptsz"))
        ]
    );
    assert_eq!(abi(info, 12030).params.len(), 7);
    assert_eq!(
        abi(info, 12030).params[5],
        param("edgeData_out", "*mut *const CUgraphEdgeData")
    );
    assert!(doc(abi(info, 12030)).contains("Query stream state related to stream capture"));
    assert!(m.orphan_per_thread.is_empty());
}

/// A 12.x `cudaTypedefs.h` whose `PFN_cuCtxCreate` alias still names v11040 although v12050
/// exists (CUDA 12.5 ... 12.9): the default ABI is v12050 all the same. It also has a typedef
/// spelled without a version that an alias renames (`PFN_cuModuleGetFunctionCount`, 12.4 ... 12.9).
#[test]
fn stale_alias_12x() {
    assert!(
        header_text("stale_alias_12x", "cudaTypedefs.h")
            .contains("#define PFN_cuCtxCreate  PFN_cuCtxCreate_v11040"),
        "the input must keep its stale alias"
    );
    let parsed = run_case("stale_alias_12x", 12090);
    assert_no_extern(&parsed);
    let m = &parsed.manifest;

    let ctx = function(m, "cuCtxCreate");
    assert_eq!(ctx.versions(), [3020, 11040, 12050]);
    assert_eq!(ctx.default_abi().version, 12050);
    assert_eq!(ctx.default_abi().typedef, "PFN_cuCtxCreate_v12050");
    assert_eq!(
        exports(ctx),
        [
            Some("cuCtxCreate_v2"),
            Some("cuCtxCreate_v3"),
            Some("cuCtxCreate_v4")
        ]
    );
    assert!(ctx.abis.iter().all(|a| a.doc.is_some()));

    let count = function(m, "cuModuleGetFunctionCount");
    assert_eq!(count.versions(), [12040]);
    assert_eq!(
        count.default_abi().export.as_deref(),
        Some("cuModuleGetFunctionCount")
    );
    assert!(doc(count.default_abi()).contains("number of functions"));
    // No unversioned PFN name reaches the bindings: the aliases are not items.
    let typedefs = pfn_typedefs(&parsed.bindings);
    assert!(
        !typedefs
            .iter()
            .any(|t| t == "PFN_cuCtxCreate" || t == "PFN_cuModuleGetFunctionCount"),
        "{typedefs:?}"
    );
    assert!(m.orphan_per_thread.is_empty());
}

/// Doc comments attach to their own declaration only: not a group's `\defgroup ... @{` comment
/// before it, not a group end (`/** @} */`) before an undocumented declaration, not the comment
/// before the `__CUDA_API_VERSION_INTERNAL` block.
#[test]
fn doc_comments() {
    let parsed = run_case("doc_comments", 12090);
    assert_no_extern(&parsed);
    let m = &parsed.manifest;

    let info = function(m, "cuMemGetInfo");
    assert_eq!(info.versions(), [2000, 3020]);
    assert_eq!(
        exports(info),
        [Some("cuMemGetInfo"), Some("cuMemGetInfo_v2")]
    );
    let text = doc(abi(info, 3020));
    assert!(
        text.starts_with("\\brief Gets free and total memory\n"),
        "{text:?}"
    );
    assert!(
        !text.contains("defgroup") && !text.contains("@{"),
        "{text:?}"
    );
    assert_eq!(abi(info, 2000).doc, None);

    // v4000 and v6050 share a signature: the older typedef takes the unversioned symbol.
    let register = function(m, "cuMemHostRegister");
    assert_eq!(register.versions(), [4000, 6050]);
    assert_eq!(
        exports(register),
        [Some("cuMemHostRegister"), Some("cuMemHostRegister_v2")]
    );
    assert_eq!(abi(register, 4000).doc, None);
    assert!(doc(abi(register, 6050)).starts_with("\\brief Registers an existing host memory range"));

    assert_eq!(function(m, "cuGetExportTable").default_abi().doc, None);

    let cc = function(m, "cuDeviceComputeCapability");
    assert!(doc(cc.default_abi()).starts_with("\\brief Returns the compute capability"));
    assert!(m.orphan_per_thread.is_empty());
}

/// The mismatch message of the harness itself: changed lines are marked, far context elided.
#[test]
fn diff_marks_changed_lines() {
    let expected = "a\nb\nc\nd\ne\nf\ng\n";
    let actual = "a\nb\nc\nD\ne\nf\ng\nh\n";
    assert_eq!(
        diff(expected, actual),
        "  ...\n  b\n  c\n- d\n+ D\n  e\n  f\n  g\n+ h\n"
    );
}
