//! The layout check: for each release, the C compiler's numbers for every struct, union, enum and
//! typedef of its `cuda.h` (size, alignment, the offset and size of every named field, the value
//! of every enumerator, and of every macro constant the bindings carry) against the Rust
//! compiler's numbers for the committed bindings as that release's feature selects them.
//!
//! The two sides share nothing but names. `header` lists what `cuda.h` declares (libclang's
//! syntax tree, not bindgen); `bindings` lists what the merged bindings hold for a release (the
//! `#[cfg]` of each item of `sys/src/generated/bindings.rs`), so that a type, field or constant
//! missing on either side is reported by name instead of stopping a compiler. `programs` writes
//! one C program (`#include <cuda.h>`, `sizeof`, `_Alignof`, `offsetof`), built with `cc`, and
//! one Rust program over the sys crate, built with `rustc` from `sys/src/lib.rs` with the
//! release's `feature` cfg (what cargo passes), and runs both. This module matches the names,
//! compares the numbers and writes the report. Nothing here writes into the repository.

mod bindings;
mod header;
mod programs;

use crate::releases::Release;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// One step of a member's path: a field's name, or the `n`-th anonymous struct or union member
/// of a record (from 1: bindgen names it `__bindgen_anon_n`; C reaches its fields by their names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Named(String),
    Anonymous(usize),
}

/// A struct or union of `cuda.h`.
#[derive(Clone, Debug, Default)]
pub struct Record {
    /// Its tag, or the typedef that names an untagged one (the name bindgen gives it).
    pub name: String,
    /// How C names it: `struct CUuuid_st`, or the typedef name.
    pub c_type: String,
    pub union: bool,
    /// `false` for a struct only declared (an opaque handle's target).
    pub complete: bool,
    /// Every named field, with the fields reached through anonymous members and through fields of
    /// an unnamed record type, as paths.
    pub members: Vec<Vec<Segment>>,
}

/// An enum of `cuda.h` and its enumerators.
#[derive(Clone, Debug, Default)]
pub struct Enum {
    pub name: String,
    pub c_type: String,
    pub constants: Vec<String>,
}

/// A typedef of `cuda.h` that names a type of its own size (not a function type, not an opaque
/// struct, not the unnamed record or enum it names).
#[derive(Clone, Debug, Default)]
pub struct Typedef {
    pub name: String,
}

/// What the check leaves out, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Bit-fields (their offsets are not bytes).
    pub bitfields: usize,
    /// Anonymous struct and union members: C cannot name them, so their own size is not
    /// measured (their fields are, through the parent).
    pub anonymous_members: usize,
    /// Fields of an unnamed record that is an array's element (the array is measured).
    pub in_arrays: usize,
    /// Enums with neither a tag nor a typedef.
    pub unnamed_enums: usize,
    /// Typedefs of incomplete types.
    pub incomplete_typedefs: usize,
    /// Macro constants of the bindings that `cuda.h` `#undef`s after use (`RESOURCE_ABI_BYTES`):
    /// no program including it can read them.
    pub undefined_macros: usize,
}

/// What one release's `cuda.h` declares.
#[derive(Clone, Debug, Default)]
pub struct Header {
    pub records: Vec<Record>,
    pub enums: Vec<Enum>,
    pub typedefs: Vec<Typedef>,
    /// Every macro the header `#undef`s.
    pub undefined: BTreeSet<String>,
    pub skipped: Skipped,
}

