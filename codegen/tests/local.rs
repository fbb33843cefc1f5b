//! The `cuda-local` path (`local.rs`): where it looks for headers (an explicit folder alone), what
//! it refuses (an empty or relative folder, a release feature besides `cuda-local`) and what it
//! says when there are no headers, with an injected environment; and, on the 13.0 wheel's include
//! folder, that the files a local build writes into `OUT_DIR` say exactly what the committed
//! files say for CUDA 13.0.
//!
//! The committed files store every release together (each distinct item once), so the 13.0 view is
//! re-derived from them: the items of `bindings.rs` that 13.0 has (no `cfg`, or one naming
//! `cuda-13000`), the records of 13.0 in `manifest.txt` as the macro reads them (with their doc
//! texts from `docs.txt`), and the lines of 13.0 in `abis.rs`. Needs libclang, `cc` and the 13.0 wheel (fetched if missing).

use cuda_driver_table_codegen::local;
use cuda_driver_table_codegen::releases::{Release, DEFAULT_RELEASE, RELEASES};
use cuda_driver_table_codegen::{emit, fetch, workspace_root};
use quote::ToTokens;
use std::collections::BTreeSet;

#[path = "../../macros/src/manifest/records.rs"]
#[allow(dead_code)]
mod records;
use std::path::{Path, PathBuf};

fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}

/// A fresh folder under the temporary folder holding `headers` (each `cuda.h` declaring
/// `version`), removed when dropped.
struct Headers(PathBuf);

impl Headers {
    fn new(name: &str, headers: &[&str], version: u32) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "cdt-local-test-{}-{name}/include",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for h in headers {
            std::fs::write(dir.join(h), format!("#define CUDA_VERSION {version}\n")).unwrap();
        }
        Headers(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Headers {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.0.parent().unwrap());
    }
}

fn dirs(var: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    local::candidates(var)
        .unwrap()
        .into_iter()
        .map(|c| c.0)
        .collect()
}

/// Every `cuda-NNNNN` a message names.
fn release_features(message: &str) -> BTreeSet<String> {
    message
        .match_indices("cuda-")
        .filter_map(|(i, _)| {
            let digits = message.get(i + 5..i + 10)?;
            digits
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| format!("cuda-{digits}"))
        })
        .collect()
}

#[test]
fn the_include_folder_is_searched_in_the_documented_order() {
    let cuda_path = env(&[("CUDA_PATH", "/opt/cuda")]);
    assert_eq!(
        dirs(&cuda_path),
        [
            PathBuf::from("/opt/cuda/include"),
            PathBuf::from("/usr/local/cuda/include"),
        ]
    );
    let none = env(&[("CUDA_PATH", "")]);
    assert_eq!(dirs(&none), [PathBuf::from("/usr/local/cuda/include")]);
    // An explicit folder is the only one.
    let all = env(&[
        ("CUDA_DRIVER_TABLE_INCLUDE", "/a/include"),
        ("CUDA_PATH", "/opt/cuda"),
    ]);
    assert_eq!(dirs(&all), [PathBuf::from("/a/include")]);
}

#[test]
fn an_explicit_include_folder_without_the_headers_is_an_error_not_a_fall_back() {
    // $CUDA_PATH holds the headers of another release: they must not be used instead.
    let explicit = Headers::new("explicit", &["cuda.h"], 13000);
    let other = Headers::new("other", &["cuda.h", "cudaTypedefs.h"], 12040);
    let cuda_path = other.0.parent().unwrap().to_str().unwrap();
    let vars = [
        ("CUDA_DRIVER_TABLE_INCLUDE", explicit.path()),
        ("CUDA_PATH", cuda_path),
    ];
    let err = local::include_folder(&env(&vars)).unwrap_err();
    assert!(err.contains(explicit.path()), "{err}");
    assert!(err.contains("has no cudaTypedefs.h"), "{err}");
    assert!(!err.contains(other.path()), "{err}");
    assert!(err.contains("the only one searched"), "{err}");
    assert!(err.contains("unset it"), "{err}");
    // Without the explicit folder, $CUDA_PATH's headers are found.
    let vars = [("CUDA_PATH", cuda_path)];
    assert_eq!(local::include_folder(&env(&vars)), Ok(other.0.clone()));
}

