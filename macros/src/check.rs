//! Checking: the request against the manifest of the selected release, and the struct's own
//! attributes against what a table is. Every problem becomes an error at the user's token; what is
//! valid goes on to expansion as the checked [`Table`], so the rest of the user's code still
//! type-checks.

use crate::diagnostics::{levenshtein, near, Errors};
use crate::manifest::{self, Abi, Function};
use crate::model::{Attr, Backend, Driver, Item, NotATable, Pin, Request};
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::ext::IdentExt;
use syn::{Ident, Path, Visibility};

/// What `expand` emits: the struct as the user wrote it (less the attributes a table cannot
/// have) and every function that passed the checks, with the options.
pub struct Table {
    /// The struct's attributes to re-emit.
    pub attrs: TokenStream,
    pub vis: Visibility,
    pub ident: Ident,
    pub functions: Vec<Checked>,
    /// `crate = path`, when given.
    pub krate: Option<Path>,
    pub backend: Option<Backend>,
    pub per_thread: bool,
    /// `driver = N`, when it is a driver a table can target (`None` for `driver = newest`).
    pub driver: Option<u32>,
}

/// A function that passed every check, with the ABI it is requested at and why.
pub struct Checked {
    /// The C name (`cuCtxCreate`, also when written `cuCtxCreate_v2`), at the user's token.
    pub name: Ident,
    /// As listed (`cuCtxCreate_v2`).
    pub written: String,
    pub function: &'static Function,
    pub abi: &'static Abi,
    pub why: Why,
}

/// Why a function is requested at its ABI (its method's docs say it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Why {
    /// A plain name: the newest ABI of the release.
    Newest,
    /// A plain name under `driver = N`: the newest ABI a driver `N` has, in both stream modes.
    Driver(u32),
    /// A pin (`cuCtxCreate = 3020`).
    Pinned,
    /// Named by this exported symbol (`cuCtxCreate_v2`, `cuLaunchKernel_ptsz`).
    Export(&'static str),
}

/// `12.4` for 12040: a version in `cuDriverGetVersion`'s numbering, as CUDA names releases.
pub fn cuda_version(version: u32) -> String {
    format!("{}.{}", version / 1000, version % 1000 / 10)
}

/// The driver an ABI needs in both stream modes: its own version, or its per-thread twin's where
/// that is newer (a table may be switched to per-thread mode at run time, `Config::per_thread`).
pub fn needs(abi: &Abi) -> u32 {
    abi.per_thread
        .as_ref()
        .map_or(abi.version, |pt| pt.version.max(abi.version))
}

