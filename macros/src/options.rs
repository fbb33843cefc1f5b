//! The attribute's options, in one table that parsing and every message about options read:
//! each option's name, how it is written and what its value is.

/// How to write `driver = ...`.
pub const DRIVER_HELP: &str =
    "write the oldest driver the table must work on as `cuDriverGetVersion` numbers it \
(`driver = 12000` for CUDA 12.0, `driver = 12_040` for 12.4) or as a string (`driver = \"12.4\"`), \
or `driver = newest` for the newest ABIs of the selected CUDA release";

/// How to write `backend = ...`.
pub const BACKEND_HELP: &str =
    "write `backend = runtime` (libcudart only) or `backend = driver` (libcuda.so.1 only); \
without the option, a table uses libcudart, or libcuda.so.1 where no libcudart can be found";

/// How to write `crate = ...`.
pub const CRATE_HELP: &str = "write the path this crate names cuda-driver-table by: `crate = cdt` for a dependency renamed to `cdt`, \
or a re-export such as `crate = ::my_wrapper::cdt` (a string works too: `crate = \"cdt\"`)";

/// The options of the attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    Driver,
    All,
    PerThread,
    Backend,
    Crate,
}

/// One option: its name, how it is written, and what its value is (for one that takes one).
pub struct OptionSpec {
    pub option: Opt,
    pub name: &'static str,
    /// How it is written, in the list of options (`backend = runtime` / `backend = driver`).
    pub examples: &'static [&'static str],
    /// What its value is and how to write it, for an option that takes one.
    pub value: Option<(&'static str, &'static str)>,
}

/// Every option: parsing and every message about options read this one table.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        option: Opt::Driver,
        name: "driver",
        examples: &["driver = 12000"],
        value: Some(("a driver version", DRIVER_HELP)),
    },
    OptionSpec {
        option: Opt::All,
        name: "all",
        examples: &["all"],
        value: None,
    },
    OptionSpec {
        option: Opt::PerThread,
        name: "per_thread",
        examples: &["per_thread"],
        value: None,
    },
    OptionSpec {
        option: Opt::Backend,
        name: "backend",
        examples: &["backend = runtime", "backend = driver"],
        value: Some(("a value", BACKEND_HELP)),
    },
    OptionSpec {
        option: Opt::Crate,
        name: "crate",
        examples: &["crate = path"],
        value: Some(("a path", CRATE_HELP)),
    },
];

/// The names of the options, in the order of [`OPTIONS`].
pub fn option_names() -> impl Iterator<Item = &'static str> {
    OPTIONS.iter().map(|o| o.name)
}

/// The list of options and how functions are named, for messages about a part of the list.
pub fn options_help() -> String {
    let options: Vec<String> = OPTIONS
        .iter()
        .map(|o| {
            let examples: Vec<String> = o.examples.iter().map(|e| format!("`{e}`")).collect();
            examples.join(" / ")
        })
        .collect();
    let (last, rest) = options.split_last().expect("there are options");
    format!(
        "options are {} and {last}; driver functions are named as in C (`cuMemAlloc`), optionally pinned to an ABI \
         (`cuCtxCreate = 3020`) or named by an exported symbol (`cuCtxCreate_v2`)",
        rest.join(", ")
    )
}

/// What an option's value must be: `a value: write ...`.
pub fn value_help(spec: &OptionSpec) -> Option<String> {
    let (what, help) = spec.value?;
    let also = if spec.option == Opt::Driver {
        "; to resolve through libcuda.so.1, write `backend = driver`"
    } else {
        ""
    };
    Some(format!("{what}: {help}{also}"))
}
