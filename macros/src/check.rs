//! Phase 2: the request checked against the manifest of the selected release. Every problem
//! becomes an error at the user's token; what is valid goes on to expansion, so the rest of the
//! user's code still type-checks.

use crate::manifest::{self, Abi, Function};
use crate::model::{Errors, Pin, Request};
use proc_macro2::{Ident, Span};
use std::collections::HashMap;

/// A function that passed every check, with the ABI it is pinned to.
pub struct Checked {
    pub name: Ident,
    pub function: &'static Function,
    pub abi: &'static Abi,
}

/// Checks the listed functions; returns the valid ones in the order given.
pub fn check(request: &Request, errors: &mut Errors) -> Vec<Checked> {
    let release = manifest::RELEASE;
    if release == 0 {
        errors.at(
            request.span.unwrap_or_else(Span::call_site),
            "no CUDA release is selected: enable one `cuda-XXXXX` feature of cuda-driver-table (e.g. `cuda-13000`)",
        );
        return Vec::new();
    }
    if request.entries.is_empty() && request.all.is_none() {
        errors.at(
            request.span.unwrap_or_else(Span::call_site),
            "#[driver_table] needs at least one driver function, e.g. `#[driver_table(cuInit, cuDeviceGet)]`, or `all`",
        );
    }
    let mut out = Vec::new();
    let mut seen: HashMap<String, Span> = HashMap::new();
    let mut pins: HashMap<&'static str, &'static Abi> = HashMap::new();
    for entry in &request.entries {
        let name = entry.name.to_string();
        if let Some(first) = seen.get(&name) {
            errors.at(
                entry.name.span(),
                format!("`{name}` is listed twice; list each function once"),
            );
            errors.at(*first, format!("`{name}` is first listed here"));
            continue;
        }
        seen.insert(name.clone(), entry.name.span());
        let Some(function) = manifest::find(&name) else {
            errors.at(entry.name.span(), missing(&name, release));
            continue;
        };
        let abi = match &entry.pin {
            None => function.abi(function.default),
            Some(Pin::Version(version, span)) => match function.abi(*version) {
                Some(abi) => Some(abi),
                None => {
                    let nearest = function
                        .abis
                        .iter()
                        .min_by_key(|a| a.version.abs_diff(*version))
                        .map(|a| a.version)
                        .unwrap_or(function.default);
                    errors.at(
                        *span,
                        format!(
                            "`{name}` has no ABI {version} in CUDA {}; its ABIs are {} (default {}): did you mean `{name} = {nearest}`?",
                            manifest::release_name(release),
                            abi_list(function),
                            function.default
                        ),
                    );
                    None
                }
            },
            Some(Pin::Invalid(tokens)) => {
                let example = pin_example(function, &tokens.to_string());
                errors.spanned(
                    tokens,
                    format!(
                        "pin `{name}` to an ABI version, written as a number: `{name} = {example}` (the `_v{example}` of `PFN_{name}_v{example}`); its ABIs in CUDA {} are {} (default {})",
                        manifest::release_name(release),
                        abi_list(function),
                        function.default
                    ),
                );
                None
            }
        };
        let Some(abi) = abi else { continue };
        if request.all.is_some() {
            pins.insert(function.name, abi);
        } else {
            out.push(Checked {
                name: entry.name.clone(),
                function,
                abi,
            });
        }
    }
    if let Some(span) = request.all {
        for function in manifest::functions() {
            let Some(abi) = pins
                .get(function.name)
                .copied()
                .or_else(|| function.abi(function.default))
            else {
                continue;
            };
            out.push(Checked {
                name: Ident::new(function.name, span),
                function,
                abi,
            });
        }
    }
    out
}

/// `2000, 3020, 11040, 12050`.
fn abi_list(function: &Function) -> String {
    let versions: Vec<String> = function
        .abis
        .iter()
        .map(|a| a.version.to_string())
        .collect();
    versions.join(", ")
}

/// The version to show in the fix for a pin that is not a number: the ABI whose exported symbol
/// it names (`"v3"` for `cuCtxCreate_v3`), else the one its digits spell (`"v3020"`), else the
/// newest ABI older than the default, else the default.
fn pin_example(function: &Function, written: &str) -> u32 {
    let suffix = written.trim_matches('"').trim_start_matches('_');
    let export = format!("{}_{suffix}", function.name);
    if let Some(abi) = function
        .abis
        .iter()
        .find(|a| a.export == Some(export.as_str()))
    {
        return abi.version;
    }
    let digits: String = written.chars().filter(char::is_ascii_digit).collect();
    if let Some(abi) = digits.parse().ok().and_then(|v| function.abi(v)) {
        return abi.version;
    }
    function
        .abis
        .iter()
        .rev()
        .map(|a| a.version)
        .find(|v| *v != function.default)
        .unwrap_or(function.default)
}

/// The message for a name the selected release does not have.
fn missing(name: &str, release: u32) -> String {
    let selected = manifest::release_name(release);
    let have = manifest::releases_with(name);
    if !have.is_empty() {
        let names: Vec<String> = have.iter().map(|v| manifest::release_name(*v)).collect();
        // The release to suggest: the one closest to the selected release.
        let closest = have
            .iter()
            .copied()
            .min_by_key(|v| v.abs_diff(release))
            .unwrap_or(release);
        return format!(
            "`{name}` is not in the CUDA {selected} headers (feature `cuda-{release}` of cuda-driver-table); it is in CUDA {}: select one of those releases instead, e.g. feature `cuda-{closest}`",
            names.join(", ")
        );
    }
    let lower = name.to_lowercase();
    let mut near: Vec<(usize, &str)> = manifest::functions()
        .iter()
        .map(|f| {
            let d = if f.name.to_lowercase() == lower {
                0
            } else {
                strsim::levenshtein(f.name, name)
            };
            (d, f.name)
        })
        .filter(|(d, f)| *d <= (f.len() / 3).max(2))
        .collect();
    near.sort();
    near.truncate(3);
    if near.is_empty() {
        format!("no driver function `{name}` in the CUDA {selected} headers")
    } else {
        let list: Vec<String> = near.iter().map(|(_, n)| format!("`{n}`")).collect();
        format!(
            "no driver function `{name}` in the CUDA {selected} headers; did you mean {}?",
            list.join(" or ")
        )
    }
}
