//! What `#[driver_table]`'s expansion calls. Not a public API: names and signatures here change
//! with the macro, which always comes in the same version as this crate.

pub use crate::table::{check, null_pointer, Field, Lazy};
pub use crate::trace::Hex;

#[cfg(feature = "tracing")]
pub use crate::trace::{cold, emit, nanos, result_name, Arg, DebugArg, OpaqueArg};
#[cfg(feature = "tracing")]
pub use tracing;
