//! What a program's tables record about themselves: each `#[driver_table]` leaves one record in
//! the built file, listing the table's name, backend, stream mode, `MIN_DRIVER_VERSION` and every
//! function with the ABI it is pinned to. [`tables`] reads them in the running program; the
//! `cuda-driver-table` command-line tool reads the same bytes out of the file with [`parse`],
//! without running it (`cuda-driver-table inspect BINARY`).
//!
//! # Cost
//!
//! A record is a constant byte array that the compiler writes at build time into a section of
//! its own; nothing reads it unless [`tables`] is called. It adds no code to a call, to a
//! table's first call or to the program's start; a table's value holds one pointer to it (ELF,
//! and PE files of the GNU linker), which is what keeps the record in the program.
//!
//! # Which tables a program records
//!
//! Those it uses: a record is kept exactly where its table's value is (a `static`, a `new()`
//! anywhere in the program's code). The linker's garbage collection (`--gc-sections`, which Rust
//! passes it for executables and `cdylib`s) drops the record of a table that a linked library
//! declares and the program never creates, with the table's code. Without garbage collection (a
//! Rust `dylib`, `-C link-dead-code`) every record linked in is kept.
//!
//! # Where the records are
//!
//! - ELF (Linux and the other Unix systems but Apple's): a section per table,
//!   `cuda_driver_table.app::gpu::Cuda` ([`ELF_SECTION`], a dot and the table's path;
//!   [`is_elf_section`]). A section of its own, named after its table, so that the linker drops
//!   it alone (the compiler puts the data of one name together, per codegen unit); a name that is
//!   not a C identifier, so that no linker keeps every such section for a `__start_`/`__stop_`
//!   symbol. Earlier versions of this crate wrote every record into one
//!   section named [`ELF_SECTION`]. In the running program, [`tables`] finds the records in the
//!   read-only segments of the program's own file (`dl_iterate_phdr`), by their magic.
//! - PE (Windows): the section [`PE_SECTION`], which the linker makes out of `.cdtab$a` (an empty
//!   start marker), `.cdtab$m` (the records) and `.cdtab$z` (an empty end marker), sorted by the
//!   text after the `$`. The GNU linker of the `windows-gnu` targets keeps the records that the
//!   data it keeps refers to; there the compiler puts all the data of a codegen unit (a module,
//!   mostly) in one section, so a program records the tables of each codegen unit it uses any
//!   data of. Microsoft's linker keeps every record (`#[used]`).
//!
//! Other targets record nothing and [`tables`] is empty there. A linker may pad between two
//! records with zero bytes; the records are aligned to one byte, so none is expected, and
//! [`parse`] skips them.
//!
//! # Byte format (version 2)
//!
//! Integers are little-endian. A record:
//!
//! | bytes | what |
//! |---|---|
//! | 4 | the magic `cdtR` |
//! | 1 | the format version, 2 |
//! | 1 | the backend: 0 the default (libcudart, else libcuda), 1 `runtime`, 2 `driver` |
//! | 1 | the stream mode the table is declared with, as the lookup's flag: 1 legacy, 2 per-thread |
//! | 1 | its `driver` option: 1 `driver = N`, 2 `driver = newest` |
//! | 4 | the record's length in bytes, these 20 included |
//! | 4 | `MIN_DRIVER_VERSION` (`1000 * major + 10 * minor`) |
//! | 4 | N of `driver = N`; for `driver = newest`, the CUDA release of the bindings it took the newest ABIs of |
//! | 2, n | the table's name (`module::path::Table`, UTF-8): its length n, then its bytes |
//! | 2 | the number of functions, then for each: |
//! | 1, m | its C name: its length m, then its bytes |
//! | 4 | the version of its pinned ABI (`PFN_cuMemAlloc_v3020`: 3020) |
//! | 4 | the version of that ABI's per-thread twin (`_ptds`/`_ptsz`), 0 for none |
//!
//! Version 1, which earlier versions of this crate write, is version 2 without the `driver`
//! option: byte 7 is 0 and the 4 bytes of N are not there. [`parse`] reads it, with
//! [`RecordedTable::declared`] `None`.
//!
//! What each function asks the driver for in a stream mode is [`Abi::request`] of its ABI.
//!
//! A record of another format version has the same first 12 bytes: [`parse`] reports it and goes
//! on after it (two versions of this crate in one program write records side by side).
//!
//! # What a record must never do
//!
//! It is data for people and tools: nothing in this crate resolves or calls anything because of
//! a record. Any code can put bytes into these sections (the recording macro is reachable, and
//! so is `#[link_section]`), so a record proves nothing about the program; the worst a forged or
//! damaged record can do is be listed wrongly, or be reported as unreadable.

