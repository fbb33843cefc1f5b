//! `inspect BINARY`: what a built program needs of the CUDA driver, read from its file without
//! running it: the tables its records list (`cuda_driver_table::registry`), the floor they set
//! and the PTX its read-only data holds.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use cuda_driver_table_core::ptx;
use cuda_driver_table_core::registry::{
    self, DeclaredDriver, RecordedTable, ELF_SECTION, PE_SECTION,
};
use cuda_driver_table_core::{CudaVersion, StreamMode};
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader};
use object::{Endianness, FileKind, Object, ObjectSection, ReadCache, ReadRef, SectionKind};
use serde::Serialize;

use crate::text::shown;

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
    /// neither a table nor PTX, or when a PTX module's ISA is one this tool does not know (then
    /// no one can say from here which driver loads it).
    pub driver_floor: Option<u32>,
    /// What sets the floor: the functions (or PTX modules) that need exactly that driver; or,
    /// when the floor is unknown, the PTX modules of unknown ISA that make it so.
    pub set_by: Vec<Requirement>,
    /// The floor of what this tool knows (every table, and the PTX of known ISAs); the same as
    /// `driver_floor` unless that is unknown.
    #[serde(skip)]
    pub known_floor: Option<u32>,
    pub tables: Vec<Table>,
    /// The functions requested with the per-thread default stream flag.
    pub per_thread: Vec<Requirement>,
    pub ptx: Vec<PtxModule>,
    /// Records that could not be read, with where and why.
    pub unreadable_records: Vec<String>,
    /// Where the records were read: each records section (a relocatable object may have
    /// several), or, in a file without section headers, each record found in a loaded segment.
    pub records_found_in: Vec<String>,
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
    /// The `driver` option of its source: `{"driver": 12000}` for `driver = 12000`,
    /// `{"newest": 13000}` for `driver = newest` (with the CUDA release of the bindings whose
    /// newest ABIs it took); `null` when the record does not keep it (format version 1).
    pub declared: Option<Declared>,
    pub functions: Vec<Function>,
}

/// A table's `driver` option, as its record keeps it.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Declared {
    /// `driver = N`.
    Driver(u32),
    /// `driver = newest`, with the CUDA release of the bindings.
    Newest(u32),
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

/// The most bytes of records this tool reads from one file: far more than any program's tables
/// take (a table of every driver function records some 20 KiB), and a bound on what a damaged or
/// crafted file can make it allocate.
const RECORDS_LIMIT: u64 = 64 << 20;

/// How much of a section or segment is scanned for PTX at once; the next piece starts where this
/// one ends, and `OVERLAP` more bytes are read so that a module starting near the end is read
/// whole (its `.version` and `.target` lines).
const CHUNK: u64 = 4 << 20;
const OVERLAP: u64 = 64 << 10;

/// What a file holds that `inspect` reads: its records and where, and the file ranges to scan for
/// PTX with a name for each.
struct Layout {
    format: &'static str,
    /// The bytes of each records section (or, without section headers, of each record found in
    /// a loaded segment), with where it was found.
    records: Vec<(String, Vec<u8>)>,
    /// Read-only data: (name, file offset, size).
    read_only: Vec<(String, u64, u64)>,
}

