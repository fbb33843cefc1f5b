//! `inspect BINARY`: what a built program needs of the CUDA driver, read from its file without
//! running it: the tables its records list (`cuda_driver_table::registry`), the floor they set
//! and the PTX its read-only data holds.

use std::path::Path;

use cuda_driver_table_core::ptx;
use cuda_driver_table_core::registry::{self, RecordedTable, ELF_SECTION, PE_SECTION};
use cuda_driver_table_core::{CudaVersion, StreamMode};
use object::{Object, ObjectSection, SectionKind};
use serde::Serialize;

/// The JSON schema's name and version, the first field of `inspect --json`.
pub const SCHEMA: &str = "cuda-driver-table-inspect/1";

/// What `inspect` found in one file (the JSON output, see the crate's README).
#[derive(Debug, Serialize)]
pub struct Inspection {
    pub schema: &'static str,
    pub file: String,
    /// `elf` or `pe`.
    pub format: &'static str,
    /// The oldest driver that runs everything recorded and embedded, or `null` when there is
    /// neither a table nor PTX.
    pub driver_floor: Option<u32>,
    /// What sets the floor: the functions (or PTX modules) that need exactly that driver.
    pub set_by: Vec<Requirement>,
    pub tables: Vec<Table>,
    /// The functions requested with the per-thread default stream flag.
    pub per_thread: Vec<Requirement>,
    pub ptx: Vec<PtxModule>,
    /// Records that could not be read, with why.
    pub unreadable_records: Vec<String>,
}

/// A table as its record says.
#[derive(Debug, Serialize)]
pub struct Table {
    pub name: String,
    /// `default`, `runtime` or `driver`.
    pub backend: &'static str,
    /// `legacy` or `per-thread`.
    pub stream_mode: &'static str,
    pub min_driver_version: u32,
    pub functions: Vec<Function>,
}

/// A recorded function and what its table asks the driver for.
#[derive(Debug, Serialize)]
pub struct Function {
    pub name: String,
    /// The version of its pinned ABI.
    pub abi: u32,
    /// The version of that ABI's per-thread twin, if it has one.
    pub per_thread_abi: Option<u32>,
    /// The version asked for in the table's stream mode.
    pub requested: u32,
    /// The flag asked with: `legacy` or `per-thread`.
    pub flag: &'static str,
}

/// Something that needs a driver: a table's function, or a PTX module.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Requirement {
    Function {
        table: String,
        function: String,
        requested: u32,
        flag: &'static str,
    },
    Ptx {
        offset: u64,
        isa: String,
        target: String,
    },
}

/// One PTX module in the read-only data.
#[derive(Debug, Serialize)]
pub struct PtxModule {
    /// The section it is in.
    pub section: String,
    /// Its offset in the file.
    pub offset: u64,
    /// `.version`: `9.0`.
    pub isa: String,
    /// `.target`: `sm_90`.
    pub target: String,
    /// The oldest driver that loads it; `null` for an ISA this tool does not know.
    pub min_driver_version: Option<u32>,
}

/// The name of a stream mode in the output.
pub fn mode_name(mode: StreamMode) -> &'static str {
    match mode {
        StreamMode::Legacy => "legacy",
        StreamMode::PerThread => "per-thread",
    }
}

