//! Checking: the request against the manifest of the selected release, and the struct's own
//! attributes against what a table is. Every problem becomes an error at the user's token; what is
//! valid goes on to expansion, so the rest of the user's code still type-checks.
//!
//! Lists are searched and built with plain loops rather than iterator adapters and closures:
//! each of those is generic code instantiated anew, which every clean build of a user's program
//! compiles as part of the macro crate.

use crate::diagnostics::{near, Diagnostics};
use crate::manifest::{self, Abi, Function};
use crate::model::{Attr, Item, Pin, Request};
use crate::tokens::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use std::fmt::Write;

/// A function that passed every check, with the ABI it is requested at and why.
pub struct Checked {
    /// The C name (`cuCtxCreate`, also when written `cuCtxCreate_v2`), at the user's token.
    pub name: Ident,
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
    match &abi.per_thread {
        Some(pt) => pt.version.max(abi.version),
        None => abi.version,
    }
}

/// The newest ABI of `function` (at most its default) that a `driver` has in both stream modes.
pub fn newest_for(function: &'static Function, driver: u32) -> Option<&'static Abi> {
    let mut newest = None;
    for a in function.abis {
        if a.version <= function.default && needs(a) <= driver {
            newest = Some(a);
        }
    }
    newest
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
    let mut floor = None;
    for a in manifest::find("cuGetProcAddress")?.abis {
        match floor {
            Some(f) if f <= a.version => {}
            _ => floor = Some(a.version),
        }
    }
    floor
}

/// `driver = N` when it is a driver a table can target; the table is otherwise checked and
/// emitted as if it were not given.
pub fn target(request: &Request) -> Option<u32> {
    let driver = request.driver?;
    match lookup_floor() {
        Some(floor) if driver.version < floor => None,
        _ => Some(driver.version),
    }
}

/// `target`, reporting a `driver = N` no table can target.
fn checked_driver(request: &Request, diag: &mut Diagnostics) -> Option<u32> {
    let target = target(request);
    if let (Some(driver), None, Some(floor)) = (request.driver, target, lookup_floor()) {
        diag.at(
            driver.span,
            format!(
                "`driver = {}` (CUDA {}) is older than any driver a table can use: every function is looked up through `cuGetProcAddress`, which came with CUDA {}: write `driver = {floor}` or newer",
                driver.version,
                cuda_version(driver.version),
                cuda_version(floor)
            ),
        );
    }
    target
}

/// An exported symbol of the selected release that is not a C name: the ABI it names.
struct Export {
    function: &'static Function,
    abi: &'static Abi,
    symbol: &'static str,
    /// The symbol of the ABI's per-thread twin (`cuLaunchKernel_ptsz`).
    per_thread: bool,
}

/// The function and ABI whose exported symbol is `name` (`cuCtxCreate_v2`, `cuMemcpy_ptds`),
/// found by its prefixes that are functions of the release.
fn export(name: &str) -> Option<Export> {
    let mut i = name.len();
    while i > 0 {
        i -= 1;
        if name.as_bytes()[i] != b'_' {
            continue;
        }
        let Some(function) = manifest::find(&name[..i]) else {
            continue;
        };
        for abi in function.abis {
            if let Some(symbol) = abi.export {
                if symbol == name {
                    return Some(Export {
                        function,
                        abi,
                        symbol,
                        per_thread: false,
                    });
                }
            }
            if let Some(symbol) = twin_export(abi) {
                if symbol == name {
                    return Some(Export {
                        function,
                        abi,
                        symbol,
                        per_thread: true,
                    });
                }
            }
        }
    }
    None
}

/// The exported symbol of an ABI's per-thread twin, if it has one.
fn twin_export(abi: &Abi) -> Option<&'static str> {
    match &abi.per_thread {
        Some(pt) => pt.export,
        None => None,
    }
}

/// The function of the release whose name `name` continues with `_<suffix>`: the longest such.
fn function_before_suffix(name: &str) -> Option<&'static Function> {
    let mut i = name.len();
    while i > 0 {
        i -= 1;
        if name.as_bytes()[i] == b'_' {
            if let Some(function) = manifest::find(&name[..i]) {
                return Some(function);
            }
        }
    }
    None
}

