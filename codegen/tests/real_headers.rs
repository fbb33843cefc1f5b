//! Tests on NVIDIA's real headers, from the pinned wheels of `releases.rs`: known ABIs of known
//! functions, the function count of every release (with every drop explained), the macro's records
//! read back as the manifests they came from, and byte-identical output from two runs.
//!
//! Needs libclang, a C preprocessor (`cc`) and the header wheels: `fetch::fetch` downloads the
//! missing ones with `python3 -m pip download` into `~/.cache/cuda-driver-table` (network the first
//! time only). No GPU, no driver.
//!
//! Each release is parsed at most once per run of this binary ([`parsed`] caches them), and the
//! releases a test asks for are parsed in one `parse_releases` call, on every core.

use cuda_driver_table_codegen::emit;
use cuda_driver_table_codegen::manifest::{Abi, Function, Manifest, Param};
use cuda_driver_table_codegen::pipeline::parse_releases;
use cuda_driver_table_codegen::pipeline::ParsedRelease;
use cuda_driver_table_codegen::releases::{Release, RELEASES};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

mod round_trip;

/// The releases the targeted tests look at.
const SAMPLE: &[&str] = &["11.8", "12.4", "12.9", "13.5"];

static CACHE: Mutex<BTreeMap<u32, Arc<ParsedRelease>>> = Mutex::new(BTreeMap::new());

fn release(name: &str) -> Release {
    *Release::find(name).unwrap_or_else(|| panic!("no release {name} in releases.rs"))
}

/// The parsed releases, in the order asked. Those not parsed yet in this process are parsed
/// together in one call; the lock is held meanwhile, so concurrent tests wait instead of parsing
/// the same release twice.
fn parsed(releases: &[Release]) -> Vec<Arc<ParsedRelease>> {
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let mut missing: Vec<Release> = releases
        .iter()
        .filter(|r| !cache.contains_key(&r.version))
        .copied()
        .collect();
    missing.sort_by_key(|r| r.version);
    missing.dedup_by_key(|r| r.version);
    if !missing.is_empty() {
        let start = Instant::now();
        let fresh = parse_releases(&missing).unwrap_or_else(|e| panic!("parsing failed: {e}"));
        eprintln!(
            "parsed {} release(s) in {:.1} s",
            missing.len(),
            start.elapsed().as_secs_f64()
        );
        for (r, p) in missing.iter().zip(fresh) {
            assert_eq!(p.source.version(), r.version);
            cache.insert(r.version, Arc::new(p));
        }
    }
    releases.iter().map(|r| cache[&r.version].clone()).collect()
}

fn sample() -> Vec<Arc<ParsedRelease>> {
    let releases: Vec<Release> = SAMPLE.iter().map(|n| release(n)).collect();
    parsed(&releases)
}

fn one(name: &str) -> Arc<ParsedRelease> {
    let r = release(name);
    sample()
        .into_iter()
        .find(|p| p.source.version() == r.version)
        .expect("the release is in the sample")
}

fn name_of(p: &ParsedRelease) -> String {
    cuda_driver_table_codegen::releases::release_name(p.source.version())
}

fn function_of<'m>(m: &'m Manifest, name: &str) -> &'m Function {
    m.functions
        .get(name)
        .unwrap_or_else(|| panic!("no function {name} in the manifest"))
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

fn param(name: &str, ty: &str) -> Param {
    Param {
        name: name.to_string(),
        ty: ty.to_string(),
        out: false,
    }
}

/// A parameter the records mark as an out-value.
fn out(name: &str, ty: &str) -> Param {
    Param {
        out: true,
        ..param(name, ty)
    }
}

