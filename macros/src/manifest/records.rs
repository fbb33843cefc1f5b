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
//! (`7000_ptsz,cuLaunchKernel_ptsz`). A doc is the number (from 0) of a doc text of `docs.txt`,
//! where each distinct doc text of all releases is stored once. Typedef names are not stored: they
//! are `PFN_<function>_v<version>`, and `_<suffix>` after that for a twin (the generator refuses
//! headers where that does not hold).
//!
//! `docs.txt` stores its texts small, because the compiler's memory for the macro crate grows
//! with the bytes it embeds (several times their size): each distinct line of all texts once, and
//! each distinct word of those lines once. After its header, three sections, each a line of
//! counts (fields separated by tabs) and then one line per item:
//!
//! ```text
//! W  <words>  <one>  <two>      then each word: its text (a run of letters, digits and `_`, or
//!                               of other characters, with the space after it; or spaces)
//! L  <lines>  <one>  <two>      then each line of the doc texts: the codes of its words
//! D  <docs>                     then each doc text: the codes of its lines
//! ```
//!
//! A doc text is its lines joined by line ends; a line is its words, one after the other. A code
//! names an item of a section by its number (from 0; items are numbered most used first, so that
//! the short codes go to them) in digits `!` to `~` (94 of them, `!` is 0): numbers below `one`
//! are one digit, the next `94 * two` two digits, the rest three, the first digit of a longer
//! code coming after those of shorter ones. For `one = 50` and `two = 40`: 49 is `R`, 50 is `S!`,
//! 143 is `S~`, 144 is `T!`, and 50 + 94 * 40 is `{!!`. The `W` line's `<one>` and `<two>` say
//! how words are written in the `L` section, the `L` line's how lines are written in the `D`
//! section.
//!
//! `availability.txt`, for the errors that name the releases having a function, after its
//! header: `R <release> <release name>` for every release, oldest first, then
//! `F <function> <releases>` for every function of any release, sorted by name, where
//! `<releases>` is runs of consecutive releases (in the `R` lines' order) separated by commas, each
//! `<first>-<last>` or one release (`11070-12090,13000`).
//!
//! Nothing here panics: a malformed file is an `Err` saying where, which the macro reports at the
//! user's attribute. Reading a file checks its frame (the `R` line, which lines come where, the
//! order of the functions, the counts of the doc sections); the lines of a function and the codes
//! of its doc text are checked when its ABIs are read, so that an expansion pays for the functions
//! its table names, not for every function of the release. This file has no dependencies, so that the generator's
//! tests read what it writes with this very code.

/// The format version of the `R` line; any other is refused.
pub const FORMAT: u32 = 3;

/// The prefix of an out-value's name in a `P` line.
const OUT: &str = "out:";

/// `None` in the export, twin and doc fields.
const NONE: &str = "-";

/// The digits of a code in `docs.txt`: `!` (0) to `~` (93).
const DIGITS: std::ops::RangeInclusive<u8> = b'!'..=b'~';

/// How many digits there are.
const BASE: usize = 94;

/// A release's records, checked and indexed by function.
#[cfg_attr(test, derive(Debug))]
pub struct Index<'a> {
    pub release: u32,
    pub release_name: &'a str,
    /// Every function, sorted by name.
    pub entries: Vec<Entry<'a>>,
    docs: Docs<'a>,
}

/// The doc texts of `docs.txt`, each checked and decoded when asked for.
#[derive(Default)]
#[cfg_attr(test, derive(Debug))]
struct Docs<'a> {
    /// The line numbers (in the whole file) of the first line and of the first doc text.
    lines_at: usize,
    texts_at: usize,
    /// Every word, by number.
    words: Vec<&'a str>,
    /// How the lines write the numbers of words.
    word_code: Code,
    /// Every line, by number, as the codes of its words.
    lines: Vec<&'a str>,
    /// How the doc texts write the numbers of lines.
    line_code: Code,
    /// Every doc text, by number, as the codes of its lines.
    texts: Vec<&'a str>,
}

/// How the numbers of one section are written: `one` first digits stand alone, `two` start a
/// code of two digits, the rest one of three.
#[derive(Clone, Copy, Default)]
#[cfg_attr(test, derive(Debug))]
struct Code {
    one: usize,
    two: usize,
}

/// One function's place in the records: its `F` line, read, and its other lines, not yet.
#[cfg_attr(test, derive(Debug))]
pub struct Entry<'a> {
    pub name: &'a str,
    pub default: u32,
    /// The `A` and `P` lines after the `F` line.
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
    /// The Markdown doc text, `""` when there is none.
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