/// The newest ABI of `function` (at most its default) that a `driver` has in both stream modes.
pub fn newest_for(function: &'static Function, driver: u32) -> Option<&'static Abi> {
    function
        .abis
        .iter()
        .rev()
        .find(|a| a.version <= function.default && needs(a) <= driver)
}

/// `a CUDA 12.5 driver (ABI 12050)`, or, where the per-thread twin is newer, `a CUDA 7.0 driver
/// (ABI 3020, per-thread twin 7000)`.
fn needs_text(abi: &Abi) -> String {
    let needed = needs(abi);
    if needed == abi.version {
        format!("a CUDA {} driver (ABI {needed})", cuda_version(needed))
    } else {
        format!(
            "a CUDA {} driver (ABI {}, per-thread twin {needed})",
            cuda_version(needed),
            abi.version
        )
    }
}

/// `this table targets CUDA 12.0 (`driver = 12000`)`.
fn targets(driver: u32) -> String {
    format!(
        "this table targets CUDA {} (`driver = {driver}`)",
        cuda_version(driver)
    )
}

/// The oldest driver any table can target: every function is looked up through
/// `cuGetProcAddress`, so a driver needs its oldest ABI.
fn lookup_floor() -> Option<u32> {
    manifest::find("cuGetProcAddress")?
        .abis
        .iter()
        .map(|a| a.version)
        .min()
}

/// `driver = N` when it is a driver a table can target, reporting one no table can target (the
/// table is then checked and emitted as if it were not given).
fn target(request: &Request, errors: &mut Errors) -> Option<u32> {
    let Some(Driver::Version {
        version,
        span,
        quoted,
    }) = request.driver
    else {
        return None;
    };
    if let Err(e) = release_number(version, quoted) {
        errors.at(span, e);
        return None;
    }
    match lookup_floor() {
        Some(floor) if version < floor => {
            errors.at(
                span,
                format!(
                    "`driver = {}` (CUDA {}) is older than any driver a table can use: every function is looked up through `cuGetProcAddress`, which came with CUDA {}: write `driver = {floor}` or newer",
                    version,
                    cuda_version(version),
                    cuda_version(floor)
                ),
            );
            None
        }
        _ => Some(version),
    }
}

/// Whether `version` (of `driver = ...`, written as a string when `quoted`) numbers a CUDA release
/// this crate can know: `1000 * major + 10 * minor` with a minor of one digit, and no newer than
/// the newest release of the manifest; the message for the user when not.
fn release_number(version: u32, quoted: bool) -> Result<(), String> {
    let written = if quoted {
        format!("driver = \"{}.{}\"", version / 1000, version % 1000 / 10)
    } else {
        format!("driver = {version}")
    };
    let releases = manifest::releases();
    let (Some(&oldest), Some(&newest)) = (releases.first(), releases.last()) else {
        return Ok(());
    };
    let known = || {
        format!(
            "the releases this crate knows are CUDA {} (`driver = {oldest}`) to CUDA {} (`driver = {newest}`)",
            cuda_version(oldest),
            cuda_version(newest)
        )
    };
    if !version.is_multiple_of(10) || version % 1000 >= 100 {
        // `12345`: most likely CUDA 12.3.
        let near = version / 1000 * 1000 + version % 1000 / 100 * 10;
        let suggestion = if releases.contains(&near) {
            format!(
                "did you mean `driver = {near}` (CUDA {})?",
                cuda_version(near)
            )
        } else {
            format!("{}; write one of them", known())
        };
        return Err(format!(
            "`{written}` is not a CUDA release: `cuDriverGetVersion` numbers CUDA X.Y as 1000 × X + 10 × Y, whose minor Y has one digit (`driver = 12040` or `driver = \"12.4\"` for CUDA 12.4); {suggestion}"
        ));
    }
    if version > newest {
        return Err(format!(
            "`{written}` (CUDA {}) is newer than every CUDA release this crate knows, the newest being CUDA {}: write the oldest driver the table must work on, at most `driver = {newest}`, or `driver = newest` for the newest ABIs of the CUDA {} bindings",
            cuda_version(version),
            cuda_version(newest),
            manifest::release_name(manifest::RELEASE)
        ));
    }
    Ok(())
}

/// A table without `driver`: it needs one, and the error says what `driver = newest` would mean
/// for these functions.
fn missing_driver(request: &Request, functions: &[Checked], errors: &mut Errors) {
    if request.driver.is_some() || request.driver_written || manifest::RELEASE == 0 {
        return;
    }
    let release = manifest::release_name(manifest::RELEASE);
    let floor = functions
        .iter()
        .map(|c| needs(c.abi))
        .chain(lookup_floor())
        .max();
    let newest = match floor {
        Some(floor) => format!(
            "`driver = newest` for the newest ABIs of the CUDA {release} bindings, which for these functions need a CUDA {} driver ({floor})",
            cuda_version(floor)
        ),
        None => format!("`driver = newest` for the newest ABIs of the CUDA {release} bindings"),
    };
    errors.at(
        Span::call_site(),
        format!(
            "#[driver_table] needs the oldest driver the table must work on, so that its floor is stated where it is declared: \
             add `driver = 12000` (CUDA 12.0; each function then takes the newest ABI such a driver has), or {newest}"
        ),
    );
}

/// An exported symbol of the selected release that is not a C name: the ABI it names.
struct Export {
    function: &'static Function,
    abi: &'static Abi,
    symbol: &'static str,
    /// The symbol of the ABI's per-thread twin (`cuLaunchKernel_ptsz`).
    per_thread: bool,
}

/// The functions of the release that `name` continues with `_<suffix>`, longest first.
fn functions_before_suffix(name: &str) -> impl Iterator<Item = &'static Function> + '_ {
    name.rmatch_indices('_')
        .filter_map(|(i, _)| manifest::find(&name[..i]))
}

/// The function and ABI whose exported symbol is `name` (`cuCtxCreate_v2`, `cuMemcpy_ptds`).
fn export(name: &str) -> Option<Export> {
    functions_before_suffix(name).find_map(|function| {
        function.abis.iter().find_map(|abi| {
            let own = abi
                .export
                .filter(|&e| e == name)
                .map(|symbol| (symbol, false));
            let twin = || twin_export(abi).filter(|&e| e == name).map(|s| (s, true));
            own.or_else(twin).map(|(symbol, per_thread)| Export {
                function,
                abi,
                symbol,
                per_thread,
            })
        })
    })
}

/// The exported symbol of an ABI's per-thread twin, if it has one.
fn twin_export(abi: &Abi) -> Option<&'static str> {
    abi.per_thread.as_ref().and_then(|pt| pt.export)
}

