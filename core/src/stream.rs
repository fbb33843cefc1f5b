//! The default-stream mode: which of a function's ABIs a table asks for, and with which flag.

/// Which default stream the table's stream-ordered functions use.
///
/// `PerThread` requests the `_ptds`/`_ptsz` ABI of every function that has one, at that ABI's own
/// version, with the per-thread flag. Functions without a per-thread variant are requested as
/// legacy in both modes. The flag is never `DEFAULT` (0): a Rust caller has no `--default-stream`
/// compiler switch that would give it a meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum StreamMode {
    /// The legacy default stream (`CU_GET_PROC_ADDRESS_LEGACY_STREAM`,
    /// `cudaEnableLegacyStream`).
    #[default]
    Legacy,
    /// The per-thread default stream (`CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`,
    /// `cudaEnablePerThreadDefaultStream`).
    PerThread,
}

impl StreamMode {
    /// The flag's value for `cuGetProcAddress` and `cudaGetDriverEntryPoint*`: 1 or 2.
    pub const fn flag(self) -> u64 {
        match self {
            StreamMode::Legacy => 1,
            StreamMode::PerThread => 2,
        }
    }
}
