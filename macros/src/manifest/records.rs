//! The text the generator writes for the macro, and its reader: the records of one release
//! (`manifest_<release>.txt`) and the doc texts of every release (`docs.txt`). Text, not Rust: the
//! compiler only embeds it (`include_str!`), and the macro reads, when it runs, the records of the
//! functions a table names.
//!
//! Both files start with a header of `#` lines ended by an empty line; the reader skips it. The
//! records, one line each, fields separated by tabs, functions sorted by name:
//!
//! ```text
//! R  <format>  <release>  <release name>                       once, first
//! F  <function>  <default ABI>                                  then, for each ABI, oldest first:
//! A  <version>  <export>  <per-thread twin>  <doc>  <return type>  <C prototype>
//! P  <parameter name>  <Rust type>  <parameter name>  <Rust type> ...
//! ```
//!
//! A parameter whose name is written `out:<name>` in a `P` line is an out-value: one value the
//! driver writes through it on success, which a traced call reads back (the generator's
//! `outputs.rs` says which parameters are). `-` stands for "none" in the export, twin and doc
//! fields. A twin is `<version>_<suffix>,<export>`
//! (`7000_ptsz,cuLaunchKernel_ptsz`). A doc is `<offset>+<length>`, in bytes, into the text after
//! the header of `docs.txt`, where each distinct doc text of all releases is stored once. Typedef
//! names are not stored: they are `PFN_<function>_v<version>`, and `_<suffix>` after that for a
//! twin (the generator refuses headers where that does not hold).
//!
//! Nothing here panics: a malformed file is an `Err` saying where, which the macro reports at the
//! user's attribute. This file has no dependencies, so that the generator's tests read what it
//! writes with this very code.

/// The format version of the `R` line; any other is refused.
pub const FORMAT: u32 = 2;

/// The prefix of an out-value's name in a `P` line.
const OUT: &str = "out:";

/// The separator of fields.
const TAB: char = '\t';

/// `None` in the export, twin and doc fields.
const NONE: &str = "-";

/// A release's records, checked and indexed by function.
#[derive(Debug)]
pub struct Index<'a> {
    pub release: u32,
    pub release_name: &'a str,
    /// Every function, sorted by name.
    pub entries: Vec<Entry<'a>>,
    docs: &'a str,
}

/// One function's place in the records: its `F` line, read, and its other lines, not yet.
#[derive(Debug)]
pub struct Entry<'a> {
    pub name: &'a str,
    pub default: u32,
    /// The `A` and `P` lines after the `F` line.
    lines: &'a str,
    /// The line number of the first of them (1-based, in the whole file), for messages.
    line: usize,
}

/// One ABI, as read from its `A` and `P` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbiRecord<'a> {
    pub version: u32,
    pub export: Option<&'a str>,
    pub per_thread: Option<PerThreadRecord<'a>>,
    /// The Markdown doc text, `""` when there is none.
    pub doc: &'a str,
    pub ret: &'a str,
    pub c_prototype: &'a str,
    /// (C name, Rust type) of each parameter.
    pub params: Vec<(&'a str, &'a str)>,
    /// The names of the out-values among them, in order.
    pub outs: Vec<&'a str>,
}

/// The `_ptds`/`_ptsz` twin of an ABI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerThreadRecord<'a> {
    pub version: u32,
    /// `ptds` or `ptsz`.
    pub suffix: &'a str,
    pub export: Option<&'a str>,
}

/// `PFN_cuCtxCreate_v12050`.
pub fn typedef(function: &str, version: u32) -> String {
    format!("PFN_{function}_v{version}")
}

/// `PFN_cuLaunchKernel_v7000_ptsz`.
pub fn per_thread_typedef(function: &str, twin: &PerThreadRecord<'_>) -> String {
    format!("PFN_{function}_v{}_{}", twin.version, twin.suffix)
}

/// The text after a file's header, and the line number it starts at (1-based). The header is
/// every line up to the first empty one; each must start with `#`.
pub fn body(text: &str) -> Result<(&str, usize), String> {
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        offset += line.len();
        let line = line.trim_end_matches('\n');
        if line.is_empty() {
            return Ok((&text[offset..], i + 2));
        }
        if !line.starts_with('#') {
            return Err(format!(
                "line {}: the header ends at an empty line, and each of its lines starts with `#`",
                i + 1
            ));
        }
    }
    Err("no empty line ends the header".to_string())
}