/// The exported symbols of `function` that are not its C name, each with how to write its ABI
/// as a pin (`cuCtxCreate = 3020`, `cuLaunchKernel = 4000` with `per_thread`).
fn exports_of(function: &'static Function) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for abi in function.abis {
        let pin = format!("`{} = {}`", function.name, abi.version);
        if let Some(symbol) = abi.export.filter(|&e| e != function.name) {
            out.push((symbol, pin.clone()));
        }
        if let Some(symbol) = twin_export(abi) {
            out.push((symbol, format!("{pin} with `per_thread`")));
        }
    }
    out
}

/// Checks the struct and the request; what passes is the table to emit.
pub fn check(request: Request, item: Item, errors: &mut Errors) -> Table {
    let attrs = attrs(&item, errors);
    let driver = target(&request, errors);
    let functions = functions(&request, driver, errors);
    missing_driver(&request, &functions, errors);
    let whole = request.span.unwrap_or_else(Span::call_site);
    let krate = request
        .krate
        .or_else(|| renamed(crate::renamed::renamed_dependency(), whole, errors));
    Table {
        attrs,
        vis: item.vis,
        ident: item.ident,
        functions,
        krate,
        backend: request.backend,
        per_thread: request.per_thread.is_some(),
        driver,
    }
}

/// For a table without `crate = ...` in a crate that renames cuda-driver-table (`renamed`): the
/// error that says to name it, at the attribute, and the path to expand with, so that the
/// expansion does not fail once more where it names the runtime.
pub fn renamed(renamed: Option<&str>, span: Span, errors: &mut Errors) -> Option<syn::Path> {
    let name = renamed?;
    let path = syn::parse_str::<syn::Path>(name).ok()?;
    errors.at(
        span,
        format!(
            "this crate depends on cuda-driver-table renamed to `{name}` (its Cargo.toml), and a table names it `cuda_driver_table` unless told: add `crate = {name}` to the attribute"
        ),
    );
    Some(path)
}

/// Reports an item the attribute does not make a table of.
pub fn not_a_table(not_a_table: NotATable, errors: &mut Errors) {
    match not_a_table {
        // A second `#[driver_table]`, under a name the first could not recognise: the first
        // table stays as it is.
        NotATable::Table(ident) => errors.at(Span::call_site(), two_tables(&ident)),
        NotATable::Other(span, what) => errors.at(
            span,
            format!("#[driver_table] goes on a unit struct (`pub struct Cuda;`), not {what}; the attribute adds the fields and methods"),
        ),
        NotATable::ReservedName(ident) => {
            let name = ident.unraw().to_string();
            let what = if name == "sys" {
                "the runtime's bindings `sys`"
            } else {
                "the runtime `__cdt` (and its own items `__cdt_...`)"
            };
            errors.at(
                ident.span(),
                format!(
                    "a table cannot be named `{name}`: the code the attribute writes for it names {what}, which would hide the struct there; rename it, e.g. `struct Cuda;`"
                ),
            );
        }
    }
}