/// A member's path as C writes it in `offsetof` (anonymous members are transparent).
pub fn c_path(path: &[Segment]) -> String {
    path.iter()
        .filter_map(|s| match s {
            Segment::Named(n) => Some(n.as_str()),
            Segment::Anonymous(_) => None,
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Rust's keywords, which bindgen suffixes with `_` when C uses them as names (`type` -> `type_`).
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "override", "priv", "pub", "ref", "return", "self", "Self", "static", "struct",
    "super", "trait", "true", "try", "type", "typeof", "union", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield", "abstract", "become", "do", "final", "macro",
];

/// The name bindgen gives a C field or member.
fn rust_segment(s: &Segment) -> String {
    match s {
        Segment::Named(n) if RUST_KEYWORDS.contains(&n.as_str()) => format!("{n}_"),
        Segment::Named(n) => n.clone(),
        Segment::Anonymous(i) => format!("__bindgen_anon_{i}"),
    }
}

/// What both programs measure for one release, under names both sides have. A type's name is
/// the bindings' (and the key of its lines); C may spell it otherwise (`struct CUuuid_st`).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// (name, C type) of each struct, union, enum and typedef, for sizes and alignments.
    pub types: Vec<(String, String)>,
    pub fields: Vec<PlannedField>,
    /// (enum, enumerator).
    pub enumerators: Vec<(String, String)>,
    /// Integer constants of the bindings, each a macro of `cuda.h`.
    pub constants: Vec<String>,
}

/// One field to measure: where it is in C and in the bindings.
#[derive(Clone, Debug)]
pub struct PlannedField {
    /// The record's name in the bindings.
    pub record: String,
    pub c_record: String,
    pub c_path: String,
    pub rust_path: String,
    pub rust_type: String,
}

/// The counts of one release's check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub records: usize,
    pub opaque: usize,
    pub enums: usize,
    pub typedefs: usize,
    pub fields: usize,
    pub enumerators: usize,
    pub constants: usize,
    /// Differences met that [`KNOWN`] explains.
    pub known: usize,
    pub skipped: Skipped,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.records += o.records;
        self.opaque += o.opaque;
        self.enums += o.enums;
        self.typedefs += o.typedefs;
        self.fields += o.fields;
        self.enumerators += o.enumerators;
        self.constants += o.constants;
        self.known += o.known;
        self.skipped.undefined_macros += o.skipped.undefined_macros;
        self.skipped.bitfields += o.skipped.bitfields;
        self.skipped.anonymous_members += o.skipped.anonymous_members;
        self.skipped.in_arrays += o.skipped.in_arrays;
        self.skipped.unnamed_enums += o.skipped.unnamed_enums;
        self.skipped.incomplete_typedefs += o.skipped.incomplete_typedefs;
    }

    /// One line: what was compared.
    pub fn line(&self) -> String {
        format!(
            "{} structs/unions ({} opaque, by presence), {} fields, {} enums, {} enumerators, {} typedefs, {} macro constants",
            self.records + self.opaque,
            self.opaque,
            self.fields,
            self.enums,
            self.enumerators,
            self.typedefs,
            self.constants
        )
    }

    /// One line: what was left out.
    pub fn skipped_line(&self) -> String {
        let s = &self.skipped;
        format!(
            "{} anonymous members (their fields checked through the parent), {} fields inside arrays of unnamed structs, {} bit-fields, {} unnamed enums, {} typedefs of opaque types, {} macro constants cuda.h #undefs",
            s.anonymous_members,
            s.in_arrays,
            s.bitfields,
            s.unnamed_enums,
            s.incomplete_typedefs,
            s.undefined_macros
        )
    }
}

/// One release's outcome: what was compared, and every difference (empty: the layouts agree).
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub counts: Counts,
    pub problems: Vec<String>,
}

