//! `inspect` on the example program `recorded` (whose tables say their own `MIN_DRIVER_VERSION`
//! when it runs), on its Windows build when `CUDA_DRIVER_TABLE_TEST_WINDOWS_RECORDED` names it,
//! and, when `CUDA_DRIVER_TABLE_TEST_PROGRAMS` names the target folder they were built in, on the
//! samples and the runtime crate's examples; and the JSON schema.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// `inspect --json` of `program`.
fn inspect_json(program: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .args(["inspect", "--json"])
        .arg(program)
        .output()
        .expect("the tool runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the output is JSON")
}

/// What `recorded` says of itself: each table's `MIN_DRIVER_VERSION`, its PTX's ISA, and what
/// `tables()` lists in the running program.
fn self_description() -> (BTreeMap<String, u64>, String, BTreeMap<String, u64>) {
    describe(&mut Command::new(common::recorded()))
}

/// The CUDA release of the bindings `recorded` was built with, as it says.
fn release() -> u64 {
    let out = Command::new(common::recorded())
        .output()
        .expect("the example runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("release "))
        .and_then(|r| r.parse().ok())
        .expect("a release line")
}

/// What the `recorded` program that `command` runs says of itself (see [`self_description`]).
fn describe(command: &mut Command) -> (BTreeMap<String, u64>, String, BTreeMap<String, u64>) {
    let out = command.output().expect("the example runs");
    assert!(out.status.success(), "{command:?}: {out:?}");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let (mut tables, mut ptx, mut recorded) = (BTreeMap::new(), String::new(), BTreeMap::new());
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["table", name, min] => {
                tables.insert(format!("recorded::{name}"), min.parse().expect("a number"));
            }
            ["ptx", isa] => ptx = (*isa).to_owned(),
            ["release", _] => {}
            ["recorded", name, min] => {
                recorded.insert((*name).to_owned(), min.parse().expect("a number"));
            }
            _ => panic!("unexpected line {line:?}"),
        }
    }
    (tables, ptx, recorded)
}

#[test]
fn the_floor_is_the_tables_min_driver_version_and_the_ptx_s_driver() {
    let (tables, isa, in_process) = self_description();
    let json = inspect_json(&common::recorded());
    let from_file: BTreeMap<String, u64> = json["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().expect("name").to_owned(),
                t["min_driver_version"].as_u64().expect("min"),
            )
        })
        .collect();
    // The file's records, the running program's `tables()` and each table's own constant agree.
    assert_eq!(from_file, tables);
    assert_eq!(in_process, tables);
    let ptx = json["ptx"].as_array().expect("ptx");
    assert_eq!(ptx.len(), 1, "{json:#}");
    assert_eq!(ptx[0]["isa"], isa.as_str());
    assert_eq!(ptx[0]["target"], "sm_80");
    assert_eq!(ptx[0]["min_driver_version"], 12040);
    let floor = tables.values().copied().max().expect("tables").max(12040);
    assert_eq!(json["driver_floor"], floor);
    // 12.5's cuCtxCreate of the driver table sets it, above the PTX's 12.4.
    assert_eq!(
        json["set_by"],
        serde_json::json!([{"kind": "function", "table": "recorded::Driver", "function": "cuCtxCreate", "requested": 12050, "flag": "legacy"}])
    );
    let per_thread: Vec<&str> = json["per_thread"]
        .as_array()
        .expect("per_thread")
        .iter()
        .map(|r| r["function"].as_str().expect("function"))
        .collect();
    assert_eq!(per_thread, ["cuLaunchKernel", "cuMemcpyHtoD"]);
}