/// Reads `path`'s records and PTX. The error says what could not be read, for exit code 2.
///
/// The file is read through its headers and the sections (or segments) it needs: the headers and
/// the records with [`ReadCache`], the read-only data in pieces of [`CHUNK`] bytes, so that the
/// memory used does not grow with the file.
pub fn inspect(path: &Path) -> Result<Inspection, String> {
    let file = open(path)?;
    let cache = ReadCache::new(&file);
    let damaged = |e: object::Error| {
        format!(
            "{} is not an ELF or PE file this tool can read ({e}); give the path of a built \
             program or library (not a script or an archive)",
            path.display()
        )
    };
    let layout = match FileKind::parse(&cache).map_err(damaged)? {
        FileKind::Elf32 => elf::<object::elf::FileHeader32<Endianness>>(&cache, &file, path),
        FileKind::Elf64 => elf::<object::elf::FileHeader64<Endianness>>(&cache, &file, path),
        FileKind::Pe32 | FileKind::Pe64 => pe(&cache, path),
        other => {
            return Err(format!(
                "{} is a {other:?} file; this tool reads ELF (Linux) and PE (Windows) files",
                path.display()
            ))
        }
    }
    .map_err(|e| match e {
        Failure::Object(e) => damaged(e),
        Failure::Other(e) => e,
    })?;
    let mut inspection = Inspection {
        schema: SCHEMA,
        file: path.display().to_string(),
        format: layout.format,
        driver_floor: None,
        known_floor: None,
        set_by: Vec::new(),
        tables: Vec::new(),
        per_thread: Vec::new(),
        ptx: Vec::new(),
        unreadable_records: Vec::new(),
        records_found_in: Vec::new(),
    };
    for (place, bytes) in &layout.records {
        inspection.records_found_in.push(place.clone());
        for record in registry::parse(bytes) {
            match record {
                Ok(table) => inspection.tables.push(table_of(&table)),
                Err(e) => inspection.unreadable_records.push(format!("{place}: {e}")),
            }
        }
    }
    for (name, start, size) in &layout.read_only {
        let found = ptx_in(&file, name, *start, *size)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        inspection.ptx.extend(found);
    }
    // By name, as `tables()` lists them: the linkers of ELF and PE files order records differently.
    inspection.tables.sort_by(|a, b| a.name.cmp(&b.name));
    floor(&mut inspection);
    Ok(inspection)
}

