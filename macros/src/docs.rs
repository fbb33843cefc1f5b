//! The prose of every doc comment a table gets: the struct's paragraph, its constants and
//! constructors, and each function's method and raw accessor, whose `cuda.h` documentation the
//! generator already turned into Markdown (`cuda-driver-table-codegen`'s `doc` module); what
//! depends on the table is done here.
//!
//! A link to another driver function is written `` [`cuX`](Self::cuX) `` in the manifest: it stays
//! a link when this table has a method `cuX` and becomes plain code otherwise, so rustdoc never
//! sees a link it cannot resolve. A link into the bindings is written `` [`X`](sys::X) ``: it gets
//! the path the generated code uses for the runtime crate in front (`cuda_driver_table::sys::X`).
//! Nothing here reads or writes anything but the text it is given.

use crate::check::{cuda_version, needs, Checked, Why};
use crate::manifest;
use crate::model::Backend;
use quote::ToTokens;
use syn::Ident;

/// What the docs of one table depend on.
pub struct Table<'a> {
    /// The struct's name.
    pub name: &'a Ident,
    /// Its functions.
    pub functions: &'a [Checked],
    /// Their names, for links between methods.
    methods: std::collections::HashSet<&'static str>,
    /// The runtime crate's path as rustdoc resolves it in the user's crate (`::cdt`), or the path
    /// as written where rustdoc cannot (`$crate`).
    pub krate: String,
    /// Whether `krate` resolves in a doc link.
    pub linkable: bool,
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
        let (krate, linkable) = match &table.krate {
            // rustdoc cannot resolve `$crate`, which only a macro expansion substitutes.
            Some(path) => {
                let linkable = !path
                    .segments
                    .iter()
                    .any(|s| s.ident.to_string().starts_with('$'));
                (path.to_token_stream().to_string(), linkable)
            }
            None => ("::cuda_driver_table".to_string(), true),
        };
        let krate = if linkable {
            krate.split_whitespace().collect()
        } else {
            krate
        };
        Table {
            name: &table.ident,
            functions: &table.functions,
            methods: table.functions.iter().map(|c| c.function.name).collect(),
            krate,
            linkable,
            backend: table.backend,
            per_thread: table.per_thread,
            driver: table.driver,
        }
    }

    /// `[`Error`](<path>::Error)`, or plain `` `Error` `` where rustdoc cannot resolve the path.
    fn error_link(&self) -> String {
        if self.linkable {
            format!("[`Error`]({}::Error)", self.krate)
        } else {
            "`Error`".to_string()
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
        let error_link = self.error_link();
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
        let header = format!(
            "`{}`\n\nPinned to ABI {} (`{}`{}) of CUDA {}: {}. {per_thread}\n\nResolved on the first call through the table's backend; later calls cost one atomic load.",
            abi.c_prototype,
            abi.version,
            abi.typedef,
            exported(abi.export),
            manifest::release_name(manifest::RELEASE),
            why(c),
        );
        let errors = if abi.ret == "CUresult" {
            format!("# Errors\n\nAn {error_link} when the function cannot be resolved, or when it returns a `CUresult` other than `CUDA_SUCCESS` (with the code, its name and description).")
        } else {
            format!("# Errors\n\nAn {error_link} when the function cannot be resolved.")
        };
        let has_method = |n: &str| self.methods.contains(n);
        let (summary, cuda) = cuda_doc(abi.doc, &has_method, &self.krate);
        let summary = if summary.is_empty() {
            String::new()
        } else {
            format!("{summary}\n\n")
        };
        let cuda = if cuda.is_empty() {
            String::new()
        } else {
            format!("\n\n*From `cuda.h`:*\n\n{cuda}")
        };
        let method = format!(
            "{summary}{header}{cuda}\n\n{errors}\n\n# Safety\n\nThis calls the C function `{name}` as it is: every argument must satisfy its CUDA documentation (valid, live handles; pointers valid for the reads and writes it describes, for as long as it describes, including asynchronous work)."
        );
        let accessor = format!(
            "The resolved `{name}` itself (`{}`), for hot loops and for code that wants the `CUresult`.\n\nResolves it on first use like [`Self::{name}`].\n\n# Errors\n\nAn {error_link} when it cannot be resolved.",
            abi.typedef
        );
        (method, accessor)
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

/// The summary (first paragraph) and the rest of `doc`, with its links resolved for a table that
/// has a method for each name `has_method` accepts, and whose runtime crate is at `krate` (a path
/// as tokens print it: `::cuda_driver_table`).
pub fn cuda_doc(doc: &str, has_method: &dyn Fn(&str) -> bool, krate: &str) -> (String, String) {
    let resolved = resolve_links(doc, has_method, krate);
    match resolved.split_once("\n\n") {
        Some((summary, rest)) => (summary.to_string(), rest.to_string()),
        None => (resolved, String::new()),
    }
}

/// Rewrites every `` [`text`](Self::name) `` and `` [`text`](sys::path) `` of `doc`.
///
/// The text is searched for `[` alone (a byte search) and the rest of a link matched where one
/// starts, so that the long runs of prose between links are copied, not read character by
/// character: the attribute runs unoptimised in a user's debug build, over every doc text of a
/// table.
pub fn resolve_links(doc: &str, has_method: &dyn Fn(&str) -> bool, krate: &str) -> String {
    // Intra-doc links take a path without spaces; a leading `::` is dropped (the crate's name
    // resolves through the extern prelude).
    let spaceless: String = krate.split_whitespace().collect();
    let krate = spaceless.strip_prefix("::").unwrap_or(&spaceless);
    let mut out = String::with_capacity(doc.len() + doc.len() / 8);
    let mut rest = doc;
    while let Some(start) = rest.find('[') {
        let escaped = rest[..start].ends_with('\\');
        let link = if escaped {
            None
        } else {
            parse_link(&rest[start..])
        };
        let Some((text, target, len)) = link else {
            out.push_str(&rest[..=start]);
            rest = &rest[start + 1..];
            continue;
        };
        out.push_str(&rest[..start]);
        if let Some(name) = target.strip_prefix("Self::") {
            if has_method(name) {
                out.push_str(&rest[start..start + len]);
            } else {
                out.push('`');
                out.push_str(text);
                out.push('`');
            }
        } else if let Some(path) = target.strip_prefix("sys::") {
            for part in ["[`", text, "`](", krate, "::sys::", path, ")"] {
                out.push_str(part);
            }
        } else {
            out.push_str(&rest[start..start + len]);
        }
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

/// `` [`text`](target) `` at the start of `s`: (text, target, length in bytes). The text ends at
/// the next backtick and the target at the next `)` (each found by a byte search, which may read
/// past the line where no link is); a text with a line end or a target with whitespace is no
/// link, since no link has them.
fn parse_link(s: &str) -> Option<(&str, &str, usize)> {
    let after = s.strip_prefix("[`")?;
    let text = &after[..after.find('`')?];
    let target_start = text.len() + "`](".len();
    if text.contains('\n') || !after[text.len()..].starts_with("`](") {
        return None;
    }
    let target = &after[target_start..target_start + after[target_start..].find(')')?];
    if target.contains(char::is_whitespace) {
        return None;
    }
    Some((text, target, "[`".len() + target_start + target.len() + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "Allocates memory\n\nSee [`cuMemFree`](Self::cuMemFree) and [`cuMemAllocHost()`](Self::cuMemAllocHost); returns [`CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS).\n\n# Parameters\n\n- `dptr`: \\[out] pointer";

    #[test]
    fn links_to_methods_the_table_has_stay_and_the_others_become_code() {
        let has = |n: &str| n == "cuMemFree";
        let (summary, rest) = cuda_doc(DOC, &has, ":: cuda_driver_table");
        assert_eq!(summary, "Allocates memory");
        assert_eq!(
            rest,
            "See [`cuMemFree`](Self::cuMemFree) and `cuMemAllocHost()`; returns [`CUDA_SUCCESS`](cuda_driver_table::sys::CUresult::CUDA_SUCCESS).\n\n# Parameters\n\n- `dptr`: \\[out] pointer"
        );
    }

    #[test]
    fn sys_links_follow_the_crate_path_the_table_uses() {
        let none = |_: &str| false;
        let text = resolve_links(
            "[`CUdevice`](sys::CUdevice)",
            &none,
            "crate :: reexport :: cdt",
        );
        assert_eq!(text, "[`CUdevice`](crate::reexport::cdt::sys::CUdevice)");
    }

    #[test]
    fn text_without_links_is_unchanged() {
        let none = |_: &str| false;
        for text in [
            "",
            "plain",
            "\\[`x`\\] escaped",
            "[`a`](https://x) other target",
            "[`",
        ] {
            assert_eq!(resolve_links(text, &none, "::cuda_driver_table"), text);
        }
        assert_eq!(
            cuda_doc("Only a summary", &none, "x"),
            ("Only a summary".to_string(), String::new())
        );
    }
}
