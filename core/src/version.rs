//! CUDA version numbers and the releases they name.

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
    use super::{parse_number, CudaVersion};

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
