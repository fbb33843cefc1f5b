//! What the fake device finds: each [`Finding`] of a failing call, the [`Report`] of a check
//! with the leaks, a kernel's [`Fault`], the [`Work`] a stream ran, and how calls and sizes are
//! named in their messages.

use std::fmt;

use cuda_driver_table_core::sys::CUresult;

/// `"s"` for a count other than one: "1 byte", "2 bytes".
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Where a device's memory starts: far above every host address (user space ends below
/// `0x0000_8000_0000_0000` on the 64-bit targets), so a device pointer used as a host pointer is
/// caught, not silently read. Each device gets its own 2^40 bytes.
pub(crate) struct Bytes<T>(pub(crate) T);

impl<T: PartialEq + From<u8>> Bytes<T> {
    /// The verb that agrees with it: "1 byte ... was", "64 bytes ... were".
    pub(crate) fn were(&self) -> &'static str {
        if self.0 == T::from(1) {
            "was"
        } else {
            "were"
        }
    }
}

impl<T: fmt::Display + PartialEq + From<u8>> fmt::Display for Bytes<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.0 == T::from(1) {
            "byte"
        } else {
            "bytes"
        };
        write!(f, "{} {unit}", self.0)
    }
}

/// One operation a stream ran, as [`Device::work`](crate::Device::work) lists it, with its times on the fake clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Work {
    /// The call that issued it (`cuMemcpyHtoDAsync`, `cuLaunchKernel`).
    pub call: &'static str,
    /// What it did: a kernel's name, a copy's size.
    pub what: String,
    /// When it started, in nanoseconds of the fake clock.
    pub start_ns: u64,
    /// When it ended.
    pub end_ns: u64,
}

/// What kind of problem a [`Finding`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FindingKind {
    /// A copy, set or kernel access reaching outside every live allocation.
    OutOfBounds,
    /// An access to, or a copy of, memory that was freed.
    UseAfterFree,
    /// Freeing memory a second time.
    DoubleFree,
    /// Freeing what was never allocated, or not an allocation's start.
    InvalidFree,
    /// A host pointer that is a device pointer, or a device pointer that is no device's.
    InvalidPointer,
    /// A destroyed or unknown context, stream, event, module or function.
    InvalidHandle,
    /// A kernel that stopped with a [`Fault`] of its own.
    KernelFault,
    /// A launch whose [`kernel_args!`](cuda_driver_table_core::kernel_args!) are not the kernel's parameters:
    /// another number of values, or a value of another size than its parameter's.
    ParameterMismatch,
    /// Memory or a handle never freed or destroyed.
    Leak,
    /// An allocation the test process's own memory cannot back.
    HostOutOfMemory,
    /// A call the device cannot answer now: from a kernel's closure while the device runs it,
    /// or after the device was finished.
    Misuse,
    /// Two uses of the same bytes of an allocation by different streams (or a stream and the
    /// host), one of them a write, that no synchronisation orders: on a GPU they may run at
    /// once, or in either order.
    Hazard,
    /// A read of device memory never written since it was allocated (compute-sanitizer's
    /// initcheck).
    UninitializedRead,
}

impl FindingKind {
    /// How the report names it: `double free`.
    pub fn name(self) -> &'static str {
        match self {
            Self::OutOfBounds => "out of bounds",
            Self::UseAfterFree => "use after free",
            Self::DoubleFree => "double free",
            Self::InvalidFree => "invalid free",
            Self::InvalidPointer => "invalid pointer",
            Self::InvalidHandle => "invalid handle",
            Self::KernelFault => "kernel fault",
            Self::ParameterMismatch => "parameter mismatch",
            Self::Leak => "leak",
            Self::HostOutOfMemory => "host out of memory",
            Self::Misuse => "misuse",
            Self::Hazard => "hazard",
            Self::UninitializedRead => "uninitialised read",
        }
    }
}

/// One problem the device found: its kind and what it says (the call, the pointer or handle,
/// the allocation's size, the call that made it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub(crate) kind: FindingKind,
    pub(crate) message: String,
}

impl Finding {
    /// Its kind.
    pub fn kind(&self) -> FindingKind {
        self.kind
    }

    /// What it says, starting with the kind's name: `double free: cuMemFree (call 5) frees ...`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// What [`Device::check`](crate::Device::check) found: every [`Finding`], one per line.
#[derive(Clone, PartialEq, Eq)]
pub struct Report {
    pub(crate) findings: Vec<Finding>,
    /// Where the device was made, if the report is a device's.
    pub(crate) made_at: Option<&'static std::panic::Location<'static>>,
}

impl Report {
    /// The findings, in the order they were found (leaks last).
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// How many of them are of `kind`.
    pub fn count(&self, kind: FindingKind) -> usize {
        self.findings.iter().filter(|f| f.kind == kind).count()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.findings.len();
        match self.made_at {
            Some(at) => write!(
                f,
                "the fake device made at {at} found {n} problem{}:",
                plural(n)
            )?,
            None => write!(f, "the fake device found {n} problem{}:", plural(n))?,
        }
        for finding in &self.findings {
            write!(f, "\n  {finding}")?;
        }
        Ok(())
    }
}

/// As `Display`: a test that returns the report as its error shows it whole.
impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Report {}

/// One call the device answered: its function and its number among the device's calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CallRef {
    pub(crate) function: &'static str,
    pub(crate) index: u64,
}

impl fmt::Display for CallRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (call {})", self.function, self.index)
    }
}

/// Why a kernel stopped: an access outside the device's memory (which the device has reported
/// already, as memcheck would), or a failure the kernel gave ([`Fault::new`], a device-side
/// assertion). The launch fails with `CUDA_ERROR_ILLEGAL_ADDRESS` or `CUDA_ERROR_LAUNCH_FAILED`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub(crate) message: String,
    pub(crate) illegal_address: bool,
}

impl Fault {
    /// A failure of the kernel's own, saying why (as a device-side `assert` would stop it).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            illegal_address: false,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Fault {}

/// A failing call: its code, why, and the finding it is, if it is one.
pub(crate) struct Fail {
    pub(crate) code: CUresult,
    pub(crate) why: String,
    pub(crate) finding: Option<FindingKind>,
}

impl Fail {
    /// A failure that is no bug of the program's (out of memory, a name not found).
    pub(crate) fn error(code: CUresult, why: String) -> Self {
        Self {
            code,
            why,
            finding: None,
        }
    }

    /// A failure that is a finding of `kind`.
    pub(crate) fn found(code: CUresult, kind: FindingKind, what: String) -> Self {
        Self {
            code,
            why: format!("{}: {what}", kind.name()),
            finding: Some(kind),
        }
    }
}

pub(crate) type Answer = Result<(), Fail>;