use std::fmt;

use crate::manifest::{Abi, PerThread};
use crate::stream::StreamMode;
use crate::table::{min_driver_version, FunctionSpec};

/// The name of the section that held every record in an ELF file written with an earlier version
/// of this crate; now each table's record is in a section of its own, whose name is this, a dot
/// and the table's path ([`is_elf_section`]).
pub const ELF_SECTION: &str = "cuda_driver_table";

/// Whether an ELF section of this name holds records: [`ELF_SECTION`], or it followed by a dot
/// and more (`cuda_driver_table.app::gpu::Cuda`).
pub fn is_elf_section(name: &[u8]) -> bool {
    name.strip_prefix(ELF_SECTION.as_bytes())
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(b"."))
}
/// The name of the section holding the records in a PE file (`.cdtab$m` in the objects).
pub const PE_SECTION: &str = ".cdtab";

/// The first bytes of every record.
pub const MAGIC: [u8; 4] = *b"cdtR";
/// The format version this crate writes; it reads this one and version 1.
pub const FORMAT_VERSION: u8 = 2;

/// The bytes every format version starts with: the magic, the version, three bytes and the
/// record's length, then `MIN_DRIVER_VERSION`.
const FRAME: usize = 16;
/// The length of a version-2 record's fixed header: the frame and the `driver` option.
const HEADER: usize = FRAME + 4;

/// The backend a table was declared with (its `backend` option).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RecordedBackend {
    /// No `backend` option: libcudart, or libcuda where the search finds no libcudart.
    Default = 0,
    /// `backend = runtime`: libcudart only.
    Runtime = 1,
    /// `backend = driver`: libcuda only.
    Driver = 2,
}

impl RecordedBackend {
    /// The option as a table declares it: `default`, `runtime` or `driver`.
    pub const fn name(self) -> &'static str {
        match self {
            RecordedBackend::Default => "default",
            RecordedBackend::Runtime => "runtime",
            RecordedBackend::Driver => "driver",
        }
    }
}

/// The `driver` option a table was declared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclaredDriver {
    /// `driver = N`: the oldest driver the table must work on (`12000` for CUDA 12.0). Each
    /// function took the newest ABI such a driver has, which may need less than N.
    Version(u32),
    /// `driver = newest`: the newest ABIs of the bindings of this CUDA release (`13000`).
    Newest(u32),
}

/// One table as its record describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedTable<'a> {
    /// The struct's path: `module_path!()` of the declaration and its name (`app::gpu::Driver`).
    pub name: &'a str,
    /// The backend it was declared with.
    pub backend: RecordedBackend,
    /// The stream mode it was declared with (`per_thread`); `MIN_DRIVER_VERSION` is for this
    /// mode (a table built with another [`Config`](crate::Config) may ask for other ABIs).
    pub stream_mode: StreamMode,
    /// Its `MIN_DRIVER_VERSION`: the oldest driver that hands out all its functions in its
    /// declared stream mode.
    pub min_driver_version: u32,
    /// The `driver` option of its declaration; `None` in a record of format version 1, which
    /// does not keep it.
    pub declared: Option<DeclaredDriver>,
    /// Its functions, in the table's order.
    pub functions: Vec<RecordedFunction<'a>>,
}

/// One function of a recorded table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordedFunction<'a> {
    /// The C name (`cuMemAlloc`).
    pub name: &'a str,
    /// The pinned ABI: its version and its per-thread twin's (no exported symbols are recorded).
    pub abi: Abi,
}

impl RecordedFunction<'_> {
    /// What the table asks the driver for in `mode`: the version and the stream flag
    /// ([`Abi::request`]).
    pub const fn request(&self, mode: StreamMode) -> (u32, StreamMode) {
        self.abi.request(mode)
    }
}

/// Why bytes in a records section could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// Where the record (or the bytes that are none) starts, from the section's start.
    pub offset: usize,
    /// What is wrong, in words.
    pub why: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unreadable table record at byte {}: {}",
            self.offset, self.why
        )
    }
}

