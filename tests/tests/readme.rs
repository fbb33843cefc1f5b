//! The READMEs of the published crates, as crates.io shows them: without the repository's other
//! files, so every link must be absolute (or an anchor of the page itself). The main README is
//! also the runtime crate's rustdoc front page, whose doctests compile its Rust blocks: a block
//! without a language would be compiled as Rust, and an `ignore`d one would not be compiled.

use std::path::Path;

/// The README of each published crate, from the workspace root.
const READMES: &[&str] = &[
    "README.md",
    "core/README.md",
    "macros/README.md",
    "sys/README.md",
    "local/README.md",
];

fn read(path: &str) -> String {
    // The workspace root: where cargo built this test, or, staged on another machine (no
    // cargo), the repository root the test runs in.
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = if built.join("README.md").is_file() {
        built
    } else {
        Path::new(".").to_path_buf()
    };
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text outside fenced code blocks.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every link target: inline `[text](target)` and reference definitions `[name]: target`, with
/// code spans left out.
fn targets(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in prose(text).lines() {
        let line: String = line.split('`').step_by(2).collect::<Vec<_>>().join("");
        let mut rest = line.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let end = after.find(')').unwrap_or(after.len());
            found.push(after[..end].to_string());
            rest = &after[end..];
        }
        if let Some(definition) = line.strip_prefix('[') {
            if let Some((_, target)) = definition.split_once("]: ") {
                found.push(target.trim().to_string());
            }
        }
    }
    found
}

fn works_on_crates_io(target: &str) -> bool {
    target.starts_with("https://") || target.starts_with('#')
}

#[test]
fn every_link_of_a_published_readme_is_absolute() {
    for path in READMES {
        let text = read(path);
        let broken: Vec<String> = targets(&text)
            .into_iter()
            .filter(|t| !works_on_crates_io(t))
            .collect();
        assert!(
            broken.is_empty(),
            "{path} links to {broken:?}, which crates.io cannot show: link an absolute address (docs.rs for the API), or name the file without a link"
        );
    }
}

/// The pages of the guide (`cuda_driver_table::guide`), each a module whose doc is the page: its
/// Rust blocks are the runtime's doctests too.
const GUIDE: &[&str] = &[
    "runtime/src/guide/tables.md",
    "runtime/src/guide/loading.md",
    "runtime/src/guide/owning.md",
    "runtime/src/guide/libraries.md",
    "runtime/src/guide/call_tracing.md",
    "runtime/src/guide/local_toolkit.md",
    "runtime/src/guide/from_cudarc.md",
    "runtime/src/guide/testing_without_a_gpu.md",
];

#[test]
fn every_code_block_of_the_readme_names_its_language_and_rust_is_compiled() {
    assert_compiled("README.md", 2);
}

#[test]
fn every_page_of_the_guide_is_included_and_its_rust_is_compiled() {
    let guide = read("runtime/src/guide.rs");
    for page in GUIDE {
        let file = page.strip_prefix("runtime/src/").unwrap();
        assert!(
            guide.contains(&format!("\"{file}\"")),
            "runtime/src/guide.rs does not include {page}"
        );
        assert_compiled(page, 0);
    }
    // And no page is left out of this list.
    let listed = guide.matches("\npage!(").count();
    assert_eq!(
        listed,
        GUIDE.len(),
        "runtime/src/guide.rs has pages this test does not know"
    );
}

/// Every fenced block of `path` names its language, and no Rust block is `ignore`d: rustdoc
/// compiles each (`no_run` for what needs a GPU). `text` is for output, never for Rust.
fn assert_compiled(path: &str, min_rust_blocks: usize) {
    let text = read(path);
    let mut fenced = false;
    let mut rust_blocks = 0;
    for (n, line) in text.lines().enumerate() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        fenced = !fenced;
        if !fenced {
            continue;
        }
        let line = n + 1;
        assert!(
            !info.is_empty(),
            "{path}:{line}: a code block without a language, which rustdoc compiles as Rust: name it (`rust`, `toml`, `sh`, `text`)"
        );
        if info.starts_with("rust") {
            rust_blocks += 1;
            assert!(
                !info.contains("ignore"),
                "{path}:{line}: an ignored Rust block; every one must compile (`no_run` for what needs a GPU)"
            );
        }
    }
    assert!(!fenced, "{path}: a code block is not closed");
    assert!(
        rust_blocks >= min_rust_blocks,
        "{path} has {rust_blocks} Rust blocks"
    );
}

#[test]
fn the_checks_see_what_crates_io_would_break_on() {
    let text = "See [tests](tests/README.md), [docs](https://docs.rs/x), [here](#safety) and `[x](y)`.\n\n```rust\nlet a = [b](c);\n```\n[api]: https://docs.rs/x/latest\n[local]: BENCHMARKS.md\n";
    let bad: Vec<String> = targets(text)
        .into_iter()
        .filter(|t| !works_on_crates_io(t))
        .collect();
    assert_eq!(bad, ["tests/README.md", "BENCHMARKS.md"]);
}

/// The text of the README's fenced block that starts with `first_line`, as written.
fn block_starting(text: &str, first_line: &str) -> String {
    let start = text
        .find(&format!("```toml\n{first_line}\n"))
        .unwrap_or_else(|| panic!("README.md has no toml block starting with {first_line}"));
    let body = &text[start + "```toml\n".len()..];
    body[..body.find("```").expect("a closed block")].to_string()
}

#[test]
fn the_library_setup_of_the_readme_is_the_one_tests_library_builds() {
    // scripts/test.sh tests and documents tests/library (as docs.rs would, from its metadata) and
    // checks that it does not build without a release: its manifest must be the README's, with
    // paths to this repository's crates added.
    let readme = block_starting(
        &read("README.md"),
        "[dependencies]\ncuda-driver-table = { version = \"0.1\", default-features = false }",
    );
    let manifest = read("tests/library/Cargo.toml").replace("path = \"../../runtime\", ", "");
    for line in readme.lines().filter(|l| !l.is_empty()) {
        assert!(
            manifest.lines().any(|m| m == line),
            "tests/library/Cargo.toml lacks the README's line `{line}`"
        );
    }
    for section in [
        "[dependencies]",
        "[dev-dependencies]",
        "[package.metadata.docs.rs]",
    ] {
        assert!(
            readme.contains(section),
            "the README's library setup has no {section}"
        );
    }
}

#[test]
fn the_commands_near_the_top_of_the_readme_name_what_exists() {
    let text = read("README.md");
    let top = &text[..text.find("## A first program").expect("a first program")];
    for command in [
        "`cargo run --release --example vector_add`",
        "`-- --driver`",
        "`cargo test -p cuda-driver-table --features fake`",
        "`bash scripts/test.sh`",
        "https://github.com/cuda-driver-table/cuda-driver-table",
    ] {
        assert!(
            top.contains(command),
            "the README's top does not name {command}"
        );
    }
    // What they run: the example and its option, the feature, the script.
    let example = read("runtime/examples/vector_add.rs");
    assert!(
        example.contains("\"--driver\""),
        "vector_add has no --driver option"
    );
    assert!(
        read("runtime/Cargo.toml").contains("\nfake = ["),
        "the runtime has no fake feature"
    );
    assert!(read("scripts/test.sh").starts_with("#!/usr/bin/env bash"));
    // The repository named in the README is the crates' metadata's.
    assert!(read("Cargo.toml")
        .contains("repository = \"https://github.com/cuda-driver-table/cuda-driver-table\""));
}