/// Checks the listed functions; returns the valid ones in the order given (with `all`: every
/// function of the release, with the ABIs of those listed).
fn functions(request: &Request, driver: Option<u32>, errors: &mut Errors) -> Vec<Checked> {
    let whole = request.span.unwrap_or_else(Span::call_site);
    let release = manifest::RELEASE;
    if release == 0 {
        errors.at(
            whole,
            "no CUDA release is selected: enable one `cuda-XXXXX` feature of cuda-driver-table (e.g. `cuda-13000`)",
        );
        return Vec::new();
    }
    if let Err(e) = manifest::load() {
        errors.at(whole, e);
        return Vec::new();
    }
    if !request.unknown.is_empty() {
        let names: Vec<&str> = manifest::functions().iter().map(|f| f.name).collect();
        for word in &request.unknown {
            errors.push(crate::parse::unknown_word(word, &names));
        }
    }
    // A list none of whose parts could be read was reported part by part already.
    if request.entries.is_empty() && request.all.is_none() && !request.malformed {
        errors.at(
            Span::call_site(),
            "#[driver_table] needs at least one driver function, e.g. `#[driver_table(cuInit, cuDeviceGet)]`, or `all`",
        );
    }
    let per_thread = request.per_thread.is_some();
    let mut out: Vec<Checked> = Vec::new();
    // The names as listed, each at its span.
    let mut seen: Vec<&Ident> = Vec::new();
    for entry in &request.entries {
        let written = entry.name.to_string();
        let span = entry.name.span();
        if let Some(first) = seen.iter().find(|s| s.to_string() == written) {
            errors.at(
                span,
                format!("`{written}` is listed twice; list each function once"),
            );
            errors.at(first.span(), format!("`{written}` is first listed here"));
            continue;
        }
        seen.push(&entry.name);
        // The function, and the ABI its exported symbol names when it is written as one.
        let found = match manifest::read_function(&written) {
            Ok(found) => found,
            Err(e) => {
                errors.at(span, e);
                continue;
            }
        };
        let (function, named) = match found {
            Some(function) => (function, None),
            None => match export(&written) {
                Some(e) if e.per_thread && !per_thread => {
                    errors.at(span, per_thread_export_in_legacy_table(&e));
                    continue;
                }
                Some(e) => (e.function, Some((e.abi, e.symbol))),
                None => {
                    errors.at(span, missing(&written, release));
                    continue;
                }
            },
        };
        if let Some(first) = out.iter().find(|c| c.function.name == function.name) {
            let first_written = &first.written;
            let what = if written == function.name {
                format!("`{written}` is listed already")
            } else {
                format!(
                    "`{written}` is `{}`, which is listed already",
                    function.name
                )
            };
            errors.at(
                span,
                format!(
                    "{what} (as `{first_written}`): a table has one ABI of each function, list it once"
                ),
            );
            errors.at(
                first.name.span(),
                format!("`{}` is first listed here", function.name),
            );
            continue;
        }
        let Some((abi, why)) = chosen(function, named, entry.pin.as_ref(), driver, span, errors)
        else {
            continue;
        };
        out.push(Checked {
            name: Ident::new(function.name, span),
            written,
            function,
            abi,
            why,
        });
    }
    let Some(span) = request.all else {
        return out;
    };
    let all = match manifest::all() {
        Ok(all) => all,
        Err(e) => {
            errors.at(span, e);
            return out;
        }
    };
    // Every function of the release; under `driver = N`, every function such a driver has.
    all.iter()
        .filter_map(|function| {
            let listed = out.iter().find(|c| c.function.name == function.name);
            let (abi, why) = match listed {
                Some(c) => (c.abi, c.why),
                None => default_abi(function, driver)?,
            };
            Some(Checked {
                name: Ident::new(function.name, span),
                written: function.name.to_string(),
                function,
                abi,
                why,
            })
        })
        .collect()
}