impl std::error::Error for RecordError {}

/// The records in `section` (the bytes of a records section), in order. An item is an error for
/// a record of another format version (then the next record is read) or for bytes that are no
/// record (then nothing after them is read).
pub fn parse(section: &[u8]) -> Records<'_> {
    Records {
        section,
        at: 0,
        done: false,
    }
}

/// The records of one section: [`parse`].
#[derive(Clone, Debug)]
pub struct Records<'a> {
    section: &'a [u8],
    at: usize,
    done: bool,
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<RecordedTable<'a>, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        // Padding a linker may have put between records.
        while self.section.get(self.at) == Some(&0) {
            self.at += 1;
        }
        let offset = self.at;
        let rest = self.section.get(offset..).filter(|rest| !rest.is_empty())?;
        let error = |why: String| RecordError { offset, why };
        let (len, version) = match frame(rest) {
            Ok(frame) => frame,
            Err(why) => {
                self.done = true;
                return Some(Err(error(why)));
            }
        };
        self.at += len;
        if version != 1 && version != FORMAT_VERSION {
            return Some(Err(error(format!(
                "format version {version}, written by another version of cuda-driver-table (this \
                 one reads versions 1 and {FORMAT_VERSION}); read it with a matching \
                 cuda-driver-table tool"
            ))));
        }
        Some(read(&rest[..len], version).map_err(|why| {
            // The frame said where the next record starts: a bad body spoils only this one.
            error(why)
        }))
    }
}

/// The records in `bytes` that hold other data too (a loaded segment), found by their magic:
/// each one that reads as a whole record of a version this crate reads, with its offset. Bytes
/// that only begin like a record are passed over.
pub fn find(bytes: &[u8]) -> Vec<(usize, RecordedTable<'_>)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = bytes
        .get(at..)
        .and_then(|rest| rest.windows(MAGIC.len()).position(|w| w == MAGIC))
    {
        let start = at + i;
        let record = frame(&bytes[start..])
            .ok()
            .filter(|(_, version)| *version == 1 || *version == FORMAT_VERSION)
            .and_then(|(len, version)| {
                Some((len, read(&bytes[start..start + len], version).ok()?))
            });
        match record {
            Some((len, table)) => {
                found.push((start, table));
                at = start + len;
            }
            None => at = start + 1,
        }
    }
    found
}

/// The length and format version of the record `bytes` starts with.
fn frame(bytes: &[u8]) -> Result<(usize, u8), String> {
    if bytes.len() < FRAME || bytes[..4] != MAGIC {
        return Err(format!(
            "no record starts here (a record starts with {:?} and has at least {FRAME} bytes)",
            String::from_utf8_lossy(&MAGIC)
        ));
    }
    let len = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    if len < FRAME || len > bytes.len() {
        return Err(format!(
            "the record says it is {len} bytes long, and {} bytes are left in the section",
            bytes.len()
        ));
    }
    Ok((len, bytes[4]))
}

/// Reads one record of format `version` (1 or 2; `record`, exactly its bytes).
fn read(record: &[u8], version: u8) -> Result<RecordedTable<'_>, String> {
    let mut r = Reader {
        bytes: record,
        at: FRAME,
    };
    let backend = match record[5] {
        0 => RecordedBackend::Default,
        1 => RecordedBackend::Runtime,
        2 => RecordedBackend::Driver,
        other => return Err(format!("backend {other} is none of 0, 1, 2")),
    };
    let stream_mode = match record[6] {
        1 => StreamMode::Legacy,
        2 => StreamMode::PerThread,
        other => return Err(format!("stream flag {other} is neither 1 nor 2")),
    };
    let min_driver_version = u32::from_le_bytes([record[12], record[13], record[14], record[15]]);
    let declared = match (version, record[7]) {
        (1, _) => None,
        (_, 1) => Some(DeclaredDriver::Version(r.u32()?)),
        (_, 2) => Some(DeclaredDriver::Newest(r.u32()?)),
        (_, other) => return Err(format!("driver option {other} is neither 1 nor 2")),
    };
    let name_len = usize::from(r.u16()?);
    let name = r.str(name_len)?;
    let count = r.u16()?;
    let mut functions = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let len = usize::from(r.u8()?);
        let name = r.str(len)?;
        let version = r.u32()?;
        let twin = r.u32()?;
        functions.push(RecordedFunction {
            name,
            abi: Abi {
                version,
                export: None,
                per_thread: (twin != 0).then_some(PerThread {
                    version: twin,
                    export: None,
                }),
            },
        });
    }
    if r.at != record.len() {
        return Err(format!(
            "{} bytes follow the last function",
            record.len() - r.at
        ));
    }
    Ok(RecordedTable {
        name,
        backend,
        stream_mode,
        min_driver_version,
        declared,
        functions,
    })
}

