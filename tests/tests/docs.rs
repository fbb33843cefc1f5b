//! The documents that describe the repository stay true to it: every path that
//! `docs/ARCHITECTURE.md` and `tests/README.md` name exists, every workspace member is described in
//! `docs/ARCHITECTURE.md`, and every test file of every crate in `tests/README.md` (and every test
//! of `tests/tests/gpu.rs` in its table there), and every test `tests/README.md` names is a
//! function of the repository. The guide's page for libraries shows `fastsum`'s doc test, which
//! runs in `fastsum`: the two are the same lines.
//!
//! A path is what a document writes in backticks or as a link's target and looks like a file or a
//! folder: a name with an extension of the repository's files (`.rs`, `.md`, `.toml`, ...) or one
//! ending in `/`. It is found from the repository's root, or, written from inside a crate
//! (`error/tests.rs` in the core's section), as the end of a path in the repository; `*` stands
//! for any part of a name, and so does a placeholder in capitals (`kernels/NAME.cu`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The documents whose paths are checked.
const DOCUMENTS: &[&str] = &["docs/ARCHITECTURE.md", "tests/README.md"];

/// The extensions that make a word in backticks a path.
const EXTENSIONS: &[&str] = &[
    "rs", "md", "toml", "sh", "py", "txt", "cu", "ptx", "stderr", "c", "json", "lock",
];

/// Words that look like paths but name no file of the repository, each with what it is: the word,
/// or a folder the paths under which are left out.
const NOT_IN_THE_REPOSITORY: &[(&str, &str)] = &[
    ("target/", "the build folder"),
    (".gpu/", "the folder `cargo gpu-stage` writes"),
    ("x/", "a relative path a test gives an environment variable"),
];

/// Whether `word` is one of [`NOT_IN_THE_REPOSITORY`].
fn not_in_the_repository(word: &str) -> bool {
    NOT_IN_THE_REPOSITORY
        .iter()
        .any(|(w, _)| word == *w || (w.ends_with('/') && w.len() > 2 && word.starts_with(w)))
}

/// The repository's root: where cargo built this test, or, staged on another machine, the
/// folder the test runs in.
fn root() -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if built.join("Cargo.toml").is_file() {
        built
    } else {
        PathBuf::from(".")
    }
}

/// Every file and folder of the repository, as paths from its root with `/` between the parts
/// (folders end in `/`), build outputs and version control left out.
fn repository(root: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(root.join(&folder))
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for entry in entries {
            let entry = entry.expect("a folder entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == ".git" || name == ".gpu" || name == "target" {
                continue;
            }
            let path = folder.join(&name);
            let text = path.to_string_lossy().replace('\\', "/");
            if entry.file_type().expect("a file type").is_dir() {
                found.insert(format!("{text}/"));
                folders.push(path);
            } else {
                found.insert(text);
            }
        }
    }
    found
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The words in backticks outside fenced blocks, and the targets of links that are not web
/// addresses or anchors.
fn quoted(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        words.extend(line.split('`').skip(1).step_by(2).map(str::to_owned));
        for (_, rest) in line.match_indices("](").map(|(i, _)| line.split_at(i + 2)) {
            let target = rest.split(')').next().unwrap_or("");
            let target = target.split('#').next().unwrap_or("");
            if !target.is_empty() && !target.contains("://") {
                words.push(target.to_owned());
            }
        }
    }
    words
}

/// `word` from the repository's root where it starts with `./` or `../`, which a link does from
/// the folder of its document.
fn relative_to(document: &str, word: &str) -> String {
    if !word.starts_with("./") && !word.starts_with("../") {
        return word.to_owned();
    }
    let mut parts: Vec<&str> = document.split('/').collect();
    parts.pop();
    for part in word.split('/') {
        match part {
            "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

/// Whether `word` is written as a path (see the module's docs).
fn is_path(word: &str) -> bool {
    if word.is_empty()
        || word.contains(|c: char| c.is_whitespace() || "()=$%~<>{}\\:,;\"'|".contains(c))
        || word.starts_with('-')
    {
        return false;
    }
    if word.ends_with('/') {
        return word.len() > 1;
    }
    let name = word.rsplit('/').next().unwrap_or(word);
    name.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext))
}

/// Whether one part of a path matches one part of a pattern, `*` standing for any run of
/// characters and a placeholder in capitals (`NAME`, `RELEASE`) for any name.
fn part_matches(pattern: &str, part: &str) -> bool {
    let placeholder = pattern.len() > 1 && pattern.chars().all(|c| c.is_ascii_uppercase());
    let pattern = match pattern.split_once('.') {
        Some((stem, ext)) if stem.len() > 1 && stem.chars().all(|c| c.is_ascii_uppercase()) => {
            format!("*.{ext}")
        }
        _ if placeholder => "*".to_owned(),
        _ => pattern.to_owned(),
    };
    match pattern.split_once('*') {
        None => pattern == part,
        Some((head, tail)) => {
            part.len() >= head.len() + tail.len() && part.starts_with(head) && part.ends_with(tail)
        }
    }
}

/// The repository's paths that `word` names: from the root, or else as the end of a path.
fn named_by<'a>(word: &str, repository: &'a BTreeSet<String>) -> Vec<&'a String> {
    let folder = word.ends_with('/');
    let pattern: Vec<&str> = word.trim_end_matches('/').split('/').collect();
    let matches = |path: &String, whole: bool| {
        if path.ends_with('/') != folder {
            return false;
        }
        let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        if parts.len() < pattern.len() || (whole && parts.len() != pattern.len()) {
            return false;
        }
        let tail = &parts[parts.len() - pattern.len()..];
        pattern.iter().zip(tail).all(|(p, q)| part_matches(p, q))
    };
    let from_root: Vec<&String> = repository.iter().filter(|p| matches(p, true)).collect();
    if !from_root.is_empty() {
        return from_root;
    }
    repository.iter().filter(|p| matches(p, false)).collect()
}

