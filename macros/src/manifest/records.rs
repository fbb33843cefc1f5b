//! The text the generator writes for the macro, and its reader: the records of every release
//! (`manifest.txt`), each once with the releases that have it, and the doc texts of every release
//! (`docs.txt`). Text, not Rust: the compiler only embeds it (`include_str!`), and the macro reads,
//! when it runs, the records of the functions a table names in the release its feature selects.
//!
//! Both files start with a header of `#` lines ended by an empty line; the reader skips it. The
//! records, one line each, fields separated by tabs, functions sorted by name:
//!
//! ```text
//! R  <format>                                                   once, first
//! V  <release>  <release name>                                  each release, oldest first
//! F  <function>  <releases>                                     then, for each record, oldest ABI first:
//! A  <version>  <releases>  <export>  <per-thread twin>  <doc>  <return type>  <C prototype>
//! P  <parameter name>  <Rust type>  <parameter name>  <Rust type> ...
//! ```
//!
//! `<releases>` are the releases that have the function (`F`) or the record (`A`): runs of
//! consecutive releases of the `V` lines separated by commas, each `<first>-<last>` or one
//! release (`11070-12090,13000`); a release is in the run `a-b` when `a <= release <= b`. An ABI
//! whose record changed between releases (its parameters, its export, its doc) has one `A` line
//! per distinct record, their releases apart. A release's functions are those whose `F` line
//! names it, and their ABIs the `A` lines that name it: each version once, oldest first, the
//! newest the default.
//!
//! A parameter whose name is written `out:<name>` in a `P` line is an out-value: one value the
//! driver writes through it on success, which a traced call reads back (the generator's
//! `outputs.rs` says which parameters are). `-` stands for "none" in the export, twin and doc
//! fields. A twin is `<version>_<suffix>,<export>` (`7000_ptsz,cuLaunchKernel_ptsz`). The doc is
//! `-`, the code of the text of every release of the line, or, where the releases do not share
//! one, `<releases>=<code>` for each text (`-` for none) separated by spaces
//! (`11070-12060=!/| 12080-13050=!4+`). Typedef names are not stored: they are
//! `PFN_<function>_v<version>`, and `_<suffix>` after that for a twin (the generator refuses
//! headers where that does not hold).
//!
//! `docs.txt` holds every distinct line of the doc texts of all releases once, and every
//! distinct text once: their lines repeat (a function's doc over releases, the same paragraph in
//! many functions), and the compiler's memory for the macro crate grows with the bytes it embeds.
//! After its header, two sections, each a line that says how many bytes follow and how many
//! digits a code of an offset into them has:
//!
//! ```text
//! L  <bytes>  <digits>          then the lines, each ended by a line end
//! D  <bytes>  <digits>          then the texts, each the codes of its lines and a line end
//! ```
//!
//! A code is a byte offset, written in its section's number of digits `!` to `~` (94 of them,
//! `!` is 0, the most significant first: with 3 digits, 0 is `!!!` and 95 is `!""`). A text is
//! runs of lines, each the code of the offset of its first line among the `L` lines and one digit
//! that counts its lines (1 to 93), which follow one another there; a record's doc is the code of
//! the offset of its text among the `D` texts. A doc text is its lines joined by line ends. So the
//! macro reads the text a record names where it is, and nothing else of the file. A link whose
//! target ends with the name it shows is written short in the lines, its target without that name:
//! `` [`cuMemFree`](Self::) `` for `` [`cuMemFree`](Self::cuMemFree) ``, `` [`CUDA_SUCCESS`](sys::CUresult::) ``
//! for `` [`CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS) `` (a `()` the text ends with is not in the
//! target). The reader gives them as written; the macro writes them whole in the one pass over a
//! doc text that resolves its links (`docs::resolve_links`).
//!
//! Nothing here panics: a malformed file is an `Err` saying where, which the macro reports at the
//! user's attribute. Reading a file checks its frame (the `R` and `V` lines, which lines come
//! where, the order of the functions, the `L` line and the bytes it counts); the lines of a
//! function and the codes of its doc text are checked when its ABIs are read, so that an expansion
//! pays for the functions its table names, not for every function of the release. This file has no
//! dependencies, so that the generator's tests read what it writes with this very code.

/// The format version of the `R` line; any other is refused.
pub const FORMAT: u32 = 5;

/// The prefix of an out-value's name in a `P` line.
const OUT: &str = "out:";

/// `None` in the export, twin and doc fields.
const NONE: &str = "-";