/// Matches the header's names with the bindings' for one release: the plan of what to measure,
/// and every name that one side has and the other lacks.
fn plan(header: &Header, view: &bindings::View) -> (Plan, Counts, Vec<String>) {
    let mut plan = Plan::default();
    let mut counts = Counts {
        skipped: header.skipped.clone(),
        ..Counts::default()
    };
    let mut problems = Vec::new();
    // Rust records reached from a C record, and the fields of each that C has.
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut matched: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Records reported as a whole (another kind, opaque on one side): their fields are not.
    let mut reported: BTreeSet<String> = BTreeSet::new();
    let kind = |union: bool| if union { "union" } else { "struct" };

    for r in &header.records {
        let Some(rust) = view.records.get(&r.name) else {
            problems.push(format!(
                "{} {} of cuda.h is not in the bindings",
                kind(r.union),
                r.name
            ));
            continue;
        };
        reached.insert(r.name.clone());
        if rust.union != r.union {
            problems.push(format!(
                "{} is a {} in cuda.h and a {} in the bindings",
                r.name,
                kind(r.union),
                kind(rust.union)
            ));
            reported.insert(r.name.clone());
            continue;
        }
        if !r.complete {
            counts.opaque += 1;
            if !rust.opaque {
                problems.push(format!(
                    "{} is only declared in cuda.h (opaque) but has fields in the bindings",
                    r.name
                ));
                reported.insert(r.name.clone());
            }
            continue;
        }
        if rust.opaque {
            problems.push(format!(
                "{} has fields in cuda.h but is opaque in the bindings",
                r.name
            ));
            reported.insert(r.name.clone());
            continue;
        }
        counts.records += 1;
        plan.types.push((r.name.clone(), r.c_type.clone()));
        for path in &r.members {
            match resolve(view, &r.name, path, &mut reached, &mut matched) {
                Ok((rust_path, rust_type)) => {
                    counts.fields += 1;
                    plan.fields.push(PlannedField {
                        record: r.name.clone(),
                        c_record: r.c_type.clone(),
                        c_path: c_path(path),
                        rust_path,
                        rust_type,
                    });
                }
                Err(e) => problems.push(e),
            }
        }
    }
    // Types an array of an unnamed record names are reached through the array.
    let mut arrays = Vec::new();
    for name in &reached {
        if let Some(rust) = view.records.get(name) {
            arrays.extend(rust.fields.iter().filter_map(|(_, ty)| element_name(ty)));
        }
    }
    reached.extend(arrays.into_iter().filter(|n| n.contains("__bindgen_ty_")));
    for (name, rust) in &view.records {
        if !reached.contains(name) {
            problems.push(format!(
                "{} {name} is in the bindings but not in cuda.h",
                kind(rust.union)
            ));
            continue;
        }
        if rust.opaque
            || reported.contains(name)
            || (name.contains("__bindgen_ty_") && !matched.contains_key(name))
        {
            continue;
        }
        let seen = matched.get(name).cloned().unwrap_or_default();
        for (field, _) in &rust.fields {
            if !seen.contains(field) {
                problems.push(format!(
                    "field {name}.{field} is in the bindings but not in cuda.h"
                ));
            }
        }
    }

    // The Rust names of the C enums found (the struct `CUresult` for `enum cudaError_enum`).
    let mut found: BTreeSet<&str> = BTreeSet::new();
    for e in &header.enums {
        let Some((rust, consts)) = view.enum_named(&e.name) else {
            problems.push(format!("enum {} of cuda.h is not in the bindings", e.name));
            continue;
        };
        found.insert(rust);
        counts.enums += 1;
        plan.types.push((e.name.clone(), e.c_type.clone()));
        for c in &e.constants {
            if consts.contains(c) {
                counts.enumerators += 1;
                plan.enumerators.push((e.name.clone(), c.clone()));
            } else {
                problems.push(format!(
                    "enumerator {}::{c} of cuda.h is not in the bindings",
                    e.name
                ));
            }
        }
        for c in consts {
            if !e.constants.contains(c) {
                problems.push(format!(
                    "enumerator {}::{c} is in the bindings but not in cuda.h",
                    e.name
                ));
            }
        }
    }
    for name in view.enums.keys() {
        if !found.contains(name.as_str()) {
            problems.push(format!("enum {name} is in the bindings but not in cuda.h"));
        }
    }

    for t in &header.typedefs {
        if !view.has_type(&t.name) {
            problems.push(format!(
                "typedef {} of cuda.h is not in the bindings",
                t.name
            ));
            continue;
        }
        counts.typedefs += 1;
        plan.types.push((t.name.clone(), t.name.clone()));
    }
    plan.constants = view.constants.clone();
    counts.constants = plan.constants.len();
    (plan, counts, problems)
}

/// The element type's name of an array type text (`[Foo; 4usize]` -> `Foo`).
fn element_name(ty: &str) -> Option<String> {
    let inner = ty.strip_prefix('[')?;
    let name = inner.split(';').next()?.trim();
    Some(name.rsplit("::").next()?.to_string())
}

/// A C member path as bindgen's field path: `(rust path, rust type of the last field)`, or what
/// is missing.
fn resolve(
    view: &bindings::View,
    record: &str,
    path: &[Segment],
    reached: &mut BTreeSet<String>,
    matched: &mut BTreeMap<String, BTreeSet<String>>,
) -> Result<(String, String), String> {
    let mut current = record.to_string();
    let mut rust_path = Vec::new();
    let mut ty = String::new();
    for (i, seg) in path.iter().enumerate() {
        let name = rust_segment(seg);
        let Some(rust) = view.records.get(&current) else {
            return Err(format!(
                "field {record}.{} of cuda.h: the bindings have no type {current} for it",
                c_path(path)
            ));
        };
        let Some((_, field_ty)) = rust.fields.iter().find(|(f, _)| *f == name) else {
            let what = match seg {
                Segment::Named(_) => format!("field {record}.{}", c_path(&path[..=i])),
                Segment::Anonymous(n) => format!(
                    "anonymous member {n} of {record}{} (for {})",
                    if i == 0 {
                        String::new()
                    } else {
                        format!(".{}", c_path(&path[..i]))
                    },
                    c_path(path)
                ),
            };
            return Err(format!("{what} of cuda.h is not in the bindings ({name})"));
        };
        matched
            .entry(current.clone())
            .or_default()
            .insert(name.clone());
        rust_path.push(name);
        ty = field_ty.clone();
        if i + 1 < path.len() {
            current = ty.rsplit("::").next().unwrap_or_default().to_string();
            reached.insert(current.clone());
        }
    }
    Ok((rust_path.join("."), ty))
}

