//! The GPU report from a small fixture run (`fixtures/gpu-run/`: criterion output folders of the
//! three criterion runs, a log with paired lines, cold-start samples, machine lines), made up so
//! that some measurements are missing. The expected report is `fixtures/gpu-run/expected-report.txt`;
//! after a deliberate change to the format, write it again with
//! `BLESS=1 cargo test -p cuda-driver-table-benches --test gpu_report` and read the diff.

use cuda_driver_table_benches::gpu_report::{self, files, Runs};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gpu-run")
}

/// What `bench-gpu` leaves in `$OUT`, made from the fixture in a fresh folder.
fn out_dir(name: &str) -> PathBuf {
    let out = std::env::temp_dir().join(format!("gpu-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let mut runs = Runs::new();
    for run in gpu_report::CALL_RUNS
        .into_iter()
        .chain([gpu_report::RESOLVE_RUN])
    {
        let found = gpu_report::read_criterion_home(&fixture().join(run)).unwrap();
        runs.insert(run.to_owned(), found);
    }
    std::fs::write(
        out.join(files::CRITERION),
        serde_json::to_string_pretty(&runs).unwrap(),
    )
    .unwrap();
    for f in [files::MACHINE, files::LOG, files::COLD] {
        std::fs::copy(fixture().join(f), out.join(f)).unwrap();
    }
    out
}

#[test]
fn criterion_output_is_read_from_the_new_folders_only() {
    let call1 = gpu_report::read_criterion_home(&fixture().join("call1")).unwrap();
    assert_eq!(call1.len(), 7);
    let e = call1["call_overhead/cuDriverGetVersion/raw_pointer"];
    assert_eq!(e.median, 5.81);
    assert!(e.mean_lo < e.mean && e.mean < e.mean_hi);
    assert!(e.slope.is_some() && e.elements.is_none());
    // The `base` folder beside one `new` folder is an older run: not read.
    assert!(!call1.keys().any(|k| k.ends_with("OLD")));
    let resolve = gpu_report::read_criterion_home(&fixture().join("resolve")).unwrap();
    assert_eq!(resolve["resolve_all/all/table_driver"].elements, Some(447));
    // A run that left nothing is empty, not an error.
    assert!(gpu_report::read_criterion_home(&fixture().join("absent"))
        .unwrap()
        .is_empty());
}

#[test]
fn paired_lines_belong_to_the_criterion_run_above_them() {
    let log = std::fs::read_to_string(fixture().join(files::LOG)).unwrap();
    let paired = gpu_report::parse_paired(&log);
    assert_eq!(paired["call1"].len(), 5);
    assert_eq!(paired["call2"].len(), 4);
    let p = paired["call1"][&("cuDriverGetVersion".to_owned(), "accessor".to_owned())];
    assert_eq!((p.diff, p.p10, p.p90), (-0.01, -0.3, 0.2));
    assert!(!paired.contains_key("resolve"));
}

#[test]
fn resolve_paired_lines_are_read_from_the_resolve_run_only() {
    let log = std::fs::read_to_string(fixture().join(files::LOG)).unwrap();
    let paired = gpu_report::parse_resolve_paired(&log);
    // The broken `table_runtime` line is left out, and the one under `call1` is not resolve-all's.
    assert_eq!(paired.len(), 1);
    let p = &paired["table_driver"];
    assert_eq!(p.baseline, "raw_cuGetProcAddress_v2");
    assert_eq!((p.functions, p.rounds), (447, 3000));
    assert_eq!((p.ns, p.baseline_ns), (27500.0, 24200.0));
    assert_eq!((p.ratio, p.p10, p.p90), (1.131, 1.082, 1.274));
}

#[test]
fn cold_samples_skip_the_header_and_a_cut_line() {
    let tsv = std::fs::read_to_string(fixture().join(files::COLD)).unwrap();
    let cold = gpu_report::parse_cold(&tsv);
    assert_eq!(cold.len(), 8);
    assert_eq!(cold["cudarc"].len(), 7);
    assert!(cold.values().all(|rounds| rounds.len() == 7));
}

#[test]
fn statistics_follow_the_documented_rules() {
    assert_eq!(gpu_report::median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(gpu_report::median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    let xs: Vec<f64> = (0..11).map(f64::from).collect();
    assert_eq!(gpu_report::quantile(&xs, 0.1), 1.0);
    assert_eq!(gpu_report::quantile(&xs, 0.9), 9.0);
}

#[test]
fn the_report_matches_the_expected_text() {
    let out = out_dir("render");
    let report = gpu_report::render_dir(&out).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let expected_path = fixture().join("expected-report.txt");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&expected_path, &report).unwrap();
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap();
    if report != expected {
        for (i, (a, b)) in report.lines().zip(expected.lines()).enumerate() {
            if a != b {
                panic!("line {}: got\n{a}\nexpected\n{b}", i + 1);
            }
        }
        panic!(
            "the report has {} lines, {} expected",
            report.lines().count(),
            expected.lines().count()
        );
    }
    // The rows for BENCHMARKS.md: one per measurement, missing ones said so.
    let rows: Vec<&str> = report.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(rows.len(), 8 + 7 + 3);
    assert!(rows
        .iter()
        .any(|r| r.starts_with("| 2d |") && r.contains("not measured")));
}

#[test]
fn a_run_without_criterion_results_says_so() {
    let dir = out_dir("empty");
    std::fs::write(dir.join(files::CRITERION), "{}").unwrap();
    std::fs::remove_file(dir.join(files::COLD)).unwrap();
    let report = gpu_report::render_dir(&dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    // Each measurement once in its section and once in the rows: 8 calls, 9 cold-start
    // programs and 7 cold-start rows, 5 resolve variants, the paired `table_runtime` and the
    // resolve rows but 3a, which the log's paired line makes.
    assert_eq!(
        report.matches("not measured").count(),
        (8 + 8) + (9 + 7) + (5 + 1 + 2)
    );
    assert!(report.contains("| 3a | resolve all: driver backend"));
    let without_log = out_dir("empty-log");
    std::fs::write(without_log.join(files::CRITERION), "{}").unwrap();
    std::fs::remove_file(without_log.join(files::LOG)).unwrap();
    let report = gpu_report::render_dir(&without_log).unwrap();
    let _ = std::fs::remove_dir_all(&without_log);
    assert!(report.contains(
        "| 3a | resolve all: driver backend, fresh `#[driver_table(all, driver = newest)]` | not measured |"
    ));
}

#[test]
fn a_missing_folder_is_an_error_not_a_panic() {
    let e = gpu_report::render_dir(Path::new("/nonexistent/bench-gpu-out")).unwrap_err();
    assert!(e.contains("machine.txt"), "{e}");
}
