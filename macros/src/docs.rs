//! The prose of every doc comment a table gets: the struct's paragraph, its constants and
//! constructors, and each function's method and raw accessor, whose `cuda.h` documentation the
//! generator already turned into Markdown (`cuda-driver-table-codegen`'s `doc` module); what
//! depends on the table is done here.
//!
//! A link to another driver function is written `` [`cuX`](Self::cuX) `` in the manifest, or short,
//! `` [`cuX`](Self::) `` (as is any link whose target ends with the name it shows): it stays a
//! link, written whole, when this table has a method `cuX` and becomes plain code otherwise, so
//! rustdoc never sees a link it cannot resolve. A link into the bindings, `` [`X`](sys::X) ``, and one to the
//! runtime, `` [`Error`](__cdt::Error) ``, are written as the table's block names the two crates
//! (`expand`): rustdoc resolves a link in the scope of its item, so they hold whatever path the
//! table names the runtime by (`crate = ...`, `$crate` in a `macro_rules!`). Nothing here reads or
//! writes anything but the text it is given.

use crate::check::{cuda_version, needs, Checked, Why};
use crate::manifest;
use crate::model::Backend;
use std::borrow::Cow;
use syn::Ident;

/// What the docs of one table depend on.
pub struct Table<'a> {
    /// The struct's name.
    pub name: &'a Ident,
    /// Its functions.
    pub functions: &'a [Checked],
    /// Their names, sorted, for links between methods.
    methods: Vec<&'static str>,
    /// `backend = ...`, when given: without it the table takes the default configuration.
    pub backend: Option<Backend>,
    pub per_thread: bool,
    /// `driver = N`, when given (and valid).
    pub driver: Option<u32>,
}

/// The docs of a table's own items.
pub struct Items {
    /// The paragraph added to the struct's docs.
    pub table: String,
    /// Its one (private) field.
    pub field: String,
    pub functions: String,
    pub min_driver_version: String,
    pub min_driver_version_fn: String,
    pub new: String,
    pub with_config: String,
    pub config: String,
    pub resolve_all: String,
    pub raw_pointer: String,
}

impl<'a> Table<'a> {
    /// What the docs of `table` depend on.
    pub fn new(table: &'a crate::check::Table) -> Self {
        let mut methods: Vec<&'static str> =
            table.functions.iter().map(|c| c.function.name).collect();
        methods.sort_unstable();
        Table {
            name: &table.ident,
            functions: &table.functions,
            methods,
            backend: table.backend,
            per_thread: table.per_thread,
            driver: table.driver,
        }
    }

