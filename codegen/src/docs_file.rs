//! The body of the macro crate's `docs.txt`: the doc texts of every release, each distinct line
//! once and each distinct word of those lines once, the lines written as codes of their words and
//! the texts as codes of their lines. The macro crate's `src/manifest/records.rs` says how the
//! text is written and reads it; this writes it.
//!
//! Why: the compiler's memory for the macro crate grows with the bytes it embeds, several times
//! their size, and the doc texts of 17 releases are most of those bytes. Their lines repeat (a
//! function's doc over releases, the same paragraph in many functions) and so do their words.

use std::collections::HashMap;

/// The digits of a code: `!` (0) to `~` (93).
const FIRST_DIGIT: u8 = b'!';

/// How many digits there are.
const BASE: usize = 94;

/// `docs.txt` after its header, for these doc texts (each distinct, none empty), numbered in
/// this order: the `W`, `L` and `D` sections.
pub fn body(texts: &[&str]) -> String {
    // How often each line is used by the texts, and each word by the distinct lines.
    let mut line_uses: HashMap<&str, usize> = HashMap::new();
    for text in texts {
        for line in text.split('\n') {
            *line_uses.entry(line).or_default() += 1;
        }
    }
    let mut word_uses: HashMap<&str, usize> = HashMap::new();
    for line in line_uses.keys() {
        for word in words(line) {
            *word_uses.entry(word).or_default() += 1;
        }
    }
    let (words_by_number, word_numbers, word_code) = Code::number(&word_uses);
    let (lines_by_number, line_numbers, line_code) = Code::number(&line_uses);

    let mut out = String::new();
    section(&mut out, "W", words_by_number.len(), Some(word_code));
    for word in &words_by_number {
        out.push_str(word);
        out.push('\n');
    }
    section(&mut out, "L", lines_by_number.len(), Some(line_code));
    for line in &lines_by_number {
        for word in words(line) {
            word_code.write(&mut out, word_numbers[word]);
        }
        out.push('\n');
    }
    section(&mut out, "D", texts.len(), None);
    for text in texts {
        for line in text.split('\n') {
            line_code.write(&mut out, line_numbers[line]);
        }
        out.push('\n');
    }
    out
}

/// A section's line: its tag and count, and how its items' codes are written.
fn section(out: &mut String, tag: &str, count: usize, code: Option<Code>) {
    out.push_str(tag);
    out.push('\t');
    out.push_str(&count.to_string());
    if let Some(code) = code {
        out.push_str(&format!("\t{}\t{}", code.one, code.two));
    }
    out.push('\n');
}

/// The words of a line, which put together are the line: each run of letters, digits and `_`, or
/// of other characters but spaces, with the one space after it if there is one; and each run of
/// spaces that is not such a space.
pub fn words(line: &str) -> Vec<&str> {
    #[derive(PartialEq)]
    enum Class {
        Space,
        Word,
        Other,
    }
    let class = |c: char| match c {
        ' ' => Class::Space,
        c if c.is_ascii_alphanumeric() || c == '_' => Class::Word,
        _ => Class::Other,
    };
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(first) = rest.chars().next() {
        let kind = class(first);
        let mut end = rest
            .char_indices()
            .find(|&(_, c)| class(c) != kind)
            .map_or(rest.len(), |(i, _)| i);
        if kind != Class::Space && rest[end..].starts_with(' ') {
            end += 1;
        }
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

/// How the numbers of one section are written: the first `one` digits stand for a number alone,
/// the next `two` start a code of two digits, the rest one of three.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    pub one: usize,
    pub two: usize,
}

/// A section's items in the order they are numbered, each item's number, and the code that
/// writes those.
type Numbered<'a> = (Vec<&'a str>, HashMap<&'a str, usize>, Code);

impl Code {
    /// Numbers the items most used first (ties by text): the items in that order, each item's
    /// number, and the code that writes their uses in the fewest digits.
    fn number<'a>(uses: &HashMap<&'a str, usize>) -> Numbered<'a> {
        let mut items: Vec<&'a str> = uses.keys().copied().collect();
        items.sort_by(|a, b| uses[b].cmp(&uses[a]).then(a.cmp(b)));
        let counts: Vec<usize> = items.iter().map(|item| uses[item]).collect();
        let code = Code::best(&counts);
        let numbers = items
            .iter()
            .enumerate()
            .map(|(i, item)| (*item, i))
            .collect();
        (items, numbers, code)
    }

    /// The code that writes these uses (most used first) in the fewest digits; among equals, the
    /// one with the most one-digit numbers, then the most two-digit ones.
    pub fn best(counts: &[usize]) -> Code {
        // Uses of the numbers below each point.
        let mut below = vec![0usize];
        for count in counts {
            below.push(below.last().copied().unwrap_or(0) + count);
        }
        let uses = |n: usize| below[n.min(counts.len())];
        let mut best: Option<(usize, Code)> = None;
        for one in (0..=BASE).rev() {
            for two in (0..=BASE - one).rev() {
                let code = Code { one, two };
                if code.capacity() < counts.len() {
                    continue;
                }
                let (ones, twos) = (uses(one), uses(one + two * BASE));
                let digits = ones + 2 * (twos - ones) + 3 * (uses(usize::MAX) - twos);
                if best.is_none_or(|(fewest, _)| digits < fewest) {
                    best = Some((digits, code));
                }
            }
        }
        best.map_or(Code { one: BASE, two: 0 }, |(_, code)| code)
    }

    /// How many numbers it can write.
    pub fn capacity(self) -> usize {
        self.one + self.two * BASE + (BASE - self.one - self.two) * BASE * BASE
    }

    /// The code of `number`, appended to `out`.
    pub fn write(self, out: &mut String, number: usize) {
        let digit = |value: usize| char::from(FIRST_DIGIT + u8::try_from(value).unwrap_or(0));
        let Code { one, two } = self;
        if number < one {
            out.push(digit(number));
        } else if number < one + two * BASE {
            let n = number - one;
            out.push(digit(one + n / BASE));
            out.push(digit(n % BASE));
        } else {
            let n = number - one - two * BASE;
            out.push(digit(one + two + n / (BASE * BASE)));
            out.push(digit(n / BASE % BASE));
            out.push(digit(n % BASE));
        }
    }
}