impl<'a> Index<'a> {
    /// Reads `records` (a `manifest_<release>.txt`) and `docs` (the whole `docs.txt`), checking
    /// their frame: each function's lines are checked by [`Index::abis`].
    pub fn read(records: &'a str, docs: &'a str) -> Result<Self, String> {
        if records.contains('\r') || docs.contains('\r') {
            return Err(
                "the files have Windows line ends (CR LF): they must be read as written \
                 (git: `.gitattributes` marks them `-text`)"
                    .to_string(),
            );
        }
        let docs = match body(docs) {
            Ok((text, first)) => match Docs::read(text, first) {
                Ok(docs) => docs,
                Err(e) => return Err(format!("docs.txt {e}")),
            },
            Err(e) => return Err(format!("docs.txt: {e}")),
        };
        let (text, first) = body(records)?;
        let mut lines = lines(text);
        let (release, release_name) = match lines.next() {
            Some((_, line)) => match read_release(line) {
                Ok(release) => release,
                Err(e) => return Err(at_line(first, e)),
            },
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
        let mut n = first;
        for (start, line) in lines {
            n += 1;
            let mut fields = line.split('\t');
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
                    if let Some(last) = index.entries.last() {
                        if last.name >= name {
                            return Err(format!(
                                "line {n}: `{name}` is not in order (functions are sorted by name, each once)"
                            ));
                        }
                    }
                    let default = match number(default) {
                        Ok(default) => default,
                        Err(e) => return Err(at_line(n, e)),
                    };
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

    /// Keeps an entry, with its lines (checked when its ABIs are read).
    fn close(&mut self, mut entry: Entry<'a>, lines: &'a str) -> Result<(), String> {
        entry.lines = lines;
        self.entries.push(entry);
        Ok(())
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

    /// Every ABI of an entry, oldest first, with its doc text: its lines checked and its doc
    /// decoded now.
    pub fn abis(&self, entry: &Entry<'a>) -> Result<Vec<AbiRecord<'a>>, String> {
        let records = self.records(entry)?;
        if records.is_empty() {
            return Err(format!(
                "line {}: `{}` has no `A` line",
                entry.line - 1,
                entry.name
            ));
        }
        if !records.iter().any(|(abi, _)| abi.version == entry.default) {
            return Err(format!(
                "line {}: the default ABI {} of `{}` is not one of its `A` lines",
                entry.line - 1,
                entry.default,
                entry.name
            ));
        }
        records
            .into_iter()
            .map(|(mut abi, doc)| {
                if let Some(doc) = doc {
                    abi.doc = self.docs.text(doc)?;
                }
                Ok(abi)
            })
            .collect()
    }

    /// Every ABI of an entry, oldest first, without its doc text: the number of that, if any.
    fn records(&self, entry: &Entry<'a>) -> Result<Vec<(AbiRecord<'a>, Option<usize>)>, String> {
        let mut out: Vec<(AbiRecord<'a>, Option<usize>)> = Vec::new();
        let mut lines = entry.lines.split_terminator('\n');
        let mut n = entry.line;
        while let Some(line) = lines.next() {
            let (mut abi, doc) = match self.read_abi(line) {
                Ok(abi) => abi,
                Err(e) => return Err(at_line(n, e)),
            };
            match lines.next() {
                Some(p) => match read_params(p, &mut abi) {
                    Ok(()) => {}
                    Err(e) => return Err(at_line(n + 1, e)),
                },
                None => return Err(format!("line {}: an `A` line needs its `P` line", n)),
            }
            if let Some((last, _)) = out.last() {
                if last.version >= abi.version {
                    return Err(format!(
                        "line {n}: ABI {} of `{}` is not in order (oldest first, each once)",
                        abi.version, entry.name
                    ));
                }
            }
            out.push((abi, doc));
            n += 2;
        }
        Ok(out)
    }

    /// An `A` line, without its parameters and doc text: the number of that, if any.
    fn read_abi(&self, line: &'a str) -> Result<(AbiRecord<'a>, Option<usize>), String> {
        // `A` and six fields, the last (the C prototype) the rest of the line.
        let fields: Vec<&str> = line.splitn(7, '\t').collect();
        let ["A", version, export, twin, doc, ret, c_prototype] = fields[..] else {
            return Err(
                "an `A` line is `A <version> <export> <twin> <doc> <return type> <C prototype>`"
                    .to_string(),
            );
        };
        if ret.is_empty() || c_prototype.is_empty() {
            return Err("an `A` line needs a return type and a C prototype".to_string());
        }
        let doc = match optional(doc) {
            None => None,
            Some(doc) => Some(self.doc(doc)?),
        };
        let abi = AbiRecord {
            version: number(version)?,
            export: optional(export),
            per_thread: match optional(twin) {
                None => None,
                Some(twin) => Some(read_twin(twin)?),
            },
            doc: String::new(),
            ret,
            c_prototype,
            params: Vec::new(),
            outs: Vec::new(),
        };
        Ok((abi, doc))
    }

    /// The number of a doc text, checked to be one of `docs.txt`.
    fn doc(&self, doc: &str) -> Result<usize, String> {
        match doc.parse::<usize>() {
            Ok(n) if n < self.docs.texts.len() => Ok(n),
            _ => Err(format!(
                "the doc `{doc}` is not the number of a text of docs.txt (it has {})",
                self.docs.texts.len()
            )),
        }
    }
}

impl<'a> Docs<'a> {
    /// Reads and checks the text after the header of `docs.txt`, which starts at line `first`.
    /// Errors start with `line <n>: ` (in the whole file).
    fn read(text: &'a str, first: usize) -> Result<Self, String> {
        let mut lines = Sections {
            lines: text.split_terminator('\n'),
            n: first,
        };
        let (words, _, word_code) = lines.section("W")?;
        let (coded_lines, lines_at, line_code) = lines.section("L")?;
        let (texts, texts_at, _) = lines.section("D")?;
        if lines.lines.next().is_some() {
            return Err(format!(
                "line {}: the file goes on after its last doc text (the `D` line counts them)",
                lines.n
            ));
        }
        Ok(Docs {
            lines_at,
            texts_at,
            words,
            word_code,
            lines: coded_lines,
            line_code,
            texts,
        })
    }

    /// The doc text numbered `doc`, its codes checked and decoded. Errors start with
    /// `docs.txt line <n>: `.
    fn text(&self, doc: usize) -> Result<String, String> {
        let at = |n: usize, problem: String| format!("docs.txt {}", at_line(n, problem));
        let Some(codes) = self.texts.get(doc) else {
            return Err(format!("docs.txt has no doc text {doc}"));
        };
        let text_at = self.texts_at + doc;
        if codes.is_empty() {
            return Err(at(text_at, "a doc text has at least one line".to_string()));
        }
        let mut out = String::new();
        for (i, line) in self.line_code.numbers(codes).enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let line = line.map_err(|bad| at(text_at, bad.message()))?;
            let Some(words) = self.lines.get(line) else {
                let count = self.lines.len();
                return Err(at(
                    text_at,
                    format!("a code names lines {line}; there are {count}"),
                ));
            };
            let line_at = self.lines_at + line;
            for word in self.word_code.numbers(words) {
                let word = word.map_err(|bad| at(line_at, bad.message()))?;
                let Some(word) = self.words.get(word) else {
                    let count = self.words.len();
                    return Err(at(
                        line_at,
                        format!("a code names words {word}; there are {count}"),
                    ));
                };
                out.push_str(word);
            }
        }
        Ok(out)
    }
}

/// The lines of `docs.txt` after its header, read section by section, with the number of the
/// next line (in the whole file).
struct Sections<'a> {
    lines: std::str::SplitTerminator<'a, char>,
    n: usize,
}

impl<'a> Sections<'a> {
    /// A section of `docs.txt`: its line `<tag> <count>` (`<one> <two>` after that for `W` and
    /// `L`), its items, and the line number of the first item.
    fn section(&mut self, tag: &str) -> Result<(Vec<&'a str>, usize, Code), String> {
        let coded = tag != "D";
        let usage = if coded {
            format!("`{tag} <count> <one> <two>`")
        } else {
            format!("`{tag} <count>`")
        };
        let Some(line) = self.lines.next() else {
            return Err(format!("ends before its {usage} line"));
        };
        let n = self.n;
        self.n += 1;
        // The tag, then one count (`D`) or three (`W`, `L`), each a number.
        let mut fields = line.split('\t');
        let counts: Option<Vec<usize>> = (fields.next() == Some(tag))
            .then(|| fields.map(|f| f.parse().ok()).collect())
            .flatten();
        let code = match (counts.as_deref(), coded) {
            (Some(&[count, one, two]), true) => {
                (count, Code::new(one, two).map_err(|e| at_line(n, e))?)
            }
            (Some(&[count]), false) => (count, Code::default()),
            _ => return Err(format!("line {n}: expected the line {usage} (numbers)")),
        };
        let (count, code) = code;
        let items: Vec<&str> = self.lines.by_ref().take(count).collect();
        self.n += items.len();
        if items.len() < count {
            return Err(format!(
                "line {n}: the `{tag}` line counts {count} items, the file ends after {}",
                items.len()
            ));
        }
        Ok((items, n + 1, code))
    }
}

/// Why a run of codes cannot be read. Small, so that reading stays fast in the macro crate,
/// which is built without optimizations.
#[derive(Clone, Copy)]
#[cfg_attr(test, derive(Debug))]
enum Bad {
    /// A byte that is not a digit.
    Digit(u8),
    /// A code whose digits stop early.
    Cut,
}

impl Bad {
    fn message(self) -> String {
        match self {
            Bad::Digit(byte) => format!(
                "`{}` is not a digit of a code (`!` to `~`)",
                byte.escape_ascii()
            ),
            Bad::Cut => "a code is cut short".to_string(),
        }
    }
}

impl Code {
    fn new(one: usize, two: usize) -> Result<Self, String> {
        if one.checked_add(two).is_some_and(|sum| sum <= BASE) {
            Ok(Code { one, two })
        } else {
            Err(format!(
                "`<one> <two>` is {one} {two}; they share {BASE} first digits"
            ))
        }
    }

    /// The numbers that `codes` writes, one after the other.
    fn numbers(self, codes: &str) -> Numbers<'_> {
        Numbers {
            code: self,
            digits: codes.as_bytes(),
        }
    }
}

/// The numbers of a run of codes, each an error if its digits are not.
struct Numbers<'t> {
    code: Code,
    digits: &'t [u8],
}

impl Iterator for Numbers<'_> {
    type Item = Result<usize, Bad>;

    fn next(&mut self) -> Option<Result<usize, Bad>> {
        let (&first, rest) = self.digits.split_first()?;
        let first = usize::from(first.wrapping_sub(*DIGITS.start()));
        if first < self.code.one {
            // The common case, kept short.
            self.digits = rest;
            Some(Ok(first))
        } else {
            Some(self.longer())
        }
    }
}

impl Numbers<'_> {
    /// The number whose code starts the digits left, when that is not a one-digit code.
    fn longer(&mut self) -> Result<usize, Bad> {
        let Code { one, two } = self.code;
        let at = |i: usize| match self.digits.get(i) {
            Some(&byte) => digit(byte),
            None => Err(Bad::Cut),
        };
        let first = at(0)?;
        let (length, number) = if first < one + two {
            (2, one + (first - one) * BASE + at(1)?)
        } else {
            let (high, low) = (at(1)?, at(2)?);
            let number = one + two * BASE + (first - one - two) * BASE * BASE + high * BASE + low;
            (3, number)
        };
        self.digits = self.digits.get(length..).unwrap_or_default();
        Ok(number)
    }
}