#[test]
fn cu_mem_alloc_v3020_takes_a_64_bit_pointer_and_a_size() {
    for p in sample() {
        let f = function_of(&p.manifest, "cuMemAlloc");
        let v3020 = abi(f, 3020);
        assert_eq!(
            v3020.params,
            [out("dptr", "*mut CUdeviceptr"), param("bytesize", "usize")],
            "CUDA {}",
            name_of(&p)
        );
        assert_eq!(v3020.ret, "CUresult");
        assert_eq!(v3020.typedef, "PFN_cuMemAlloc_v3020");
        assert_eq!(v3020.export.as_deref(), Some("cuMemAlloc_v2"));
        // The 32-bit ABI of the internal block, and v3020 as the default. The internal block has
        // no comments: its `dptr` is an out-value by the text of v3020's.
        assert_eq!(f.versions(), [2000, 3020], "CUDA {}", name_of(&p));
        assert_eq!(abi(f, 2000).doc, None);
        assert_eq!(
            abi(f, 2000).params,
            [
                out("dptr", "*mut CUdeviceptr_v1"),
                param("bytesize", "::core::ffi::c_uint")
            ]
        );
        assert_eq!(abi(f, 2000).export.as_deref(), Some("cuMemAlloc"));
        assert_eq!(f.default_abi().version, 3020);
    }
}

#[test]
fn cu_mem_alloc_default_abi_is_documented() {
    for p in sample() {
        let f = function_of(&p.manifest, "cuMemAlloc");
        let doc = f.default_abi().doc.as_deref().unwrap_or("");
        assert!(
            doc.contains("Allocates") && doc.contains("bytesize"),
            "CUDA {}: cuMemAlloc's doc text is {doc:?}",
            name_of(&p)
        );
    }
}

#[test]
fn cu_ctx_create_has_three_public_abis_in_12_9_and_defaults_to_12050() {
    let p = one("12.9");
    let f = function_of(&p.manifest, "cuCtxCreate");
    // 2000 is the internal ABI (same signature as 3020); 12.9's `PFN_cuCtxCreate` alias still
    // names v11040, but the default is the newest typedef.
    assert_eq!(f.versions(), [2000, 3020, 11040, 12050]);
    assert_eq!(f.default_abi().version, 12050);
    let exports: Vec<Option<&str>> = f.abis.iter().map(|a| a.export.as_deref()).collect();
    assert_eq!(
        exports,
        [
            Some("cuCtxCreate"),
            Some("cuCtxCreate_v2"),
            Some("cuCtxCreate_v3"),
            Some("cuCtxCreate_v4")
        ]
    );
    assert_eq!(
        abi(f, 11040).params[1],
        param("paramsArray", "*mut CUexecAffinityParam")
    );
    assert_eq!(
        abi(f, 12050).params[1],
        param("ctxCreateParams", "*mut CUctxCreateParams")
    );
    assert!(f.abis.iter().all(|a| a.per_thread.is_none()));

    // The other sample releases: v12050 arrived in 12.5.
    for (name, default) in [("11.8", 11040), ("12.4", 11040), ("13.5", 12050)] {
        let p = one(name);
        let f = function_of(&p.manifest, "cuCtxCreate");
        assert_eq!(f.default_abi().version, default, "CUDA {name}");
    }
}

#[test]
fn cu_launch_kernel_has_a_ptsz_twin_at_7000() {
    for p in sample() {
        let f = function_of(&p.manifest, "cuLaunchKernel");
        assert_eq!(f.versions(), [4000], "CUDA {}", name_of(&p));
        let v4000 = abi(f, 4000);
        assert_eq!(v4000.export.as_deref(), Some("cuLaunchKernel"));
        assert_eq!(v4000.params.len(), 11);
        let pt = v4000
            .per_thread
            .as_ref()
            .unwrap_or_else(|| panic!("CUDA {}: no per-thread cuLaunchKernel", name_of(&p)));
        assert_eq!(pt.version, 7000);
        assert_eq!(pt.typedef, "PFN_cuLaunchKernel_v7000_ptsz");
        assert_eq!(pt.export.as_deref(), Some("cuLaunchKernel_ptsz"));
    }
}

