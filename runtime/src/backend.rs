//! The two built-in resolvers, one per library: [`Runtime`] (libcudart) and [`Driver`]
//! (libcuda), matching [`Backend::Runtime`](crate::Backend::Runtime) and
//! [`Backend::Driver`](crate::Backend::Driver).
//!
//! Each module holds everything specific to its library: the lookup calls, the symbols that
//! identify it, the environment variable that names it and where the search looks for it.
//! Loading and caching are `library`'s, generic over [`BuiltIn`].

mod driver;
mod runtime;

pub(crate) use driver::Driver;
pub(crate) use runtime::Runtime;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

use libloading::Library;

use crate::error::Error;
use crate::resolve::Resolver;

/// The environment variable naming the libcudart to load (runtime backend), as an absolute path
/// or a bare file name for the system loader.
pub const ENV_CUDART: &str = <Runtime as BuiltIn>::ENV_VAR;
/// The environment variable naming the libcuda to load (driver backend), as an absolute path or
/// a bare file name for the system loader.
pub const ENV_LIBCUDA: &str = <Driver as BuiltIn>::ENV_VAR;

/// The outcome of loading a built-in backend's library, cached once per process.
pub(crate) type Loaded = Result<&'static dyn Resolver, Error>;

/// Reads an environment variable (a parameter so that search plans are testable).
pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// What `library` needs to know of a built-in backend to find, load and wrap its library.
pub(crate) trait BuiltIn: Resolver + Sized + 'static {
    /// `"libcudart"` or `"libcuda"`.
    const LIBRARY: &'static str;
    /// The environment variable naming the library to load.
    const ENV_VAR: &'static str;
    /// The lookup functions, in order of preference; a library exporting none is not ours.
    const LOOKUP_SYMBOLS: &'static [&'static str];

    /// The candidates of the search (used when neither code nor the environment variable names a
    /// library), in order. Variables that cannot be used are noted in `skipped` as
    /// `(what, why)` for the error message.
    fn candidates(env: Env<'_>, skipped: &mut Vec<(String, String)>) -> Vec<PathBuf>;

    /// Wraps a loaded library; `None` when it lacks what this backend needs. Does no call into
    /// the library.
    ///
    /// # Safety
    ///
    /// `lib` must be this backend's CUDA library, or at least export the names used with their
    /// CUDA signatures.
    unsafe fn wrap(lib: &'static Library, path: String) -> Option<Self>;

    /// The process-wide outcome of the search.
    fn searched() -> &'static OnceLock<Loaded>;
}

/// The absolute directories named by `vars` (in order); the others are noted in `skipped`.
pub(crate) fn absolute_dirs(
    env: Env<'_>,
    vars: &[&str],
    skipped: &mut Vec<(String, String)>,
) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for var in vars {
        let Some(value) = env(var).filter(|v| !v.is_empty()) else {
            continue;
        };
        let dir = PathBuf::from(value);
        if dir.is_absolute() {
            dirs.push(dir);
        } else {
            skipped.push((
                format!("${var}={}", dir.display()),
                "skipped: not an absolute path".to_owned(),
            ));
        }
    }
    dirs
}