impl<'a> Index<'a> {
    /// Reads and checks every line of `records` (a `manifest_<release>.txt`), with `docs` (the
    /// whole `docs.txt`) for the doc ranges: after this, [`Index::abis`] cannot fail.
    pub fn read(records: &'a str, docs: &'a str) -> Result<Self, String> {
        if records.contains('\r') || docs.contains('\r') {
            return Err(
                "the files have Windows line ends (CR LF): they must be read as written \
                 (git: `.gitattributes` marks them `-text`)"
                    .to_string(),
            );
        }
        let (docs, _) = body(docs).map_err(|e| format!("docs: {e}"))?;
        let (text, first) = body(records)?;
        // (line number, offset in `text` where the line starts, the line).
        let mut lines = text
            .split_inclusive('\n')
            .scan(0, |offset, line| {
                let start = *offset;
                *offset += line.len();
                Some((start, line.trim_end_matches('\n')))
            })
            .enumerate()
            .map(|(i, (start, line))| (i + first, start, line));
        let (release, release_name) = match lines.next() {
            Some((n, _, line)) => read_release(line).map_err(|e| format!("line {n}: {e}"))?,
            None => return Err("no `R` line".to_string()),
        };
        let mut index = Index {
            release,
            release_name,
            entries: Vec::new(),
            docs,
        };
        // The function being read, and where its `A` and `P` lines start.
        let mut open: Option<(Entry<'a>, usize)> = None;
        for (n, start, line) in lines {
            let mut fields = line.split(TAB);
            match fields.next() {
                Some("F") => {
                    if let Some((entry, from)) = open.take() {
                        index.close(entry, &text[from..start])?;
                    }
                    let (Some(name), Some(default), None) =
                        (fields.next(), fields.next(), fields.next())
                    else {
                        return Err(format!("line {n}: an `F` line is `F <function> <default>`"));
                    };
                    if index.entries.last().is_some_and(|e| e.name >= name) {
                        return Err(format!(
                            "line {n}: `{name}` is not in order (functions are sorted by name, each once)"
                        ));
                    }
                    let default = number(default).map_err(|e| format!("line {n}: {e}"))?;
                    let entry = Entry {
                        name,
                        default,
                        lines: "",
                        line: n + 1,
                    };
                    open = Some((entry, start + line.len() + 1));
                }
                Some("A" | "P") if open.is_some() => {}
                _ => {
                    return Err(format!(
                        "line {n}: expected an `F`, `A` or `P` line (an `A` or `P` line comes after an `F` line)"
                    ))
                }
            }
        }
        if let Some((entry, from)) = open.take() {
            index.close(entry, text.get(from..).unwrap_or(""))?;
        }
        Ok(index)
    }

    /// Checks an entry's lines, then keeps it.
    fn close(&mut self, mut entry: Entry<'a>, lines: &'a str) -> Result<(), String> {
        entry.lines = lines;
        let abis = self.abis(&entry)?;
        if abis.is_empty() {
            return Err(format!(
                "line {}: `{}` has no `A` line",
                entry.line - 1,
                entry.name
            ));
        }
        if !abis.iter().any(|a| a.version == entry.default) {
            return Err(format!(
                "line {}: the default ABI {} of `{}` is not one of its `A` lines",
                entry.line - 1,
                entry.default,
                entry.name
            ));
        }
        self.entries.push(entry);
        Ok(())
    }

    /// No release: no functions.
    pub fn empty() -> Self {
        Index {
            release: 0,
            release_name: "",
            entries: Vec::new(),
            docs: "",
        }
    }

    /// Where in [`Index::entries`] the function named `name` is, if the release has it.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.entries.binary_search_by(|e| e.name.cmp(name)).ok()
    }