/// The digits of a code in `docs.txt`: `!` (0) to `~` (93).
const DIGITS: std::ops::RangeInclusive<u8> = b'!'..=b'~';

/// The most digits a code may have (94 to the 4th is 78 million bytes of lines).
const MAX_DIGITS: usize = 4;

/// How many digits there are.
const BASE: usize = 94;

/// The records of one release, checked and indexed by function.
#[cfg_attr(test, derive(Debug))]
pub struct Index<'a> {
    pub release: u32,
    pub release_name: &'a str,
    /// Every function of the release, sorted by name.
    pub entries: Vec<Entry<'a>>,
    docs: Docs<'a>,
}

/// The two sections of `docs.txt`.
#[derive(Default)]
#[cfg_attr(test, derive(Debug))]
struct Docs<'a> {
    /// Every line, each ended by a line end.
    lines: Section<'a>,
    /// Every text, as the codes of its lines and a line end.
    texts: Section<'a>,
}

/// A section of `docs.txt`: its items, each ended by a line end, which codes of `digits` digits
/// name by byte offset.
#[derive(Default)]
#[cfg_attr(test, derive(Debug))]
struct Section<'a> {
    items: &'a str,
    digits: usize,
}

/// One function's place in the records: its `F` line, read, and its other lines, not yet.
#[cfg_attr(test, derive(Debug))]
pub struct Entry<'a> {
    pub name: &'a str,
    /// The `A` and `P` lines after the `F` line, of every release.
    lines: &'a str,
    /// The line number of the first of them (1-based, in the whole file), for messages.
    line: usize,
}

/// One ABI, as read from its `A` and `P` lines.
#[derive(Default)]
#[cfg_attr(test, derive(Clone, Debug, PartialEq, Eq))]
pub struct AbiRecord<'a> {
    pub version: u32,
    pub export: Option<&'a str>,
    pub per_thread: Option<PerThreadRecord<'a>>,
    /// The Markdown doc text, `""` when there is none, its links as written (some short).
    pub doc: String,
    pub ret: &'a str,
    pub c_prototype: &'a str,
    /// (C name, Rust type) of each parameter.
    pub params: Vec<(&'a str, &'a str)>,
    /// The names of the out-values among them, in order.
    pub outs: Vec<&'a str>,
}

/// The `_ptds`/`_ptsz` twin of an ABI.
#[cfg_attr(test, derive(Clone, Debug, PartialEq, Eq))]
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

/// The lines of `text`, each ended by a line end but perhaps the last, with the byte offset
/// where each starts.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_terminator('\n').scan(0, |at, line| {
        let start = *at;
        *at += line.len() + 1;
        Some((start, line))
    })
}

