//! The body of the macro crate's `docs.txt`: every distinct line of the doc texts of every
//! release, once, and the codes by which a record names a doc text (the byte offsets of its
//! lines). The macro crate's `src/manifest/records.rs` says how the text is written and reads it;
//! this writes it.
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
    /// The `L` line and the lines.
    body: String,
    /// Each line's byte offset among the lines.
    at: HashMap<String, usize>,
    /// How many digits each code has.
    digits: usize,
}

impl DocsFile {
    /// The file for these doc texts: each distinct line once, in the order the texts first use
    /// them.
    pub fn new(texts: &[&str]) -> Self {
        let mut lines = String::new();
        let mut at = HashMap::new();
        for line in texts.iter().flat_map(|text| text.split('\n')) {
            if !at.contains_key(line) {
                at.insert(line.to_string(), lines.len());
                lines.push_str(line);
                lines.push('\n');
            }
        }
        let digits = digits_for(lines.len());
        let mut body = format!("L\t{}\t{digits}\n", lines.len());
        body.push_str(&lines);
        DocsFile { body, at, digits }
    }

    /// The text after the header.
    pub fn body(&self) -> &str {
        &self.body
    }

    /// The doc field of a record for `text`, one of the texts the file was made for: the code of
    /// each of its lines, in order; `None` for a text with a line the file does not have.
    pub fn codes(&self, text: &str) -> Option<String> {
        let mut out = String::with_capacity(self.digits * (text.matches('\n').count() + 1));
        for line in text.split('\n') {
            write_code(&mut out, *self.at.get(line)?, self.digits);
        }
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