#[test]
fn an_empty_include_variable_is_an_error_not_a_fall_back() {
    let other = Headers::new("empty", &["cuda.h", "cudaTypedefs.h"], 12040);
    let cuda_path = other.0.parent().unwrap().to_str().unwrap();
    let vars = [("CUDA_DRIVER_TABLE_INCLUDE", ""), ("CUDA_PATH", cuda_path)];
    let err = local::include_folder(&env(&vars)).unwrap_err();
    assert!(
        err.starts_with("CUDA_DRIVER_TABLE_INCLUDE is set but empty"),
        "{err}"
    );
    assert!(
        err.contains("unset it to search $CUDA_PATH/include"),
        "{err}"
    );
}

#[test]
fn a_relative_folder_is_refused_naming_the_crate_folder_it_would_be_read_from() {
    let crate_dir = "/home/u/.cargo/registry/src/cuda-driver-table-sys-0.1.0";
    for (var, value, read) in [
        ("CUDA_DRIVER_TABLE_INCLUDE", "cuda/include", "cuda/include"),
        ("CUDA_PATH", "cuda", "cuda"),
    ] {
        let vars = [
            (var, value),
            ("CARGO_MANIFEST_DIR", crate_dir),
            ("CARGO_PKG_NAME", "cuda-driver-table-sys"),
        ];
        let err = local::include_folder(&env(&vars)).unwrap_err();
        assert!(
            err.starts_with(&format!("{var}={value} is a relative path")),
            "{err}"
        );
        assert!(err.contains(&format!("{crate_dir}/{read}")), "{err}");
        assert!(err.contains("cuda-driver-table-sys would read"), "{err}");
        assert!(err.contains("absolute path"), "{err}");
    }
}

#[test]
fn a_release_feature_with_cuda_local_is_reported_before_missing_headers() {
    // The user's `features = ["cuda-local"]` without `default-features = false`, on a machine
    // without headers: the feature is what to fix, not the headers.
    let vars = [
        (
            "CUDA_DRIVER_TABLE_INCLUDE",
            "/nonexistent/cuda-driver-table-test",
        ),
        ("CARGO_FEATURE_CUDA_LOCAL", "1"),
        ("CARGO_FEATURE_CUDA_13000", "1"),
    ];
    let err = local::include_folder(&env(&vars)).unwrap_err();
    assert!(
        err.starts_with("the features cuda-local and cuda-13000 are enabled together"),
        "{err}"
    );
    assert!(err.contains("default-features = false"), "{err}");
    assert!(
        err.contains("cargo tree -e features -i cuda-driver-table"),
        "{err}"
    );
    assert!(!err.contains("/nonexistent"), "{err}");
}

#[test]
fn no_message_names_a_release_feature_the_build_does_not_have() {
    // The build script's message, for each release alone and for two together.
    let mut cases: Vec<Vec<u32>> = RELEASES.iter().map(|r| vec![r.version]).collect();
    cases.push(vec![12090, 13000]);
    for enabled in cases {
        let names: Vec<String> = enabled
            .iter()
            .map(|v| format!("CARGO_FEATURE_CUDA_{v}"))
            .collect();
        let vars: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "1")).collect();
        let err = local::include_folder(&env(&vars)).unwrap_err();
        let expected: BTreeSet<String> = enabled.iter().map(|v| format!("cuda-{v}")).collect();
        assert_eq!(release_features(&err), expected, "{err}");
        assert_eq!(
            err.contains("default-features = false"),
            enabled.contains(&DEFAULT_RELEASE),
            "{err}"
        );
    }
    // The `sys` crate's errors for two features at once: each names only the two it is for.
    let versions: Vec<u32> = RELEASES.iter().map(|r| r.version).collect();
    let select = emit::select_files(&versions);
    let sys = &select
        .iter()
        .find(|(p, _)| p.starts_with("sys"))
        .expect("the sys crate's select.rs")
        .1;
    let mut checked = 0;
    let mut lines = sys.lines();
    while let Some(line) = lines.next() {
        let Some(cfg) = line.strip_prefix("#[cfg(all(") else {
            continue;
        };
        let Some(message) = lines.next().filter(|l| l.starts_with("compile_error!")) else {
            continue;
        };
        let mut named = release_features(cfg);
        if cfg.contains("cuda-local") {
            named.insert("cuda-local".into());
        }
        assert_eq!(named.len(), 2, "{cfg}");
        let said = release_features(message);
        assert!(said.is_subset(&named), "{cfg}: {message}");
        checked += 1;
    }
    let n = versions.len();
    assert_eq!(checked, n + n * (n - 1) / 2);
}

