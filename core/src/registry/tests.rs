use super::*;
use crate::config::Config;
use crate::manifest::{Abi, PerThread};
use crate::table::TableCore;

struct Recorded;
crate::__cdt_bind! { Recorded;
    0 "cuInit\0" PFN_cuInit_v2000 ["cuInit"] [];
    1 "cuMemcpyHtoD\0" PFN_cuMemcpyHtoD_v3020 ["cuMemcpyHtoD_v2"] [PFN_cuMemcpyHtoD_v7000_ptds "cuMemcpyHtoD_v2_ptds"];
}
crate::__cdt_record! { Recorded; Driver; PerThread; Version(12000) }

struct Other;
crate::__cdt_bind! { Other; 0 "cuInit\0" PFN_cuInit_v2000 ["cuInit"] []; }
crate::__cdt_record! { Other; Default; Legacy; Newest(13000) }

/// The two tables, as a program holds them: only the records of tables a program creates are
/// kept (the module's docs).
static HELD: (TableCore<Recorded, 2>, TableCore<Other, 1>) = (
    TableCore::new(Config::driver()),
    TableCore::new(Config::new()),
);

/// The record the macro writes for `Recorded`, as the running program reads it.
fn recorded(name: &str) -> RecordedTable<'static> {
    std::hint::black_box(&HELD);
    let mut found = tables().into_iter().filter(|t| t.name.ends_with(name));
    let table = found.next().expect("the table is recorded");
    assert!(found.next().is_none(), "recorded once");
    table
}

#[test]
#[cfg_attr(
    miri,
    ignore = "Miri has no linker and no `dl_iterate_phdr`: the program has no records there"
)]
fn a_table_s_record_is_read_back_in_process() {
    let table = recorded("::registry::tests::Recorded");
    assert_eq!(table.backend, RecordedBackend::Driver);
    assert_eq!(table.stream_mode, StreamMode::PerThread);
    assert_eq!(
        table.min_driver_version,
        min_driver_version(
            <Recorded as crate::table::Functions>::FUNCTIONS,
            StreamMode::PerThread
        )
    );
    let names: Vec<_> = table.functions.iter().map(|f| f.name).collect();
    assert_eq!(names, ["cuInit", "cuMemcpyHtoD"]);
    assert_eq!(
        table.functions[1].abi,
        Abi {
            version: 3020,
            export: None,
            per_thread: Some(PerThread {
                version: 7000,
                export: None
            })
        }
    );
    assert_eq!(
        table.functions[1].request(table.stream_mode),
        (7000, StreamMode::PerThread)
    );
    assert_eq!(
        table.functions[0].request(table.stream_mode),
        (2000, StreamMode::Legacy)
    );
    assert_eq!(table.declared, Some(DeclaredDriver::Version(12000)));
    let other = recorded("::registry::tests::Other");
    assert_eq!(other.backend, RecordedBackend::Default);
    assert_eq!(other.stream_mode, StreamMode::Legacy);
    assert_eq!(other.declared, Some(DeclaredDriver::Newest(13000)));
}

/// A record of `functions`, as the macro writes it.
fn bytes<const N: usize>(name: &str, functions: &[FunctionSpec]) -> [u8; N] {
    record_bytes::<N>(
        name,
        RecordedBackend::Runtime,
        StreamMode::Legacy,
        DeclaredDriver::Version(12000),
        functions,
    )
}

/// `record` as earlier versions of this crate wrote it (format version 1): the same without the
/// `driver` option (byte 7 is 0, bytes 16 to 20 are not there).
fn version_1(record: &[u8]) -> Vec<u8> {
    let mut old = record[..16].to_vec();
    old.extend_from_slice(&record[20..]);
    old[4] = 1;
    old[7] = 0;
    let len = u32::try_from(old.len()).expect("small");
    old[8..12].copy_from_slice(&len.to_le_bytes());
    old
}

const SPECS: &[FunctionSpec] = <Recorded as crate::table::Functions>::FUNCTIONS;
const LEN: usize = record_len("t", SPECS);

#[test]
fn padding_between_records_is_skipped_and_each_is_read() {
    let one: [u8; LEN] = bytes("t", SPECS);
    let mut section = vec![0, 0];
    section.extend_from_slice(&one);
    section.extend_from_slice(&[0; 7]);
    section.extend_from_slice(&one);
    let read: Vec<_> = parse(&section).collect();
    assert_eq!(read.len(), 2);
    for table in read {
        let table = table.expect("readable");
        assert_eq!(table.name, "t");
        assert_eq!(
            table.min_driver_version,
            min_driver_version(SPECS, StreamMode::Legacy)
        );
    }
}