/// Reads `path`'s records and PTX. The error says what could not be read, for exit code 2.
pub fn inspect(path: &Path) -> Result<Inspection, String> {
    let data = std::fs::read(path).map_err(|e| {
        format!(
            "cannot read {}: {e}; give the path of a built program or library",
            path.display()
        )
    })?;
    let file = object::File::parse(&*data).map_err(|e| {
        format!(
            "{} is not an ELF or PE file this tool can read ({e}); give the path of a built \
             program or library (not a script or an archive)",
            path.display()
        )
    })?;
    let format = match file.format() {
        object::BinaryFormat::Elf => "elf",
        object::BinaryFormat::Pe => "pe",
        other => {
            return Err(format!(
                "{} is a {other:?} file; this tool reads ELF (Linux) and PE (Windows) files",
                path.display()
            ))
        }
    };
    let mut inspection = Inspection {
        schema: SCHEMA,
        file: path.display().to_string(),
        format,
        driver_floor: None,
        set_by: Vec::new(),
        tables: Vec::new(),
        per_thread: Vec::new(),
        ptx: Vec::new(),
        unreadable_records: Vec::new(),
    };
    let section_name = if format == "elf" {
        ELF_SECTION
    } else {
        PE_SECTION
    };
    if let Some(section) = file.section_by_name(section_name) {
        let bytes = section.data().map_err(|e| {
            format!(
                "{}: the section {section_name} cannot be read ({e}); the file may be damaged",
                path.display()
            )
        })?;
        for record in registry::parse(bytes) {
            match record {
                Ok(table) => inspection.tables.push(table_of(&table)),
                Err(e) => inspection.unreadable_records.push(e.to_string()),
            }
        }
    }
    for section in file.sections() {
        if !matches!(
            section.kind(),
            SectionKind::ReadOnlyData
                | SectionKind::ReadOnlyString
                | SectionKind::ReadOnlyDataWithRel
        ) {
            continue;
        }
        let (Ok(bytes), Some((start, _))) = (section.data(), section.file_range()) else {
            continue;
        };
        let name = section.name().unwrap_or("?").to_owned();
        for found in ptx::find(bytes) {
            let (major, minor) = found.isa;
            inspection.ptx.push(PtxModule {
                section: name.clone(),
                offset: start + found.offset as u64,
                isa: format!("{major}.{minor}"),
                target: found.target,
                min_driver_version: ptx::driver_for_isa(major, minor),
            });
        }
    }
    // By name, as `tables()` lists them: the linkers of ELF and PE files order records differently.
    inspection.tables.sort_by(|a, b| a.name.cmp(&b.name));
    floor(&mut inspection);
    Ok(inspection)
}

fn table_of(table: &RecordedTable<'_>) -> Table {
    Table {
        name: table.name.to_owned(),
        backend: table.backend.name(),
        stream_mode: mode_name(table.stream_mode),
        min_driver_version: table.min_driver_version,
        functions: table
            .functions
            .iter()
            .map(|f| {
                let (requested, flag) = f.request(table.stream_mode);
                Function {
                    name: f.name.to_owned(),
                    abi: f.abi.version,
                    per_thread_abi: f.abi.per_thread.map(|pt| pt.version),
                    requested,
                    flag: mode_name(flag),
                }
            })
            .collect(),
    }
}

/// Sets the floor, what sets it, and the per-thread requests.
fn floor(inspection: &mut Inspection) {
    let mut needs: Vec<(u32, Requirement)> = Vec::new();
    for table in &inspection.tables {
        // A table's floor is its record's `MIN_DRIVER_VERSION` (the runtime's rule, which also
        // counts the lookup function's own floor): what its functions ask for stays below it.
        needs.push((
            table.min_driver_version,
            Requirement::Function {
                table: table.name.clone(),
                function: String::new(),
                requested: table.min_driver_version,
                flag: table.stream_mode,
            },
        ));
        for f in &table.functions {
            let requirement = Requirement::Function {
                table: table.name.clone(),
                function: f.name.clone(),
                requested: f.requested,
                flag: f.flag,
            };
            if f.flag == "per-thread" {
                inspection.per_thread.push(requirement.clone());
            }
            needs.push((f.requested, requirement));
        }
    }
    for p in &inspection.ptx {
        if let Some(driver) = p.min_driver_version {
            needs.push((
                driver,
                Requirement::Ptx {
                    offset: p.offset,
                    isa: p.isa.clone(),
                    target: p.target.clone(),
                },
            ));
        }
    }
    inspection.driver_floor = needs.iter().map(|(v, _)| *v).max();
    let floor = inspection.driver_floor;
    let mut set_by: Vec<Requirement> = needs
        .into_iter()
        .filter(|(v, r)| Some(*v) == floor && !is_table_floor(r))
        .map(|(_, r)| r)
        .collect();
    if set_by.is_empty() {
        // No function asks for the floor itself: it is the lookup function's (cuGetProcAddress).
        if let Some(floor) = floor {
            set_by.push(Requirement::Function {
                table: String::new(),
                function: "cuGetProcAddress".into(),
                requested: floor,
                flag: "legacy",
            });
        }
    }
    inspection.set_by = set_by;
}