#[test]
fn missing_headers_name_every_folder_searched_and_what_to_do() {
    let partial = Headers::new("partial", &["cuda.h"], 13000);
    let cuda_path = partial.0.parent().unwrap().to_str().unwrap();
    let vars = [("CUDA_PATH", cuda_path)];
    let vars = env(&vars);
    if Path::new(local::DEFAULT_INCLUDE)
        .join("cudaTypedefs.h")
        .is_file()
    {
        // This machine has a toolkit: the default folder is found, which is right.
        assert!(local::find_include(&vars).is_ok());
        return;
    }
    let err = local::find_include(&vars).unwrap_err();
    let first = err.find(partial.path()).expect(&err);
    let second = err
        .find("\"/usr/local/cuda/include\" (the default)")
        .expect(&err);
    assert!(first < second, "{err}");
    assert!(err.contains("has no cudaTypedefs.h"), "{err}");
    assert!(err.contains("(CUDA_DRIVER_TABLE_INCLUDE not set)"), "{err}");
    assert!(err.contains("set CUDA_DRIVER_TABLE_INCLUDE"), "{err}");
    assert_eq!(local::header_version(&partial.0), Ok(13000));
    let nothing = local::find_include(&env(&[])).unwrap_err();
    assert!(nothing.contains("does not exist"), "{nothing}");
    assert!(
        nothing.contains("(CUDA_DRIVER_TABLE_INCLUDE, CUDA_PATH not set)"),
        "{nothing}"
    );
}

/// The items of a bindings file as 13.0 sees them: those without a `cfg` or with one that names
/// `cuda-13000`, each without its `cfg` and formatted on its own, sorted (the order of two items of
/// one name may differ between the shared file and a single release's; Rust does not care).
fn items_for(text: &str, feature: &str) -> Vec<String> {
    let file = syn::parse_file(text).expect("the bindings parse");
    let mut out: Vec<String> = file
        .items
        .into_iter()
        .filter_map(|mut item| {
            let attrs = match &mut item {
                syn::Item::Const(i) => &mut i.attrs,
                syn::Item::Enum(i) => &mut i.attrs,
                syn::Item::Struct(i) => &mut i.attrs,
                syn::Item::Type(i) => &mut i.attrs,
                syn::Item::Union(i) => &mut i.attrs,
                syn::Item::Impl(i) => &mut i.attrs,
                syn::Item::Static(i) => &mut i.attrs,
                syn::Item::Use(i) => &mut i.attrs,
                syn::Item::Fn(i) => &mut i.attrs,
                other => panic!("unexpected item {}", other.to_token_stream()),
            };
            let cfg = attrs.iter().position(|a| a.path().is_ident("cfg"));
            if let Some(i) = cfg {
                let cfg = attrs.remove(i).to_token_stream().to_string();
                if !cfg.contains(&format!("\"{feature}\"")) {
                    return None;
                }
            }
            Some(prettyplease::unparse(&syn::File {
                shebang: None,
                attrs: Vec::new(),
                items: vec![item],
            }))
        })
        .collect();
    out.sort();
    out
}

/// A release's records as the macro reads them: the release, its name, and each function with
/// its ABIs, the newest the default (doc texts in place of their byte ranges).
type Read<'a> = (u32, &'a str, Vec<(&'a str, Vec<records::AbiRecord<'a>>)>);

fn read_records<'a>(records: &'a str, docs: &'a str) -> Read<'a> {
    let index = records::Index::read(records, docs, 13000).unwrap_or_else(|e| panic!("{e}"));
    let functions = index
        .entries
        .iter()
        .map(|e| (e.name, index.abis(e).unwrap()))
        .collect();
    (index.release, index.release_name, functions)
}