    /// Every ABI of an entry, oldest first, with its doc text.
    pub fn abis(&self, entry: &Entry<'a>) -> Result<Vec<AbiRecord<'a>>, String> {
        let mut out: Vec<AbiRecord<'a>> = Vec::new();
        let mut lines = entry.lines.lines().enumerate();
        while let Some((i, line)) = lines.next() {
            let n = entry.line + i;
            let abi = self.read_abi(line).map_err(|e| format!("line {n}: {e}"))?;
            let (params, outs) = match lines.next() {
                Some((_, p)) => read_params(p).map_err(|e| format!("line {}: {e}", n + 1))?,
                None => return Err(format!("line {}: an `A` line needs its `P` line", n)),
            };
            if out.last().is_some_and(|a| a.version >= abi.version) {
                return Err(format!(
                    "line {n}: ABI {} of `{}` is not in order (oldest first, each once)",
                    abi.version, entry.name
                ));
            }
            out.push(AbiRecord {
                params,
                outs,
                ..abi
            });
        }
        Ok(out)
    }

    /// An `A` line, without its parameters.
    fn read_abi(&self, line: &'a str) -> Result<AbiRecord<'a>, String> {
        let fields: Vec<&str> = line.splitn(7, TAB).collect();
        let &["A", version, export, twin, doc, ret, c_prototype] = fields.as_slice() else {
            return Err(
                "an `A` line is `A <version> <export> <twin> <doc> <return type> <C prototype>`"
                    .to_string(),
            );
        };
        if ret.is_empty() || c_prototype.is_empty() {
            return Err("an `A` line needs a return type and a C prototype".to_string());
        }
        Ok(AbiRecord {
            version: number(version)?,
            export: optional(export),
            per_thread: match optional(twin) {
                None => None,
                Some(twin) => Some(read_twin(twin)?),
            },
            doc: match optional(doc) {
                None => "",
                Some(range) => self.doc(range)?,
            },
            ret,
            c_prototype,
            params: Vec::new(),
            outs: Vec::new(),
        })
    }

    /// `<offset>+<length>` of the docs.
    fn doc(&self, range: &str) -> Result<&'a str, String> {
        let (offset, length) = range
            .split_once('+')
            .ok_or_else(|| format!("a doc is `<offset>+<length>`, not `{range}`"))?;
        let offset: usize = offset
            .parse()
            .map_err(|_| format!("`{offset}` is not an offset"))?;
        let length: usize = length
            .parse()
            .map_err(|_| format!("`{length}` is not a length"))?;
        offset
            .checked_add(length)
            .and_then(|end| self.docs.get(offset..end))
            .ok_or_else(|| {
                format!(
                    "the doc {range} is not a text of docs.txt (its texts take {} bytes)",
                    self.docs.len()
                )
            })
    }
}

/// `R <format> <release> <name>`.
fn read_release(line: &str) -> Result<(u32, &str), String> {
    let fields: Vec<&str> = line.split(TAB).collect();
    let &["R", format, release, name] = fields.as_slice() else {
        return Err("the first line is `R <format> <release> <release name>`".to_string());
    };
    if number(format)? != FORMAT {
        return Err(format!(
            "the records are in format {format}; this reader reads format {FORMAT}"
        ));
    }
    Ok((number(release)?, name))
}

/// `7000_ptsz,cuLaunchKernel_ptsz` (or `7000_ptsz,-`).
fn read_twin(twin: &str) -> Result<PerThreadRecord<'_>, String> {
    let bad = || format!("a per-thread twin is `<version>_<ptds|ptsz>,<export>`, not `{twin}`");
    let (typedef, export) = twin.split_once(',').ok_or_else(bad)?;
    let (version, suffix) = typedef.split_once('_').ok_or_else(bad)?;
    if suffix != "ptds" && suffix != "ptsz" {
        return Err(bad());
    }
    Ok(PerThreadRecord {
        version: number(version)?,
        suffix,
        export: optional(export),
    })
}

/// `P <name> <type> <name> <type> ...`, each name written `out:<name>` for an out-value: the
/// parameters, and the names of the out-values.
type Params<'a> = (Vec<(&'a str, &'a str)>, Vec<&'a str>);

fn read_params(line: &str) -> Result<Params<'_>, String> {
    let mut fields = line.split(TAB);
    if fields.next() != Some("P") {
        return Err("an `A` line is followed by its `P` line".to_string());
    }
    let mut params = Vec::new();
    let mut outs = Vec::new();
    while let Some(name) = fields.next() {
        let (name, out) = match name.strip_prefix(OUT) {
            Some(name) => (name, true),
            None => (name, false),
        };
        match fields.next() {
            Some(ty) if !name.is_empty() && !ty.is_empty() => params.push((name, ty)),
            _ => return Err("a `P` line holds pairs `<name> <type>`".to_string()),
        }
        if out {
            outs.push(name);
        }
    }
    Ok((params, outs))
}

fn number(text: &str) -> Result<u32, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a version number"))
}

fn optional(field: &str) -> Option<&str> {
    (field != NONE).then_some(field)
}