/// A cursor over a record's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let taken = self
            .at
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.at..end))
            .ok_or_else(|| format!("the record ends inside a field at byte {}", self.at))?;
        self.at += n;
        Ok(taken)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn str(&mut self, n: usize) -> Result<&'a str, String> {
        let at = self.at;
        std::str::from_utf8(self.take(n)?)
            .map_err(|_| format!("the name at byte {at} is not UTF-8"))
    }
}

/// The length of the record of a table named `name` with `functions`: the array's length in
/// [`record_bytes`].
///
/// # Panics
///
/// At compile time (it runs in a constant), when the name is longer than 65535 bytes, a
/// function's name longer than 255 or there are more than 65535 functions.
pub const fn record_len(name: &str, functions: &[FunctionSpec]) -> usize {
    assert!(
        name.len() <= u16::MAX as usize && functions.len() <= u16::MAX as usize,
        "a table's record holds at most 65535 functions and a name of 65535 bytes"
    );
    let mut len = HEADER + 2 + name.len() + 2;
    let mut i = 0;
    while i < functions.len() {
        assert!(
            functions[i].name.len() <= u8::MAX as usize,
            "a recorded function's name has at most 255 bytes"
        );
        len += 1 + functions[i].name.len() + 4 + 4;
        i += 1;
    }
    len
}

/// The record of a table named `name`, declared with `backend`, `mode` and `declared`, with
/// `functions` (its `FUNCTIONS`); `N` is [`record_len`]. Evaluated at compile time by
/// [`__cdt_record!`](crate::__cdt_record). Its `MIN_DRIVER_VERSION` is computed here by the
/// table's own rule ([`min_driver_version`]).
///
/// # Panics
///
/// At compile time, when `N` is not [`record_len`] (or as that function panics).
pub const fn record_bytes<const N: usize>(
    name: &str,
    backend: RecordedBackend,
    mode: StreamMode,
    declared: DeclaredDriver,
    functions: &[FunctionSpec],
) -> [u8; N] {
    assert!(
        N == record_len(name, functions),
        "a record's length is record_len"
    );
    let mut out = [0u8; N];
    let mut at = put(&mut out, 0, &MAGIC);
    out[at] = FORMAT_VERSION;
    out[at + 1] = backend as u8;
    out[at + 2] = mode.flag() as u8;
    let (option, driver) = match declared {
        DeclaredDriver::Version(driver) => (1, driver),
        DeclaredDriver::Newest(release) => (2, release),
    };
    out[at + 3] = option;
    at += 4;
    at = put(&mut out, at, &(N as u32).to_le_bytes());
    at = put(
        &mut out,
        at,
        &min_driver_version(functions, mode).to_le_bytes(),
    );
    at = put(&mut out, at, &driver.to_le_bytes());
    at = put(&mut out, at, &(name.len() as u16).to_le_bytes());
    at = put(&mut out, at, name.as_bytes());
    at = put(&mut out, at, &(functions.len() as u16).to_le_bytes());
    let mut i = 0;
    while i < functions.len() {
        let f = &functions[i];
        out[at] = f.name.len() as u8;
        at = put(&mut out, at + 1, f.name.as_bytes());
        at = put(&mut out, at, &f.abi.version.to_le_bytes());
        let twin = match f.abi.per_thread {
            Some(pt) => pt.version,
            None => 0,
        };
        at = put(&mut out, at, &twin.to_le_bytes());
        i += 1;
    }
    assert!(at == N, "a record's length is record_len");
    out
}

/// Copies `bytes` into `out` at `at`; returns where they end.
const fn put(out: &mut [u8], at: usize, bytes: &[u8]) -> usize {
    let mut i = 0;
    while i < bytes.len() {
        out[at + i] = bytes[i];
        i += 1;
    }
    at + bytes.len()
}