#[test]
fn every_path_the_documents_name_exists() {
    let root = root();
    let repository = repository(&root);
    let mut missing = Vec::new();
    for document in DOCUMENTS {
        for word in quoted(&read(&root, document)) {
            let word = relative_to(document, &word);
            let word = word.as_str();
            if !is_path(word)
                || not_in_the_repository(word)
                || !named_by(word, &repository).is_empty()
            {
                continue;
            }
            missing.push(format!("{document}: `{word}`"));
        }
    }
    missing.dedup();
    assert!(
        missing.is_empty(),
        "these paths name no file or folder of the repository (moved or removed? fix the \
         document, or, for a word that is no path of the repository, add it to \
         NOT_IN_THE_REPOSITORY in tests/tests/docs.rs):\n{}",
        missing.join("\n")
    );
}

/// The workspace's members, from the root `Cargo.toml`.
fn members(root: &Path) -> Vec<String> {
    let manifest = read(root, "Cargo.toml");
    let line = manifest
        .lines()
        .find(|l| l.starts_with("members = ["))
        .expect("Cargo.toml lists the workspace's members on one line");
    line.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_workspace_member_is_described_in_the_architecture() {
    let root = root();
    let architecture = read(&root, "docs/ARCHITECTURE.md");
    let members = members(&root);
    assert!(members.len() > 5, "{members:?}");
    let undescribed: Vec<&String> = members
        .iter()
        .filter(|m| !architecture.contains(&format!("`{m}/`")))
        .collect();
    assert!(
        undescribed.is_empty(),
        "docs/ARCHITECTURE.md does not describe the workspace members {undescribed:?}: give each \
         an entry under \"The crates\" that names its folder (`member/`)"
    );
}

#[test]
fn every_test_file_is_described_in_the_tests_readme() {
    let root = root();
    let repository = repository(&root);
    let readme = read(&root, "tests/README.md");
    // What the README's paths name: a file by its path, or the files of a folder it names.
    let mut described = BTreeSet::new();
    for word in quoted(&readme) {
        let word = relative_to("tests/README.md", &word);
        if !is_path(&word) {
            continue;
        }
        let named = named_by(&word, &repository);
        // A bare file name describes a file only where one file has it.
        if !word.contains('/') && named.len() > 1 {
            continue;
        }
        for path in named {
            if path.ends_with('/') {
                // A folder of tests describes the files in it; a crate's folder describes none.
                if !repository.contains(&format!("{path}Cargo.toml")) {
                    described.extend(repository.iter().filter(|p| {
                        p.strip_prefix(path.as_str())
                            .is_some_and(|f| !f.contains('/'))
                    }));
                }
            } else {
                described.insert(path);
            }
        }
    }
    // The test files: each `.rs` directly in the `tests/` folder of a crate (a folder with a
    // `Cargo.toml`), the crates with workspaces of their own included.
    let crates: Vec<&str> = repository
        .iter()
        .filter_map(|p| p.strip_suffix("Cargo.toml"))
        .collect();
    assert!(crates.len() > 10, "{crates:?}");
    let tests: Vec<&String> = repository
        .iter()
        .filter(|p| {
            crates.iter().any(|c| {
                p.strip_prefix(&format!("{c}tests/"))
                    .is_some_and(|f| f.ends_with(".rs") && !f.contains('/'))
            })
        })
        .collect();
    assert!(tests.len() > 30, "{tests:?}");
    let undescribed: Vec<&String> = tests
        .into_iter()
        .filter(|t| !described.contains(t))
        .collect();
    assert!(
        undescribed.is_empty(),
        "tests/README.md does not describe these test files: {undescribed:?}; give each a row \
         that names it (its path, or from its crate: `tests/NAME.rs` for the tests crate) and \
         says what it checks and how to run it"
    );
}

/// The names of every function and module in the repository's Rust files (`fn NAME`, `mod NAME`).
fn functions(root: &Path, repository: &BTreeSet<String>) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for path in repository.iter().filter(|p| p.ends_with(".rs")) {
        let Ok(text) = std::fs::read_to_string(root.join(path)) else {
            continue;
        };
        for (at, keyword) in text.match_indices("fn ").chain(text.match_indices("mod ")) {
            let name: String = text[at + keyword.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.insert(name);
        }
    }
    names
}

/// Names written like tests' that are something else.
const NOT_TESTS: &[&str] = &[
    // A lint of clippy's.
    "declare_interior_mutable_const",
];

/// Whether `word` is written as the name of a test: `module::test_name`, or a name of at least
/// four words joined by `_` (`a_failed_call_reads_nothing`).
fn is_test_name(word: &str) -> bool {
    let name = word.rsplit("::").next().unwrap_or(word);
    let snake = !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    snake
        && word.split("::").all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        && (word.contains("::") || name.split('_').count() >= 4)
        && !NOT_TESTS.contains(&word)
}

#[test]
fn every_test_the_tests_readme_names_is_a_function() {
    let root = root();
    let repository = repository(&root);
    let functions = functions(&root, &repository);
    let readme = read(&root, "tests/README.md");
    let mut named: Vec<String> = quoted(&readme)
        .into_iter()
        .filter(|w| is_test_name(w))
        .collect();
    assert!(named.len() > 100, "{named:?}");
    named.retain(|w| {
        let last = w.rsplit("::").next().unwrap_or(w);
        // A module's path (`table::ptx_image::tests`) names the tests in it.
        !functions.contains(last)
            && !repository
                .iter()
                .any(|p| p.ends_with(&format!("/{last}.rs")) || p.ends_with(&format!("/{last}/")))
    });
    named.dedup();
    assert!(
        named.is_empty(),
        "tests/README.md names tests that are no function of the repository (renamed or \
         removed?): {named:?}"
    );
}

#[test]
fn every_gpu_test_has_its_row() {
    let root = root();
    let readme = read(&root, "tests/README.md");
    let gpu = read(&root, "tests/tests/gpu.rs");
    let mut tests = Vec::new();
    let mut lines = gpu.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "#[test]" {
            let name = lines
                .find_map(|l| l.trim().strip_prefix("fn "))
                .and_then(|l| l.split('(').next())
                .expect("a test function after #[test]");
            tests.push(name);
        }
    }
    assert!(tests.len() > 5, "{tests:?}");
    let undescribed: Vec<&&str> = tests
        .iter()
        .filter(|t| !readme.contains(&format!("| `{t}`")))
        .collect();
    assert!(
        undescribed.is_empty(),
        "tests/README.md's table of the GPU tests has no row for {undescribed:?} of tests/tests/gpu.rs"
    );
}