/// Opens `path` for reading if it is a regular file: a directory, a FIFO, a device or a socket is
/// refused at once (a FIFO is opened without waiting for a writer, so that even the opening does
/// not block).
fn open(path: &Path) -> Result<File, String> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let cannot = |e: std::io::Error| {
        format!(
            "cannot read {}: {e}; give the path of a built program or library",
            path.display()
        )
    };
    let file = options.open(path).map_err(cannot)?;
    let kind = file.metadata().map_err(cannot)?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    let what = if kind.is_dir() {
        "a directory"
    } else {
        special(&kind)
    };
    Err(format!(
        "{} is {what}, not a regular file; give the path of a built program or library",
        path.display()
    ))
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(unix)]
fn special(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

/// Why a file's layout could not be read.
enum Failure {
    /// The object reader's error: the file is damaged or not what its first bytes say.
    Object(object::Error),
    /// A message of its own.
    Other(String),
}

impl From<object::Error> for Failure {
    fn from(e: object::Error) -> Self {
        Failure::Object(e)
    }
}

/// The bytes `file[start..start + size]` of a records section, refused above [`RECORDS_LIMIT`].
fn records_at(
    cache: &ReadCache<&File>,
    path: &Path,
    place: &str,
    start: u64,
    size: u64,
) -> Result<Vec<u8>, Failure> {
    if size > RECORDS_LIMIT {
        return Err(Failure::Other(format!(
            "{}: {place} is {size} bytes long, more than the {} MiB of records this tool reads: \
             the file is damaged or crafted",
            path.display(),
            RECORDS_LIMIT >> 20
        )));
    }
    cache
        .read_bytes_at(start, size)
        .map(<[u8]>::to_vec)
        .map_err(|()| {
            Failure::Other(format!(
                "{}: {place} cannot be read (it reaches past the end of the file); the file is \
                 damaged",
                path.display()
            ))
        })
}

/// An ELF file's records and read-only data: every records section (one per table, named
/// [`ELF_SECTION`] and a dot and more, [`registry::is_elf_section`]; one named [`ELF_SECTION`]
/// from an earlier version of the crate; a relocatable object may have several), and every allocated, read-only section of program bits. A file
/// without section headers (`sstrip` removes them; the loader never needs them) is read through
/// its loaded segments: records where a loaded segment holds them, PTX in the read-only ones.
fn elf<Elf: FileHeader<Endian = Endianness>>(
    cache: &ReadCache<&File>,
    file: &File,
    path: &Path,
) -> Result<Layout, Failure> {
    use object::elf::{PF_W, PF_X, PT_LOAD, SHF_ALLOC, SHF_EXECINSTR, SHF_WRITE, SHT_PROGBITS};
    let header = Elf::parse(cache)?;
    let endian = header.endian()?;
    let sections = header.sections(endian, cache)?;
    let mut layout = Layout {
        format: "elf",
        records: Vec::new(),
        read_only: Vec::new(),
    };
    if sections.is_empty() {
        let segments = header.program_headers(endian, cache)?;
        for (n, segment) in segments.iter().enumerate() {
            if segment.p_type(endian) != PT_LOAD {
                continue;
            }
            let (start, size) = segment.file_range(endian);
            let place = format!("loaded segment {n} (the file has no section headers)");
            for (offset, record) in records_in(cache, file, start, size) {
                layout
                    .records
                    .push((format!("{place} at {offset:#x}"), record));
            }
            if segment.p_flags(endian) & (PF_W | PF_X) == 0 {
                layout.read_only.push((format!("segment {n}"), start, size));
            }
        }
        return Ok(layout);
    }
    for section in sections.iter() {
        let name = sections.section_name(endian, section)?;
        let Some((start, size)) = section.file_range(endian) else {
            continue;
        };
        let name = String::from_utf8_lossy(name).into_owned();
        if registry::is_elf_section(name.as_bytes()) {
            let place = format!("section {name} at {start:#x}");
            let bytes = records_at(cache, path, &place, start, size)?;
            layout.records.push((place, bytes));
            continue;
        }
        let flags: u64 = section.sh_flags(endian).into();
        let read_only = section.sh_type(endian) == SHT_PROGBITS
            && flags & u64::from(SHF_ALLOC) != 0
            && flags & u64::from(SHF_WRITE | SHF_EXECINSTR) == 0;
        if read_only {
            layout.read_only.push((name, start, size));
        }
    }
    Ok(layout)
}

/// The records in `file[start..start + size]` (a loaded segment), found by their magic: each one
/// that reads as a whole record, with its offset in the file. Bytes that only begin like a
/// record are passed over.
fn records_in(cache: &ReadCache<&File>, file: &File, start: u64, size: u64) -> Vec<(u64, Vec<u8>)> {
    let mut found = Vec::new();
    let mut candidates = Vec::new();
    let _ = scan(file, start, size, |offset, bytes, own| {
        let mut at = own.start;
        while let Some(i) = bytes
            .get(at..)
            .and_then(|rest| rest.windows(4).position(|w| w == registry::MAGIC))
        {
            if !own.contains(&(at + i)) {
                break;
            }
            candidates.push(offset + (at + i) as u64);
            at += i + 1;
        }
    });
    let end = start.saturating_add(size);
    let mut next = 0;
    for candidate in candidates {
        if candidate < next {
            continue;
        }
        let Ok(head) = cache.read_bytes_at(candidate, 16) else {
            continue;
        };
        let len = u64::from(u32::from_le_bytes([head[8], head[9], head[10], head[11]]));
        if !(16..=RECORDS_LIMIT).contains(&len) || candidate.saturating_add(len) > end {
            continue;
        }
        let Ok(bytes) = cache.read_bytes_at(candidate, len) else {
            continue;
        };
        if matches!(registry::parse(bytes).next(), Some(Ok(_))) {
            found.push((candidate, bytes.to_vec()));
            next = candidate + len;
        }
    }
    found
}

/// A PE file's records (the sections named [`PE_SECTION`]) and read-only data.
fn pe(cache: &ReadCache<&File>, path: &Path) -> Result<Layout, Failure> {
    let file = object::File::parse(cache)?;
    let mut layout = Layout {
        format: "pe",
        records: Vec::new(),
        read_only: Vec::new(),
    };
    for section in file.sections() {
        let Some((start, size)) = section.file_range() else {
            continue;
        };
        let name = section.name().unwrap_or("?").to_owned();
        if name == PE_SECTION {
            let place = format!("section {name} at {start:#x}");
            let bytes = records_at(cache, path, &place, start, size)?;
            layout.records.push((place, bytes));
        } else if matches!(
            section.kind(),
            SectionKind::ReadOnlyData
                | SectionKind::ReadOnlyString
                | SectionKind::ReadOnlyDataWithRel
        ) {
            layout.read_only.push((name, start, size));
        }
    }
    Ok(layout)
}

/// The PTX modules in `file[start..start + size]`, the read-only data `name`.
fn ptx_in(file: &File, name: &str, start: u64, size: u64) -> std::io::Result<Vec<PtxModule>> {
    let mut modules = Vec::new();
    scan(file, start, size, |offset, bytes, own| {
        for found in ptx::find(bytes) {
            if !own.contains(&found.offset) {
                continue;
            }
            let (major, minor) = found.isa;
            modules.push(PtxModule {
                section: name.to_owned(),
                offset: offset + found.offset as u64,
                isa: format!("{major}.{minor}"),
                target: found.target,
                min_driver_version: ptx::driver_for_isa(major, minor),
            });
        }
    })?;
    Ok(modules)
}

/// Calls `each(offset, bytes, own)` on `file[start..start + size]` in pieces of [`CHUNK`]
/// bytes, each read with [`OVERLAP`] bytes more and with the byte before it (so that a match at a
/// piece's start sees what precedes it); `offset` is the file offset of `bytes[0]`, and `own` the
/// indices of `bytes` that belong to this piece: a match starting outside them is another
/// piece's, found there whole.
fn scan(
    file: &File,
    start: u64,
    size: u64,
    mut each: impl FnMut(u64, &[u8], Range<usize>),
) -> std::io::Result<()> {
    let end = start.saturating_add(size);
    let mut buffer = Vec::new();
    let mut at = start;
    while at < end {
        let from = if at > start { at - 1 } else { at };
        let to = at.saturating_add(CHUNK + OVERLAP).min(end);
        // At most CHUNK + OVERLAP + 1 bytes: the conversions cannot fail.
        buffer.resize(usize::try_from(to - from).unwrap_or(0), 0);
        let mut reader = file;
        reader.seek(SeekFrom::Start(from))?;
        let read = read_full(reader, &mut buffer)?;
        buffer.truncate(read);
        let piece_end = at.saturating_add(CHUNK).min(end);
        let own = usize::try_from(at - from).unwrap_or(0)
            ..usize::try_from(piece_end - from).unwrap_or(0).min(read);
        each(from, &buffer, own);
        if read < usize::try_from(to - from).unwrap_or(0) {
            // The file ends before the section does (a damaged file): what is there was read.
            break;
        }
        at = piece_end;
    }
    Ok(())
}

/// Reads into `buffer` until it is full or the file ends; how many bytes were read.
fn read_full(mut reader: &File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn table_of(table: &RecordedTable<'_>) -> Table {
    Table {
        name: table.name.to_owned(),
        backend: table.backend.name(),
        stream_mode: mode_name(table.stream_mode),
        min_driver_version: table.min_driver_version,
        declared: table.declared.map(|d| match d {
            DeclaredDriver::Version(v) => Declared::Driver(v),
            DeclaredDriver::Newest(release) => Declared::Newest(release),
        }),
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
    // PTX of an ISA this tool does not know needs a driver it cannot name: the floor is unknown,
    // and those modules are what makes it so.
    let unknown: Vec<Requirement> = inspection
        .ptx
        .iter()
        .filter(|p| p.min_driver_version.is_none())
        .map(|p| Requirement::Ptx {
            offset: p.offset,
            isa: p.isa.clone(),
            target: p.target.clone(),
        })
        .collect();
    if !unknown.is_empty() {
        inspection.driver_floor = None;
        inspection.known_floor = needs.iter().map(|(v, _)| *v).max();
        inspection.set_by = unknown;
        return;
    }
    inspection.driver_floor = needs.iter().map(|(v, _)| *v).max();
    inspection.known_floor = inspection.driver_floor;
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

/// The human report: the verdict first. Every text read from the file (and the file's own name)
/// is printed through [`shown`].
pub fn human(i: &Inspection) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let file = shown(&i.file);
    match i.driver_floor {
        Some(floor) => {
            let _ = writeln!(
                out,
                "{file} needs a CUDA driver of {} or newer ({floor}; `nvidia-smi` shows a driver's as \"CUDA Version\").",
                CudaVersion(floor)
            );
            let _ = writeln!(out, "  set by: {}", list(&i.set_by));
        }
        None if !i.set_by.is_empty() => {
            let known = i
                .known_floor
                .map(|v| format!("; what it knows needs {} or newer ({v})", CudaVersion(v)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{file} needs a CUDA driver this tool cannot name: it embeds PTX of an ISA newer \
                 than this tool knows (update cuda-driver-table-cli){known}."
            );
            let _ = writeln!(out, "  unknown: {}", list(&i.set_by));
        }
        None => {
            let _ =
                writeln!(
                out,
                "{file} records no table and embeds no PTX: it was built without cuda-driver-table, \
                 with a version that records nothing, uses none of its tables, or its section{} \
                 {} removed.",
                if i.format == "elf" { "s" } else { "" },
                if i.format == "elf" {
                    format!("{ELF_SECTION}.* were")
                } else {
                    format!("{PE_SECTION} was")
                }
            );
        }
    }
    let _ = writeln!(out, "\nTables ({}):", i.tables.len());
    if !i.tables.is_empty() {
        let _ = writeln!(out, "{}", linked_note(i));
        let _ = writeln!(
            out,
            "  A table's floor is what its pinned ABIs need, or the lookup's own 11.3. It can be \
             below the `driver = N` its source declares: that option picks for each function the \
             newest ABI a driver of N has, which may be older than N."
        );
    }
    // Where the records were is worth a line when it is not the usual one section per table: a
    // file without section headers, or several sections of one name (a relocatable object).
    let per_table = format!("section {ELF_SECTION}.");
    if (i.records_found_in.len() > 1
        && !i.records_found_in.iter().all(|p| p.starts_with(&per_table)))
        || i.records_found_in
            .iter()
            .any(|place| place.contains("no section headers"))
    {
        let _ = writeln!(
            out,
            "  (records read from: {})",
            i.records_found_in
                .iter()
                .map(|p| shown(p).into_owned())
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    for t in &i.tables {
        let _ = writeln!(
            out,
            "  {}: backend {}, {} stream, MIN_DRIVER_VERSION {} ({}), {} function{}",
            shown(&t.name),
            t.backend,
            t.stream_mode,
            t.min_driver_version,
            CudaVersion(t.min_driver_version),
            t.functions.len(),
            crate::plural(t.functions.len())
        );
        let _ = writeln!(out, "    {}", table_floor(t));
        let _ = writeln!(out, "    {}", declared(t));
        for f in &t.functions {
            let twin = f
                .per_thread_abi
                .map(|v| format!(", per-thread twin {v}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {} ABI {}{twin}: asks for {} with the {} flag",
                shown(&f.name),
                f.abi,
                f.requested,
                f.flag
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
                    shown(&p.isa)
                ),
            };
            let _ = writeln!(
                out,
                "  ISA {} for {} at offset {:#x} ({}): {needs}",
                shown(&p.isa),
                shown(&p.target),
                p.offset,
                shown(&p.section)
            );
        }
    }
    for e in &i.unreadable_records {
        let _ = writeln!(out, "\nwarning: {}", shown(e));
    }
    out
}

/// What the tables listed are: those the program creates, whose records its linker kept; or, in
/// an ELF file built with an earlier version of the crate (its records in one section named
/// [`ELF_SECTION`]), every table linked into it.
fn linked_note(i: &Inspection) -> &'static str {
    let earlier = format!("section {ELF_SECTION} at ");
    if i.format == "elf" && i.records_found_in.iter().any(|p| p.starts_with(&earlier)) {
        "  Every table linked into the file is recorded (an earlier cuda-driver-table wrote its \
         records), whether the program uses it or not: a table a linked library declares counts \
         toward the floor even if this program never calls it."
    } else {
        "  The tables the program creates are recorded, whether or not it calls them: the linker \
         drops the record of a table a linked library declares and the program never creates \
         (without garbage collection of sections, every table linked in is recorded)."
    }
}

/// Why a table's floor (its record's `MIN_DRIVER_VERSION`) is what it is: the functions whose
/// ABIs need exactly that, or the lookup function itself. The floor may be below the
/// `driver = N` the table declares ([`declared`] says both).
fn table_floor(t: &Table) -> String {
    let floor = t.min_driver_version;
    let by: Vec<String> = t
        .functions
        .iter()
        .filter(|f| f.requested == floor)
        .map(|f| shown(&f.name).into_owned())
        .collect();
    let why = if by.is_empty() {
        format!(
            "the lookup itself (cuGetProcAddress needs {}); no function's ABI needs more",
            CudaVersion(floor)
        )
    } else {
        format!("{} at {floor}", by.join(", "))
    };
    format!("floor {} set by {why}", CudaVersion(floor))
}

/// The `driver` option the table's source declares, against the floor its ABIs set.
fn declared(t: &Table) -> String {
    let floor = t.min_driver_version;
    match t.declared {
        Some(Declared::Driver(n)) if n == floor => {
            format!(
                "declared `driver = {n}` ({}), which its ABIs need",
                CudaVersion(n)
            )
        }
        Some(Declared::Driver(n)) if floor < n => format!(
            "declared `driver = {n}` ({}); its functions' ABIs need only {}: the newest ABIs a \
             {} driver has of these functions are older",
            CudaVersion(n),
            CudaVersion(floor),
            CudaVersion(n)
        ),
        Some(Declared::Driver(n)) => format!(
            "declared `driver = {n}` ({}), yet its ABIs need {}: the record contradicts its \
             declaration (a build refuses such a table)",
            CudaVersion(n),
            CudaVersion(floor)
        ),
        Some(Declared::Newest(release)) => format!(
            "declared `driver = newest`: the newest ABIs of the CUDA {} bindings, which need {}",
            CudaVersion(release),
            CudaVersion(floor)
        ),
        None => "declared `driver` option unknown: the record was written by an earlier \
                 cuda-driver-table (format version 1), which does not keep it"
            .to_owned(),
    }
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
                format!(
                    "{} at {requested} with the {flag} flag (the lookup itself)",
                    shown(function)
                )
            }
            Requirement::Function {
                table,
                function,
                requested,
                flag,
            } => {
                format!(
                    "{}: {} at {requested} ({flag})",
                    shown(table),
                    shown(function)
                )
            }
            Requirement::Ptx {
                offset,
                isa,
                target,
            } => {
                format!(
                    "PTX ISA {} for {} at offset {offset:#x}",
                    shown(isa),
                    shown(target)
                )
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A module at the very start, one whose `.version` line ends a piece and whose `.target` line
    /// is in the next (read in the overlap), one starting in the overlap (found once, by the next
    /// piece), and one right at a piece's start, after a newline that ends the piece before.
    #[test]
    fn ptx_across_pieces_is_found_once_each() {
        let path = std::env::temp_dir().join(format!("cdt-pieces-{}", std::process::id()));
        let mut file = File::create(&path).expect("a temporary file");
        let module = b".version 8.4\n.target sm_80\n";
        let c = CHUNK as usize;
        let mut at = |offset: usize, bytes: &[u8]| {
            file.seek(SeekFrom::Start(offset as u64)).expect("seek");
            file.write_all(bytes).expect("write");
        };
        at(0, module);
        at(c - 8, b"\n");
        at(c - 7, module);
        at(c + 100, b"\n");
        at(c + 101, module);
        at(2 * c - 1, b"\n");
        at(2 * c, module);
        at(3 * c + 5, b"\0");
        drop(file);
        let file = File::open(&path).expect("open");
        let size = file.metadata().expect("size").len();
        let found: Vec<u64> = ptx_in(&file, "data", 0, size)
            .expect("read")
            .iter()
            .map(|m| m.offset)
            .collect();
        let c = CHUNK;
        assert_eq!(found, [0, c - 7, c + 101, 2 * c]);
        // From an offset inside the file: offsets stay the file's.
        let found: Vec<u64> = ptx_in(&file, "data", c - 100, 300)
            .expect("read")
            .iter()
            .map(|m| m.offset)
            .collect();
        assert_eq!(found, [c - 7, c + 101]);
        let _ = std::fs::remove_file(&path);
    }
}