/// Records one table: what `#[driver_table]` emits once per table, as
/// `<crate path>::__private::record! { Table; Default; Legacy; Version(12000) }` (the backend
/// as a [`RecordedBackend`] variant, the declared [`StreamMode`], the `driver` option as a
/// [`DeclaredDriver`]), after the table's `bind!`.
///
/// It writes a constant byte array into the table's records section
/// (`cuda_driver_table.module::path::Table` or `.cdtab$m`), which the table's values refer to
/// ([`Recorded`](crate::__private::Recorded)): data only, which nothing in this crate acts on
/// (see the module docs).
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_record {
    ($table:ident; $backend:ident; $mode:ident; $declared:ident($driver:literal)) => {
        const _: () = {
            const NAME: &::core::primitive::str =
                ::core::concat!(::core::module_path!(), "::", ::core::stringify!($table));
            const FUNCTIONS: &[$crate::FunctionSpec] =
                <$table as $crate::__private::Functions>::FUNCTIONS;
            const LEN: ::core::primitive::usize = $crate::__private::record_len(NAME, FUNCTIONS);
            const BYTES: [::core::primitive::u8; LEN] = $crate::__private::record_bytes::<LEN>(
                NAME,
                $crate::__private::RecordedBackend::$backend,
                $crate::StreamMode::$mode,
                $crate::__private::DeclaredDriver::$declared($driver),
                FUNCTIONS,
            );
            // `link_section` is unsafe where a section means something to the linker or the
            // loader (`.init_array` runs code); these sections mean nothing to either, and the
            // bytes are only ever read as data. On ELF the record is kept where the table's
            // value is (no `#[used]`): see the module docs.
            #[cfg(all(unix, not(target_vendor = "apple")))]
            #[unsafe(link_section = $crate::__cdt_record_section!($table))]
            static RECORD: [::core::primitive::u8; LEN] = BYTES;
            #[cfg(not(all(unix, not(target_vendor = "apple"))))]
            #[cfg_attr(windows, used)]
            #[cfg_attr(windows, unsafe(link_section = ".cdtab$m"))]
            static RECORD: [::core::primitive::u8; LEN] = BYTES;
            impl $crate::__private::Recorded for $table {
                const RECORD: &'static [::core::primitive::u8] = &RECORD;
            }
        };
    };
}

/// The name of `$table`'s records section in an ELF file: `cuda_driver_table.` and its path (see
/// the module docs). A macro, for `link_section` takes a literal or a macro that expands to one.
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_record_section {
    ($table:ident) => {
        ::core::concat!(
            "cuda_driver_table.",
            ::core::module_path!(),
            "::",
            ::core::stringify!($table)
        )
    };
}

/// Every table of the running program (of the executable or library this crate is linked into),
/// as recorded, sorted by name (linkers place the records in different orders). Records this
/// version cannot read (see [`parse`]) are left out. Reads the program's own bytes (on ELF, every
/// read-only segment of its file, searched for records); nothing is resolved or loaded.
pub fn tables() -> Vec<RecordedTable<'static>> {
    let mut tables = section::tables();
    tables.sort_by(|a, b| a.name.cmp(b.name));
    tables
}

#[cfg(all(unix, not(target_vendor = "apple")))]
mod section {
    use std::ffi::{c_char, c_int, c_void};

    use super::{find, RecordedTable};

    /// `struct dl_phdr_info`: its first four fields, which every system that has
    /// `dl_iterate_phdr` lays out so (the size the callback is given covers them).
    #[repr(C)]
    struct DlPhdrInfo {
        addr: usize,
        name: *const c_char,
        phdr: *const Phdr,
        phnum: u16,
    }

    /// `Elf64_Phdr`.
    #[cfg(target_pointer_width = "64")]
    #[repr(C)]
    struct Phdr {
        kind: u32,
        flags: u32,
        offset: u64,
        vaddr: u64,
        paddr: u64,
        filesz: u64,
        memsz: u64,
        align: u64,
    }

    /// `Elf32_Phdr`.
    #[cfg(target_pointer_width = "32")]
    #[repr(C)]
    struct Phdr {
        kind: u32,
        offset: u32,
        vaddr: u32,
        paddr: u32,
        filesz: u32,
        memsz: u32,
        flags: u32,
        align: u32,
    }

