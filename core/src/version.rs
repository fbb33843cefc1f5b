//! CUDA version numbers and the releases they name, and the reading of the texts they are
//! written in (the generated ABI lists, `ld.so.conf`): numbers and fields.

use std::fmt;

/// A CUDA version number as the driver API counts them (`1000 * major + 10 * minor`, the value of
/// `cuDriverGetVersion` and of an ABI's `_vN`), displayed as its release: `CudaVersion(12050)`
/// prints `12.5`.
///
/// ```
/// use cuda_driver_table::CudaVersion;
///
/// assert_eq!(CudaVersion(12050).to_string(), "12.5");
/// assert_eq!(CudaVersion(3020).to_string(), "3.2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CudaVersion(pub u32);

impl fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0 / 1000, (self.0 % 1000) / 10)
    }
}

/// `text` cut at its first `separator`, an ASCII character: what comes before it and, where it
/// occurs, what comes after it (`str::split_once` for one byte). Scanned by bytes, which is
/// exact: in UTF-8 an ASCII byte is never part of another character. Written out, with
/// [`split`]: the standard library's generic searchers are large and compiled into this crate.
pub(crate) fn cut(text: &str, separator: u8) -> (&str, Option<&str>) {
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        if bytes[i] == separator {
            return (&text[..i], Some(&text[i + 1..]));
        }
    }
    (text, None)
}

/// The pieces of `text` between its `separator`s (an ASCII character), empty ones included:
/// `str::split` for one byte (see [`cut`]).
pub(crate) fn split(text: &str, separator: u8) -> Split<'_> {
    Split {
        rest: Some(text),
        separator,
    }
}

/// The iterator of [`split`].
pub(crate) struct Split<'a> {
    rest: Option<&'a str>,
    separator: u8,
}

impl<'a> Iterator for Split<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let (piece, rest) = cut(self.rest?, self.separator);
        self.rest = rest;
        Some(piece)
    }
}

/// A number written in decimal (a version in the generated texts, a Python minor version), read
/// exactly as `str::parse::<u32>` reads it: an optional `+`, then one digit or more, and no
/// overflow. Written out: the standard routine is large and compiled into this crate.
pub(crate) fn parse_number(text: &str) -> Option<u32> {
    let digits = match text.as_bytes() {
        [b'+', rest @ ..] => rest,
        all => all,
    };
    if digits.is_empty() {
        return None;
    }
    let mut value: u32 = 0;
    for &digit in digits {
        if !digit.is_ascii_digit() {
            return None;
        }
        value = value
            .checked_mul(10)?
            .checked_add(u32::from(digit - b'0'))?;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::{cut, parse_number, split, CudaVersion};

    #[test]
    fn cut_and_split_are_split_once_and_split() {
        for text in ["", ",", "a", "a,b", ",a,,b,", "é,ü,,", "a b"] {
            assert_eq!(
                cut(text, b','),
                match text.split_once(',') {
                    Some((a, b)) => (a, Some(b)),
                    None => (text, None),
                }
            );
            assert_eq!(
                split(text, b',').collect::<Vec<_>>(),
                text.split(',').collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn numbers_read_as_str_parse_reads_them() {
        for text in [
            "",
            "0",
            "7",
            "+7",
            "+",
            "-7",
            "-0",
            "12050",
            "012",
            " 1",
            "1 ",
            "1a",
            "4294967295",
            "4294967296",
            "99999999999",
            "+4294967295",
            "++1",
            "٣",
            "1_0",
        ] {
            assert_eq!(parse_number(text), text.parse::<u32>().ok(), "{text:?}");
        }
    }

    #[test]
    fn versions_print_as_releases() {
        assert_eq!(CudaVersion(12050).to_string(), "12.5");
        assert_eq!(CudaVersion(11080).to_string(), "11.8");
        assert_eq!(CudaVersion(13000).to_string(), "13.0");
        assert_eq!(CudaVersion(3020).to_string(), "3.2");
    }
}
