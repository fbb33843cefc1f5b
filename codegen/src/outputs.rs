//! Which parameters are out-values: single values the driver writes through a pointer on success,
//! which a traced call reads back and shows in its event (the runtime's `tracing` feature). Decided
//! here, at generation time, from `cuda.h`'s documentation and the parameter's type, and recorded
//! per parameter in the macro's records; nothing is guessed when a program runs.
//!
//! Reading through a pointer the driver did not write is undefined behaviour, so the rule is
//! narrow: a parameter it misses only goes untraced, one it wrongly takes is a read out of bounds.
//! A parameter is an out-value when all of these hold:
//!
//! 1. The function returns `CUresult`: the value is read only after `CUDA_SUCCESS`, and a function
//!    that returns something else has no success to read after.
//! 2. Its type is `*mut T` (a `*const T` is read by the driver, not written).
//! 3. Its `\param` text says the driver returns a value through it: the text begins with
//!    `Returned` or `Returns` (`\param dptr - Returned device pointer`), or with `Pointer to`,
//!    `Location to` or `Optional location to`, then `return` or `store` (`\param pfn - Location to
//!    return the function pointer`). An ABI `cuda.h` declares without a comment (the old ABIs kept
//!    for old binaries) takes the text of the same parameter in the newest documented ABI of its
//!    function.
//! 4. `T` is one value of a type every bit pattern of which is valid and which has `Debug`: an
//!    integer or floating-point number other than `char`-sized ones (`char *` is text or bytes),
//!    a pointer (a handle such as `CUcontext`, a host address, a pointer to an array: the pointer
//!    itself is one value), or one of the bindings' enums (a newtype of an integer). Not `void`,
//!    not a struct or union (`CUuuid`, the descriptors), not a function pointer.
//! 5. Nothing says it is an array: no other parameter counts its elements (`numNodes` for `nodes`,
//!    `numDependencies_out` for `dependencies_out`), the function has no count that names no
//!    parameter (`numEdges`, `count`, `len`: then every candidate of the function is left out,
//!    as any of them may be what it counts), its text does not speak of several values
//!    (`array of`, `arrays`, `each`, `list`), and it is not one of the few arrays listed by name
//!    in `ARRAYS` (`float *pBorderColor`, four floats "Returned Type and Value of RGBA color").
//! 6. Nothing makes the write conditional on more than `CUDA_SUCCESS` (the trace knows only the
//!    result, so such a value may be the caller's placeholder, or uninitialised). Two rules, each
//!    leaving the parameter out:
//!    - 6a, the parameter's own text: its `\param` text names a condition, with the word `if`,
//!      `when`, `unless` or `only` ("Returned handle, only if the stream is capturing"), and
//!      does not say what is written otherwise (`or NULL`, `otherwise`: "Returned green context
//!      if the stream is associated with a green context or NULL if not" is always written).
//!    - 6b, the function's text: a sentence says values are returned, or valid, only under a
//!      condition (`returned only if`, `returned only when`, `valid only if`, `valid only when`).
//!      It covers the parameters its subject names by their name without `_out` ("A valid id is
//!      returned only if ..." covers `id_out`), or, naming none, every out-value of the function
//!      but those it excepts with "other than" (`cuStreamGetCaptureInfo`: "Valid data (other than
//!      capture status) is returned only if both of the following are true: the call returns
//!      CUDA_SUCCESS \[and\] the returned capture status is CU_STREAM_CAPTURE_STATUS_ACTIVE" leaves
//!      out `id_out`, `graph_out` and `numDependencies_out`, and keeps `captureStatus_out`).
//!
//!    The condition is not recorded for the trace to test: a parameter left out is shown as the
//!    address it was passed, as any other argument.
//!
//! `cargo run -p cuda-driver-table-codegen --release -- outputs` lists what this marks in every
//! release, and what the documentation calls returned but the rule leaves out, with the reason.

use crate::manifest::{Function, Manifest};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// What the rule decided for one parameter whose documentation calls it returned.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Decision {
    /// An out-value: read and shown after a successful call.
    Out,
    /// Documented as returned, left out for this reason.
    Left(String),
}

/// The types of the bindings the rule needs: aliases, and which structs are enums.
pub struct Types {
    aliases: HashMap<String, syn::Type>,
    /// bindgen's newtype enums (`pub struct CUmemorytype_enum(pub c_uint)`, deriving `Debug`).
    enums: HashSet<String>,
}

