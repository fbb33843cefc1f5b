//! The `cuda.h` documentation of a method, ready for `#[doc]`: the generator already turned it into
//! Markdown (`cuda-driver-table-codegen`'s `doc` module); what depends on the table is done here.
//!
//! A link to another driver function is written `` [`cuX`](Self::cuX) `` in the manifest: it stays
//! a link when this table has a method `cuX` and becomes plain code otherwise, so rustdoc never
//! sees a link it cannot resolve. A link into the bindings is written `` [`X`](sys::X) ``: it gets
//! the path the generated code uses for the runtime crate in front (`cuda_driver_table::sys::X`).
//! Nothing here reads or writes anything but the text it is given.

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
pub fn resolve_links(doc: &str, has_method: &dyn Fn(&str) -> bool, krate: &str) -> String {
    // Intra-doc links take a path without spaces; a leading `::` is dropped (the crate's name
    // resolves through the extern prelude).
    let krate: String = krate.chars().filter(|c| !c.is_whitespace()).collect();
    let krate = krate.strip_prefix("::").unwrap_or(&krate);
    let mut out = String::with_capacity(doc.len());
    let mut rest = doc;
    while let Some(start) = rest.find("[`") {
        let escaped = start > 0 && rest.as_bytes()[start - 1] == b'\\';
        let link = (!escaped).then(|| parse_link(&rest[start..])).flatten();
        let Some((text, target, len)) = link else {
            out.push_str(&rest[..start + 2]);
            rest = &rest[start + 2..];
            continue;
        };
        out.push_str(&rest[..start]);
        if let Some(name) = target.strip_prefix("Self::") {
            if has_method(name) {
                out.push_str(&format!("[`{text}`](Self::{name})"));
            } else {
                out.push_str(&format!("`{text}`"));
            }
        } else if let Some(path) = target.strip_prefix("sys::") {
            out.push_str(&format!("[`{text}`]({krate}::sys::{path})"));
        } else {
            out.push_str(&rest[start..start + len]);
        }
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

/// `` [`text`](target) `` at the start of `s`: (text, target, length in bytes).
fn parse_link(s: &str) -> Option<(&str, &str, usize)> {
    let after = s.strip_prefix("[`")?;
    let text_end = after.find("`](")?;
    let text = &after[..text_end];
    if text.contains('`') || text.contains('\n') {
        return None;
    }
    let target_start = text_end + 3;
    let target_len = after[target_start..].find(')')?;
    let target = &after[target_start..target_start + target_len];
    if target.contains(char::is_whitespace) {
        return None;
    }
    Some((text, target, 2 + target_start + target_len + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "Allocates memory\n\nSee [`cuMemFree`](Self::cuMemFree) and [`cuMemAllocHost()`](Self::cuMemAllocHost); returns [`CUDA_SUCCESS`](sys::cudaError_enum::CUDA_SUCCESS).\n\n# Parameters\n\n- `dptr`: \\[out] pointer";

    #[test]
    fn links_to_methods_the_table_has_stay_and_the_others_become_code() {
        let has = |n: &str| n == "cuMemFree";
        let (summary, rest) = cuda_doc(DOC, &has, ":: cuda_driver_table");
        assert_eq!(summary, "Allocates memory");
        assert_eq!(
            rest,
            "See [`cuMemFree`](Self::cuMemFree) and `cuMemAllocHost()`; returns [`CUDA_SUCCESS`](cuda_driver_table::sys::cudaError_enum::CUDA_SUCCESS).\n\n# Parameters\n\n- `dptr`: \\[out] pointer"
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
