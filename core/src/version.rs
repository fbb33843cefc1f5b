//! CUDA version numbers and the releases they name.

use std::fmt;

/// A CUDA version number as the driver API counts them (`1000 * major + 10 * minor`, the value of
/// `cuDriverGetVersion` and of an ABI's `_vN`), displayed as its release: `CudaVersion(12050)`
/// prints `12.5`. The one place in this crate that writes a version as its release.
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

#[cfg(test)]
mod tests {
    use super::CudaVersion;

    #[test]
    fn versions_print_as_releases() {
        assert_eq!(CudaVersion(12050).to_string(), "12.5");
        assert_eq!(CudaVersion(11080).to_string(), "11.8");
        assert_eq!(CudaVersion(13000).to_string(), "13.0");
        assert_eq!(CudaVersion(3020).to_string(), "3.2");
    }
}