/// What an ABI list (`abis.rs`, or the body of the local crate's `abis!`) gives release 13.0: the
/// lines of its functions without their releases, and its `CUresult` entries without their
/// features, each where the release has it.
fn abis_of_13_0(text: &str) -> (Vec<String>, Vec<String>) {
    let in_13_0 = |runs: &str| {
        runs.split(',').any(|run| {
            let (first, last) = run.split_once('-').unwrap_or((run, run));
            matches!((first.parse(), last.parse()), (Ok(first), Ok(last)) if (first..=last).contains(&13000))
        })
    };
    let functions = text
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(runs, _)| runs.starts_with(|c: char| c.is_ascii_digit()) && in_13_0(runs))
        .map(|(_, line)| line.to_string())
        .collect();
    let mut cu_results = Vec::new();
    let mut included = true;
    for line in text.lines().map(str::trim) {
        if line.starts_with("#[cfg(") {
            included = line.contains("\"cuda-13000\"");
        } else if line.starts_with("(crate::sys::CUresult::") {
            if included {
                // The code and its name; the description is the newest release's sentence in the
                // committed file and 13.0's in the local one.
                let named = line.rsplit_once(", c\"").map_or(line, |(named, _)| named);
                cu_results.push(named.to_string());
            }
            included = true;
        }
    }
    (functions, cu_results)
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_13_0_wheel_as_a_local_toolkit_gives_the_committed_13_0_files() {
    let release = *Release::find("13.0").expect("13.0 is pinned");
    let include = fetch::fetch(&release).expect("the 13.0 wheel").include;
    let parsed = local::parse(&include).expect("the local path runs");
    assert_eq!(parsed.source.version(), 13000, "CUDA_VERSION of cuda.h");
    let root = workspace_root();

    // The files of cuda-driver-table-local, by name.
    let files = local::files(&parsed);
    let file = |name: &str| {
        files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| text.as_str())
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "release.rs",
            "manifest.txt",
            "docs.txt",
            "bindings.rs",
            "abis.rs"
        ]
    );

    // The runtime's ABI list: the same lines and `CUresult` names as 13.0's of the committed
    // `abis.rs` and `cu_results.rs`, carried by the macro `abis!`.
    let (functions, cu_results) = abis_of_13_0(macro_body(file("abis.rs"), "abis"));
    let committed = abis_of_13_0(
        &(read(&root, "core/src/generated/abis.rs")
            + &read(&root, "core/src/generated/cu_results.rs")),
    );
    assert!(functions.len() > 400, "{} functions", functions.len());
    assert!(cu_results.len() > 80, "{} CUresult names", cu_results.len());
    assert_eq!((functions, cu_results), committed);

    // The bindings: the same items (and RELEASE = 13000).
    let local_items = items_for(macro_body(file("bindings.rs"), "bindings"), "cuda-13000");
    let committed_items = items_for(&read(&root, "sys/src/generated/bindings.rs"), "cuda-13000");
    assert!(local_items.len() > 1000, "{} items", local_items.len());
    assert_eq!(local_items.len(), committed_items.len());
    for (l, c) in local_items.iter().zip(&committed_items) {
        assert_eq!(l, c);
    }

    // The macro's manifest: the same records, in the same order, with the same doc texts.
    let local = read_records(file("manifest.txt"), file("docs.txt"));
    let (records, docs) = (
        read(&root, "macros/src/generated/manifest.txt"),
        read(&root, "macros/src/generated/docs.txt"),
    );
    let committed = read_records(&records, &docs);
    assert_eq!((local.0, local.1), (13000, "13.0"));
    assert!(local.2.len() > 400, "{} functions", local.2.len());
    assert_eq!(local.2.len(), committed.2.len());
    for (l, c) in local.2.iter().zip(&committed.2) {
        assert_eq!(l, c);
    }
    let release = syn::parse_file(file("release.rs")).expect("release.rs parses");
    let consts: Vec<String> = release
        .items
        .iter()
        .map(|i| i.to_token_stream().to_string())
        .collect();
    assert!(
        consts[0].ends_with("pub const RELEASE : u32 = 13000 ;"),
        "{consts:?}"
    );
    assert!(
        consts[1].ends_with("pub const RELEASE_NAME : & str = \"13.0\" ;"),
        "{consts:?}"
    );
}

