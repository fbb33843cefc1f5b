//! Checking: the request against the manifest of the selected release, and the struct's own
//! attributes against what a table is. Every problem becomes an error at the user's token; what is
//! valid goes on to expansion, so the rest of the user's code still type-checks.

use crate::diagnostics::{did_you_mean, Diagnostics};
use crate::manifest::{self, Abi, Function};
use crate::model::{Attr, Item, Pin, Request};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use std::collections::HashMap;

/// A function that passed every check, with the ABI it is pinned to.
pub struct Checked {
    pub name: Ident,
    pub function: &'static Function,
    pub abi: &'static Abi,
}

/// Checks the listed functions; returns the valid ones in the order given.
pub fn check(request: &Request, diag: &mut Diagnostics) -> Vec<Checked> {
    let release = manifest::RELEASE;
    if release == 0 {
        diag.at(
            request.span.unwrap_or_else(Span::call_site),
            "no CUDA release is selected: enable one `cuda-XXXXX` feature of cuda-driver-table (e.g. `cuda-13000`)",
        );
        return Vec::new();
    }
    if let Err(e) = manifest::load() {
        diag.at(request.span.unwrap_or_else(Span::call_site), e);
        return Vec::new();
    }
    // A list none of whose parts could be read was reported part by part already.
    if request.entries.is_empty() && request.all.is_none() && !request.malformed {
        diag.at(
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
            diag.at(
                entry.name.span(),
                format!("`{name}` is listed twice; list each function once"),
            );
            diag.at(*first, format!("`{name}` is first listed here"));
            continue;
        }
        seen.insert(name.clone(), entry.name.span());
        let Some(function) = manifest::find(&name) else {
            diag.at(entry.name.span(), missing(&name, release));
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
                    diag.at(
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
                diag.spanned(
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
    if let Some(base) = name
        .strip_suffix("_ptds")
        .or_else(|| name.strip_suffix("_ptsz"))
    {
        let stream = if manifest::find(base).is_some() {
            format!("list `{base}` and")
        } else {
            "list the function by its own name and".to_string()
        };
        return format!(
            "`{name}` is the per-thread default stream export of `{base}`, not a function of its own: {stream} add the `per_thread` option (`#[driver_table({base}, per_thread)]`), or build the table with `Config::per_thread()`"
        );
    }
    let hint = did_you_mean(name, manifest::functions().iter().map(|f| f.name));
    if hint.is_empty() {
        format!("no driver function `{name}` in the CUDA {selected} headers")
    } else {
        format!("no driver function `{name}` in the CUDA {selected} headers; {hint}")
    }
}

/// What a table cannot derive, and why: the table writes `Default` itself, and holds function
/// pointers resolved on first use, which are neither values to copy nor to compare.
fn derive_problem(name: &str, table: &Ident) -> Option<String> {
    let problem = match name {
        "Default" => format!(
            "`{table}` already implements `Default` (as `{table}::new()`): remove `Default` from the derive"
        ),
        "Clone" | "Copy" => format!(
            "a table cannot be `{name}`: it holds the function pointers it resolves on first use; \
             share one table by reference instead (e.g. `static CU: {table} = {table}::new();`), \
             or make another with the same configuration: `{table}::with_config(*table.config())`. \
             Remove `{name}` from the derive"
        ),
        "PartialEq" | "Eq" | "PartialOrd" | "Ord" | "Hash" => format!(
            "a table cannot be `{name}`: it holds the function pointers it resolves on first use, not a value; \
             compare what you need instead (e.g. `{table}::FUNCTIONS`, a list of `FunctionSpec`s). \
             Remove `{name}` from the derive"
        ),
        _ => return None,
    };
    Some(problem)
}

/// The struct's attributes to re-emit: derives the table cannot have and a second
/// `#[driver_table]` are reported and left out, so they add no errors of their own.
pub fn check_attrs(item: &Item, diag: &mut Diagnostics) -> TokenStream {
    let mut out = TokenStream::new();
    for attr in &item.attrs {
        match attr {
            Attr::Other(tokens) => out.extend(tokens.clone()),
            Attr::DriverTable(tokens) => diag.spanned(
                tokens,
                format!(
                    "`{}` has two `#[driver_table]` attributes: list every function and option in one, e.g. `#[driver_table(cuInit, cuMemAlloc)]`",
                    item.ident
                ),
            ),
            Attr::Derive {
                pound,
                derive,
                paths,
            } => {
                let mut kept = TokenStream::new();
                for path in paths {
                    let name = path
                        .clone()
                        .into_iter()
                        .filter_map(|t| match t {
                            TokenTree::Ident(i) => Some(i.to_string()),
                            _ => None,
                        })
                        .last()
                        .unwrap_or_default();
                    if let Some(problem) = derive_problem(&name, &item.ident) {
                        diag.spanned(path, problem);
                        continue;
                    }
                    if !kept.is_empty() {
                        kept.extend([TokenTree::Punct(proc_macro2::Punct::new(
                            ',',
                            proc_macro2::Spacing::Alone,
                        ))]);
                    }
                    kept.extend(path.clone());
                }
                if kept.is_empty() {
                    continue;
                }
                let list = Group::new(Delimiter::Parenthesis, kept);
                let body = Group::new(
                    Delimiter::Bracket,
                    [TokenTree::Ident(derive.clone()), TokenTree::Group(list)]
                        .into_iter()
                        .collect(),
                );
                out.extend([pound.clone(), TokenTree::Group(body)]);
            }
        }
    }
    out
}