impl Types {
    /// Reads the bindings (bindgen's output, without its `extern` blocks).
    pub fn collect(file: &syn::File) -> Self {
        let mut aliases = HashMap::new();
        let mut enums = HashSet::new();
        for item in &file.items {
            match item {
                syn::Item::Type(t) if t.generics.params.is_empty() => {
                    aliases.insert(t.ident.to_string(), (*t.ty).clone());
                }
                syn::Item::Use(u) => {
                    if let syn::UseTree::Path(p) = &u.tree {
                        if let syn::UseTree::Rename(r) = &*p.tree {
                            let target = &r.ident;
                            aliases.insert(r.rename.to_string(), syn::parse_quote!(#target));
                        }
                    }
                }
                syn::Item::Struct(s) => {
                    let syn::Fields::Unnamed(fields) = &s.fields else {
                        continue;
                    };
                    let one_integer = fields.unnamed.len() == 1
                        && matches!(primitive(&fields.unnamed[0].ty), Some(p) if is_integer(p));
                    let derives = |name: &str| {
                        s.attrs.iter().any(|a| {
                            a.path().is_ident("derive")
                                && crate::parse::tokens_text(&a.meta).contains(name)
                        })
                    };
                    if one_integer && derives("Debug") && derives("Copy") {
                        enums.insert(s.ident.to_string());
                    }
                }
                _ => {}
            }
        }
        Types { aliases, enums }
    }

    /// Why a value of type `ty` cannot be read and shown as one value, or `None` when it can
    /// (point 4 of the rule).
    fn not_one_value(&self, ty: &syn::Type) -> Option<String> {
        let mut ty = ty;
        for _ in 0..32 {
            match ty {
                syn::Type::Ptr(_) => return None,
                syn::Type::Path(p) => {
                    if let Some(name) = primitive(ty) {
                        return match name {
                            "c_void" => Some("untyped (void)".into()),
                            "c_char" | "c_schar" | "c_uchar" | "i8" | "u8" => {
                                Some(format!("text or bytes ({name})"))
                            }
                            _ if is_integer(name)
                                || matches!(name, "c_float" | "c_double" | "f32" | "f64") =>
                            {
                                None
                            }
                            _ => Some(format!("not a number ({name})")),
                        };
                    }
                    let last = p.path.segments.last()?;
                    let name = last.ident.to_string();
                    if self.enums.contains(&name) {
                        return None;
                    }
                    match self.aliases.get(&name) {
                        Some(target) if p.path.segments.len() == 1 => ty = target,
                        _ if name == "Option" => return Some("a function pointer".into()),
                        _ => return Some(format!("a struct or union ({name})")),
                    }
                }
                other => {
                    return Some(format!(
                        "not one value ({})",
                        crate::parse::tokens_text(other)
                    ))
                }
            }
        }
        Some("an alias that does not end".into())
    }
}

/// The name of a primitive type (`c_uint`, `usize`), if `ty` is a path to one.
fn primitive(ty: &syn::Type) -> Option<&'static str> {
    const PRIMITIVES: &[&str] = &[
        "c_void",
        "c_char",
        "c_schar",
        "c_uchar",
        "c_short",
        "c_ushort",
        "c_int",
        "c_uint",
        "c_long",
        "c_ulong",
        "c_longlong",
        "c_ulonglong",
        "c_float",
        "c_double",
        "i8",
        "u8",
        "i16",
        "u16",
        "i32",
        "u32",
        "i64",
        "u64",
        "i128",
        "u128",
        "isize",
        "usize",
        "f32",
        "f64",
        "bool",
    ];
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?.ident.to_string();
    PRIMITIVES.iter().copied().find(|n| *n == last)
}

fn is_integer(name: &str) -> bool {
    !matches!(
        name,
        "c_void" | "c_float" | "c_double" | "f32" | "f64" | "bool"
    )
}

/// Whether a `\param` text says the driver returns a value through the parameter (point 3).
pub fn says_returned(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["Returned" | "Returns", ..] => true,
        ["Pointer" | "Location", "to", verb, ..] | ["Optional", "location", "to", verb, ..] => {
            matches!(*verb, "return" | "store")
        }
        _ => false,
    }
}

/// Whether a `\param` text speaks of several values (point 5).
fn speaks_of_several(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|w| w == ["array", "of"])
        || words
            .iter()
            .any(|w| matches!(*w, "arrays" | "each" | "list"))
}

/// Whether a `\param` text makes the value depend on a condition (point 6a).
fn names_a_condition(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let conditional = words
        .iter()
        .any(|w| matches!(*w, "if" | "when" | "unless" | "only"));
    let otherwise = words.windows(2).any(|w| w == ["or", "null"]) || words.contains(&"otherwise");
    conditional && !otherwise
}

/// The phrases of a sentence that returns values only under a condition (point 6b).
const CONDITIONAL_RETURNS: &[&str] = &[
    "returned only if",
    "returned only when",
    "valid only if",
    "valid only when",
];