    /// The stream mode `new()` uses, in words.
    fn mode(&self) -> &'static str {
        if self.per_thread {
            "the per-thread default stream (`_ptds`/`_ptsz` ABIs where they exist)"
        } else {
            "the legacy default stream"
        }
    }

    pub fn items(&self) -> Items {
        let name = self.name;
        let mode = self.mode();
        let backend = match self.backend {
            Some(Backend::Driver) => {
                "the driver backend (`libcuda.so.1`, `cuGetProcAddress`)"
            }
            Some(Backend::Runtime) => {
                "the CUDA runtime backend only (libcudart, `cudaGetDriverEntryPointByVersion`)"
            }
            None => {
                "the CUDA runtime backend (libcudart, `cudaGetDriverEntryPointByVersion`; on a machine where no libcudart can be found at all, the driver's own `cuGetProcAddress` from `libcuda.so.1` in its place)"
            }
        };
        let in_a_static = format!(
            "Keep the table in a `static` (`static CU: {name} = {name}::new();`), not a `const`: each use of a `const` is a new table, which resolves its functions again on every call (clippy's `declare_interior_mutable_const` warns about such a `const`)."
        );
        let (targets, at_most) = match self.driver {
            Some(driver) => (
                format!(
                    " It targets drivers from CUDA {} on (`driver = {driver}`): each function is at the newest ABI such a driver has, in both stream modes, unless pinned or named by an exported symbol.",
                    cuda_version(driver)
                ),
                format!(" At most {driver}, as `driver = {driver}` asks."),
            ),
            None => (
                format!(
                    " It takes the newest ABI of each function in the CUDA {} bindings (`driver = newest`): [`Self::MIN_DRIVER_VERSION`] says what driver that needs.",
                    manifest::release_name(manifest::RELEASE)
                ),
                String::new(),
            ),
        };
        Items {
            table: format!(
                "A `#[driver_table]` of {} CUDA driver function{}: one `unsafe` method each, named as in C, resolved on its first call and kept.{targets} {in_a_static}",
                self.functions.len(),
                if self.functions.len() == 1 { "" } else { "s" }
            ),
            field: "The table's state: its configuration and one slot per function.".to_string(),
            functions: "Every function of this table, in the order listed, with the ABI it is pinned to.".to_string(),
            min_driver_version: format!(
                "The lowest driver version (`cuDriverGetVersion`'s number, e.g. `12050` for CUDA 12.5) on which every function of this table resolves with {mode}, as [`Self::new`] makes it: the newest ABI version a function is requested at, and at least what the lookup needs (`cuGetProcAddress`, 11030). Set by `min_driver_version`, the runtime crate's function of that name, at compile time.{at_most}\n\nCompare it with `cuDriverGetVersion` at start-up to fail with a clear message on an older driver, or print it in `--version`. With the runtime backend, the libcudart in use also needs a driver of at least its own major release."
            ),
            min_driver_version_fn: "The lowest driver version on which every function of this table resolves with the stream mode of its actual configuration ([`Self::config`]); see [`Self::MIN_DRIVER_VERSION`].".to_string(),
            new: format!(
                "A table that uses {backend} and {mode}, searching for the library in the documented order. Nothing is loaded until the first call.\n\n{in_a_static}"
            ),
            with_config: "A table with an explicit configuration: backend, library path and stream mode. Nothing is loaded until the first call.".to_string(),
            config: "The configuration this table resolves its functions with.".to_string(),
            resolve_all: "Resolves every function now (loading the library if needed), for programs that want to fail fast at start-up.\n\n# Errors\n\nEvery function that could not be resolved, not only the first.".to_string(),
            raw_pointer: "Resolves the function named `name` and returns its raw address; `None` when this table has no such function.".to_string(),
        }
    }

    /// The docs of a function's method and of its raw accessor (`pfn_*`): the `cuda.h` summary
    /// first, then what this table does with the function, the rest of the `cuda.h` text
    /// (Markdown, with links to the table's own methods where it has them), errors and safety.
    pub fn function(&self, c: &Checked) -> (String, String) {
        let abi = c.abi;
        let name = c.function.name;
        let exported = |export: Option<&str>| match export {
            Some(e) => format!(", exported as `{e}`"),
            None => String::new(),
        };
        let per_thread = match &abi.per_thread {
            Some(pt) => format!(
                "In per-thread mode: `{}` (ABI {}{}), requested with the per-thread flag.",
                pt.typedef,
                pt.version,
                exported(pt.export)
            ),
            None => "No per-thread variant: requested with the legacy flag in both stream modes."
                .to_string(),
        };
        // Each part after the first starts with a line end: with the one that joins two parts, a
        // blank line between paragraphs.
        let mut header = format!(
            "\n`{}`\n\nPinned to ABI {} (`{}`{}) of CUDA {}: {}. {per_thread}\n\nResolved on the first call through the table's backend; later calls cost one atomic load.",
            abi.c_prototype,
            abi.version,
            abi.typedef,
            exported(abi.export),
            manifest::release_name(manifest::RELEASE),
            why(c),
        );
        let errors = if abi.ret == "CUresult" {
            "\n# Errors\n\nAn [`Error`](__cdt::Error) when the function cannot be resolved, or when it returns a `CUresult` other than `CUDA_SUCCESS` (with the code, its name and description)."
        } else {
            "\n# Errors\n\nAn [`Error`](__cdt::Error) when the function cannot be resolved."
        };
        let safety = format!(
            "{errors}\n\n# Safety\n\nThis calls the C function `{name}` as it is: every argument must satisfy its CUDA documentation (valid, live handles; pointers valid for the reads and writes it describes, for as long as it describes, including asynchronous work)."
        );
        let (summary, cuda) = abi.doc.split_once("\n\n").unwrap_or((abi.doc, ""));
        if !cuda.is_empty() {
            header.push_str("\n\n*From `cuda.h`:*\n");
        }
        let mut method = String::with_capacity(abi.doc.len() + header.len() + safety.len() + 2);
        if summary.is_empty() {
            // No summary: the header's first line is the first paragraph.
            method.push_str(&header[1..]);
        } else {
            method.push_str(&self.links(summary));
            method.push('\n');
            method.push_str(&header);
        }
        if !cuda.is_empty() {
            method.push('\n');
            method.push_str(&self.links(cuda));
        }
        method.push('\n');
        method.push_str(&safety);
        let accessor = format!(
            "The resolved `{name}` itself (`{}`), for hot loops and for code that wants the `CUresult`.\n\nResolves it on first use like [`Self::{name}`].\n\n# Errors\n\nAn [`Error`](__cdt::Error) when it cannot be resolved.",
            abi.typedef
        );
        (method, accessor)
    }

    /// `doc` with its links resolved for this table (see [`resolve_links`]).
    fn links(&self, doc: &'static str) -> Cow<'static, str> {
        resolve_links(doc, &|name| self.methods.binary_search(&name).is_ok())
    }
}