/// The ABI of a listed function: named by its exported symbol, pinned, or plain.
fn chosen(
    function: &'static Function,
    named: Option<(&'static Abi, &'static str)>,
    pin: Option<&Pin>,
    driver: Option<u32>,
    span: Span,
    errors: &mut Errors,
) -> Option<(&'static Abi, Why)> {
    match (named, pin) {
        (Some((abi, symbol)), Some(pin)) => {
            export_with_pin(function, abi, symbol, pin, errors);
            None
        }
        (Some((abi, symbol)), None) => match driver {
            Some(driver) if needs(abi) > driver => {
                errors.at(span, export_too_new(function, abi, symbol, driver));
                None
            }
            _ => Some((abi, Why::Export(symbol))),
        },
        (None, None) => plain(function, driver, span, errors),
        (None, Some(Pin::Version(version, pin_span))) => match function.abi(*version) {
            Some(abi) => match driver {
                Some(driver) if needs(abi) > driver => {
                    errors.at(*pin_span, pin_too_new(function, abi, driver));
                    None
                }
                _ => Some((abi, Why::Pinned)),
            },
            None => {
                // The first of the ABIs nearest the pin.
                let nearest = function
                    .abis
                    .iter()
                    .min_by_key(|a| a.version.abs_diff(*version))
                    .map_or(function.default, |a| a.version);
                errors.at(
                    *pin_span,
                    format!(
                        "`{}` has no ABI {version} in CUDA {}; its ABIs are {} (default {}): did you mean `{} = {nearest}`?",
                        function.name,
                        manifest::release_name(manifest::RELEASE),
                        abi_list(function),
                        function.default,
                        function.name,
                    ),
                );
                None
            }
        },
        (
            None,
            Some(Pin::Invalid {
                tokens,
                problem,
                number,
            }),
        ) => {
            let name = function.name;
            let example = match number {
                Some(v) if function.abi(*v).is_some() => *v,
                _ => pin_example(function, &tokens.to_string()),
            };
            let problem = problem
                .as_ref()
                .map_or_else(String::new, |p| format!("{p}: "));
            errors.spanned(
                tokens,
                format!(
                    "{problem}pin `{name}` to an ABI version, written as a number: `{name} = {example}` (the `_v{example}` of `PFN_{name}_v{example}`); its ABIs in CUDA {} are {} (default {})",
                    manifest::release_name(manifest::RELEASE),
                    abi_list(function),
                    function.default
                ),
            );
            None
        }
    }
}

/// The ABI a plain name takes: the default, or under `driver = N` the newest such a driver has.
fn default_abi(function: &'static Function, driver: Option<u32>) -> Option<(&'static Abi, Why)> {
    match driver {
        Some(driver) => newest_for(function, driver).map(|abi| (abi, Why::Driver(driver))),
        None => function.abi(function.default).map(|abi| (abi, Why::Newest)),
    }
}

/// The ABI of a plain name, reporting a function no ABI of which `driver = N` has.
fn plain(
    function: &'static Function,
    driver: Option<u32>,
    span: Span,
    errors: &mut Errors,
) -> Option<(&'static Abi, Why)> {
    let Some(driver) = driver else {
        return default_abi(function, None);
    };
    if let Some(chosen) = default_abi(function, Some(driver)) {
        return Some(chosen);
    }
    // The first of the ABIs that need the oldest driver.
    let oldest = function.abis.iter().min_by_key(|a| needs(a))?;
    errors.at(
        span,
        format!(
            "`{}` needs {}; {}: raise `driver` to at least {}, or remove `{}`",
            function.name,
            needs_text(oldest),
            targets(driver),
            needs(oldest),
            function.name
        ),
    );
    None
}

