//! The one table that pins every supported CUDA release to the exact public wheel its headers come
//! from. Generated files repeat the wheel in their header. Add a release here, then regenerate.

/// One CUDA release and the wheel on PyPI that carries its `cuda.h` and `cudaTypedefs.h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// `1000 * major + 10 * minor`, as the driver API counts versions (CUDA 12.9 = 12090).
    pub version: u32,
    /// The PyPI package.
    pub package: &'static str,
    /// The exact version of that package.
    pub wheel_version: &'static str,
}

/// `"12.9"` for 12090: the one place that turns a release number into its name. Generated files
/// carry the names, so nothing downstream formats them again.
pub fn release_name(version: u32) -> String {
    format!("{}.{}", version / 1000, (version % 1000) / 10)
}

impl Release {
    /// `"12.9"` for 12090.
    pub fn name(&self) -> String {
        release_name(self.version)
    }

    /// The file name of the wheel's libcudart (`libcudart.so.12`; 11.x uses `libcudart.so.11.0`).
    pub fn cudart_file(&self) -> String {
        match self.version / 1000 {
            11 => "libcudart.so.11.0".to_string(),
            major => format!("libcudart.so.{major}"),
        }
    }

    /// `package==version`, as pip takes it.
    pub fn requirement(&self) -> String {
        format!("{}=={}", self.package, self.wheel_version)
    }

    /// Where the wheel keeps its headers and libraries, relative to the wheel's root.
    pub fn wheel_prefix(&self) -> &'static str {
        if self.version >= 13000 {
            "nvidia/cu13"
        } else {
            "nvidia/cuda_runtime"
        }
    }

    /// Looks a release up by its number (`12090`) or its name (`12.9`).
    pub fn find(text: &str) -> Option<&'static Release> {
        RELEASES
            .iter()
            .find(|r| r.version.to_string() == text || r.name() == text)
    }
}

const fn r(version: u32, package: &'static str, wheel_version: &'static str) -> Release {
    Release {
        version,
        package,
        wheel_version,
    }
}

const CU11: &str = "nvidia-cuda-runtime-cu11";
const CU12: &str = "nvidia-cuda-runtime-cu12";
const CU13: &str = "nvidia-cuda-runtime";

/// Every supported release, oldest first. There is no CUDA 12.7.
pub const RELEASES: &[Release] = &[
    r(11070, CU11, "11.7.99"),
    r(11080, CU11, "11.8.89"),
    r(12000, CU12, "12.0.146"),
    r(12010, CU12, "12.1.105"),
    r(12020, CU12, "12.2.140"),
    r(12030, CU12, "12.3.101"),
    r(12040, CU12, "12.4.127"),
    r(12050, CU12, "12.5.82"),
    r(12060, CU12, "12.6.77"),
    r(12080, CU12, "12.8.90"),
    r(12090, CU12, "12.9.79"),
    r(13000, CU13, "13.0.96"),
    r(13010, CU13, "13.1.80"),
    r(13020, CU13, "13.2.86"),
    r(13030, CU13, "13.3.29"),
    r(13040, CU13, "13.4.92"),
    r(13050, CU13, "13.5.37"),
];

/// The releases whose libcudart the runtime crate's library tests load (one per soname, plus one
/// older and one newer than 12.5, where `cudaGetDriverEntryPointByVersion` appeared). The
/// `cudart` command lays them out as `<dir>/<name>/<libcudart file>`.
pub const CUDART_TEST_RELEASES: &[u32] = &[11080, 12040, 12090, 13000];

/// The release `cuda-driver-table` (and `cuda-driver-table-sys`) select by default; `check` fails
/// when their `default` features say otherwise.
pub const DEFAULT_RELEASE: u32 = 13000;
