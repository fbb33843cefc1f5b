//! The fake driver's parts against tables bound as the macro binds them.

use super::*;