/// What to write instead of an ABI a `driver` does not have: the newest it has, else nothing.
fn instead(function: &'static Function, driver: u32, symbol: bool) -> String {
    let Some(abi) = newest_for(function, driver) else {
        return format!("`{}` has no ABI that old: remove it, or ", function.name);
    };
    let pin = format!("`{} = {}`", function.name, abi.version);
    match abi.export {
        Some(e) if symbol && e != function.name => {
            format!("write `{e}` ({pin}), the newest ABI such a driver has, or ")
        }
        _ => format!("pin {pin}, the newest ABI such a driver has, or "),
    }
}

/// A pin newer than `driver = N`.
fn pin_too_new(function: &'static Function, abi: &Abi, driver: u32) -> String {
    format!(
        "`{} = {}` needs {}; {}: {}raise `driver` to at least {}",
        function.name,
        abi.version,
        needs_text(abi),
        targets(driver),
        instead(function, driver, false),
        needs(abi)
    )
}

/// An exported symbol newer than `driver = N`.
fn export_too_new(function: &'static Function, abi: &Abi, symbol: &str, driver: u32) -> String {
    format!(
        "`{symbol}` is ABI {} of `{}`, which needs {}; {}: {}raise `driver` to at least {}",
        abi.version,
        function.name,
        needs_text(abi),
        targets(driver),
        instead(function, driver, true),
        needs(abi)
    )
}

/// An exported symbol with a pin after it (`cuCtxCreate_v2 = 3020`): the symbol already names
/// the ABI.
fn export_with_pin(function: &Function, abi: &Abi, symbol: &str, pin: &Pin, errors: &mut Errors) {
    let name = function.name;
    let version = abi.version;
    match pin {
        Pin::Version(v, span) if *v == version => errors.at(
            *span,
            format!(
                "`{symbol}` names ABI {version} of `{name}` already: write `{symbol}` without `= {v}`, or `{name} = {version}`"
            ),
        ),
        Pin::Version(v, span) => errors.at(
            *span,
            format!(
                "`{symbol}` names ABI {version} of `{name}`, which a pin cannot change: write `{name} = {v}` for ABI {v}, or `{symbol}` alone"
            ),
        ),
        Pin::Invalid { tokens, .. } => errors.spanned(
            tokens,
            format!(
                "`{symbol}` names ABI {version} of `{name}` already: write `{symbol}` without a pin, or `{name} = {version}`"
            ),
        ),
    }
}

/// A per-thread export (`cuLaunchKernel_ptsz`) in a table without `per_thread`.
fn per_thread_export_in_legacy_table(e: &Export) -> String {
    let name = e.function.name;
    let twin = e
        .abi
        .per_thread
        .as_ref()
        .map_or(e.abi.version, |pt| pt.version);
    format!(
        "`{}` is the per-thread default stream export of `{name}` (ABI {}, per-thread twin {twin}), and this table uses the legacy default stream: add the `per_thread` option (`#[driver_table({}, per_thread)]`), or write `{name} = {}` for the legacy stream",
        e.symbol, e.abi.version, e.symbol, e.abi.version
    )
}

/// `2000, 3020, 11040, 12050`.
fn abi_list(function: &Function) -> String {
    let versions: Vec<String> = function
        .abis
        .iter()
        .map(|a| a.version.to_string())
        .collect();
    versions.join(", ")
}

/// The version to show in the fix for a pin that is not a number: the ABI whose exported symbol
/// it names (`"v3"` for `cuCtxCreate_v3`), else the one its digits spell (`"v3020"`), else the
/// newest ABI older than the default, else the default.
fn pin_example(function: &Function, written: &str) -> u32 {
    let suffix = written.trim_matches('"').trim_start_matches('_');
    let export = format!("{}_{suffix}", function.name);
    if let Some(abi) = function.abis.iter().find(|a| a.export == Some(&export)) {
        return abi.version;
    }
    let digits: String = written.chars().filter(char::is_ascii_digit).collect();
    if let Some(abi) = digits.parse().ok().and_then(|v| function.abi(v)) {
        return abi.version;
    }
    function
        .abis
        .iter()
        .rev()
        .map(|a| a.version)
        .find(|&v| v != function.default)
        .unwrap_or(function.default)
}

