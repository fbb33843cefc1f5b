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

#[test]
fn every_code_block_of_the_readme_names_its_language_and_rust_is_compiled() {
    let text = read("README.md");
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
            "README.md:{line}: a code block without a language, which rustdoc compiles as Rust: name it (`rust`, `toml`, `sh`, `text`)"
        );
        if info.starts_with("rust") {
            rust_blocks += 1;
            assert!(
                !info.contains("ignore"),
                "README.md:{line}: an ignored Rust block; every one must compile (`no_run` for what needs a GPU)"
            );
        }
    }
    assert!(!fenced, "README.md: a code block is not closed");
    assert!(rust_blocks >= 2, "README.md has {rust_blocks} Rust blocks");
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
