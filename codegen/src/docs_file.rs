//! The body of the macro crate's `docs.txt`: every distinct line of the doc texts of every
//! release, once, then every distinct text as the codes of its lines (their byte offsets); a
//! record names a text by the code of its offset. The macro crate's `src/manifest/records.rs`
//! says how the text is written and reads it; this writes it.
//!
//! Why lines: the doc texts of 17 releases are most of the bytes the macro crate embeds, and
//! their lines repeat (a function's doc over releases, the same paragraph in many functions).
//! Why offsets: the macro reads a doc text where a record names it, without reading the rest of
//! the file first (it runs unoptimised in a user's debug build, once per compiler process).

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
    /// texts first use them, then each text as the codes of its lines.
    pub fn new(texts: &[&str]) -> Self {
        let mut lines = String::new();
        let mut line_at: HashMap<&str, usize> = HashMap::new();
        for line in texts.iter().flat_map(|text| text.split('\n')) {
            line_at.entry(line).or_insert_with(|| {
                let at = lines.len();
                lines.push_str(line);
                lines.push('\n');
                at
            });
        }
        let line_digits = digits_for(lines.len());
        let mut coded = String::new();
        let mut at = HashMap::new();
        for text in texts {
            at.insert((*text).to_string(), coded.len());
            for line in text.split('\n') {
                write_code(&mut coded, line_at[line], line_digits);
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