    const PT_LOAD: u32 = 1;
    const PF_W: u32 = 2;
    const PF_R: u32 = 4;

    extern "C" {
        fn dl_iterate_phdr(
            callback: unsafe extern "C" fn(*mut DlPhdrInfo, usize, *mut c_void) -> c_int,
            data: *mut c_void,
        ) -> c_int;
    }

    /// A byte of this file's read-only data: the file whose segments hold it is this program's.
    static OWN: u8 = 0;

    /// What the search carries: the address to find, and the read-only segments of the file
    /// that holds it (start, length), once found.
    struct Search {
        own: usize,
        segments: Vec<(usize, usize)>,
    }

    /// Called by `dl_iterate_phdr` for each loaded file; stops (1) at the one holding `OWN`.
    unsafe extern "C" fn each(info: *mut DlPhdrInfo, size: usize, data: *mut c_void) -> c_int {
        if size < std::mem::size_of::<DlPhdrInfo>() {
            return 0;
        }
        // SAFETY: `dl_iterate_phdr` passes a valid `dl_phdr_info` of `size` bytes (checked to
        // cover the fields read) and the `data` `tables` gave it, a `Search` it holds exclusively.
        let (info, search) = unsafe { (&*info, &mut *data.cast::<Search>()) };
        let headers: &[Phdr] = if info.phdr.is_null() {
            &[]
        } else {
            // SAFETY: the loader's program headers of this file: `phnum` entries, mapped for as
            // long as the file is loaded.
            unsafe { std::slice::from_raw_parts(info.phdr, usize::from(info.phnum)) }
        };
        let load = headers.iter().filter(|h| h.kind == PT_LOAD);
        let holds_own = load.clone().any(|h| {
            let start = info.addr.wrapping_add(h.vaddr as usize);
            (start..start.wrapping_add(h.memsz as usize)).contains(&search.own)
        });
        if !holds_own {
            return 0;
        }
        search.segments = load
            .filter(|h| h.flags & PF_R != 0 && h.flags & PF_W == 0)
            .map(|h| (info.addr.wrapping_add(h.vaddr as usize), h.filesz as usize))
            .collect();
        1
    }

    /// The records in this program's read-only segments.
    pub(super) fn tables() -> Vec<RecordedTable<'static>> {
        let mut search = Search {
            own: (&raw const OWN) as usize,
            segments: Vec::new(),
        };
        // SAFETY: `each` is a callback of the type `dl_iterate_phdr` takes, and reads `data` only
        // as the `Search` passed here, which outlives the call.
        unsafe { dl_iterate_phdr(each, (&raw mut search).cast()) };
        search
            .segments
            .into_iter()
            .flat_map(|(start, len)| {
                // SAFETY: a loaded segment of this program's file, readable and never written
                // (`PF_R`, not `PF_W`): its first `filesz` bytes are the file's, mapped for as long
                // as the file is loaded, which is as long as this code is.
                let bytes: &'static [u8] =
                    unsafe { std::slice::from_raw_parts(start as *const u8, len) };
                find(bytes).into_iter().map(|(_, table)| table)
            })
            .collect()
    }
}

#[cfg(windows)]
mod section {
    use super::{parse, RecordedTable};

    // The linker merges `.cdtab$a`, `.cdtab$m` and `.cdtab$z` into `.cdtab`, sorted by the text
    // after the `$`: the records lie between these two empty markers.
    #[used]
    #[unsafe(link_section = ".cdtab$a")]
    static START: [u8; 0] = [];
    #[used]
    #[unsafe(link_section = ".cdtab$z")]
    static STOP: [u8; 0] = [];

    /// The records of this program's records section.
    pub(super) fn tables() -> Vec<RecordedTable<'static>> {
        let start = START.as_ptr();
        let len = (STOP.as_ptr() as usize).saturating_sub(start as usize);
        // SAFETY: the linker places every `.cdtab$m` contribution (the records) between the two
        // markers in one section of this image, which stays mapped for the rest of the process
        // and is never written.
        let bytes = unsafe { std::slice::from_raw_parts(start, len) };
        parse(bytes).filter_map(Result::ok).collect()
    }
}

#[cfg(not(any(windows, all(unix, not(target_vendor = "apple")))))]
mod section {
    /// Nothing is recorded on this target.
    pub(super) fn tables() -> Vec<super::RecordedTable<'static>> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests;
