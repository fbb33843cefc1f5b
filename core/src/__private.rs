//! What `#[driver_table]`'s expansion calls. Not a public API: names and signatures here change
//! with the macro, which always comes in the same version as this crate.
//!
//! Generated code names everything through this module (`<crate path>::__private::...`), so a
//! `crate = path` option that does not lead to this crate fails at its first segment, once.

pub use crate::__cdt_bind as bind;
pub use crate::__cdt_call as call;
pub use crate::__cdt_ptx_image as ptx_image;
pub use crate::__cdt_record as record;
pub use crate::call::Hex;
pub use crate::ffi::Pfn;
pub use crate::registry::{record_bytes, record_len, DeclaredDriver, RecordedBackend};
pub use crate::table::{
    check, count_up, functions, min_driver_version, spec, with_ptx_image, Field, Functions,
    PtxImage, Recorded, TableCore, LOOKUP_DRIVER_FLOOR,
};
pub use crate::{Config, Error, Errors, FunctionSpec, StreamMode};

// The standard library's names in the methods' signatures, through the path the rest of the
// expansion takes: fewer tokens per function than `::std::...` paths, and rustdoc and the
// compiler's messages show each by its own name, whatever path names it. (The macro's list of
// them: `PRIMITIVES` and `C_TYPES` in its `expand.rs`; `tests/tests/private_names.rs` checks
// that the two name the same types.)
pub use std::ffi::{
    c_char, c_double, c_float, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint,
    c_ulong, c_ulonglong, c_ushort, c_void,
};
pub use std::primitive::{
    bool, char, f32, f64, i128, i16, i32, i64, i8, isize, u128, u16, u32, u64, u8, usize,
};
pub use std::result::Result;

/// The bindings, under a name no user module has: where a `crate = path` option leads elsewhere,
/// the compiler then has no other module to suggest for the types of the methods.
pub use crate::sys as __sys;

#[cfg(feature = "tracing")]
pub use crate::__cdt_shown as shown;
#[cfg(feature = "tracing")]
pub use crate::trace::{cold, emit, nanos, result_name, written, Arg, DebugArg, OpaqueArg};
#[cfg(feature = "tracing")]
pub use tracing;

#[cfg(feature = "stand-in")]
pub use crate::call::invoke;
#[cfg(feature = "stand-in")]
pub use crate::kernel_args::lent;
#[cfg(feature = "stand-in")]
pub use crate::stand_in::OutPlace;