/// The sentences of a function's text (its doxygen without the `\param` blocks) that say values
/// are returned only under a condition (point 6b), with their whitespace joined.
fn conditional_sentences(doxygen: &str) -> Vec<String> {
    // Paragraphs: a blank line or a command (`\brief`, `\param`) starts one.
    let mut paragraphs = vec![String::new()];
    let mut in_param = false;
    for line in doxygen.lines().map(str::trim) {
        if line.is_empty() || line.starts_with(['\\', '@']) {
            in_param = line.starts_with("\\param") || line.starts_with("@param");
            paragraphs.push(String::new());
        }
        if let Some(paragraph) = paragraphs.last_mut().filter(|_| !in_param) {
            paragraph.push_str(line);
            paragraph.push(' ');
        }
    }
    paragraphs
        .iter()
        .flat_map(|p| p.split_inclusive(['.', ':']))
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| {
            let lower = s.to_lowercase();
            CONDITIONAL_RETURNS.iter().any(|p| lower.contains(p))
        })
        .collect()
}

/// A parameter name as a sentence would spell it: without `_out`, lowercase, without `_`
/// (`captureStatus_out` is `capturestatus`, "capture status" once its blanks are gone).
fn spoken(name: &str) -> String {
    stem(name).to_lowercase().replace('_', "")
}

/// Whether `sentence` (one of [`conditional_sentences`]) covers parameter `name` of a function
/// with parameters `all` (point 6b): the parameters its subject names, or else all but those
/// it excepts with "other than".
fn covers(sentence: &str, name: &str, all: &[&str]) -> bool {
    let lower = sentence.to_lowercase();
    let subject = CONDITIONAL_RETURNS
        .iter()
        .filter_map(|p| lower.find(p))
        .min()
        .map_or(lower.as_str(), |at| &lower[..at]);
    let named: Vec<String> = subject
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| all.iter().any(|p| spoken(p) == *w))
        .map(str::to_string)
        .collect();
    if !named.is_empty() {
        return named.contains(&spoken(name));
    }
    let excepted = subject.split_once("other than").map(|(_, rest)| {
        rest.split([')', ',', ';'])
            .next()
            .unwrap_or_default()
            .replace(char::is_whitespace, "")
    });
    excepted != Some(spoken(name))
}

/// `x` without a trailing `_out`.
fn stem(name: &str) -> &str {
    name.strip_suffix("_out").unwrap_or(name)
}

/// The counts among a function's parameters: `numX`, `num_x`, `count`, `len`, `length` (a
/// trailing `_out` aside).
fn is_count(name: &str) -> bool {
    let name = stem(name);
    name.strip_prefix("num")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase() || c == '_'))
        || matches!(name, "count" | "len" | "length")
}

/// Whether `count` counts the elements of parameter `name`: `numNodes` those of `nodes`,
/// `numDependencies_out` those of `dependencies_out`, `numParams` those of `paramsArray`.
fn counts(count: &str, name: &str) -> bool {
    let name = stem(name);
    let name = name.strip_suffix("Array").unwrap_or(name);
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    stem(count)
        .strip_prefix("num")
        .and_then(|rest| rest.strip_prefix(first.to_ascii_uppercase()))
        == Some(chars.as_str())
}

/// Arrays whose `\param` text reads as one value and that no count goes with, by function and
/// parameter, with what they are: point 5 cannot see them, and a traced call would show their
/// first element as if it were the whole value.
const ARRAYS: &[(&str, &str, &str)] = &[(
    "cuTexRefGetBorderColor",
    "pBorderColor",
    "an array of four floats (RGBA)",
)];

/// A comment's `\param` texts by parameter name, lowercased: `cuda.h` and `cudaTypedefs.h` do not
/// always spell a name alike (`pCtx` in the comment of `cuStreamGetCtx_v2`, `pctx` in its typedef).
fn by_name(doxygen: &str) -> HashMap<String, String> {
    crate::doc::params(doxygen)
        .into_iter()
        .map(|(name, text)| (name.to_lowercase(), text))
        .collect()
}

