//! The README's Samples table is derived from the samples: one row per program of `src/bin/`,
//! whose last column lists exactly the functions of that program's `#[driver_table(...)]` (in
//! the program, or in the module of the samples' library it runs), in its order. A sample added, removed or given another function without its row fails here.

use std::path::Path;

/// The function names of the first `#[driver_table(...)]` in `source`: every argument that
/// starts with `cu`, without a pin (`cuCtxCreate = 3020` gives `cuCtxCreate`); comments skipped.
fn table_functions(source: &str) -> Vec<String> {
    let start = source
        .find("#[driver_table(")
        .expect("the sample declares a table")
        + "#[driver_table(".len();
    let end = start + source[start..].find(")]").expect("the attribute ends");
    source[start..end]
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .flat_map(|line| line.split(','))
        .map(|item| item.split('=').next().unwrap_or_default().trim())
        .filter(|item| item.starts_with("cu"))
        .map(str::to_owned)
        .collect()
}

/// The source that declares the table of the program `src/bin/{name}.rs`: the program itself, or
/// the module of the samples' library whose sample it runs (`use cuda_driver_table_samples::
/// MODULE::...`, in `src/MODULE.rs`).
fn table_source(root: &Path, name: &str) -> String {
    let bin =
        std::fs::read_to_string(root.join(format!("src/bin/{name}.rs"))).expect("the sample reads");
    if bin.contains("#[driver_table(") {
        return bin;
    }
    let module = bin
        .split_once("use cuda_driver_table_samples::")
        .and_then(|(_, rest)| rest.split_once("::"))
        .map(|(module, _)| module)
        .unwrap_or_else(|| {
            panic!("src/bin/{name}.rs neither declares a table nor uses a sample's module")
        });
    std::fs::read_to_string(root.join(format!("src/{module}.rs")))
        .unwrap_or_else(|e| panic!("src/{module}.rs, the sample of {name}, reads: {e}"))
}

/// The rows of the README's Samples table: (sample, functions).
fn readme_rows(readme: &str) -> Vec<(String, Vec<String>)> {
    let section = &readme[readme
        .find("\n## Samples\n")
        .expect("the README has a Samples section")..];
    let section = &section[..section[1..].find("\n## ").map_or(section.len(), |i| i + 1)];
    section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            let name = cells[0].trim_matches('`').to_owned();
            let functions = cells
                .last()
                .expect("a row has cells")
                .split(", ")
                .map(|f| f.trim_matches('`').to_owned())
                .collect();
            (name, functions)
        })
        .collect()
}

#[test]
fn the_readme_lists_every_sample_with_exactly_its_tables_functions() {
    // Where cargo built this test, or, staged on another machine (no cargo), the repository root
    // the test runs in.
    let root = [Path::new(env!("CARGO_MANIFEST_DIR")), Path::new("samples")]
        .into_iter()
        .find(|d| d.join("src/bin").is_dir())
        .expect("samples/ is not there: run the test from the repository or with cargo");
    let readme = std::fs::read_to_string(root.join("../README.md")).expect("README.md reads");
    let rows = readme_rows(&readme);
    let mut samples: Vec<String> = std::fs::read_dir(root.join("src/bin"))
        .expect("src/bin lists")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "rs").then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    samples.sort();
    let mut listed: Vec<String> = rows.iter().map(|(name, _)| name.clone()).collect();
    listed.sort();
    assert_eq!(
        listed, samples,
        "the README's Samples table and samples/src/bin differ"
    );
    for (name, functions) in rows {
        let source = table_source(root, &name);
        assert_eq!(
            functions,
            table_functions(&source),
            "the README's row of {name} does not list its table's functions (in order)"
        );
    }
}

#[test]
fn a_table_is_read_without_its_pins_comments_and_options() {
    let source =
        "#[driver_table(\n    cuInit,\n    // a comment, cuNotOne\n    cuCtxCreate = 3020,\n    \
                  driver = 12000\n)]\nstruct Cuda;";
    assert_eq!(table_functions(source), ["cuInit", "cuCtxCreate"]);
}