/// The items an exported macro of the local crate carries, as the text of its body; the whole
/// file is checked to be one `macro_rules!` that `syn` reads.
fn macro_body<'a>(text: &'a str, name: &str) -> &'a str {
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        matches!(&file.items[..], [syn::Item::Macro(m)] if m.ident.as_ref().is_some_and(|i| i == name)),
        "{name}: not one macro_rules! {name}"
    );
    let start = format!("macro_rules! {name} {{\n    () => {{\n");
    let from = text.find(&start).expect("the macro's start") + start.len();
    let to = text.rfind("\n    };\n}\n").expect("the macro's end");
    &text[from..to]
}

#[test]
fn a_file_given_as_the_include_folder_is_said_to_be_a_file_with_its_path_quoted() {
    let headers = Headers::new("file-as-folder", &["cuda.h", "cudaTypedefs.h"], 13000);
    let file = headers.0.join("cuda.h");
    let vars = [("CUDA_DRIVER_TABLE_INCLUDE", file.to_str().unwrap())];
    let err = local::include_folder(&env(&vars)).unwrap_err();
    assert!(
        err.contains(&format!(
            "{file:?} ($CUDA_DRIVER_TABLE_INCLUDE): is a file, not a folder: give the folder that \
             holds cuda.h"
        )),
        "{err}"
    );
    // A trailing blank shows, between quotes.
    let blank = format!("{} ", headers.path());
    let vars = [("CUDA_DRIVER_TABLE_INCLUDE", blank.as_str())];
    let err = local::include_folder(&env(&vars)).unwrap_err();
    assert!(
        err.contains(&format!(
            "\"{blank}\" ($CUDA_DRIVER_TABLE_INCLUDE): does not exist"
        )),
        "{err}"
    );
}

/// `cuda.h` of `version` declaring `functions`, and `cudaTypedefs.h` with `typedefs`, in a fresh
/// folder.
fn mixed(name: &str, version: u32, functions: &[&str], typedefs: &[&str]) -> Headers {
    let headers = Headers::new(name, &[], version);
    let mut cuda_h = format!("#define CUDA_VERSION {version}\n");
    for f in functions {
        cuda_h.push_str(&format!("CUresult CUDAAPI {f}(int x);\n"));
    }
    std::fs::write(headers.0.join("cuda.h"), cuda_h).unwrap();
    let typedefs: String = typedefs
        .iter()
        .map(|t| format!("typedef CUresult (CUDAAPI *PFN_{t})(int x);\n"))
        .collect();
    std::fs::write(headers.0.join("cudaTypedefs.h"), typedefs).unwrap();
    headers
}

#[test]
fn cuda_h_and_cuda_typedefs_h_of_two_releases_stop_the_build_naming_both() {
    // One release: every function typed, no ABI newer than cuda.h (suffixes aside).
    let one = mixed(
        "one",
        13000,
        &["cuInit", "cuCtxCreate_v4", "cuMemcpy_ptds"],
        &[
            "cuInit_v2000",
            "cuCtxCreate_v11040",
            "cuMemcpy_v7000_ptds",
            "cuCtxCreate_v3020",
        ],
    );
    assert_eq!(local::check_headers_agree(&one.0, 13000), Ok(()));
    // cuda.h of 13.0, cudaTypedefs.h of 12.4: 13.0's new functions have no typedef.
    let older = mixed(
        "older",
        13000,
        &["cuInit", "cuA", "cuB", "cuC", "cuD"],
        &["cuInit_v2000", "cuX_v12040"],
    );
    assert_eq!(
        local::check_headers_agree(&older.0, 13000).unwrap_err(),
        format!(
            "the headers in {:?} are of two releases: cuda.h says CUDA 13.0 (CUDA_VERSION \
             13000), but cudaTypedefs.h is of an older release (its newest ABI is 12040, CUDA \
             12.4): it has no typedef for cuA, cuB, cuC and 1 more. Use cuda.h and \
             cudaTypedefs.h of one toolkit, in one folder.",
            older.0
        )
    );
    // cuda.h of 12.4, cudaTypedefs.h of 13.0.
    let newer = mixed("newer", 12040, &["cuInit"], &["cuInit_v2000", "cuY_v13000"]);
    let err = local::check_headers_agree(&newer.0, 12040).unwrap_err();
    assert!(
        err.contains(
            "cuda.h says CUDA 12.4 (CUDA_VERSION 12040), but cudaTypedefs.h is of a newer \
             release: it has typedefs of ABI 13000 (CUDA 13.0)"
        ),
        "{err}"
    );
}