#[test]
fn cu_stream_get_capture_info_has_three_abis_in_13_5() {
    let p = one("13.5");
    let f = function_of(&p.manifest, "cuStreamGetCaptureInfo");
    assert_eq!(f.versions(), [10010, 11030, 12030]);
    assert_eq!(f.default_abi().version, 12030);
    let twins: Vec<Option<(u32, Option<&str>)>> = f
        .abis
        .iter()
        .map(|a| {
            a.per_thread
                .as_ref()
                .map(|pt| (pt.version, pt.export.as_deref()))
        })
        .collect();
    assert_eq!(
        twins,
        [
            Some((10010, Some("cuStreamGetCaptureInfo_ptsz"))),
            Some((11030, Some("cuStreamGetCaptureInfo_v2_ptsz"))),
            Some((12030, Some("cuStreamGetCaptureInfo_v3_ptsz")))
        ]
    );
}

/// The doc text of an ABI is the comment of its own declaration: not a Doxygen group's
/// description (`\defgroup ... @{`) merged into it, not a bare group end (`@}`), and not a comment
/// that precedes a preprocessor block (`CUDA API versioning support` before the internal block).
fn doc_problems(p: &ParsedRelease) -> Vec<String> {
    let mut problems = Vec::new();
    for f in p.manifest.functions.values() {
        for a in &f.abis {
            let Some(doc) = a.doc.as_deref() else {
                continue;
            };
            let group_markup = doc.lines().any(|l| {
                let l = l.trim();
                l == "@{"
                    || l == "@}"
                    || l.starts_with("\\defgroup")
                    || l.starts_with("\\addtogroup")
            });
            if group_markup || doc.trim().is_empty() || doc.contains("CUDA API versioning support")
            {
                let first = doc.lines().next().unwrap_or_default();
                problems.push(format!(
                    "CUDA {}: the doc of {} is not its own (starts with {first:?})",
                    name_of(p),
                    a.typedef
                ));
            }
        }
    }
    problems
}

#[test]
fn docs_are_the_functions_own() {
    let problems: Vec<String> = sample().iter().flat_map(|p| doc_problems(p)).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    for name in SAMPLE {
        let p = one(name);
        let m = &p.manifest;
        let starts = |function: &str, version: u32, text: &str| {
            let doc = abi(function_of(m, function), version)
                .doc
                .as_deref()
                .unwrap_or("");
            assert!(
                doc.starts_with(text),
                "CUDA {name}: the doc of {function} v{version} starts with {:?}, not {text:?}",
                doc.lines().next().unwrap_or_default()
            );
        };
        // The comment of each of these follows a `\defgroup ... @{` comment in cuda.h. (13.x
        // documents only the newest cuCtxCreate, which is the default.)
        let ctx = function_of(m, "cuCtxCreate").default_abi().version;
        starts("cuCtxCreate", ctx, "\\brief Create a CUDA context");
        starts("cuMemGetInfo", 3020, "\\brief Gets free and total memory");
        starts(
            "cuMemFreeAsync",
            11020,
            "\\brief Frees memory with stream ordered semantics",
        );
        // Declared only in the comment-less internal block.
        assert_eq!(
            abi(function_of(m, "cuMemHostRegister"), 4000).doc,
            None,
            "CUDA {name}"
        );
        // Declared without a comment, after `/** @} */` in 11.8 ... 13.5.
        assert_eq!(
            function_of(m, "cuGetExportTable").default_abi().doc,
            None,
            "CUDA {name}"
        );
    }
}

/// ABIs (or per-thread twins) for which `cuda.h` declares no exported symbol, by release: none in
/// 11.7 ... 13.5. An entry would be `(release, typedef, why)`.
const ABIS_WITHOUT_EXPORT: &[(u32, &str, &str)] = &[];

