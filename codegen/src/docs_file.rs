//! The body of the macro crate's `docs.txt`: every distinct line of the doc texts of every
//! release, once, then every distinct text as runs of its lines, each the code of its first
//! line (its byte offset) and how many lines follow on from there; a record names a text by the
//! code of its offset. The macro crate's `src/manifest/records.rs`
//! says how the text is written and reads it; this writes it.
//!
//! Why lines: the doc texts of 17 releases are most of the bytes the macro crate embeds, and
//! their lines repeat (a function's doc over releases, the same paragraph in many functions).
//! Why offsets: the macro reads a doc text where a record names it, without reading the rest of
//! the file first (it runs unoptimised in a user's debug build, once per compiler process). Why
//! runs: the lines a text brings first are written one after the other, so most of a text is a
//! few runs, and a run is 5 bytes where a code per line is 4 each.

use std::collections::HashMap;
use std::fmt::Write;

/// The digits of a code: `!` (0) to `~` (93).
const FIRST_DIGIT: u8 = b'!';

/// How many digits there are.
const BASE: usize = 94;

/// `docs.txt` after its header, for a set of doc texts, and the codes that name them.
pub struct DocsFile {
    /// The `L` section, then the `D` section.
    body: String,
    /// Each text's byte offset in the `D` section.
    at: HashMap<String, usize>,
    /// How many digits the code of a text has.
    digits: usize,
}

impl DocsFile {
    /// The file for these doc texts (each distinct): each distinct line once, in the order the
    /// texts first use them, then each text as runs of its lines (a code and a count of one
    /// digit).
    pub fn new(texts: &[&str]) -> Self {
        let mut lines = String::new();
        let mut line_at: HashMap<&str, usize> = HashMap::new();
        for line in texts.iter().flat_map(|text| text.split('\n')) {
            line_at.entry(line).or_insert_with(|| {
                let at = lines.len();
                lines.push_str(&short_links(line));
                lines.push('\n');
                at
            });
        }
        let line_digits = digits_for(lines.len());
        let mut coded = String::new();
        let mut at = HashMap::new();
        for text in texts {
            at.insert((*text).to_string(), coded.len());
            // (offset of the first line, lines, offset after the last).
            let mut runs: Vec<(usize, usize, usize)> = Vec::new();
            for line in text.split('\n') {
                let offset = line_at[line];
                match runs.last_mut() {
                    Some((_, count, end)) if *end == offset && *count < BASE - 1 => {
                        *count += 1;
                        *end += line.len() + 1;
                    }
                    _ => runs.push((offset, 1, offset + line.len() + 1)),
                }
            }
            for (first, count, _) in runs {
                write_code(&mut coded, first, line_digits);
                write_code(&mut coded, count, 1);
            }
            coded.push('\n');
        }
        let digits = digits_for(coded.len());
        let mut body = format!("L\t{}\t{line_digits}\n", lines.len());
        body.push_str(&lines);
        let _ = writeln!(body, "D\t{}\t{digits}", coded.len());
        body.push_str(&coded);
        DocsFile { body, at, digits }
    }

    /// The text after the header.
    pub fn body(&self) -> &str {
        &self.body
    }

    /// The doc field of a record for `text`: the code of its line in the `D` section; `None` for
    /// a text the file was not made for.
    pub fn code(&self, text: &str) -> Option<String> {
        let mut out = String::new();
        write_code(&mut out, *self.at.get(text)?, self.digits);
        Some(out)
    }
}

/// `line` with each link whose target ends with the name it shows written short, its target
/// without that name: `` [`cuMemFree`](Self::cuMemFree) `` as `` [`cuMemFree`](Self::) ``,
/// `` [`cuMemAllocHost()`](Self::cuMemAllocHost) `` as `` [`cuMemAllocHost()`](Self::) ``. The
/// links of a doc text name their target twice, and a third of the bytes of the lines are links;
/// the macro writes them whole where it resolves a doc's links (`docs::resolve_links`).
pub fn short_links(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(t) = rest.find("`](") {
        let (head, tail) = rest.split_at(t + 3);
        out.push_str(head);
        rest = tail;
        let name = head[..t]
            .rfind("[`")
            .and_then(|o| link_name(&head[o + 2..t]));
        let Some((name, close)) = name.zip(tail.find(')')) else {
            continue;
        };
        let target = &tail[..close];
        let prefix = target
            .strip_suffix(name)
            .filter(|p| p.ends_with("::") && !p.contains(' '));
        if let Some(prefix) = prefix {
            out.push_str(prefix);
            rest = &tail[close..];
        }
    }
    out.push_str(rest);
    out
}

/// The name a link's text `X` or `X()` shows, when it is a path (`CUresult::CUDA_SUCCESS`):
/// what its target ends with.
fn link_name(text: &str) -> Option<&str> {
    let name = text.strip_suffix("()").unwrap_or(text);
    let is_path = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':');
    is_path.then_some(name)
}

/// The fewest digits whose codes name every offset below `bytes` (at least one).
pub fn digits_for(bytes: usize) -> usize {
    let (mut digits, mut capacity) = (1, BASE);
    while capacity < bytes {
        digits += 1;
        capacity *= BASE;
    }
    digits
}

/// The code of `number` in `digits` digits (most significant first), appended to `out`.
pub fn write_code(out: &mut String, number: usize, digits: usize) {
    for i in (0..digits).rev() {
        let value = number / BASE.pow(u32::try_from(i).unwrap_or(u32::MAX)) % BASE;
        let _ = out.write_char(char::from(FIRST_DIGIT + u8::try_from(value).unwrap_or(0)));
    }
}