/// The rule, for every ABI of `f`: per ABI, per parameter documented as returned, what was decided.
pub fn decide(f: &Function, types: &Types) -> Vec<BTreeMap<String, Decision>> {
    // The comment of the newest documented ABI, for ABIs declared without one.
    let newest = f.abis.iter().rev().find_map(|a| a.doc.as_deref());
    f.abis
        .iter()
        .map(|a| {
            let doc = a.doc.as_deref().or(newest).unwrap_or_default();
            let texts = by_name(doc);
            let conditional = conditional_sentences(doc);
            let names: Vec<&str> = a.params.iter().map(|p| p.name.as_str()).collect();
            let counts_here: Vec<&str> = a
                .params
                .iter()
                .map(|p| p.name.as_str())
                .filter(|n| is_count(n))
                .collect();
            // A count that names no parameter may count any of them.
            let unnamed_count = counts_here
                .iter()
                .find(|c| !a.params.iter().any(|p| counts(c, &p.name)));
            let mut out = BTreeMap::new();
            for p in &a.params {
                let Ok(syn::Type::Ptr(ptr)) = syn::parse_str::<syn::Type>(&p.ty) else {
                    continue;
                };
                let Some(text) = texts.get(&p.name.to_lowercase()) else {
                    continue;
                };
                if ptr.mutability.is_none() || !says_returned(text) {
                    continue;
                }
                let decision = if let Some((_, _, why)) = ARRAYS
                    .iter()
                    .find(|(function, param, _)| *function == f.name && *param == p.name)
                {
                    Decision::Left((*why).to_string())
                } else if a.ret != "CUresult" {
                    Decision::Left(format!("the function returns {}, not CUresult", a.ret))
                } else if let Some(why) = types.not_one_value(&ptr.elem) {
                    Decision::Left(why)
                } else if let Some(count) = counts_here.iter().find(|c| counts(c, &p.name)) {
                    Decision::Left(format!("an array counted by {count}"))
                } else if let Some(count) = unnamed_count.filter(|c| **c != p.name) {
                    Decision::Left(format!("maybe the array counted by {count}"))
                } else if speaks_of_several(text) {
                    Decision::Left(format!("described as several values: \"{text}\""))
                } else if names_a_condition(text) {
                    Decision::Left(format!("returned under a condition: \"{text}\""))
                } else if let Some(sentence) =
                    conditional.iter().find(|s| covers(s, &p.name, &names))
                {
                    Decision::Left(format!("returned only under a condition: \"{sentence}\""))
                } else {
                    Decision::Out
                };
                out.insert(p.name.clone(), decision);
            }
            out
        })
        .collect()
}

/// Marks the out-values of every function of `manifest` (`Param::out`).
pub fn mark(manifest: &mut Manifest, types: &Types) {
    for f in manifest.functions.values_mut() {
        let decisions = decide(f, types);
        for (a, decided) in f.abis.iter_mut().zip(decisions) {
            for p in &mut a.params {
                p.out = decided.get(&p.name) == Some(&Decision::Out);
            }
        }
    }
}

/// The listing of `outputs`: per function and parameter, the releases whose records mark it (or
/// leave it out, with the reason), then per release the number of functions and parameters marked.
/// `releases`: each release's version, its bindings (Rust source) and its manifest.
pub fn listing(releases: &[(u32, &str, &Manifest)]) -> Result<String, String> {
    use std::fmt::Write as _;
    let all: Vec<u32> = releases.iter().map(|r| r.0).collect();
    let mut marked: BTreeMap<(String, String), BTreeSet<u32>> = BTreeMap::new();
    let mut left: BTreeMap<(String, String, String), BTreeSet<u32>> = BTreeMap::new();
    let mut counts = Vec::new();
    for &(v, bindings, manifest) in releases {
        let bindings = syn::parse_file(bindings)
            .map_err(|e| format!("CUDA {v}: cannot read the bindings: {e}"))?;
        let types = Types::collect(&bindings);
        let (mut functions, mut params) = (0, 0);
        for f in manifest.functions.values() {
            // The default ABI's decisions: the one a table gets unless it pins another.
            let decided = decide(f, &types).pop().unwrap_or_default();
            let outs = decided.values().filter(|d| **d == Decision::Out).count();
            functions += usize::from(outs > 0);
            params += outs;
            for (p, d) in decided {
                match d {
                    Decision::Out => {
                        marked.entry((f.name.clone(), p)).or_default().insert(v);
                    }
                    Decision::Left(why) => {
                        left.entry((f.name.clone(), p, why)).or_default().insert(v);
                    }
                }
            }
        }
        counts.push((v, functions, params));
    }
    let releases_of = |set: &BTreeSet<u32>| {
        if set.len() == all.len() {
            String::new()
        } else {
            let names: Vec<String> = set
                .iter()
                .map(|v| crate::releases::release_name(*v))
                .collect();
            format!("  [{}]", names.join(", "))
        }
    };
    let mut out = String::from(
        "out-values of each function's default ABI (the releases in brackets, where not all):\n",
    );
    for ((f, p), set) in &marked {
        let _ = writeln!(out, "  {f}: {p}{}", releases_of(set));
    }
    out.push_str("\ndocumented as returned, left out:\n");
    for ((f, p, why), set) in &left {
        let _ = writeln!(out, "  {f}: {p}: {why}{}", releases_of(set));
    }
    out.push_str("\nrelease  functions  out-values\n");
    for (v, functions, params) in counts {
        let _ = writeln!(
            out,
            "{:>7}  {functions:>9}  {params:>10}",
            crate::releases::release_name(v)
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