#[test]
fn the_libraries_page_shows_the_doc_test_fastsum_runs() {
    let root = root();
    let page = read(&root, "runtime/src/guide/libraries.md");
    let shown: Vec<&str> = page.lines().filter(|l| l.starts_with("///")).collect();
    assert!(
        shown.iter().filter(|l| l.starts_with("/// ```")).count() == 2,
        "runtime/src/guide/libraries.md shows no doc test: {shown:?}"
    );
    let fastsum = read(&root, "examples/fastsum/src/lib.rs");
    let lines: Vec<&str> = fastsum.lines().collect();
    assert!(
        lines.windows(shown.len()).any(|w| w == shown.as_slice()),
        "the doc test runtime/src/guide/libraries.md shows is not in examples/fastsum/src/lib.rs \
         as it is there: copy it from there, where `cargo test -p fastsum` runs it"
    );
}

#[test]
fn the_path_rules_find_what_they_should() {
    let repository: BTreeSet<String> = [
        "core/",
        "core/src/",
        "core/src/error/",
        "core/src/error/tests.rs",
        "core/src/lib.rs",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(named_by("core/src/lib.rs", &repository).len(), 1);
    assert_eq!(named_by("error/tests.rs", &repository).len(), 1);
    assert_eq!(named_by("core/src/*.rs", &repository).len(), 1);
    assert_eq!(named_by("core/src/", &repository).len(), 1);
    assert!(named_by("core/src/gone.rs", &repository).is_empty());
    assert!(named_by("src/lib.rs/", &repository).is_empty());
    assert_eq!(named_by("core/src/NAME.rs", &repository).len(), 1);
    assert_eq!(
        relative_to("tests/README.md", "../core/src/lib.rs"),
        "core/src/lib.rs"
    );
    assert!(not_in_the_repository(".gpu/run.sh") && !not_in_the_repository("x/y.rs"));
    assert!(is_test_name("error::tests::display_messages"));
    assert!(is_test_name("a_failed_call_reads_nothing"));
    assert!(!is_test_name("cu_results") && !is_test_name("Config::new") && !is_test_name("x.rs"));
    assert!(is_path("tests/README.md") && is_path("guide/") && is_path("parse.rs"));
    assert!(!is_path("cuda.h") && !is_path("Config::new") && !is_path("-- check"));
    assert_eq!(
        quoted("a `x.rs` and [b](c/d.md#e), [w](https://x.org/y.rs)\n```\n`z.rs`\n```\n"),
        ["x.rs", "c/d.md"]
    );
}
