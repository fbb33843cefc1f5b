//! The library search told step by step ([`Config::search_report`]), for tools that explain a
//! machine's setup (`cuda-driver-table doctor`). It runs the search a table's first call runs
//! (the same plan, the same loading, the same refusals), only it keeps every step, successful or
//! not, where the search itself keeps them only for its error.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use super::{
    describe_named, load_plan_of, named, open, plan, process_env, system_library_folders, Opened,
    Plan,
};
use super::{DRIVER, LD_SO_CONF, RUNTIME};
use crate::backend::{BuiltIn, Os, Source};
use crate::config::{Backend, Config};
use crate::error::{Error, Origin};
use crate::resolve::Resolver;

/// What one search found, step by step: [`Config::search_report`].
pub struct SearchReport {
    /// The library searched for (`libcudart`, `libcuda`), or `None` for a configuration with
    /// its own resolver, which searches nothing.
    pub library: Option<&'static str>,
    /// The environment variable that names the library in place of the search.
    pub env_var: Option<&'static str>,
    /// Every step, in order: variables skipped, the path refused, each candidate tried.
    pub steps: Vec<SearchStep>,
    /// The library that loaded: the last step's path, when it is [`StepOutcome::Loaded`].
    pub found: Option<PathBuf>,
    /// The resolver it gives, or the error a table would report, listing what was tried.
    pub outcome: Result<&'static dyn Resolver, Error>,
}

/// One step of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchStep {
    /// What was tried: a path or a loader name (quoted as Rust writes strings), with where it
    /// came from as the error's list of what was tried says it (`(from $CUDA_PATH)` for a path
    /// made from that variable, `(from Config::library)` for one named in code); or an
    /// environment variable and its value.
    pub what: String,
    /// What came of it.
    pub outcome: StepOutcome,
}

/// What came of one step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepOutcome {
    /// Loaded, and it exports a lookup function: the search's answer.
    Loaded,
    /// The loader could not load it: its message; `absent` when no file of that name is where the
    /// loader looks.
    LoadFailed { why: String, absent: bool },
    /// Loaded, but it exports none of the lookup functions (not a CUDA library).
    NotCuda,
    /// Not tried, and why (a variable that is not an absolute path, the loader's own search
    /// while `LD_LIBRARY_PATH` would make it read the current directory, a named path that must
    /// not be used).
    NotTried(String),
}

impl Config {
    /// The search this configuration's backend makes for its library, told step by step: the
    /// path given in code or the environment variable, else every candidate in order, each with
    /// what came of it. It loads what it tries the way a table's first call does (a library that
    /// loads is kept loaded), but apart from the process-wide cache: each call searches again, and
    /// a default configuration reports libcudart's search alone (not its fallback to libcuda).
    /// For tools; tables never need it.
    pub fn search_report(&self) -> SearchReport {
        let built_in: &BuiltIn = match self.backend() {
            Backend::Runtime => &RUNTIME,
            Backend::Driver => &DRIVER,
            Backend::Custom(resolver) => {
                return SearchReport {
                    library: None,
                    env_var: None,
                    steps: Vec::new(),
                    found: None,
                    outcome: Ok(resolver),
                }
            }
        };
        let plan = match self.library_path() {
            Some(path) => named(
                Os::CURRENT,
                path.as_os_str().to_owned(),
                Origin::Code,
                &process_env,
            ),
            None => plan(built_in, Os::CURRENT, &process_env),
        };
        let mut steps = Vec::new();
        match &plan {
            Plan::Refused { path, origin, why } => steps.push(SearchStep {
                what: describe_named(path, *origin, built_in.library),
                outcome: StepOutcome::NotTried(why.clone()),
            }),
            Plan::Search { skipped, .. } => {
                for (what, why) in skipped {
                    steps.push(SearchStep {
                        what: what.clone(),
                        outcome: StepOutcome::NotTried(why.clone()),
                    });
                }
            }
            Plan::Exact { .. } => {}
        }
        let tried = RefCell::new(Vec::new());
        let record = |path: &Path, what: &str| {
            let opened = open(built_in, path);
            let outcome = match &opened {
                Opened::Ok(_) => StepOutcome::Loaded,
                Opened::LoadFailed { why, absent } => StepOutcome::LoadFailed {
                    why: why.clone(),
                    absent: *absent,
                },
                Opened::NotCuda => StepOutcome::NotCuda,
            };
            tried
                .borrow_mut()
                .push((path.to_path_buf(), what.to_owned(), outcome));
            opened
        };
        let searched = load_plan_of(
            plan,
            built_in.library,
            built_in.lookup_symbols,
            &record,
            &|| system_library_folders(Path::new(LD_SO_CONF)),
        );
        let mut found = None;
        for (path, what, outcome) in tried.into_inner() {
            if outcome == StepOutcome::Loaded {
                found = Some(path);
            }
            steps.push(SearchStep { what, outcome });
        }
        SearchReport {
            library: Some(built_in.library.name),
            env_var: Some(built_in.library.env_var),
            steps,
            found,
            outcome: searched.loaded.map(|r| Source::BuiltIn(r).resolver()),
        }
    }
}
