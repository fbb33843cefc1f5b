//! The runtime's modules form layers: each uses only the modules of the layers below it, so the
//! crate has no import circle and each module can be read knowing only what is below it
//! (`docs/ARCHITECTURE.md` draws them). This test reads the sources and fails on an arrow
//! upwards, naming the file, the line and the module it reaches.

use std::path::{Path, PathBuf};

/// The layers, bottom first. A module may use any module of a lower layer.
const LAYERS: &[&[&str]] = &[
    &["sys", "version", "stream", "kernel_args", "ptx"],
    &["ffi", "abi_history"],
    &["manifest"],
    &["error"],
    &["resolve"],
    &["stand_in"],
    &["config"],
    &["backend"],
    &["library"],
    &["call", "trace"],
    &["table"],
    &["registry"],
];

/// Modules above every layer: the generated code's entry points and the unit tests' support.
const TOP: &[&str] = &["__private", "testing"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The `.rs` files of `module`: `src/<module>.rs` and everything under `src/<module>/`, except
/// unit tests (`tests.rs`), which may use anything.
fn files_of(src: &Path, module: &str) -> Vec<PathBuf> {
    let mut files = vec![src.join(format!("{module}.rs"))];
    let mut dirs = vec![src.join(module)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                files.push(path);
            }
        }
    }
    files.retain(|f| f.is_file());
    files
}

/// Every `crate::<module>` a line names, skipping comments.
fn uses(line: &str) -> Vec<&str> {
    let code = line.split("//").next().unwrap_or("");
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        // `$crate::` in a `macro_rules!` is the user's path to this crate, not an import, and a
        // `#[macro_export]`ed macro (`crate::__cdt_...`) lives at the crate root, in no module.
        if !rest[..at].ends_with('$') && !after.starts_with("__cdt_") {
            found.push(&after[..end]);
        }
        rest = &after[end..];
    }
    found
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut upward = Vec::new();
    let mut modules_seen = 0;
    for (layer, modules) in LAYERS.iter().enumerate() {
        for module in *modules {
            for file in files_of(&src, module) {
                modules_seen += 1;
                let text = std::fs::read_to_string(&file).expect("readable source");
                for (n, line) in text.lines().enumerate() {
                    for used in uses(line) {
                        match layer_of(used) {
                            Some(l) if l < layer || used == *module => {}
                            Some(_) => upward.push(format!(
                                "{}:{}: `{module}` uses `{used}`, which is not below it",
                                file.display(),
                                n + 1
                            )),
                            None if TOP.contains(&used) => upward.push(format!(
                                "{}:{}: `{module}` uses `{used}`, which is above every layer",
                                file.display(),
                                n + 1
                            )),
                            None => upward.push(format!(
                                "{}:{}: `{module}` uses `{used}`, which has no layer: add it to \
                                 LAYERS here and to docs/ARCHITECTURE.md",
                                file.display(),
                                n + 1
                            )),
                        }
                    }
                }
            }
        }
    }
    assert!(modules_seen >= LAYERS.iter().map(|l| l.len()).sum::<usize>() - 1);
    assert!(upward.is_empty(), "{}", upward.join("\n"));
}

#[test]
fn every_module_of_the_crate_has_a_layer() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("lib.rs");
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            l.strip_prefix("mod ")
                .or_else(|| l.strip_prefix("pub mod "))
                .and_then(|m| m.strip_suffix(';'))
        })
        .collect();
    assert!(declared.len() > 5, "{declared:?}");
    for module in declared {
        assert!(
            layer_of(module).is_some() || TOP.contains(&module),
            "`{module}` is declared in lib.rs but has no layer in this test"
        );
    }
}

/// Core is the door, not the room behind it: no source file of core names the fake driver's
/// crate, a `fake` module or a `fake` feature. (The fake plugs in from outside, through
/// `stand_in::StandIn`.)
#[test]
fn core_names_no_fake() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut named = Vec::new();
    let mut dirs = vec![src];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for (n, line) in text.lines().enumerate() {
                if [
                    "cuda_driver_table_fake",
                    "crate::fake",
                    "feature = \"fake\"",
                    "mod fake",
                ]
                .iter()
                .any(|word| line.contains(word))
                {
                    named.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(named.is_empty(), "{}", named.join("\n"));
}