/// The same program built for `x86_64-pc-windows-gnu` (a PE file that the GNU linker wrote, with
/// `--gc-sections` as Rust passes it), when `CUDA_DRIVER_TABLE_TEST_WINDOWS_RECORDED` names it:
/// `inspect` reads the same tables, floor and PTX out of it as out of the Linux build; and when
/// `CUDA_DRIVER_TABLE_TEST_WINE` names Wine, the program run under it lists them with `tables()`.
/// `scripts/test.sh` builds it and sets both.
#[test]
fn the_windows_build_records_the_same_tables() {
    let Some(exe) = std::env::var_os("CUDA_DRIVER_TABLE_TEST_WINDOWS_RECORDED") else {
        eprintln!("skipped: set CUDA_DRIVER_TABLE_TEST_WINDOWS_RECORDED to recorded.exe after `cargo build --target x86_64-pc-windows-gnu -p cuda-driver-table-cli --example recorded` (needs the Rust target and mingw: scripts/test.sh installs them)");
        return;
    };
    let exe = Path::new(&exe);
    let linux = inspect_json(&common::recorded());
    let windows = inspect_json(exe);
    assert_eq!(windows["format"], "pe");
    for field in [
        "driver_floor",
        "set_by",
        "tables",
        "per_thread",
        "unreadable_records",
    ] {
        assert_eq!(windows[field], linux[field], "{field}: {windows:#}");
    }
    let ptx = |json: &Value| -> Vec<(Value, Value, Value)> {
        json["ptx"]
            .as_array()
            .expect("ptx")
            .iter()
            .map(|p| {
                (
                    p["isa"].clone(),
                    p["target"].clone(),
                    p["min_driver_version"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(ptx(&windows), ptx(&linux));
    let Some(wine) = std::env::var_os("CUDA_DRIVER_TABLE_TEST_WINE") else {
        eprintln!("not run under Wine: set CUDA_DRIVER_TABLE_TEST_WINE to the wine binary");
        return;
    };
    let (tables, _, in_process) = describe(Command::new(wine).arg(exe));
    assert_eq!(in_process, tables);
}

#[test]
fn the_human_report_says_the_verdict_first() {
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .arg("inspect")
        .arg(common::recorded())
        .output()
        .expect("the tool runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    assert!(first.ends_with("needs a CUDA driver of 12.5 or newer (12050; `nvidia-smi` shows a driver's as \"CUDA Version\")."), "{text}");
    assert!(
        text.contains("set by: recorded::Driver: cuCtxCreate at 12050 (legacy)"),
        "{text}"
    );
    assert!(text.contains("ISA 8.4 for sm_80"), "{text}");
    assert!(
        text.contains("  recorded::Driver: backend driver, legacy stream, MIN_DRIVER_VERSION 12050 (12.5), 3 functions\n"),
        "{text}"
    );
}

/// A `driver = newest` table's record names the release of the bindings it took the newest ABIs
/// of, and the report says it beside the floor they set (a `driver = N` table's report is tested
/// on crafted records, in `hostile.rs`).
#[test]
fn a_newest_table_names_the_release_of_its_bindings() {
    let release = release();
    let json = inspect_json(&common::recorded());
    for table in json["tables"].as_array().expect("tables") {
        assert_eq!(
            table["declared"],
            serde_json::json!({"newest": release}),
            "{table:#}"
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .arg("inspect")
        .arg(common::recorded())
        .output()
        .expect("the tool runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let bindings = format!("{}.{}", release / 1000, release % 1000 / 10);
    let driver = text
        .split("  recorded::Driver: ")
        .nth(1)
        .expect("the table is listed");
    assert!(
        driver.contains(&format!(
            "\n    declared `driver = newest`: the newest ABIs of the CUDA {bindings} bindings, \
             which need 12.5\n"
        )),
        "{text}"
    );
}

/// A program that links a library of two tables and uses one records that one only: the other's
/// record goes with its code, which the linker drops. The report says which tables are listed.
#[test]
fn a_table_a_program_never_uses_is_not_recorded() {
    let program = common::example("uses_one");
    let json = inspect_json(&program);
    let names: Vec<&str> = json["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["cuda_driver_table_two_tables::Used"], "{json:#}");
    // The running program lists the same.
    let out = Command::new(&program).output().expect("the example runs");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "cuda_driver_table_two_tables::Used\n"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-driver-table"))
        .arg("inspect")
        .arg(&program)
        .output()
        .expect("the tool runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "\nTables (1):\n  The tables the program creates are recorded, whether or not it \
             calls them: the linker drops the record of a table a linked library declares and the \
             program never creates"
        ),
        "{text}"
    );
}

/// The schema the README documents: every field, with its type.
#[test]
fn the_json_output_follows_its_schema() {
    let json = inspect_json(&common::recorded());
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&json),
        [
            "driver_floor",
            "file",
            "format",
            "per_thread",
            "ptx",
            "records_found_in",
            "schema",
            "set_by",
            "tables",
            "unreadable_records"
        ]
    );
    // A section per table.
    let places = json["records_found_in"].as_array().expect("array");
    assert_eq!(places.len(), 3, "{json:#}");
    assert!(places[0]
        .as_str()
        .expect("a string")
        .starts_with("section cuda_driver_table."));
    assert_eq!(json["schema"], cuda_driver_table_cli::INSPECT_SCHEMA);
    assert_eq!(json["schema"], "cuda-driver-table-inspect/1");
    assert!(json["file"].is_string());
    assert!(["elf", "pe"].contains(&json["format"].as_str().expect("format")));
    assert!(json["driver_floor"].is_u64());
    assert!(json["unreadable_records"]
        .as_array()
        .expect("array")
        .is_empty());
    for table in json["tables"].as_array().expect("tables") {
        assert_eq!(
            keys(table),
            [
                "backend",
                "declared",
                "functions",
                "min_driver_version",
                "name",
                "stream_mode"
            ]
        );
        assert!(
            ["default", "runtime", "driver"].contains(&table["backend"].as_str().expect("backend"))
        );
        assert!(["legacy", "per-thread"].contains(&table["stream_mode"].as_str().expect("mode")));
        let declared = table["declared"].as_object().expect("an object");
        assert_eq!(declared.len(), 1, "{table:#}");
        assert!(
            ["driver", "newest"]
                .iter()
                .any(|k| declared.get(*k).is_some_and(Value::is_u64)),
            "{table:#}"
        );
        for f in table["functions"].as_array().expect("functions") {
            assert_eq!(
                keys(f),
                ["abi", "flag", "name", "per_thread_abi", "requested"]
            );
            assert!(f["abi"].is_u64() && f["requested"].is_u64());
            assert!(f["per_thread_abi"].is_u64() || f["per_thread_abi"].is_null());
        }
    }
    for r in json["set_by"]
        .as_array()
        .expect("set_by")
        .iter()
        .chain(json["per_thread"].as_array().expect("per_thread"))
    {
        match r["kind"].as_str() {
            Some("function") => {
                assert_eq!(keys(r), ["flag", "function", "kind", "requested", "table"])
            }
            Some("ptx") => assert_eq!(keys(r), ["isa", "kind", "offset", "target"]),
            other => panic!("kind {other:?}"),
        }
    }
    for p in json["ptx"].as_array().expect("ptx") {
        assert_eq!(
            keys(p),
            ["isa", "min_driver_version", "offset", "section", "target"]
        );
    }
}

/// The samples and the runtime crate's examples, built in the folder the variable names: each
/// one's floor is the larger of its tables' `MIN_DRIVER_VERSION` (which never exceeds the
/// `driver =` option its source gives) and the driver of its PTX, whose header names the nvcc
/// release that wrote it.
#[test]
fn the_samples_and_examples_report_their_tables_and_their_ptx() {
    let Some(dir) = std::env::var_os("CUDA_DRIVER_TABLE_TEST_PROGRAMS") else {
        eprintln!("skipped: set CUDA_DRIVER_TABLE_TEST_PROGRAMS to the target folder (target/debug) after `cargo build -p cuda-driver-table-samples --bins` and `cargo build -p cuda-driver-table --examples`");
        return;
    };
    let dir = Path::new(&dir);
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples");
    let mut programs = Vec::new();
    for entry in std::fs::read_dir(format!("{samples}/src/bin")).expect("the samples") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        programs.push((
            dir.join(&name),
            std::fs::read_to_string(&path).expect("the source"),
        ));
    }
    for name in ["vector_add", "device_query"] {
        let source = format!(
            "{}/../runtime/examples/{name}.rs",
            env!("CARGO_MANIFEST_DIR")
        );
        programs.push((
            dir.join("examples").join(name),
            std::fs::read_to_string(source).expect("the source"),
        ));
    }
    assert!(programs.len() >= 14);
    // The nvcc release of each generated PTX file, by ISA: `// nvcc 13.0: ...` -> 13000.
    let mut ptx_release = BTreeMap::new();
    for entry in std::fs::read_dir(format!("{samples}/kernels/generated")).expect("the PTX") {
        let text = std::fs::read_to_string(entry.expect("an entry").path()).expect("PTX");
        let release = text
            .lines()
            .find_map(|l| l.strip_prefix("// nvcc "))
            .and_then(|l| l.split(':').next())
            .expect("the header");
        let (major, minor) = release.split_once('.').expect("a release");
        let release: u64 =
            major.parse::<u64>().expect("major") * 1000 + minor.parse::<u64>().expect("minor") * 10;
        let isa = text
            .lines()
            .find_map(|l| l.strip_prefix(".version "))
            .expect(".version")
            .to_owned();
        ptx_release.insert(isa, release);
    }
    // The runtime crate's vector_add embeds hand-written PTX of ISA 7.0, which came with CUDA 11.0.
    ptx_release.entry("7.0".to_owned()).or_insert(11000);
    for (program, source) in programs {
        assert!(program.exists(), "{} is not built", program.display());
        let json = inspect_json(&program);
        let tables = json["tables"].as_array().expect("tables");
        assert!(
            !tables.is_empty(),
            "{}: no table recorded",
            program.display()
        );
        let mut floor = 0;
        for t in tables {
            let min = t["min_driver_version"].as_u64().expect("min");
            let asked = t["functions"]
                .as_array()
                .expect("functions")
                .iter()
                .map(|f| f["requested"].as_u64().expect("requested"))
                .max()
                .unwrap_or(0);
            assert_eq!(min, asked.max(11030), "{}: {t:#}", program.display());
            // A sample's table is declared in its module of the samples library, not in this
            // program's source, whose `driver` option does not bind it. The library holds every
            // sample's table; a program records only those of the modules it uses.
            let name = t["name"].as_str().expect("a name");
            let foreign = name.starts_with("cuda_driver_table_samples::");
            if let Some(module) = name.rsplit_once("::").filter(|_| foreign) {
                assert!(
                    source.contains(module.0),
                    "{}: records {name}, of a module it does not use",
                    program.display()
                );
            }
            if let Some(option) = source.split("driver = ").nth(1).filter(|_| !foreign) {
                let option: u64 = option
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .and_then(|d| d.parse().ok())
                    .expect("a driver option");
                assert!(
                    min <= option,
                    "{}: {min} > driver = {option}",
                    program.display()
                );
            }
            floor = floor.max(min);
        }
        for p in json["ptx"].as_array().expect("ptx") {
            let isa = p["isa"].as_str().expect("isa");
            assert_eq!(
                p["min_driver_version"].as_u64(),
                ptx_release.get(isa).copied(),
                "{}: {p}",
                program.display()
            );
            floor = floor.max(p["min_driver_version"].as_u64().expect("driver"));
        }
        if source.contains("ptx!(") {
            assert!(
                !json["ptx"].as_array().expect("ptx").is_empty(),
                "{}: its PTX is not found",
                program.display()
            );
        }
        assert_eq!(
            json["driver_floor"].as_u64(),
            Some(floor),
            "{}",
            program.display()
        );
    }
}