/// Checks that every ABI and per-thread twin of `p` has an exported symbol, and that no symbol
/// serves two of them.
fn check_exports(p: &ParsedRelease) -> Vec<String> {
    let v = p.source.version();
    let allowed = |typedef: &str| {
        ABIS_WITHOUT_EXPORT
            .iter()
            .any(|(r, t, _)| *r == v && *t == typedef)
    };
    let mut problems = Vec::new();
    let mut owner: BTreeMap<&str, &str> = BTreeMap::new();
    for f in p.manifest.functions.values() {
        for a in &f.abis {
            let mut pairs = vec![(a.typedef.as_str(), a.export.as_deref())];
            if let Some(pt) = &a.per_thread {
                pairs.push((pt.typedef.as_str(), pt.export.as_deref()));
            }
            for (typedef, export) in pairs {
                match export {
                    None if !allowed(typedef) => problems.push(format!(
                        "CUDA {}: {typedef} has no exported symbol",
                        name_of(p)
                    )),
                    None => {}
                    Some(symbol) => {
                        if let Some(other) = owner.insert(symbol, typedef) {
                            problems.push(format!(
                                "CUDA {}: {symbol} is the export of both {other} and {typedef}",
                                name_of(p)
                            ));
                        }
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn every_abi_of_the_sample_has_an_export() {
    let problems: Vec<String> = sample().iter().flat_map(|p| check_exports(p)).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Functions whose default ABI has no doc text, with the reason found in the headers:
/// `(first release, last release, function, reason)`.
const UNDOCUMENTED: &[(u32, u32, &str, &str)] = &[
    (
        11070,
        13050,
        "cuGetExportTable",
        "declared without a comment in every cuda.h",
    ),
    (
        11070,
        11070,
        "cuMemGetHandleForAddressRange",
        "11.7 wrote its comment as `/*`, not a doc comment `/**`",
    ),
    (
        12000,
        13050,
        "cuGraphInstantiate",
        "since 12.0 cuda.h maps the documented cuGraphInstantiate to cuGraphInstantiateWithFlags; \
         the 5-argument ABIs the typedefs describe are declared only in the internal block",
    ),
];

fn undocumented_is_explained(release: u32, name: &str) -> bool {
    UNDOCUMENTED
        .iter()
        .any(|(from, to, n, _)| (*from..=*to).contains(&release) && *n == name)
}

/// Functions that disappear from one release to the next, with the reason found in the headers:
/// `(release that no longer has it, function, reason)`.
///
/// Empty: over 11.7 ... 13.5 no function name and no ABI version (legacy or per-thread) ever
/// disappears (checked below, and by hand in the headers: the set of `PFN_` typedef names only
/// grows, except that 12.4 ... 12.9 spell four typedefs without a version, e.g.
/// `PFN_cuModuleGetFunctionCount`, which the alias defined above each renames to `_v12040`, the
/// spelling 13.0 writes out). Long-deprecated functions (`cuCtxAttach`, `cuDeviceGetProperties`, the texture
/// reference API) keep their typedefs in every 13.x `cudaTypedefs.h`, and the 13.0 ABI moves
/// (`cuCtxCreate` v4, `cuStreamGetCaptureInfo` v3, `cuMemPrefetchAsync`, `cuMemAdvise`,
/// `cuStreamGetCtx`, `cuDeviceGetUuid`) keep the older typedefs under their old versions.
const REMOVED: &[(u32, &str, &str)] = &[];

fn removed_is_explained(release: u32, name: &str) -> bool {
    REMOVED.iter().any(|(r, n, _)| *r == release && *n == name)
}

/// Every ABI of a manifest as `function vN` and `function vN per-thread` strings.
fn abi_keys(m: &Manifest) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for f in m.functions.values() {
        for a in &f.abis {
            keys.insert(format!("{} v{}", f.name, a.version));
            if let Some(pt) = &a.per_thread {
                keys.insert(format!("{} v{} per-thread", f.name, pt.version));
            }
        }
    }
    keys
}

/// Every `PFN_` type alias of the bindings that does not name a versioned ABI the manifest has.
fn typedefs_missing_from_manifest(p: &ParsedRelease) -> Vec<String> {
    let file = syn::parse_file(&p.bindings).expect("the bindings parse as Rust");
    let mut known = BTreeSet::new();
    for f in p.manifest.functions.values() {
        for a in &f.abis {
            known.insert(a.typedef.as_str());
            if let Some(pt) = &a.per_thread {
                known.insert(pt.typedef.as_str());
            }
        }
    }
    known.extend(p.manifest.orphan_per_thread.iter().map(String::as_str));
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .filter(|name| name.starts_with("PFN_") && !known.contains(name.as_str()))
        .collect()
}

/// Parses all 17 releases, prints the count of functions per release and checks that it never
/// drops without a reason, that every ABI has an export and that every typedef lands somewhere.
#[test]
fn function_count_per_release_never_drops_unexplained() {
    let start = Instant::now();
    let all = parsed(RELEASES);
    let elapsed = start.elapsed().as_secs_f64();

    let mut table = String::from(
        "release  wheel                               functions  ABIs  per-thread  documented  added  removed\n",
    );
    let mut problems = Vec::new();
    let mut previous: Option<&ParsedRelease> = None;
    for (r, p) in RELEASES.iter().zip(&all) {
        let m = &p.manifest;
        let abis: usize = m.functions.values().map(|f| f.abis.len()).sum();
        let per_thread = m
            .functions
            .values()
            .flat_map(|f| &f.abis)
            .filter(|a| a.per_thread.is_some())
            .count();
        let documented = m
            .functions
            .values()
            .filter(|f| f.default_abi().doc.is_some())
            .count();
        let names: BTreeSet<&String> = m.functions.keys().collect();
        let (added, removed) = match previous {
            Some(prev) => {
                let before: BTreeSet<&String> = prev.manifest.functions.keys().collect();
                (
                    names.difference(&before).count(),
                    before.difference(&names).cloned().collect::<Vec<_>>(),
                )
            }
            None => (names.len(), Vec::new()),
        };
        table.push_str(&format!(
            "{:>7}  {:<34}  {:>9}  {:>4}  {:>10}  {:>10}  {:>5}  {:>7}\n",
            r.name(),
            r.requirement(),
            m.functions.len(),
            abis,
            per_thread,
            documented,
            added,
            removed.len()
        ));

        if let Some(prev) = previous {
            for name in &removed {
                if !removed_is_explained(r.version, name) {
                    problems.push(format!(
                        "CUDA {} no longer has {name} (CUDA {} had it): explain it in REMOVED",
                        r.name(),
                        name_of(prev)
                    ));
                }
            }
            let explained = removed
                .iter()
                .filter(|n| removed_is_explained(r.version, n))
                .count();
            if m.functions.len() + explained < prev.manifest.functions.len() {
                problems.push(format!(
                    "CUDA {}: the function count drops from {} to {}",
                    r.name(),
                    prev.manifest.functions.len(),
                    m.functions.len()
                ));
            }
            // ABIs of a function that stays must not vanish either: the runtime pins them.
            let now = abi_keys(m);
            for key in abi_keys(&prev.manifest).difference(&now) {
                let function = key.split(' ').next().unwrap_or_default();
                if m.functions.contains_key(function) {
                    problems.push(format!("CUDA {} lost the ABI {key}", r.name()));
                }
            }
        }

        if !m.orphan_per_thread.is_empty() {
            problems.push(format!(
                "CUDA {}: per-thread typedefs paired with no ABI: {:?}",
                r.name(),
                m.orphan_per_thread
            ));
        }
        for typedef in typedefs_missing_from_manifest(p) {
            problems.push(format!(
                "CUDA {}: {typedef} is in the bindings but in no ABI of the manifest",
                r.name()
            ));
        }
        problems.extend(check_exports(p));
        problems.extend(doc_problems(p));
        for f in m.functions.values() {
            if f.default_abi().doc.is_none() && !undocumented_is_explained(r.version, &f.name) {
                problems.push(format!(
                    "CUDA {}: the default ABI of {} has no doc text: explain it in UNDOCUMENTED",
                    r.name(),
                    f.name
                ));
            }
        }
        for f in m.functions.values() {
            let versions = f.versions();
            if versions.windows(2).any(|w| w[0] >= w[1]) {
                problems.push(format!(
                    "CUDA {}: {} has ABIs out of order: {versions:?}",
                    r.name(),
                    f.name
                ));
            }
        }
        previous = Some(p);
    }
    eprintln!(
        "{table}(all {} releases ready in {elapsed:.1} s)",
        all.len()
    );
    assert!(problems.is_empty(), "{}\n\n{table}", problems.join("\n"));
    for (_, name, reason) in REMOVED {
        assert!(!reason.is_empty(), "REMOVED lists {name} without a reason");
    }
}

/// The macro reads back, from the records written for every pinned release, exactly their
/// manifests: each function, ABI, twin, typedef, parameter and doc text.
#[test]
fn every_release_s_records_read_back_with_the_macros_reader() {
    let all = parsed(RELEASES);
    let all: Vec<&ParsedRelease> = all.iter().map(|p| p.as_ref()).collect();
    let problems = round_trip::problems(&all);
    assert!(
        problems.is_empty(),
        "{} problems, the first: {}",
        problems.len(),
        problems[..problems.len().min(20)].join("\n")
    );
}

/// The committed `docs.txt` and `manifest.txt`, read with the macro's reader, are exactly what the
/// generator makes of every pinned release's headers: each ABI's doc text (its Markdown, decoded
/// from the compact `docs.txt`) and every other field, in every release, and which releases have
/// each function.
#[test]
fn the_committed_docs_and_records_read_back_as_every_release_s_manifest() {
    let all = parsed(RELEASES);
    let all: Vec<&ParsedRelease> = all.iter().map(|p| p.as_ref()).collect();
    let root = cuda_driver_table_codegen::workspace_root();
    let read = |path: &std::path::Path| {
        std::fs::read_to_string(root.join(path))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let docs = read(emit::DOCS_PATH.as_ref());
    let manifest = read(emit::MANIFEST_PATH.as_ref());
    let mut problems = round_trip::availability_problems(&manifest, &all);
    problems.extend(round_trip::problems_in(&docs, &manifest, &all));
    assert!(
        problems.is_empty(),
        "{} problems (regenerate the files?), the first: {}",
        problems.len(),
        problems[..problems.len().min(20)].join("\n")
    );
}

/// Two runs over the same headers give byte-identical files. The two parses run at the same time
/// in one process, which also checks that concurrent parses of one include folder do not share
/// scratch files.
#[test]
fn generating_a_release_twice_gives_identical_files() {
    let r = release("12.9");
    let twice = parse_releases(&[r, r]).unwrap_or_else(|e| panic!("parsing failed: {e}"));
    let [first, second] = &twice[..] else {
        panic!("expected two parses, got {}", twice.len());
    };
    // Every file, written from this release alone.
    let a = cuda_driver_table_codegen::files(std::slice::from_ref(first));
    let b = cuda_driver_table_codegen::files(std::slice::from_ref(second));
    assert_eq!(a.len(), b.len());
    assert!(a
        .iter()
        .any(|(path, _)| path == std::path::Path::new(emit::MANIFEST_PATH)));
    for ((path_a, text_a), (path_b, text_b)) in a.iter().zip(&b) {
        assert_eq!(path_a, path_b);
        assert!(
            text_a == text_b,
            "{} differs between two runs (first at line {})",
            path_a.display(),
            text_a
                .lines()
                .zip(text_b.lines())
                .position(|(x, y)| x != y)
                .map_or(0, |i| i + 1)
        );
        assert!(!text_a.is_empty());
    }
    // The manifests agree as data too, not only as text.
    assert_eq!(first.manifest.functions, second.manifest.functions);
}

/// The `Option<unsafe extern "C" fn(..)>` of a `PFN_` typedef of the bindings.
fn typedef_params<'f>(file: &'f syn::File, typedef: &str) -> Option<Vec<&'f syn::Type>> {
    file.items.iter().find_map(|item| {
        let syn::Item::Type(t) = item else {
            return None;
        };
        if t.ident != typedef {
            return None;
        }
        let syn::Type::Path(p) = &*t.ty else {
            return None;
        };
        let syn::PathArguments::AngleBracketed(args) = &p.path.segments.last()?.arguments else {
            return None;
        };
        match args.args.first()? {
            syn::GenericArgument::Type(syn::Type::BareFn(f)) => {
                Some(f.inputs.iter().map(|a| &a.ty).collect())
            }
            _ => None,
        }
    })
}

/// Compares a manifest type with the typedef's type it shows: the same text, or, at the same
/// place behind the same pointers, a name `X` where the typedef has `X_v<N>` and the bindings
/// say `pub type X = X_v<N>;`. Each such renaming goes into `renamed`.
fn same_type(
    shown: &syn::Type,
    typedef: &syn::Type,
    aliases: &BTreeMap<String, String>,
    renamed: &mut BTreeSet<(String, String)>,
) -> bool {
    use quote::ToTokens;
    match (shown, typedef) {
        (syn::Type::Ptr(a), syn::Type::Ptr(b)) => {
            a.mutability.is_some() == b.mutability.is_some()
                && same_type(&a.elem, &b.elem, aliases, renamed)
        }
        (syn::Type::Path(a), syn::Type::Path(b)) if a.path.get_ident().is_some() => {
            let (a, b) = (a.path.get_ident(), b.path.get_ident());
            let (Some(a), Some(b)) = (a, b) else {
                return false;
            };
            if a == b {
                return true;
            }
            let (a, b) = (a.to_string(), b.to_string());
            let is_alias = aliases.get(&a) == Some(&b)
                && b.strip_prefix(&a)
                    .and_then(|v| v.strip_prefix("_v"))
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
            if is_alias {
                renamed.insert((b, a));
            }
            is_alias
        }
        _ => shown.to_token_stream().to_string() == typedef.to_token_stream().to_string(),
    }
}

/// The manifest shows a versioned parameter type (`CUdevice_v1`) by its unversioned name
/// (`CUdevice`) only where that name is an alias of exactly that type in the release's bindings,
/// so the signature the macro writes for `PFN_X_vN` is that typedef's own: each renaming is
/// checked against the bindings, and a name without such an alias (`CUdeviceptr_v1`) is kept.
#[test]
fn shown_parameter_types_are_the_typedefs_own_in_every_release() {
    let all = parsed(RELEASES);
    let mut problems = Vec::new();
    let mut renamed_in_13_0 = BTreeSet::new();
    for p in &all {
        let file = syn::parse_file(&p.bindings).expect("the bindings parse");
        let aliases: BTreeMap<String, String> = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Type(t) => match &*t.ty {
                    syn::Type::Path(target) => {
                        Some((t.ident.to_string(), target.path.get_ident()?.to_string()))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let mut renamed = BTreeSet::new();
        for f in p.manifest.functions.values() {
            for a in &f.abis {
                let Some(original) = typedef_params(&file, &a.typedef) else {
                    problems.push(format!("{}: no typedef {}", name_of(p), a.typedef));
                    continue;
                };
                let mut here = BTreeSet::new();
                let same = original.len() == a.params.len()
                    && a.params.iter().zip(&original).all(|(shown, ty)| {
                        let shown: syn::Type = syn::parse_str(&shown.ty).expect("a type");
                        same_type(&shown, ty, &aliases, &mut here)
                    });
                if !same {
                    problems.push(format!(
                        "{}: {} shows {:?}, not its typedef's parameters",
                        name_of(p),
                        a.typedef,
                        a.params
                    ));
                }
                if let Some((old, _)) = here.iter().find(|(old, _)| {
                    a.c_prototype
                        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                        .any(|w| w == old)
                }) {
                    problems.push(format!(
                        "{}: the prototype of {} still says {old}: {}",
                        name_of(p),
                        a.typedef,
                        a.c_prototype
                    ));
                }
                renamed.extend(here);
            }
        }
        if p.source.version() == 13000 {
            renamed_in_13_0 = renamed;
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    for pair in [
        ("CUdevice_v1", "CUdevice"),
        ("CUdeviceptr_v2", "CUdeviceptr"),
    ] {
        let pair = (pair.0.to_string(), pair.1.to_string());
        assert!(
            renamed_in_13_0.contains(&pair),
            "13.0 does not show {pair:?}"
        );
    }
    let m = &all
        .iter()
        .find(|p| p.source.version() == 13000)
        .expect("13.0 is pinned")
        .manifest;
    let alloc = function_of(m, "cuMemAlloc");
    assert_eq!(abi(alloc, 2000).params[0].ty, "*mut CUdeviceptr_v1");
    assert_eq!(abi(alloc, 3020).params[0].ty, "*mut CUdeviceptr");
    assert_eq!(
        abi(alloc, 3020).c_prototype,
        "CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)"
    );
}
