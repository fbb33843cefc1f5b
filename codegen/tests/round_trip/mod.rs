//! The macro's records read back with the macro's own reader (`macros/src/manifest/records.rs`,
//! compiled into this test) and compared with the manifests they were written from: every
//! function, ABI, export, per-thread twin, typedef, parameter and doc text.

#[path = "../../../macros/src/manifest/records.rs"]
#[allow(dead_code)]
mod records;

use cuda_driver_table_codegen::doc::{markdown, Ref};
use cuda_driver_table_codegen::docs_file::short_links;
use cuda_driver_table_codegen::emit::Records;
use cuda_driver_table_codegen::pipeline::ParsedRelease;
use cuda_driver_table_codegen::releases::release_name;

/// What differs between the manifests of `releases` and what the macro reads from the records
/// written for them; empty when they agree.
pub fn problems(releases: &[&ParsedRelease]) -> Vec<String> {
    problems_of(&Records::collect(releases), releases)
}

/// What differs between the manifests of `releases` and what the macro reads from `written`.
pub fn problems_of(written: &Records, releases: &[&ParsedRelease]) -> Vec<String> {
    problems_in(
        &written.docs_text(releases),
        &written.manifest_text(releases),
        releases,
    )
}

/// What differs between the manifests of `releases` and what the macro reads, for each of them,
/// from the texts of `docs.txt` and `manifest.txt` (`records`).
pub fn problems_in(docs: &str, text: &str, releases: &[&ParsedRelease]) -> Vec<String> {
    let mut out = Vec::new();
    for r in releases {
        let version = r.source.version();
        let index = match records::Index::read(text, docs, version) {
            Ok(index) => index,
            Err(e) => {
                out.push(format!("{version}: {e}"));
                continue;
            }
        };
        if (index.release, index.release_name) != (version, release_name(version).as_str()) {
            out.push(format!(
                "{version}: read as {} {}",
                index.release, index.release_name
            ));
        }
        let names: Vec<&str> = index.entries.iter().map(|e| e.name).collect();
        let expected: Vec<&str> = r.manifest.functions.keys().map(String::as_str).collect();
        if names != expected {
            out.push(format!("{version}: the functions differ"));
        }
        let refs = |name: &str| {
            if r.manifest.functions.contains_key(name) {
                Ref::Function
            } else if let Some(path) = r.sys_paths.get(name) {
                Ref::Sys(path.clone())
            } else {
                Ref::Plain
            }
        };
        for entry in &index.entries {
            let Some(f) = r.manifest.functions.get(entry.name) else {
                continue;
            };
            let at = format!("{version} {}", f.name);
            let abis = match index.abis(entry) {
                Ok(abis) => abis,
                Err(e) => {
                    out.push(format!("{at}: {e}"));
                    continue;
                }
            };
            // The newest ABI of the release is its default.
            let default = abis.last().map(|a| a.version);
            if default != Some(f.default_abi().version) {
                out.push(format!("{at}: default {default:?}"));
            }
            if abis.len() != f.abis.len() {
                out.push(format!(
                    "{at}: {} ABIs read, {} written",
                    abis.len(),
                    f.abis.len()
                ));
            }
            for (read, a) in abis.iter().zip(&f.abis) {
                // As `docs.txt` stores it: its links short where they can be.
                let doc = a
                    .doc
                    .as_deref()
                    .map(|d| markdown(d, &refs))
                    .unwrap_or_default();
                let doc: Vec<String> = doc.split('\n').map(short_links).collect();
                let doc = doc.join("\n");
                let params: Vec<(&str, &str)> = a
                    .params
                    .iter()
                    .map(|p| (p.name.as_str(), p.ty.as_str()))
                    .collect();
                let outs: Vec<&str> = a
                    .params
                    .iter()
                    .filter(|p| p.out)
                    .map(|p| p.name.as_str())
                    .collect();
                let twin = read.per_thread.as_ref().map(|p| {
                    (
                        p.version,
                        records::per_thread_typedef(entry.name, p),
                        p.export,
                    )
                });
                let expected_twin = a
                    .per_thread
                    .as_ref()
                    .map(|p| (p.version, p.typedef.clone(), p.export.as_deref()));
                let same = read.version == a.version
                    && records::typedef(entry.name, read.version) == a.typedef
                    && read.export == a.export.as_deref()
                    && twin == expected_twin
                    && read.ret == a.ret
                    && read.c_prototype == a.c_prototype
                    && read.params == params
                    && read.outs == outs
                    && read.doc == doc;
                if !same {
                    out.push(format!("{at}: ABI {} reads back as {read:?}", a.version));
                }
            }
        }
    }
    out
}

/// What differs between the functions of `releases` and what the macro reads from the `V` and `F`
/// lines of `manifest.txt` (`text`): the releases and their names, and each function's releases.
pub fn availability_problems(text: &str, releases: &[&ParsedRelease]) -> Vec<String> {
    let read = match records::Availability::read(text) {
        Ok(read) => read,
        Err(e) => return vec![e],
    };
    let mut out = Vec::new();
    let expected: Vec<(u32, String)> = releases
        .iter()
        .map(|r| (r.source.version(), release_name(r.source.version())))
        .collect();
    let got: Vec<(u32, String)> = read
        .releases
        .iter()
        .map(|(v, name)| (*v, (*name).to_string()))
        .collect();
    if got != expected {
        out.push(format!("the releases read back as {got:?}"));
    }
    let mut functions: std::collections::BTreeMap<&str, Vec<u32>> = Default::default();
    for r in releases {
        for name in r.manifest.functions.keys() {
            functions
                .entry(name.as_str())
                .or_default()
                .push(r.source.version());
        }
    }
    let got: Vec<(&str, Vec<u32>)> = read.functions;
    let expected: Vec<(&str, Vec<u32>)> = functions.into_iter().collect();
    if got.len() != expected.len() {
        out.push(format!(
            "{} functions read back, {} written",
            got.len(),
            expected.len()
        ));
    }
    for (got, expected) in got.iter().zip(&expected) {
        if got != expected {
            out.push(format!("{} read back as {got:?}", expected.0));
        }
    }
    out
}