/// Checks the given releases of the workspace at `root` (its `sys` crate and its generated
/// bindings), several at once; returns each release's outcome in order.
pub fn check(root: &Path, releases: &[Release]) -> Result<Vec<(Release, Outcome)>, String> {
    // Read in this thread (syn's items are not `Sync`); the views are plain text.
    let all = bindings::Bindings::read(root)?;
    let views = releases
        .iter()
        .map(|r| all.release(r.version))
        .collect::<Result<Vec<_>, _>>()?;
    drop(all);
    let edition = programs::edition(root)?;
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(releases.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<Outcome, String>>>> = releases
        .iter()
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let (Some(r), Some(view)) = (releases.get(i), views.get(i)) else {
                    break;
                };
                let outcome = check_release(root, &edition, view, r)
                    .map_err(|e| format!("CUDA {}: {e}", r.name()));
                *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
            });
        }
    });
    releases
        .iter()
        .zip(results)
        .map(|(r, m)| {
            let outcome = m
                .into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .unwrap_or_else(|| Err("a worker stopped early".to_string()))?;
            Ok((*r, outcome))
        })
        .collect()
}

fn check_release(
    root: &Path,
    edition: &str,
    view: &bindings::View,
    release: &Release,
) -> Result<Outcome, String> {
    let include = crate::fetch::fetch(release)?.include;
    let header = header::read(&include)?;
    let (plan, mut counts, mut problems) = plan(&header, view);
    let measured = programs::measure(root, edition, &include, release.version, &plan)?;
    let compared = compare(&measured.c, &measured.rust, &header.undefined, KNOWN);
    problems.extend(compared.problems);
    counts.constants -= compared.undefined;
    counts.skipped.undefined_macros = compared.undefined;
    counts.known = compared.known;
    Ok(Outcome { counts, problems })
}

/// Differences that are known and explained, by key: reported as such, not as failures, and an
/// entry whose two sides agree in a checked release fails the check (the entry is stale).
pub const KNOWN: &[(&str, &str)] = &[];

struct Compared {
    problems: Vec<String>,
    /// Known differences met.
    known: usize,
    /// Constants of the bindings that `cuda.h` defines and then `#undef`s (C cannot read them).
    undefined: usize,
}

/// The differences between the C program's lines and the Rust program's.
fn compare(
    c: &BTreeMap<String, String>,
    rust: &BTreeMap<String, String>,
    undefined: &BTreeSet<String>,
    known_differences: &[(&str, &str)],
) -> Compared {
    let mut out = Compared {
        problems: Vec::new(),
        known: 0,
        undefined: 0,
    };
    for (key, rust_value) in rust {
        let known = known_differences.iter().find(|(k, _)| k == key);
        match (c.get(key), known) {
            (Some(c_value), None) if c_value == rust_value => {}
            (Some(c_value), None) => out.problems.push(format!(
                "{key}: {c_value} in C, {rust_value} in the bindings"
            )),
            (Some(c_value), Some(_)) if c_value == rust_value => out.problems.push(format!(
                "{key}: {c_value} in C and in the bindings; remove it from layout::KNOWN"
            )),
            (Some(_), Some(_)) => out.known += 1,
            (None, _) => match key.strip_prefix("constant ") {
                Some(name) if undefined.contains(name) => out.undefined += 1,
                Some(name) => out.problems.push(format!(
                    "constant {name} of the bindings is no macro of cuda.h"
                )),
                None => out.problems.push(format!(
                    "{key}: {rust_value} in the bindings, not measured in C"
                )),
            },
        }
    }
    for key in c.keys().filter(|k| !rust.contains_key(*k)) {
        out.problems
            .push(format!("{key}: measured in C, not in the bindings"));
    }
    out
}

/// The report of [`check`]: one line per release, the differences, the totals; `Err` with the
/// whole report when any release differs.
pub fn report(outcomes: &[(Release, Outcome)]) -> Result<String, String> {
    let mut text = String::new();
    let mut total = Counts::default();
    let mut failed = 0;
    for (r, o) in outcomes {
        total.add(&o.counts);
        let known = match o.counts.known {
            0 => String::new(),
            n => format!(" ({n} known, see layout::KNOWN)"),
        };
        let _ = writeln!(
            text,
            "CUDA {}: {}{}",
            r.name(),
            o.counts.line(),
            if o.problems.is_empty() {
                format!(": equal{known}")
            } else {
                format!(": {} differences{known}", o.problems.len())
            }
        );
        if !o.problems.is_empty() {
            failed += 1;
        }
        for p in &o.problems {
            let _ = writeln!(text, "  CUDA {}: {p}", r.name());
        }
    }
    let _ = writeln!(
        text,
        "{} releases, in all: {}\nnot measured: {}",
        outcomes.len(),
        total.line(),
        total.skipped_line()
    );
    for (key, why) in KNOWN {
        let _ = writeln!(text, "known difference: {key}: {why}");
    }
    if failed == 0 {
        Ok(text)
    } else {
        Err(format!(
            "{text}the layouts of {failed} release(s) differ between the C compiler and the bindings"
        ))
    }
}

#[cfg(test)]
mod tests;