/// The text after a file's header, and the line number it starts at (1-based). The header is
/// every line up to the first empty one; each must start with `#`.
pub fn body(text: &str) -> Result<(&str, usize), String> {
    for (i, (start, line)) in lines(text).enumerate() {
        if line.is_empty() {
            return Ok((text.get(start + 1..).unwrap_or(""), i + 2));
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

/// `"line <n>: <e>"`, the form of every error about a line.
fn at_line(n: usize, e: String) -> String {
    format!("line {n}: {e}")
}

/// Reads the `R` line and the `V` lines at the start of `text` (the body of `manifest.txt`, which
/// starts at line `first`): every release with its name, oldest first, and the text after them
/// with the number of its first line.
#[allow(clippy::type_complexity)]
fn read_releases(text: &str, first: usize) -> Result<(Vec<(u32, &str)>, &str, usize), String> {
    let Some((line, mut rest)) = text.split_once('\n') else {
        return Err("no `R` line".to_string());
    };
    read_format(line).map_err(|e| at_line(first, e))?;
    let mut n = first + 1;
    let mut releases: Vec<(u32, &str)> = Vec::new();
    while rest.starts_with("V\t") {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let fields: Vec<&str> = line.split('\t').collect();
        let ["V", release, name] = fields[..] else {
            return Err(format!(
                "line {n}: a `V` line is `V <release> <release name>`"
            ));
        };
        let release = number(release).map_err(|e| at_line(n, e))?;
        if releases.last().is_some_and(|(last, _)| *last >= release) {
            return Err(format!(
                "line {n}: the release {release} is not in order (oldest first, each once)"
            ));
        }
        releases.push((release, name));
        rest = after;
        n += 1;
    }
    Ok((releases, rest, n))
}

impl<'a> Index<'a> {
    /// Reads the records of `release` from `records` (the whole `manifest.txt`) and `docs` (the
    /// whole `docs.txt`), checking their frame: each function's lines are checked by
    /// [`Index::abis`].
    pub fn read(records: &'a str, docs: &'a str, release: u32) -> Result<Self, String> {
        const CR_LF: &str =
            "the files have Windows line ends (CR LF): they must be read as written \
                             (git: `.gitattributes` marks them `-text`)";
        if records.contains('\r') {
            return Err(CR_LF.to_string());
        }
        // `docs.txt` is read where the records point, not searched whole: a line end it should not
        // have breaks the byte counts of its sections, and is looked for only then.
        let docs = match body(docs) {
            Ok((text, first)) => match Docs::read(text, first) {
                Ok(docs) => docs,
                Err(_) if docs.contains('\r') => return Err(CR_LF.to_string()),
                Err(e) => return Err(format!("docs.txt {e}")),
            },
            Err(e) => return Err(format!("docs.txt: {e}")),
        };
        let (text, first) = body(records)?;
        let (releases, text, first) = read_releases(text, first)?;
        let Some(&(_, release_name)) = releases.iter().find(|(v, _)| *v == release) else {
            return Err(format!("no `V` line names the release {release}"));
        };
        let mut index = Index {
            release,
            release_name,
            entries: Vec::new(),
            docs,
        };
        // The last function's name, and where the lines of the last one of the release start.
        let mut last: Option<&str> = None;
        let mut open: Option<(Entry<'a>, usize)> = None;
        for ((start, line), n) in lines(text).zip(first..) {
            let mut fields = line.split('\t');
            match fields.next() {
                Some("F") => {
                    if let Some((entry, from)) = open.take() {
                        index.close(entry, &text[from..start]);
                    }
                    let (Some(name), Some(runs), None) =
                        (fields.next(), fields.next(), fields.next())
                    else {
                        return Err(format!("line {n}: an `F` line is `F <function> <releases>`"));
                    };
                    if last.is_some_and(|last| last >= name) {
                        return Err(format!(
                            "line {n}: `{name}` is not in order (functions are sorted by name, each once)"
                        ));
                    }
                    last = Some(name);
                    if runs_contain(runs, release).map_err(|e| at_line(n, e))? {
                        let entry = Entry {
                            name,
                            lines: "",
                            line: n + 1,
                        };
                        open = Some((entry, start + line.len() + 1));
                    }
                }
                Some("A" | "P") if last.is_some() => {}
                _ => {
                    return Err(format!(
                        "line {n}: expected an `F`, `A` or `P` line (the `V` lines come first, an `A` or `P` line after an `F` line)"
                    ))
                }
            }
        }
        if let Some((entry, from)) = open.take() {
            index.close(entry, text.get(from..).unwrap_or(""));
        }
        Ok(index)
    }

    /// Keeps an entry, with its lines (checked when its ABIs are read).
    fn close(&mut self, mut entry: Entry<'a>, lines: &'a str) {
        entry.lines = lines;
        self.entries.push(entry);
    }

    /// No release: no functions.
    pub fn empty() -> Self {
        Index {
            release: 0,
            release_name: "",
            entries: Vec::new(),
            docs: Docs::default(),
        }
    }

    /// Where in [`Index::entries`] the function named `name` is, if the release has it.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.entries.binary_search_by(|e| e.name.cmp(name)).ok()
    }

    /// Every ABI of an entry in the release, oldest first (the newest is the default), with its
    /// doc text: its lines checked and its doc decoded now.
    pub fn abis(&self, entry: &Entry<'a>) -> Result<Vec<AbiRecord<'a>>, String> {
        let records = self.records(entry)?;
        if records.is_empty() {
            return Err(format!(
                "line {}: `{}` has no `A` line of the release {}",
                entry.line - 1,
                entry.name,
                self.release
            ));
        }
        records
            .into_iter()
            .map(|(mut abi, doc, n)| {
                if let Some(codes) = doc {
                    abi.doc = self.docs.text(codes).map_err(|e| at_line(n, e))?;
                }
                Ok(abi)
            })
            .collect()
    }

    /// Every ABI of an entry in the release, oldest first, without its doc text: the codes of
    /// that, if any, and the number of its `A` line.
    #[allow(clippy::type_complexity)]
    fn records(
        &self,
        entry: &Entry<'a>,
    ) -> Result<Vec<(AbiRecord<'a>, Option<&'a str>, usize)>, String> {
        let mut out: Vec<(AbiRecord<'a>, Option<&'a str>, usize)> = Vec::new();
        let mut lines = entry.lines.split_terminator('\n');
        let mut n = entry.line;
        while let Some(line) = lines.next() {
            let Some(p) = lines.next() else {
                return Err(format!("line {n}: an `A` line needs its `P` line"));
            };
            match self.read_abi(line, p) {
                Ok(None) => {}
                Ok(Some((abi, doc))) => {
                    if let Some((last, _, _)) = out.last() {
                        if last.version >= abi.version {
                            return Err(format!(
                                "line {n}: ABI {} of `{}` is not in order in the release {} (oldest first, each once)",
                                abi.version, entry.name, self.release
                            ));
                        }
                    }
                    out.push((abi, doc, n));
                }
                Err((0, e)) => return Err(at_line(n, e)),
                Err((_, e)) => return Err(at_line(n + 1, e)),
            }
            n += 2;
        }
        Ok(out)
    }

    /// An `A` line and its `P` line, without the doc text: the codes of that, if any; `None` when
    /// the line is not of the release. An error says which of the two lines (0, 1) it is about.
    #[allow(clippy::type_complexity)]
    fn read_abi(
        &self,
        line: &'a str,
        p: &'a str,
    ) -> Result<Option<(AbiRecord<'a>, Option<&'a str>)>, (usize, String)> {
        // `A` and seven fields, the last (the C prototype) the rest of the line.
        let fields: Vec<&str> = line.splitn(8, '\t').collect();
        let ["A", version, runs, export, twin, doc, ret, c_prototype] = fields[..] else {
            return Err((
                0,
                "an `A` line is `A <version> <releases> <export> <twin> <doc> <return type> <C prototype>`"
                    .to_string(),
            ));
        };
        if !runs_contain(runs, self.release).map_err(|e| (0, e))? {
            return Ok(None);
        }
        if ret.is_empty() || c_prototype.is_empty() {
            return Err((
                0,
                "an `A` line needs a return type and a C prototype".to_string(),
            ));
        }
        let mut abi = AbiRecord {
            version: number(version).map_err(|e| (0, e))?,
            export: optional(export),
            per_thread: match optional(twin) {
                None => None,
                Some(twin) => Some(read_twin(twin).map_err(|e| (0, e))?),
            },
            doc: String::new(),
            ret,
            c_prototype,
            params: Vec::new(),
            outs: Vec::new(),
        };
        let doc = doc_of(doc, self.release).map_err(|e| (0, e))?;
        read_params(p, &mut abi).map_err(|e| (1, e))?;
        Ok(Some((abi, doc)))
    }
}

/// Whether `release` is in `runs` (`11070-12090,13000`).
fn runs_contain(runs: &str, release: u32) -> Result<bool, String> {
    let mut found = false;
    for run in runs.split(',') {
        let (first, last) = run.split_once('-').unwrap_or((run, run));
        let (first, last) = (number(first)?, number(last)?);
        if first > last {
            return Err(format!("the run `{run}` goes backwards"));
        }
        found |= (first..=last).contains(&release);
    }
    Ok(found)
}

/// The code of the doc text of `release` in a doc field: `-`, one code, or `<releases>=<code>`
/// for each text, separated by spaces (a code has no space).
fn doc_of(field: &str, release: u32) -> Result<Option<&str>, String> {
    if !field.contains(' ') {
        return Ok(optional(field));
    }
    for each in field.split(' ') {
        // The releases have no `=`; a code may.
        let Some((runs, code)) = each.split_once('=') else {
            return Err(format!(
                "a doc of several texts is `<releases>=<code>` for each, not `{each}`"
            ));
        };
        if runs_contain(runs, release)? {
            return Ok(optional(code));
        }
    }
    Err(format!(
        "the doc `{field}` names no text of the release {release}"
    ))
}

impl<'a> Docs<'a> {
    /// Reads the text after the header of `docs.txt`, which starts at line `first`. Errors start
    /// with `line <n>: ` (in the whole file).
    fn read(text: &'a str, first: usize) -> Result<Self, String> {
        let (lines, rest) = Section::read(text, "L", &|| first)?;
        // The line numbers after the `L` line, counted only for a message.
        let texts_at = || first + 1 + lines.items.matches('\n').count();
        let (texts, rest) = Section::read(rest, "D", &texts_at)?;
        if !rest.is_empty() {
            return Err(format!(
                "line {}: the file goes on after its `D` section",
                texts_at() + 1 + texts.items.matches('\n').count()
            ));
        }
        Ok(Docs { lines, texts })
    }

    /// The doc text a record names by `code`, its codes checked.
    fn text(&self, code: &str) -> Result<String, String> {
        let codes = self.texts.item(code, "texts")?;
        let digits = self.lines.digits;
        if codes.is_empty() || !codes.len().is_multiple_of(digits + 1) {
            return Err(format!(
                "the doc `{code}` names a text that is not runs of a code of {digits} digits and a count of 1"
            ));
        }
        let mut out = String::new();
        for (i, run) in codes.as_bytes().chunks(digits + 1).enumerate() {
            let (first, count) = run.split_at(digits);
            // A chunk of a damaged text may cut a character: then it is no code.
            let first = std::str::from_utf8(first).unwrap_or_default();
            let lines = self.lines.items_from(first, "lines")?;
            let count = count.first().copied().and_then(digit).unwrap_or(0);
            let mut taken = 0;
            for line in lines.split_terminator('\n').take(count) {
                if i > 0 || taken > 0 {
                    out.push('\n');
                }
                out.push_str(line);
                taken += 1;
            }
            if count == 0 || taken < count {
                return Err(format!(
                    "the doc `{code}` names a run of {count} lines from `{first}`, and {taken} are there"
                ));
            }
        }
        Ok(out)
    }
}

impl<'a> Section<'a> {
    /// The section of `tag` at the start of `text` (at the line `n` gives), and the text after
    /// it.
    fn read(text: &'a str, tag: &str, n: &dyn Fn() -> usize) -> Result<(Self, &'a str), String> {
        let usage = format!("`{tag} <bytes> <digits>`");
        let Some((line, rest)) = text.split_once('\n') else {
            return Err(format!("ends before its {usage} line"));
        };
        let fields: Vec<&str> = line.split('\t').collect();
        let [first, bytes, digits] = fields[..] else {
            return Err(format!("line {}: expected the line {usage}", n()));
        };
        let (true, Ok(bytes), Ok(digits)) = (
            first == tag,
            bytes.parse::<usize>(),
            digits.parse::<usize>(),
        ) else {
            return Err(format!("line {}: expected the line {usage} (numbers)", n()));
        };
        if !(1..=MAX_DIGITS).contains(&digits) {
            return Err(format!(
                "line {}: a code has 1 to {MAX_DIGITS} digits, not {digits}",
                n()
            ));
        }
        let items = rest
            .get(..bytes)
            .filter(|items| items.is_empty() || items.ends_with('\n'));
        let Some(items) = items else {
            return Err(format!(
                "line {}: the `{tag}` line counts {bytes} bytes of items, each ended by a line end; the file has {} after it",
                n(),
                rest.len()
            ));
        };
        Ok((Section { items, digits }, &rest[bytes..]))
    }

    /// The item `code` names (without its line end); an error names the section `what`.
    fn item(&self, code: &str, what: &str) -> Result<&'a str, String> {
        let items = self.items_from(code, what)?;
        Ok(items.split_once('\n').map_or(items, |(item, _)| item))
    }

    /// The items from the one `code` names on, each ended by a line end; an error names the
    /// section `what`.
    fn items_from(&self, code: &str, what: &str) -> Result<&'a str, String> {
        let mut at = (code.len() == self.digits).then_some(0);
        for byte in code.bytes() {
            at = match (at, digit(byte)) {
                (Some(at), Some(digit)) => Some(at * BASE + digit),
                _ => None,
            };
        }
        let Some(at) = at else {
            return Err(format!(
                "`{code}` is not a code of the {what} of docs.txt ({} of the digits `!` to `~`)",
                self.digits
            ));
        };
        // An item starts at 0 or after a line end, so `at` is a character boundary there.
        let starts = at == 0 || self.items.as_bytes().get(at - 1) == Some(&b'\n');
        match self.items.get(at..) {
            Some(rest) if starts && !rest.is_empty() => Some(rest),
            _ => None,
        }
        .ok_or_else(|| {
            format!(
                "`{code}` names byte {at} of the {what} of docs.txt, where none starts (they have {} bytes)",
                self.items.len()
            )
        })
    }
}

/// The value of a code's digit.
fn digit(byte: u8) -> Option<usize> {
    let value = usize::from(byte.wrapping_sub(*DIGITS.start()));
    (value < BASE).then_some(value)
}

/// Which releases have which function, read from the `V` and `F` lines of `manifest.txt`: every
/// release with its name, oldest first, and each function with the releases that have it, sorted
/// by function. For errors only: the `A` and `P` lines are not read.
#[derive(Default)]
#[cfg_attr(test, derive(Debug))]
pub struct Availability<'a> {
    pub releases: Vec<(u32, &'a str)>,
    pub functions: Vec<(&'a str, Vec<u32>)>,
}

impl<'a> Availability<'a> {
    /// Reads and checks the `R`, `V` and `F` lines of `manifest.txt`.
    pub fn read(text: &'a str) -> Result<Self, String> {
        if text.contains('\r') {
            return Err("the file has Windows line ends (CR LF)".to_string());
        }
        let (text, first) = body(text)?;
        let (releases, text, first) = read_releases(text, first)?;
        let mut out = Availability {
            releases,
            functions: Vec::new(),
        };
        for (n, line) in (first..).zip(text.split_terminator('\n')) {
            let mut fields = line.split('\t');
            match (fields.next(), fields.next(), fields.next(), fields.next()) {
                (Some("F"), Some(name), Some(runs), None) => {
                    if let Some((last, _)) = out.functions.last() {
                        if *last >= name {
                            return Err(format!(
                                "line {n}: `{name}` is not in order (functions are sorted by name, each once)"
                            ));
                        }
                    }
                    let releases = out.runs(runs).map_err(|e| at_line(n, e))?;
                    out.functions.push((name, releases));
                }
                (Some("A" | "P"), ..) if !out.functions.is_empty() => {}
                _ => {
                    return Err(format!(
                    "line {n}: expected `F <function> <releases>` or an `A` or `P` line after it"
                ))
                }
            }
        }
        Ok(out)
    }

    /// The position of `release` among the `V` lines' releases.
    fn index(&self, release: &str) -> Result<usize, String> {
        let version = number(release)?;
        self.releases
            .iter()
            .position(|(v, _)| *v == version)
            .ok_or_else(|| format!("{release} is not a release of the `V` lines"))
    }

    /// `11070-12090,13000`: the releases of each run, in the order of the `V` lines.
    fn runs(&self, runs: &str) -> Result<Vec<u32>, String> {
        let mut out = Vec::new();
        for run in runs.split(',') {
            let (first, last) = run.split_once('-').unwrap_or((run, run));
            let (first, last) = (self.index(first)?, self.index(last)?);
            if first > last {
                return Err(format!("the run `{run}` goes backwards"));
            }
            for (v, _) in &self.releases[first..=last] {
                out.push(*v);
            }
        }
        Ok(out)
    }
}

/// `R <format>`.
fn read_format(line: &str) -> Result<(), String> {
    let fields: Vec<&str> = line.split('\t').collect();
    let ["R", format] = fields[..] else {
        return Err("the first line is `R <format>`".to_string());
    };
    if number(format)? != FORMAT {
        return Err(format!(
            "the records are in format {format}; this reader reads format {FORMAT}"
        ));
    }
    Ok(())
}

/// `7000_ptsz,cuLaunchKernel_ptsz` (or `7000_ptsz,-`).
fn read_twin(twin: &str) -> Result<PerThreadRecord<'_>, String> {
    let bad = || format!("a per-thread twin is `<version>_<ptds|ptsz>,<export>`, not `{twin}`");
    let Some((typedef, export)) = twin.split_once(',') else {
        return Err(bad());
    };
    let Some((version, suffix)) = typedef.split_once('_') else {
        return Err(bad());
    };
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
/// parameters, and the names of the out-values, into `abi`.
fn read_params<'a>(line: &'a str, abi: &mut AbiRecord<'a>) -> Result<(), String> {
    let mut fields = line.split('\t');
    if fields.next() != Some("P") {
        return Err("an `A` line is followed by its `P` line".to_string());
    }
    while let Some(name) = fields.next() {
        let (name, out) = match name.strip_prefix(OUT) {
            Some(name) => (name, true),
            None => (name, false),
        };
        match fields.next() {
            Some(ty) if !name.is_empty() && !ty.is_empty() => abi.params.push((name, ty)),
            _ => return Err("a `P` line holds pairs `<name> <type>`".to_string()),
        }
        if out {
            abi.outs.push(name);
        }
    }
    Ok(())
}

/// A version number.
fn number(text: &str) -> Result<u32, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a version number"))
}

fn optional(field: &str) -> Option<&str> {
    if field == NONE {
        None
    } else {
        Some(field)
    }
}