#[test]
fn a_record_of_another_version_is_reported_and_the_next_one_read() {
    let mut newer: [u8; LEN] = bytes("t", SPECS);
    newer[4] = 3;
    let mut section = newer.to_vec();
    section.extend_from_slice(&bytes::<LEN>("t", SPECS));
    let read: Vec<_> = parse(&section).collect();
    let error = read[0].as_ref().expect_err("version 3 is not read");
    assert_eq!(error.offset, 0);
    assert!(error.why.contains("format version 3"), "{}", error.why);
    assert_eq!(read[1].as_ref().map(|t| t.name), Ok("t"));
}

#[test]
fn bytes_that_are_no_record_stop_the_reading_with_where_they_are() {
    let one: [u8; LEN] = bytes("t", SPECS);
    let mut section = one.to_vec();
    section.extend_from_slice(b"garbage");
    section.extend_from_slice(&one);
    let read: Vec<_> = parse(&section).collect();
    assert_eq!(read.len(), 2);
    assert!(read[0].is_ok());
    assert_eq!(read[1].as_ref().err().map(|e| e.offset), Some(LEN));
}

#[test]
fn every_cut_or_changed_byte_gives_an_error_or_a_table_never_a_panic() {
    let one: [u8; LEN] = bytes("t", SPECS);
    for len in 0..LEN {
        for item in parse(&one[..len]) {
            assert!(
                item.is_err(),
                "a cut record ({len} bytes) is not read as a table"
            );
        }
    }
    for i in 0..LEN {
        for value in [0u8, 1, 2, 0x7f, 0xff] {
            let mut changed = one;
            changed[i] = value;
            let _ = parse(&changed).count();
        }
    }
}

#[test]
fn a_record_of_format_version_1_is_read_without_the_driver_option() {
    let new: [u8; LEN] = bytes("t", SPECS);
    let mut section = version_1(&new);
    section.extend_from_slice(&new);
    let read: Vec<_> = parse(&section).map(|t| t.expect("readable")).collect();
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].declared, None);
    assert_eq!(read[1].declared, Some(DeclaredDriver::Version(12000)));
    // Apart from the option, the two say the same.
    assert_eq!(
        RecordedTable {
            declared: None,
            ..read[1].clone()
        },
        read[0]
    );
}

#[test]
fn the_driver_option_is_read_back_and_an_unknown_one_refused() {
    let newest: [u8; LEN] = record_bytes::<LEN>(
        "t",
        RecordedBackend::Default,
        StreamMode::Legacy,
        DeclaredDriver::Newest(12090),
        SPECS,
    );
    let table = parse(&newest).next().expect("one").expect("readable");
    assert_eq!(table.declared, Some(DeclaredDriver::Newest(12090)));
    let mut unknown = newest;
    unknown[7] = 3;
    let error = parse(&unknown).next().expect("one").expect_err("refused");
    assert!(error.why.contains("driver option 3"), "{}", error.why);
}

#[test]
fn records_among_other_bytes_are_found_and_false_starts_passed_over() {
    let one: [u8; LEN] = bytes("t", SPECS);
    let mut segment = b"data cdtR that is no record ".to_vec();
    segment.extend_from_slice(&one);
    // A record's header alone, whose length runs into what follows.
    segment.extend_from_slice(&one[..20]);
    segment.extend_from_slice(b"more");
    segment.extend_from_slice(&version_1(&one));
    let found: Vec<(usize, Option<DeclaredDriver>)> = find(&segment)
        .into_iter()
        .map(|(at, t)| (at, t.declared))
        .collect();
    assert_eq!(
        found,
        [
            (28, Some(DeclaredDriver::Version(12000))),
            (28 + LEN + 20 + 4, None)
        ]
    );
}

#[test]
fn records_sections_are_the_old_one_and_one_per_table() {
    assert!(is_elf_section(b"cuda_driver_table"));
    assert!(is_elf_section(b"cuda_driver_table.app::gpu::Cuda"));
    assert!(!is_elf_section(b"cuda_driver_tables"));
    assert!(!is_elf_section(b".cuda_driver_table"));
}