/// The message for a name that is neither a function nor an exported symbol of the release.
fn missing(name: &str, release: u32) -> String {
    let selected = manifest::release_name(release);
    let have = manifest::releases_with(name);
    if let Some(&closest) = have.iter().min_by_key(|v| v.abs_diff(release)) {
        let names: Vec<String> = have.iter().map(|&v| manifest::release_name(v)).collect();
        return format!(
            "`{name}` is not in the CUDA {selected} headers (feature `cuda-{release}` of cuda-driver-table); it is in CUDA {}: select one of those releases instead, e.g. feature `cuda-{closest}`",
            names.join(", ")
        );
    }
    // `<function>_<suffix>`: a symbol that function does not export.
    if let Some(function) = functions_before_suffix(name).next() {
        return not_an_export(name, function, &selected);
    }
    let mut candidates: Vec<(&str, String)> = manifest::functions()
        .iter()
        .map(|f| (f.name, format!("`{}`", f.name)))
        .collect();
    // A name with `_` may be a misspelt exported symbol: offer those too, with their pin form.
    if name.contains('_') {
        for function in manifest::functions() {
            for (symbol, pin) in exports_of(function) {
                candidates.push((symbol, format!("`{symbol}` ({pin})")));
            }
        }
    }
    match suggest(name, &candidates) {
        None => format!("no driver function `{name}` in the CUDA {selected} headers"),
        Some(hint) => format!("no driver function `{name}` in the CUDA {selected} headers; {hint}"),
    }
}

/// The message for `<function>_<suffix>` that is not one of the function's exported symbols.
fn not_an_export(name: &str, function: &'static Function, selected: &str) -> String {
    let base = function.name;
    let per_thread_suffix = name.ends_with("_ptds") || name.ends_with("_ptsz");
    if per_thread_suffix && function.abis.iter().all(|a| a.per_thread.is_none()) {
        return format!(
            "`{name}` is not a symbol of CUDA {selected}: `{base}` has no per-thread default stream variant (it is requested with the legacy flag in both stream modes): list `{base}`"
        );
    }
    // `2000, 3020 (`cuCtxCreate_v2`), 7000 (per-thread `cuLaunchKernel_ptsz`)`.
    let symbols: Vec<String> = function
        .abis
        .iter()
        .map(|abi| {
            let own = abi.export.filter(|&e| e != base).map(|e| format!("`{e}`"));
            let twin = twin_export(abi).map(|e| format!("per-thread `{e}`"));
            let names: Vec<String> = own.into_iter().chain(twin).collect();
            if names.is_empty() {
                abi.version.to_string()
            } else {
                format!("{} ({})", abi.version, names.join(", "))
            }
        })
        .collect();
    let candidates: Vec<(&str, String)> = exports_of(function)
        .into_iter()
        .map(|(symbol, pin)| (symbol, format!("`{symbol}` ({pin})")))
        .collect();
    let hint = suggest(name, &candidates).unwrap_or_else(|| {
        format!(
            "write one of those symbols, or pin the ABI (`{base} = {}`)",
            function.default
        )
    });
    format!(
        "`{name}` is not an exported symbol of `{base}` in CUDA {selected}; its ABIs are {}: {hint}",
        symbols.join(", ")
    )
}