/// The value of a code's digit.
fn digit(byte: u8) -> Result<usize, Bad> {
    let value = usize::from(byte.wrapping_sub(*DIGITS.start()));
    if value < BASE {
        Ok(value)
    } else {
        Err(Bad::Digit(byte))
    }
}

/// `availability.txt`, read: every release with its name, oldest first, and each function with
/// the releases whose headers declare it, sorted by function.
#[derive(Default)]
#[cfg_attr(test, derive(Debug))]
pub struct Availability<'a> {
    pub releases: Vec<(u32, &'a str)>,
    pub functions: Vec<(&'a str, Vec<u32>)>,
}

impl<'a> Availability<'a> {
    /// Reads and checks every line of `availability.txt`.
    pub fn read(text: &'a str) -> Result<Self, String> {
        if text.contains('\r') {
            return Err("the file has Windows line ends (CR LF)".to_string());
        }
        let (text, first) = body(text)?;
        let mut out = Availability::default();
        for (n, line) in (first..).zip(text.split_terminator('\n')) {
            let mut fields = line.split('\t');
            let fields = (fields.next(), fields.next(), fields.next(), fields.next());
            match fields {
                (Some("R"), Some(release), Some(name), None) if out.functions.is_empty() => {
                    let release = number(release).map_err(|e| at_line(n, e))?;
                    out.releases.push((release, name));
                }
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
                _ => {
                    return Err(format!(
                        "line {n}: expected `R <release> <release name>` (every one before the first `F` line) or `F <function> <releases>`"
                    ))
                }
            }
        }
        Ok(out)
    }

    /// The position of `release` among the `R` lines' releases.
    fn index(&self, release: &str) -> Result<usize, String> {
        let version = number(release)?;
        self.releases
            .iter()
            .position(|(v, _)| *v == version)
            .ok_or_else(|| format!("{release} is not a release of the `R` lines"))
    }

    /// `11070-12090,13000`: the releases of each run, in the order of the `R` lines.
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

/// `R <format> <release> <name>`.
fn read_release(line: &str) -> Result<(u32, &str), String> {
    let fields: Vec<&str> = line.split('\t').collect();
    let ["R", format, release, name] = fields[..] else {
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