/// The entry that stands for a table's own floor (no function named).
fn is_table_floor(r: &Requirement) -> bool {
    matches!(r, Requirement::Function { function, .. } if function.is_empty())
}

/// The human report: the verdict first.
pub fn human(i: &Inspection) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    match i.driver_floor {
        Some(floor) => {
            let _ = writeln!(
                out,
                "{} needs a CUDA driver of {} or newer ({floor}; `nvidia-smi` shows a driver's as \"CUDA Version\").",
                i.file,
                CudaVersion(floor)
            );
            let _ = writeln!(out, "  set by: {}", list(&i.set_by));
        }
        None => {
            let _ =
                writeln!(
                out,
                "{} records no table and embeds no PTX: it was built without cuda-driver-table, \
                 with a version that records nothing, or its section {} was removed.",
                i.file,
                if i.format == "elf" { ELF_SECTION } else { PE_SECTION }
            );
        }
    }
    let _ = writeln!(out, "\nTables ({}):", i.tables.len());
    for t in &i.tables {
        let _ = writeln!(
            out,
            "  {}: backend {}, {} stream, MIN_DRIVER_VERSION {} ({}), {} function{}",
            t.name,
            t.backend,
            t.stream_mode,
            t.min_driver_version,
            CudaVersion(t.min_driver_version),
            t.functions.len(),
            crate::plural(t.functions.len())
        );
        for f in &t.functions {
            let twin = f
                .per_thread_abi
                .map(|v| format!(", per-thread twin {v}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {} ABI {}{twin}: asks for {} with the {} flag",
                f.name, f.abi, f.requested, f.flag
            );
        }
    }
    if i.per_thread.is_empty() {
        let _ = writeln!(
            out,
            "\nPer-thread default stream: no function is asked for with it."
        );
    } else {
        let _ = writeln!(out, "\nPer-thread default stream: {}", list(&i.per_thread));
    }
    if i.ptx.is_empty() {
        let _ = writeln!(out, "\nPTX: none in the read-only data.");
    } else {
        let _ = writeln!(out, "\nPTX ({}):", i.ptx.len());
        for p in &i.ptx {
            let needs = match p.min_driver_version {
                Some(v) => format!("needs a driver of {} or newer ({v})", CudaVersion(v)),
                None => format!(
                    "ISA {} is newer than this tool knows: update cuda-driver-table-cli",
                    p.isa
                ),
            };
            let _ = writeln!(
                out,
                "  ISA {} for {} at offset {:#x} ({}): {needs}",
                p.isa, p.target, p.offset, p.section
            );
        }
    }
    for e in &i.unreadable_records {
        let _ = writeln!(out, "\nwarning: {e}");
    }
    out
}

/// `requirements` in words, joined.
fn list(requirements: &[Requirement]) -> String {
    requirements
        .iter()
        .map(|r| match r {
            Requirement::Function {
                table,
                function,
                requested,
                flag,
            } if table.is_empty() => {
                format!("{function} at {requested} with the {flag} flag (the lookup itself)")
            }
            Requirement::Function {
                table,
                function,
                requested,
                flag,
            } => {
                format!("{table}: {function} at {requested} ({flag})")
            }
            Requirement::Ptx {
                offset,
                isa,
                target,
            } => {
                format!("PTX ISA {isa} for {target} at offset {offset:#x}")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}
