//! Whether the crate being compiled depends on cuda-driver-table under another name. A table
//! without `crate = ...` names the runtime `::cuda_driver_table`, which such a crate does not
//! have, and rustc's error for that (E0432, "unresolved import") says nothing of the option; the
//! attribute says it instead, once, at the attribute.
//!
//! Read from the crate's `Cargo.toml` (`CARGO_MANIFEST_DIR`, which cargo sets), by hand, line by
//! line: the macro depends on no TOML parser, and only two forms rename a dependency,
//! `cdt = { package = "cuda-driver-table", ... }` in a table of dependencies and
//! `[dependencies.cdt]` followed by `package = "cuda-driver-table"`. A rename inherited from a
//! workspace (`cdt = { workspace = true }`) is not seen; rustc's own error is then what remains.
//! Nothing here reads or writes anything else.

use std::sync::OnceLock;

/// The package whose renames are looked for.
const PACKAGE: &str = "cuda-driver-table";

/// The name (as a crate name: `-` written `_`) the crate being compiled gives cuda-driver-table
/// in its `Cargo.toml`, when it renames it and does not also depend on it under its own name;
/// read once per process.
pub fn renamed_dependency() -> Option<&'static str> {
    static RENAMED: OnceLock<Option<String>> = OnceLock::new();
    RENAMED
        .get_or_init(|| {
            let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
            let text =
                std::fs::read_to_string(std::path::Path::new(&dir).join("Cargo.toml")).ok()?;
            renames(&text).into_iter().next()
        })
        .as_deref()
}

/// Where a line of a `Cargo.toml` is.
enum Section {
    /// A table of dependencies (`[dependencies]`, `[target.'cfg(unix)'.dev-dependencies]`).
    Dependencies,
    /// The table of one dependency (`[dependencies.cdt]`), by its key.
    Dependency(String),
    Other,
}

/// The names `manifest` (a `Cargo.toml`'s text) gives cuda-driver-table other than its own, as
/// crate names; none when it also depends on it under its own name.
pub fn renames(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut plain = false;
    let mut section = Section::Other;
    for line in manifest.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_start_matches('[');
            let header = header.split(']').next().unwrap_or_default().trim();
            section = match header.rsplit_once('.') {
                _ if header.ends_with("dependencies") => Section::Dependencies,
                Some((table, key)) if table.ends_with("dependencies") => {
                    Section::Dependency(unquoted(key))
                }
                _ => Section::Other,
            };
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = unquoted(key);
        match &section {
            Section::Dependencies if key == PACKAGE => plain = true,
            Section::Dependencies if names_package(value) => names.push(key),
            Section::Dependency(name) if key == "package" && names_package(value) => {
                names.push(name.clone());
            }
            Section::Dependency(name) if *name == PACKAGE => plain = true,
            _ => {}
        }
    }
    if plain {
        return Vec::new();
    }
    names
        .into_iter()
        .filter(|n| n != PACKAGE)
        .map(|n| n.replace('-', "_"))
        .collect()
}

/// `cdt`, `"cdt"` or `'cdt'`, trimmed and unquoted.
fn unquoted(key: &str) -> String {
    key.trim().trim_matches(['"', '\'']).to_string()
}

/// Whether a value names the package: `"cuda-driver-table"` after `package =` (in an inline
/// table), or alone (the value of a `package` key).
fn names_package(value: &str) -> bool {
    let compact: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    let quoted = [format!("\"{PACKAGE}\""), format!("'{PACKAGE}'")];
    quoted
        .iter()
        .any(|q| compact == *q || compact.contains(&format!("package={q}")))
}

#[cfg(test)]
mod tests {
    use super::renames;

    #[test]
    fn a_renamed_dependency_is_found_in_either_form() {
        for (manifest, expected) in [
            (
                "[package]\nname = \"app\"\n\n[dependencies]\ncdt = { package = \"cuda-driver-table\", version = \"0.1\" }\n",
                vec!["cdt"],
            ),
            (
                "[dependencies.my-cdt]\nversion = \"0.1\"\npackage = 'cuda-driver-table'\n",
                vec!["my_cdt"],
            ),
            (
                "[target.'cfg(unix)'.dev-dependencies]\n\"cdt\" = {package=\"cuda-driver-table\"}\n",
                vec!["cdt"],
            ),
        ] {
            assert_eq!(renames(manifest), expected, "{manifest}");
        }
    }

    #[test]
    fn no_rename_when_the_crate_also_has_it_under_its_own_name_or_renames_another() {
        for manifest in [
            "[dependencies]\ncuda-driver-table = \"0.1\"\ncdt = { package = \"cuda-driver-table\" }\n",
            "[dependencies]\ncuda-driver-table = { version = \"0.1\", features = [\"cuda-12000\"] }\n",
            "[dependencies.cuda-driver-table]\nversion = \"0.1\"\n[dependencies.cdt]\npackage = \"cuda-driver-table\"\n",
            "[dependencies]\nfoo = { package = \"cuda-driver-table-sys\" }\n",
            // Not a table of dependencies.
            "[package]\ncdt = { package = \"cuda-driver-table\" }\n",
            "",
        ] {
            assert!(renames(manifest).is_empty(), "{manifest}");
        }
    }
}

#[cfg(test)]
mod check_tests {
    use crate::diagnostics::Errors;
    use proc_macro2::Span;
    use quote::ToTokens;

    /// A table without `crate = ...` in a crate that renames the runtime: one error that names the
    /// option, and the renamed path for the expansion; nothing in a crate that does not.
    #[test]
    fn a_renamed_dependency_is_one_error_naming_the_option() {
        let mut errors = Errors::default();
        let path = crate::check::renamed(Some("cdt"), Span::call_site(), &mut errors);
        assert_eq!(
            path.map(|p| p.to_token_stream().to_string()).as_deref(),
            Some("cdt")
        );
        let out = errors.into_compile_errors().to_string();
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");
        assert!(out.contains("renamed to `cdt`"), "{out}");
        assert!(out.contains("add `crate = cdt` to the attribute"), "{out}");
        let mut errors = Errors::default();
        assert!(crate::check::renamed(None, Span::call_site(), &mut errors).is_none());
        assert!(errors.into_compile_errors().is_empty());
    }
}