/// The exported symbols of `function` that are not its C name, each with how to write its ABI
/// as a pin (`cuCtxCreate = 3020`, `cuLaunchKernel = 4000` with `per_thread`).
fn exports_of(function: &'static Function) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for abi in function.abis {
        let pin = format!("`{} = {}`", function.name, abi.version);
        if let Some(symbol) = abi.export {
            if symbol != function.name {
                out.push((symbol, pin.clone()));
            }
        }
        if let Some(symbol) = twin_export(abi) {
            out.push((symbol, format!("{pin} with `per_thread`")));
        }
    }
    out
}

/// Checks the listed functions; returns the valid ones in the order given.
pub fn check(request: &Request, diag: &mut Diagnostics) -> Vec<Checked> {
    let release = manifest::RELEASE;
    if release == 0 {
        diag.at(
            request.span.unwrap_or_else(Span::call_site),
            "no CUDA release is selected: enable one `cuda-XXXXX` feature of cuda-driver-table (e.g. `cuda-13000`)",
        );
        return Vec::new();
    }
    if let Err(e) = manifest::load() {
        diag.at(request.span.unwrap_or_else(Span::call_site), e);
        return Vec::new();
    }
    // A list none of whose parts could be read was reported part by part already.
    if request.entries.is_empty() && request.all.is_none() && !request.malformed {
        diag.at(
            request.span.unwrap_or_else(Span::call_site),
            "#[driver_table] needs at least one driver function, e.g. `#[driver_table(cuInit, cuDeviceGet)]`, or `all`",
        );
    }
    let driver = checked_driver(request, diag);
    let per_thread = request.per_thread.is_some();
    let mut out = Vec::new();
    // Small lists searched in order (a map would cost the macro's build more than it saves).
    // The names as listed (each at its span), and the C name of each that is a function.
    let mut seen: Vec<&Ident> = Vec::new();
    let mut seen_c: Vec<(&'static str, &Ident)> = Vec::new();
    // With `all`: the functions listed, whose ABIs `all` takes.
    let mut pins: Vec<Checked> = Vec::new();
    for entry in &request.entries {
        let written = entry.name.as_str();
        let span = entry.name.span();
        if let Some(first) = first_span(&seen, written) {
            diag.at(
                span,
                format!("`{written}` is listed twice; list each function once"),
            );
            diag.at(first, format!("`{written}` is first listed here"));
            continue;
        }
        seen.push(&entry.name);
        // The function, and the ABI its exported symbol names when it is written as one.
        let (function, named) = match manifest::find(written) {
            Some(function) => (function, None),
            None => match export(written) {
                Some(e) if e.per_thread && !per_thread => {
                    diag.at(span, per_thread_export_in_legacy_table(&e));
                    continue;
                }
                Some(e) => (e.function, Some((e.abi, e.symbol))),
                None => {
                    diag.at(span, missing(written, release));
                    continue;
                }
            },
        };
        let mut listed = None;
        for (n, first) in &seen_c {
            if *n == function.name {
                listed = Some((first.span(), first.as_str()));
                break;
            }
        }
        if let Some((first, first_written)) = listed {
            diag.at(
                span,
                format!(
                    "`{written}` is `{}`, which is listed already (as `{first_written}`): a table has one ABI of each function, list it once",
                    function.name
                ),
            );
            diag.at(first, format!("`{}` is first listed here", function.name));
            continue;
        }
        seen_c.push((function.name, &entry.name));
        let chosen = match (named, &entry.pin) {
            (Some((abi, symbol)), Some(pin)) => {
                export_with_pin(function, abi, symbol, pin, diag);
                None
            }
            (Some((abi, symbol)), None) => match driver {
                Some(driver) if needs(abi) > driver => {
                    diag.at(span, export_too_new(function, abi, symbol, driver));
                    None
                }
                _ => Some((abi, Why::Export(symbol))),
            },
            (None, None) => plain(function, driver, span, diag),
            (None, Some(Pin::Version(version, pin_span))) => match function.abi(*version) {
                Some(abi) => match driver {
                    Some(driver) if needs(abi) > driver => {
                        diag.at(*pin_span, pin_too_new(function, abi, driver));
                        None
                    }
                    _ => Some((abi, Why::Pinned)),
                },
                None => {
                    // The first of the ABIs nearest the pin.
                    let mut nearest = None;
                    for a in function.abis {
                        let distance = a.version.abs_diff(*version);
                        match nearest {
                            Some((_, d)) if d <= distance => {}
                            _ => nearest = Some((a.version, distance)),
                        }
                    }
                    let nearest = match nearest {
                        Some((v, _)) => v,
                        None => function.default,
                    };
                    diag.at(
                        *pin_span,
                        format!(
                            "`{}` has no ABI {version} in CUDA {}; its ABIs are {} (default {}): did you mean `{} = {nearest}`?",
                            function.name,
                            manifest::release_name(release),
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
                let problem = match problem {
                    Some(p) => format!("{p}: "),
                    None => String::new(),
                };
                diag.spanned(
                    tokens,
                    format!(
                        "{problem}pin `{name}` to an ABI version, written as a number: `{name} = {example}` (the `_v{example}` of `PFN_{name}_v{example}`); its ABIs in CUDA {} are {} (default {})",
                        manifest::release_name(release),
                        abi_list(function),
                        function.default
                    ),
                );
                None
            }
        };
        let Some((abi, why)) = chosen else { continue };
        let checked = Checked {
            name: Ident::new(function.name, span),
            function,
            abi,
            why,
        };
        if request.all.is_some() {
            pins.push(checked);
        } else {
            out.push(checked);
        }
    }
    if let Some(span) = request.all {
        // Every function of the release; under `driver = N`, every function such a driver has.
        for function in manifest::functions() {
            let mut chosen = None;
            for pin in &pins {
                if pin.function.name == function.name {
                    chosen = Some((pin.abi, pin.why));
                    break;
                }
            }
            if chosen.is_none() {
                chosen = default_abi(function, driver);
            }
            let Some((abi, why)) = chosen else { continue };
            out.push(Checked {
                name: Ident::new(function.name, span),
                function,
                abi,
                why,
            });
        }
    }
    out
}

/// Where `written` is first listed, if it is.
fn first_span(seen: &[&Ident], written: &str) -> Option<Span> {
    for w in seen {
        if w.as_str() == written {
            return Some(w.span());
        }
    }
    None
}

/// The ABI a plain name takes: the default, or under `driver = N` the newest such a driver has.
fn default_abi(function: &'static Function, driver: Option<u32>) -> Option<(&'static Abi, Why)> {
    match driver {
        Some(driver) => match newest_for(function, driver) {
            Some(abi) => Some((abi, Why::Driver(driver))),
            None => None,
        },
        None => match function.abi(function.default) {
            Some(abi) => Some((abi, Why::Newest)),
            None => None,
        },
    }
}

/// The ABI of a plain name: the default, or under `driver = N` the newest such a driver has.
fn plain(
    function: &'static Function,
    driver: Option<u32>,
    span: Span,
    diag: &mut Diagnostics,
) -> Option<(&'static Abi, Why)> {
    let Some(driver) = driver else {
        return default_abi(function, None);
    };
    if let Some(abi) = newest_for(function, driver) {
        return Some((abi, Why::Driver(driver)));
    }
    // The first of the ABIs that need the oldest driver.
    let mut oldest: Option<&Abi> = None;
    for a in function.abis {
        match oldest {
            Some(o) if needs(o) <= needs(a) => {}
            _ => oldest = Some(a),
        }
    }
    let oldest = oldest?;
    diag.at(
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
    match newest_for(function, driver) {
        Some(abi) => {
            let pin = format!("`{} = {}`", function.name, abi.version);
            match abi.export {
                Some(e) if symbol && e != function.name => {
                    format!("write `{e}` ({pin}), the newest ABI such a driver has, or ")
                }
                _ => format!("pin {pin}, the newest ABI such a driver has, or "),
            }
        }
        None => format!("`{}` has no ABI that old: remove it, or ", function.name),
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
fn export_with_pin(
    function: &Function,
    abi: &Abi,
    symbol: &str,
    pin: &Pin,
    diag: &mut Diagnostics,
) {
    let name = function.name;
    let version = abi.version;
    let message = match pin {
        Pin::Version(v, _) if *v == version => format!(
            "`{symbol}` names ABI {version} of `{name}` already: write `{symbol}` without `= {v}`, or `{name} = {version}`"
        ),
        Pin::Version(v, _) => format!(
            "`{symbol}` names ABI {version} of `{name}`, which a pin cannot change: write `{name} = {v}` for ABI {v}, or `{symbol}` alone"
        ),
        Pin::Invalid { .. } => format!(
            "`{symbol}` names ABI {version} of `{name}` already: write `{symbol}` without a pin, or `{name} = {version}`"
        ),
    };
    match pin {
        Pin::Version(_, span) => diag.at(*span, message),
        Pin::Invalid { tokens, .. } => diag.spanned(tokens, message),
    }
}

/// A per-thread export (`cuLaunchKernel_ptsz`) in a table without `per_thread`.
fn per_thread_export_in_legacy_table(e: &Export) -> String {
    let name = e.function.name;
    let twin = match &e.abi.per_thread {
        Some(pt) => pt.version,
        None => e.abi.version,
    };
    format!(
        "`{}` is the per-thread default stream export of `{name}` (ABI {}, per-thread twin {twin}), and this table uses the legacy default stream: add the `per_thread` option (`#[driver_table({}, per_thread)]`), or write `{name} = {}` for the legacy stream",
        e.symbol, e.abi.version, e.symbol, e.abi.version
    )
}

/// `2000, 3020, 11040, 12050`.
fn abi_list(function: &Function) -> String {
    let mut out = String::new();
    for a in function.abis {
        if !out.is_empty() {
            out.push_str(", ");
        }
        let _ = write!(out, "{}", a.version);
    }
    out
}

/// The version to show in the fix for a pin that is not a number: the ABI whose exported symbol
/// it names (`"v3"` for `cuCtxCreate_v3`), else the one its digits spell (`"v3020"`), else the
/// newest ABI older than the default, else the default.
fn pin_example(function: &Function, written: &str) -> u32 {
    // `written` without its quotes at either end, then without `_`s at the start.
    let bytes = written.as_bytes();
    let (mut start, mut end) = (0, bytes.len());
    while start < end && bytes[start] == b'"' {
        start += 1;
    }
    while end > start && bytes[end - 1] == b'"' {
        end -= 1;
    }
    while start < end && bytes[start] == b'_' {
        start += 1;
    }
    let export = format!("{}_{}", function.name, &written[start..end]);
    for abi in function.abis {
        if abi.export == Some(export.as_str()) {
            return abi.version;
        }
    }
    // The number its digits spell (none when it has none or they overflow a `u32`).
    let mut digits: Option<u32> = None;
    for &b in bytes {
        if b.is_ascii_digit() {
            let value = digits.unwrap_or(0);
            digits = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u32::from(b - b'0')));
            if digits.is_none() {
                break;
            }
        }
    }
    if let Some(abi) = digits.and_then(|v| function.abi(v)) {
        return abi.version;
    }
    let mut example = function.default;
    for a in function.abis {
        if a.version != function.default {
            example = a.version;
        }
    }
    example
}

/// The message for a name that is neither a function nor an exported symbol of the release.
fn missing(name: &str, release: u32) -> String {
    let selected = manifest::release_name(release);
    let have = manifest::releases_with(name);
    if !have.is_empty() {
        let mut names = String::new();
        // The release to suggest: the one closest to the selected release (the first of those).
        let mut closest: Option<u32> = None;
        for &v in have {
            if !names.is_empty() {
                names.push_str(", ");
            }
            names.push_str(&manifest::release_name(v));
            match closest {
                Some(c) if c.abs_diff(release) <= v.abs_diff(release) => {}
                _ => closest = Some(v),
            }
        }
        let closest = closest.unwrap_or(release);
        return format!(
            "`{name}` is not in the CUDA {selected} headers (feature `cuda-{release}` of cuda-driver-table); it is in CUDA {names}: select one of those releases instead, e.g. feature `cuda-{closest}`"
        );
    }
    // `<function>_<suffix>`: a symbol that function does not export.
    if let Some(function) = function_before_suffix(name) {
        return not_an_export(name, function, &selected);
    }
    let mut candidates: Vec<(&str, String)> = Vec::new();
    for f in manifest::functions() {
        candidates.push((f.name, format!("`{}`", f.name)));
    }
    // A name with `_` may be a misspelt exported symbol: offer those too, with their pin form.
    if name.as_bytes().contains(&b'_') {
        for function in manifest::functions() {
            for (symbol, pin) in &exports_of(function) {
                candidates.push((symbol, format!("`{symbol}` ({pin})")));
            }
        }
    }
    let hint = suggest(name, &candidates);
    if hint.is_empty() {
        format!("no driver function `{name}` in the CUDA {selected} headers")
    } else {
        format!("no driver function `{name}` in the CUDA {selected} headers; {hint}")
    }
}

/// The message for `<function>_<suffix>` that is not one of the function's exported symbols.
fn not_an_export(name: &str, function: &'static Function, selected: &str) -> String {
    let base = function.name;
    let per_thread_suffix = name.ends_with("_ptds") || name.ends_with("_ptsz");
    let mut twins = false;
    for a in function.abis {
        twins |= a.per_thread.is_some();
    }
    if per_thread_suffix && !twins {
        return format!(
            "`{name}` is not a symbol of CUDA {selected}: `{base}` has no per-thread default stream variant (it is requested with the legacy flag in both stream modes): list `{base}`"
        );
    }
    // `2000, 3020 (`cuCtxCreate_v2`), 7000 (per-thread `cuLaunchKernel_ptsz`)`.
    let mut symbols = String::new();
    for abi in function.abis {
        if !symbols.is_empty() {
            symbols.push_str(", ");
        }
        let _ = write!(symbols, "{}", abi.version);
        let mut names = String::new();
        if let Some(e) = abi.export {
            if e != base {
                let _ = write!(names, "`{e}`");
            }
        }
        if let Some(e) = twin_export(abi) {
            if !names.is_empty() {
                names.push_str(", ");
            }
            let _ = write!(names, "per-thread `{e}`");
        }
        if !names.is_empty() {
            let _ = write!(symbols, " ({names})");
        }
    }
    let mut candidates = exports_of(function);
    for (symbol, pin) in &mut candidates {
        *pin = format!("`{symbol}` ({pin})");
    }
    let mut hint = suggest(name, &candidates);
    if hint.is_empty() {
        hint = format!(
            "write one of those symbols, or pin the ABI (`{base} = {}`)",
            function.default
        );
    }
    format!(
        "`{name}` is not an exported symbol of `{base}` in CUDA {selected}; its ABIs are {symbols}: {hint}"
    )
}

/// `did you mean A or B?` for the candidates closest to `written` (each a name and how to show
/// it; of the near ones, only those nearest), or nothing.
fn suggest(written: &str, candidates: &[(&str, String)]) -> String {
    let mut names = Vec::with_capacity(candidates.len());
    for (name, _) in candidates {
        names.push(*name);
    }
    let near = near(written, &names);
    let distance = |name: &str| crate::diagnostics::levenshtein(name, written);
    let mut nearest = usize::MAX;
    for n in &near {
        nearest = nearest.min(distance(n));
    }
    let mut out = String::new();
    for n in &near {
        if distance(n) != nearest {
            continue;
        }
        for (name, shown) in candidates {
            if name == n {
                out.push_str(if out.is_empty() {
                    "did you mean "
                } else {
                    " or "
                });
                out.push_str(shown);
                break;
            }
        }
    }
    if !out.is_empty() {
        out.push('?');
    }
    out
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
    let problem = match hint.as_str() {
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
pub fn check_attrs(item: &Item, diag: &mut Diagnostics) -> TokenStream {
    let mut out = TokenStream::new();
    for attr in &item.attrs {
        match attr {
            Attr::Other(tokens) => out.append(tokens),
            Attr::DriverTable(tokens) => diag.spanned(tokens, two_tables(&item.ident)),
            Attr::Repr { written, hints } => {
                let mut refused = false;
                for hint in hints {
                    if let Some(problem) = repr_problem(hint, &item.ident) {
                        diag.at(hint.span(), problem);
                        refused = true;
                    }
                }
                if !refused {
                    out.append(written);
                }
            }
            Attr::Derive { pound, path, paths } => {
                let mut kept = TokenStream::new();
                for derived in paths {
                    // The derived path's last name.
                    let mut name = "";
                    for t in derived.trees() {
                        if let TokenTree::Ident(i) = t {
                            name = i.as_str();
                        }
                    }
                    if let Some(problem) = derive_problem(name, &item.ident) {
                        diag.spanned(derived, problem);
                        continue;
                    }
                    if !kept.is_empty() {
                        kept.push(TokenTree::Punct(Punct::new(',', Spacing::Alone)));
                    }
                    kept.append(derived);
                }
                if kept.is_empty() {
                    continue;
                }
                let mut body = path.clone();
                body.push(TokenTree::Group(Group::new(Delimiter::Parenthesis, kept)));
                out.push(pound.clone());
                out.push(TokenTree::Group(Group::new(Delimiter::Bracket, body)));
            }
        }
    }
    out
}

/// The error for a struct with two `#[driver_table]` attributes (whatever they are imported as).
pub fn two_tables(table: &Ident) -> String {
    format!(
        "`{table}` has two `#[driver_table]` attributes: list every function and option in one, e.g. `#[driver_table(cuInit, cuMemAlloc)]`"
    )
}