/// `did you mean A or B?` for the candidates closest to `written` (each a name and how to show
/// it; of the near ones, only those nearest), or `None`.
fn suggest(written: &str, candidates: &[(&str, String)]) -> Option<String> {
    let near = near(written, candidates.iter().map(|(name, _)| *name));
    let nearest = near.iter().map(|n| levenshtein(n, written)).min()?;
    let shown: Vec<&str> = near
        .iter()
        .filter(|n| levenshtein(n, written) == nearest)
        .filter_map(|n| candidates.iter().find(|(name, _)| name == n))
        .map(|(_, shown)| shown.as_str())
        .collect();
    Some(format!("did you mean {}?", shown.join(" or ")))
}

/// What a table cannot derive, and why: the table writes `Default` itself, and holds function
/// pointers resolved on first use, which are neither values to copy nor to compare.
fn derive_problem(name: &str, table: &Ident) -> Option<String> {
    let problem = match name {
        "Default" => format!(
            "`{table}` already implements `Default` (as `{table}::new()`): remove `Default` from the derive"
        ),
        "Clone" | "Copy" => format!(
            "a table cannot be `{name}`: it holds the function pointers it resolves on first use; \
             share one table by reference instead (e.g. `static CU: {table} = {table}::new();`), \
             or make another with the same configuration: `{table}::with_config(*table.config())`. \
             Remove `{name}` from the derive"
        ),
        "PartialEq" | "Eq" | "PartialOrd" | "Ord" | "Hash" => format!(
            "a table cannot be `{name}`: it holds the function pointers it resolves on first use, not a value; \
             compare what you need instead (e.g. `{table}::FUNCTIONS`, a list of `FunctionSpec`s). \
             Remove `{name}` from the derive"
        ),
        _ => return None,
    };
    Some(problem)
}

/// Why a table cannot have this `repr`: its one field holds atomics (which `packed` would
/// misalign) and its layout is not part of its API (which `transparent` would promise).
fn repr_problem(hint: &Ident, table: &Ident) -> Option<String> {
    let problem = match hint.to_string().as_str() {
        "packed" => format!(
            "a table cannot be `repr(packed)`: `{table}` holds the atomic pointers it resolves, which must stay aligned. Remove `packed`"
        ),
        "transparent" => format!(
            "a table cannot be `repr(transparent)`: `{table}`'s fields are private and its layout is not part of its API. Remove `transparent`"
        ),
        _ => return None,
    };
    Some(problem)
}

/// The struct's attributes to re-emit: derives and `repr`s the table cannot have, and a second
/// `#[driver_table]`, are reported and left out, so they add no errors of their own.
fn attrs(item: &Item, errors: &mut Errors) -> TokenStream {
    let mut out = TokenStream::new();
    for attr in &item.attrs {
        match attr {
            Attr::Other(attr) => attr.to_tokens(&mut out),
            Attr::DriverTable(attr) => errors.spanned(attr, two_tables(&item.ident)),
            Attr::Repr { attr, hints } => {
                let problems: Vec<(&Ident, String)> = hints
                    .iter()
                    .filter_map(|hint| Some((hint, repr_problem(hint, &item.ident)?)))
                    .collect();
                if problems.is_empty() {
                    attr.to_tokens(&mut out);
                }
                for (hint, problem) in problems {
                    errors.at(hint.span(), problem);
                }
            }
            Attr::Derive { attr, paths } => {
                let kept: Vec<&Path> = paths
                    .iter()
                    .filter(|path| {
                        let name = path.segments.last().map(|s| s.ident.to_string());
                        match derive_problem(name.as_deref().unwrap_or(""), &item.ident) {
                            Some(problem) => {
                                errors.spanned(path, problem);
                                false
                            }
                            None => true,
                        }
                    })
                    .collect();
                if !kept.is_empty() {
                    let path = attr.path();
                    out.extend(quote!(#[#path(#(#kept),*)]));
                }
            }
        }
    }
    out
}

/// The error for a struct with two `#[driver_table]` attributes (whatever they are imported as).
fn two_tables(table: &Ident) -> String {
    format!(
        "`{table}` has two `#[driver_table]` attributes: list every function and option in one, e.g. `#[driver_table(cuInit, cuMemAlloc)]`"
    )
}