/// Why `c` is at its ABI, in words (the end of a sentence).
fn why(c: &Checked) -> String {
    let name = c.function.name;
    match c.why {
        Why::Newest => "the newest of this release".to_string(),
        Why::Pinned => format!("pinned in the attribute (`{name} = {}`)", c.abi.version),
        Why::Export(symbol) => {
            format!("named by its exported symbol in the attribute (`{symbol}`)")
        }
        Why::Driver(driver) => {
            let target = format!(
                "a CUDA {} driver (`driver = {driver}`)",
                cuda_version(driver)
            );
            match c.function.abi(c.function.default) {
                Some(newest) if newest.version != c.abi.version => format!(
                    "the newest that {target} has; the release's newest, ABI {}, needs CUDA {}",
                    newest.version,
                    cuda_version(needs(newest))
                ),
                _ => format!("the newest of this release, which {target} has"),
            }
        }
    }
}

/// `doc` with each link to a method, `` [`text`](Self::name) ``, that `has_method` refuses made
/// plain code (`` `text` ``), so rustdoc never sees a link it cannot resolve, and each link written
/// short, its target without the name it shows (`` [`cuX()`](Self::) ``, `` [`X`](sys::E::) ``:
/// the generator's `docs_file::short_links`), written whole (`Self::cuX`, `sys::E::X`); `doc` itself when it has
/// none of either.
///
/// Links into the bindings (`sys::X`) and to the runtime (`__cdt::X`) stay as they are: the
/// table's block names both (`expand`), and rustdoc resolves a link in the scope of its item.
pub fn resolve_links<'a>(doc: &'a str, has_method: &dyn Fn(&str) -> bool) -> Cow<'a, str> {
    let mut out = String::new();
    // `doc[..copied]` is settled (in `out` once something changed); the search goes on at `from`.
    let (mut copied, mut from) = (0, 0);
    // A search for `(` alone (a byte search), then a look at the bytes around it: the attribute
    // runs unoptimised in a user's debug build, over every doc text of a table, and a link is
    // looked at whole only where it may change.
    while let Some(i) = doc[from..].find('(') {
        let paren = from + i;
        from = paren + 1;
        // `](target)` around it ...
        let Some(close) = paren.checked_sub(1).filter(|&c| doc.as_bytes()[c] == b']') else {
            continue;
        };
        let Some(end) = doc[paren + 1..].find(')').map(|n| paren + 1 + n) else {
            continue;
        };
        let target = &doc[paren + 1..end];
        // Only a link to a method, or one written short, may change.
        let method = target.strip_prefix("Self::");
        let short = target.ends_with("::");
        if method.is_none() && !short {
            continue;
        }
        // ... and `` [`text` `` before it.
        let Some(open) = doc[copied..close].rfind('[').map(|i| copied + i) else {
            continue;
        };
        let text = &doc[open + 1..close];
        if text.len() < 2
            || !text.starts_with('`')
            || !text.ends_with('`')
            || doc[..open].ends_with('\\')
        {
            continue;
        }
        // A short link names what it shows (the generator writes it short only then).
        let shown = &text[1..text.len() - 1];
        let name = short.then(|| shown.strip_suffix("()").unwrap_or(shown));
        let method = match method {
            Some("") => name,
            other => other,
        };
        if method.is_some_and(|m| !has_method(m)) {
            // A link spans no line end, and its target has no spaces.
            if text.contains('\n') || target.contains([' ', '\n']) {
                continue;
            }
            out.push_str(&doc[copied..open]);
            out.push_str(text);
            copied = end + 1;
        } else if let Some(name) = name.filter(|n| !n.contains(' ')) {
            if out.is_empty() {
                out.reserve(doc.len() + doc.len() / 8);
            }
            out.push_str(&doc[copied..end]);
            out.push_str(name);
            copied = end;
        } else {
            continue;
        }
        from = end + 1;
    }
    if copied == 0 {
        return Cow::Borrowed(doc);
    }
    out.push_str(&doc[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "See [`cuMemFree`](Self::cuMemFree) and [`cuMemAllocHost()`](Self::cuMemAllocHost); returns [`CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS).\n\n# Parameters\n\n- `dptr`: \\[out] pointer";

    #[test]
    fn links_to_methods_the_table_has_stay_and_the_others_become_code() {
        let has = |n: &str| n == "cuMemFree";
        assert_eq!(
            resolve_links(DOC, &has),
            "See [`cuMemFree`](Self::cuMemFree) and `cuMemAllocHost()`; returns [`CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS).\n\n# Parameters\n\n- `dptr`: \\[out] pointer"
        );
        let none = |_: &str| false;
        assert_eq!(
            resolve_links(
                "[`cuA`](Self::cuA)[`cuB()`](Self::cuB) (x) [`cuC`](Self::cuC).",
                &none
            ),
            "`cuA``cuB()` (x) `cuC`."
        );
    }

    /// Links written short are written whole, a method the table lacks as plain code; what only
    /// looks like one stays as it is.
    #[test]
    fn short_links_are_written_whole() {
        let has = |n: &str| n == "cuMemFree";
        assert_eq!(
            resolve_links(
                "[`cuMemFree()`](Self::), [`cuMemAlloc`](Self::), [`CUDA_SUCCESS`](sys::CUresult::), [`CUresult::CUDA_SUCCESS`](sys::) (x::) [`a b`](sys::)",
                &has
            ),
            "[`cuMemFree()`](Self::cuMemFree), `cuMemAlloc`, [`CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS), [`CUresult::CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS) (x::) [`a b`](sys::)"
        );
    }

    /// Every doc text of the selected release, its links resolved for a table that has every
    /// method, has no link left short.
    #[test]
    fn no_committed_doc_keeps_a_short_link() {
        let all = |_: &str| true;
        for f in manifest::functions() {
            for abi in f.abis {
                let doc = resolve_links(abi.doc, &all);
                assert!(
                    !doc.contains("::)"),
                    "{} {}: a short link left in {doc}",
                    f.name,
                    abi.version
                );
            }
        }
    }

    #[test]
    fn text_without_links_to_missing_methods_is_not_copied() {
        let none = |_: &str| false;
        for text in [
            "",
            "plain (with parentheses)",
            "(Self::x)",
            "\\[`x`](Self::x) escaped",
            "[`a`](https://x) other target",
            "[`CUdevice`](sys::CUdevice)",
            "[`a\nb`](Self::cuA) across a line end",
            "[`",
            "](Self::",
        ] {
            assert!(
                matches!(resolve_links(text, &none), Cow::Borrowed(t) if t == text),
                "{text:?}"
            );
        }
        let all = |_: &str| true;
        assert!(matches!(resolve_links(DOC, &all), Cow::Borrowed(_)));
    }
}
