//! The checks of the test command (`scripts/test.sh`): `cargo xtask <check>` (an alias in
//! `.cargo/config.toml`). Each runs a command (cargo's, or a program of the workspace) or reads
//! a page cargo wrote, reads the result with a function of its own (unit-tested, here and in
//! `outputs.rs`, on results where the check must fail), and exits with 1 and a message that says
//! what to change when it does not hold. `scripts/test.sh` installs what is missing and calls
//! them in order, among its steps.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

mod outputs;

#[derive(Debug, Parser)]
#[command(
    name = "xtask",
    about = "The checks of the test command (scripts/test.sh)"
)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// A plain `cargo test` at the root (the default members) builds neither bindgen nor clang-sys.
    DefaultMembers,
    /// A default build of cuda-driver-table compiles no bindgen, no cuda-driver-table-local, and
    /// syn with `derive parsing printing proc-macro` only.
    DefaultBuild,
    /// The example library's normal build has no `fake` feature (it comes from
    /// [dev-dependencies] only).
    FakeDevOnly,
    /// The README's quick check, run as the README writes it.
    QuickCheck,
    /// The installed tool prints its usage with --help.
    CliHelp {
        /// The installed `cuda-driver-table`.
        #[arg(long, value_name = "FILE")]
        bin: PathBuf,
    },
    /// The vector_add example: without a driver (unless this machine has one) it fails in at most
    /// two lines with the driver's advice, and `--help` loads nothing.
    VectorAdd,
    /// tests/library without a release feature: one error line that says what a library enables.
    LibraryWithoutRelease {
        /// cargo's target folder (the build goes to DIR/library).
        #[arg(long, value_name = "DIR")]
        target: PathBuf,
    },
    /// tests/local with cuda-local and cuda-13000 together: the error names both.
    LocalWithRelease {
        /// cargo's target folder (the build goes to DIR/local).
        #[arg(long, value_name = "DIR")]
        target: PathBuf,
    },
    /// The fake's page (cargo doc) shows CUresult, not the C tag cudaError_enum.
    FakePage {
        /// cargo's target folder.
        #[arg(long, value_name = "DIR")]
        target: PathBuf,
    },
    /// The fake module's page, as docs.rs builds it (in DIR/docsrs), carries the feature badge.
    FeatureBadge {
        /// cargo's target folder.
        #[arg(long, value_name = "DIR")]
        target: PathBuf,
    },
    /// scripts/doc_links.py finds each kind of broken link planted in a copy of the runtime's
    /// pages (DIR/doc/cuda_driver_table).
    DocLinksPlanted {
        /// cargo's target folder.
        #[arg(long, value_name = "DIR")]
        target: PathBuf,
    },
    /// The four `.crate` files of the published crates, in TARGET/package, take less than
    /// cudarc 0.19.10's one crate (run after `cargo package`).
    PackageSize {
        /// cargo's target folder.
        #[arg(long, value_name = "DIR")]
        target: PathBuf,
    },
}

/// The four crates users download.
const PUBLISHED: [&str; 4] = [
    "cuda-driver-table-sys",
    "cuda-driver-table-core",
    "cuda-driver-table-macros",
    "cuda-driver-table",
];

/// `cudarc-0.19.10.crate`, in bytes.
const CUDARC_CRATE: u64 = 595_357;

/// The features of syn a default build may enable.
const SYN_FEATURES: [&str; 4] = ["derive", "parsing", "printing", "proc-macro"];

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.task {
        Task::DefaultMembers => cargo_tree(&["-e", "normal,build,dev", "--prefix", "none"])
            .and_then(|tree| default_members(&tree)),
        Task::DefaultBuild => default_build(),
        Task::FakeDevOnly => {
            cargo_tree(&["-p", "fastsum", "-e", "normal,build", "-f", "{p} [{f}]"])
                .and_then(|tree| fake_dev_only(&tree))
        }
        Task::PackageSize { target } => package_size(&target.join("package")),
        Task::QuickCheck => quick_check(),
        Task::DocLinksPlanted { target } => doc_links_planted(&target.join("doc")),
        Task::CliHelp { bin } => outputs::run(Command::new(bin).arg("--help"))
            .and_then(|run| outputs::cli_help(&run))
            .map(|()| format!("{} --help: ok", bin.display())),
        Task::VectorAdd => vector_add(),
        Task::LibraryWithoutRelease { target } => outputs::run(
            cargo()
                .args([
                    "build",
                    "-q",
                    "--manifest-path",
                    "tests/library/Cargo.toml",
                    "--target-dir",
                ])
                .arg(target.join("library")),
        )
        .and_then(|run| outputs::library_without_release(&run))
        .map(|()| "tests/library without a release: one error line: ok".to_owned()),
        Task::LocalWithRelease { target } => outputs::run(
            cargo()
                .args([
                    "build",
                    "-q",
                    "--manifest-path",
                    "tests/local/Cargo.toml",
                    "--target-dir",
                ])
                .arg(target.join("local"))
                .args(["--features", "cuda-driver-table/cuda-13000"])
                .env_remove("CUDA_DRIVER_TABLE_INCLUDE")
                .env("CUDA_PATH", "/nonexistent"),
        )
        .and_then(|run| outputs::local_with_release(&run))
        .map(|()| "cuda-local with cuda-13000: the error names both: ok".to_owned()),
        Task::FakePage { target } => {
            let page = target.join("doc/cuda_driver_table/fake/struct.Fake.html");
            outputs::fake_page(&page).map(|()| format!("{}: CUresult: ok", page.display()))
        }
        Task::FeatureBadge { target } => {
            let page = target.join("docsrs/doc/cuda_driver_table/fake/index.html");
            outputs::feature_badge(&page).map(|()| format!("{}: the badge: ok", page.display()))
        }
    };
    match result {
        Ok(said) => {
            println!("{said}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace's root.
fn root() -> &'static Path {
    // The xtask crate is a folder of the root.
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// `cargo` at the workspace's root.
fn cargo() -> Command {
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo.current_dir(root());
    cargo
}

/// Runs the README's quick check with `-q`.
fn quick_check() -> Result<String, String> {
    let readme = root().join("README.md");
    let text = std::fs::read_to_string(&readme)
        .map_err(|e| format!("cannot read {}: {e}", readme.display()))?;
    let command = outputs::quick_check(&text)?;
    let status = cargo()
        .args(&command[1..])
        .arg("-q")
        .status()
        .map_err(|e| format!("cannot run {}: {e}", command.join(" ")))?;
    if !status.success() {
        return Err(format!(
            "the README's quick check, {}, failed ({status})",
            command.join(" ")
        ));
    }
    Ok(format!(
        "the README's quick check, {}: ok",
        command.join(" ")
    ))
}

/// A copy of the `doc` folder with [`outputs::PLANTED`] in the fake module's page (the other
/// crates' pages linked, not copied), checked with `scripts/doc_links.py`.
fn doc_links_planted(doc: &Path) -> Result<String, String> {
    let planted = std::env::temp_dir().join(format!("xtask-planted.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&planted);
    let made = plant(doc, &planted);
    let result = made.and_then(|()| {
        let run = outputs::run(
            Command::new("python3")
                .arg(root().join("scripts/doc_links.py"))
                .arg(planted.join("cuda_driver_table")),
        )?;
        outputs::planted_found(&run)
    });
    let _ = std::fs::remove_dir_all(&planted);
    result.map(|()| "doc_links.py finds every planted broken link: ok".to_owned())
}

/// Lays out `planted` as [`doc_links_planted`] says.
fn plant(doc: &Path, planted: &Path) -> Result<(), String> {
    let io = |what: &str, path: &Path| {
        let what = what.to_owned();
        let path = path.display().to_string();
        move |e: std::io::Error| format!("cannot {what} {path}: {e}")
    };
    std::fs::create_dir_all(planted).map_err(io("create", planted))?;
    for entry in std::fs::read_dir(doc).map_err(io("list", doc))?.flatten() {
        let to = planted.join(entry.file_name());
        if entry.file_name() == "cuda_driver_table" {
            copy_tree(&entry.path(), &to)?;
        } else {
            let from = entry
                .path()
                .canonicalize()
                .map_err(io("resolve", &entry.path()))?;
            std::os::unix::fs::symlink(&from, &to).map_err(io("link", &to))?;
        }
    }
    let page = planted.join("cuda_driver_table/fake/index.html");
    let html = std::fs::read_to_string(&page).map_err(io("read", &page))?;
    if !html.contains("</main>") {
        return Err(format!("{} has no </main>", page.display()));
    }
    let html = html.replacen("</main>", &format!("{}</main>", outputs::PLANTED), 1);
    std::fs::write(&page, html).map_err(io("write", &page))
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot list {}: {e}", from.display()))?;
    for entry in entries.flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .map_err(|e| format!("cannot copy {}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// The vector_add example without a driver (where this machine has none), and its `--help`.
fn vector_add() -> Result<String, String> {
    let example = || {
        let mut c = cargo();
        c.args([
            "run",
            "-q",
            "-p",
            "cuda-driver-table",
            "--example",
            "vector_add",
        ]);
        c
    };
    let mut said = Vec::new();
    if Path::new("/dev/nvidiactl").exists() {
        said.push("this machine has a driver: the runs without one are skipped".to_owned());
    } else {
        for (args, check) in [
            (
                &[][..],
                outputs::vector_add_fails_cleanly as fn(&outputs::Run) -> Result<(), String>,
            ),
            (&["--", "--driver"][..], outputs::vector_add_driver_advice),
        ] {
            let run = outputs::run(
                example()
                    .args(args)
                    .env_remove("CUDA_DRIVER_TABLE_CUDART")
                    .env_remove("CUDA_DRIVER_TABLE_LIBCUDA"),
            )?;
            check(&run)?;
            said.push(format!(
                "vector_add {}: {}",
                args.join(" "),
                run.stderr.trim()
            ));
        }
    }
    // The libraries named here do not exist: --help loads nothing.
    let run = outputs::run(
        example()
            .args(["--", "--help"])
            .env("CUDA_DRIVER_TABLE_CUDART", "/nonexistent/libcudart.so")
            .env("CUDA_DRIVER_TABLE_LIBCUDA", "/nonexistent/libcuda.so.1"),
    )?;
    outputs::vector_add_help(&run)?;
    said.push("vector_add --help: ok".to_owned());
    Ok(said.join("\n"))
}

/// The output of `cargo tree -q ARGS`, at the workspace's root.
fn cargo_tree(args: &[&str]) -> Result<String, String> {
    let out = cargo()
        .args(["tree", "-q"])
        .args(args)
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("cargo tree printed no UTF-8: {e}"))
}

/// `cargo tree -e normal,build,dev --prefix none` of the default members names no bindgen or
/// clang-sys.
fn default_members(tree: &str) -> Result<String, String> {
    if tree
        .lines()
        .any(|l| l.starts_with("bindgen ") || l.starts_with("clang-sys "))
    {
        return Err("a plain cargo test at the root builds bindgen: keep the generator out of default-members in Cargo.toml".to_owned());
    }
    Ok("the default members build no bindgen: ok".to_owned())
}

fn default_build() -> Result<String, String> {
    let tree = cargo_tree(&[
        "-p",
        "cuda-driver-table",
        "-e",
        "normal,build",
        "--prefix",
        "none",
    ])?;
    let features = cargo_tree(&[
        "-p",
        "cuda-driver-table",
        "-e",
        "normal,build,features",
        "-i",
        "syn",
        "--prefix",
        "none",
    ])?;
    default_build_of(&tree, &features)
}

/// The default build's tree (`cargo tree -p cuda-driver-table -e normal,build --prefix none`)
/// has no bindgen and no cuda-driver-table-local, and the features of syn in it (`cargo tree ...
/// -e normal,build,features -i syn --prefix none`) are [`SYN_FEATURES`].
fn default_build_of(tree: &str, syn_tree: &str) -> Result<String, String> {
    let has = |name: &str| tree.lines().any(|l| l.starts_with(&format!("{name} ")));
    if has("bindgen") {
        return Err("a default build of cuda-driver-table compiles bindgen: the codegen must stay an optional build-dependency".to_owned());
    }
    if has("cuda-driver-table-local") {
        return Err("a default build of cuda-driver-table depends on cuda-driver-table-local: it must stay an optional dependency".to_owned());
    }
    let mut features: Vec<&str> = syn_tree
        .lines()
        .filter_map(|l| l.strip_prefix("syn feature \"")?.strip_suffix('"'))
        .collect();
    features.sort_unstable();
    features.dedup();
    // The macro is written on syn, quote and proc-macro2 (CONTRIBUTING.md): a default build
    // compiles syn with the features the macro needs and no more, so an application's own syn
    // gains no code from it (`full`, `visit`, `fold`, `extra-traits` stay off).
    if features != SYN_FEATURES {
        return Err(format!(
            "a default build of cuda-driver-table compiles syn with the features: {} (expected: {})",
            features.join(" "),
            SYN_FEATURES.join(" ")
        ));
    }
    Ok("a default build compiles no bindgen, no cuda-driver-table-local, and syn with derive parsing printing proc-macro: ok".to_owned())
}

/// `cargo tree -p fastsum -e normal,build -f '{p} [{f}]'`: the line of cuda-driver-table has no
/// `fake` among its features.
fn fake_dev_only(tree: &str) -> Result<String, String> {
    let fake = tree.lines().any(|l| {
        l.contains("cuda-driver-table v")
            && l.rsplit_once('[')
                .is_some_and(|(_, f)| f.trim_end_matches(']').split(',').any(|f| f == "fake"))
    });
    if fake {
        return Err("a normal build of fastsum enables the fake feature: it must come from [dev-dependencies] only".to_owned());
    }
    Ok("fastsum's normal build has no fake feature: ok".to_owned())
}

/// The four `.crate` files of [`PUBLISHED`] in `dir` take less than [`CUDARC_CRATE`] together.
fn package_size(dir: &Path) -> Result<String, String> {
    let entries: Vec<(String, u64)> = std::fs::read_dir(dir)
        .map_err(|e| {
            format!(
                "cannot list {} (run cargo package first): {e}",
                dir.display()
            )
        })?
        .flatten()
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.metadata().ok()?.len())))
        .collect();
    four_crates(&entries)
}

/// The check of [`package_size`] over (file name, bytes) of a package folder.
fn four_crates(files: &[(String, u64)]) -> Result<String, String> {
    let mut lines = Vec::new();
    let mut total = 0;
    for name in PUBLISHED {
        let mut found = files.iter().filter(|(file, _)| {
            file.strip_prefix(name)
                .and_then(|v| v.strip_prefix('-'))
                .and_then(|v| v.strip_suffix(".crate"))
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        });
        let (Some((file, size)), None) = (found.next(), found.next()) else {
            return Err(format!(
                "expected one {name}-VERSION.crate in the package folder"
            ));
        };
        lines.push(format!("{file}: {size} bytes"));
        total += size;
    }
    lines.push(format!("together: {total} bytes"));
    if total >= CUDARC_CRATE {
        return Err(format!(
            "{}\nthe four .crate files take {total} bytes, not less than cudarc 0.19.10's one crate ({CUDARC_CRATE} bytes): store each fact once (CONTRIBUTING.md, generated code)",
            lines.join("\n")
        ));
    }
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_arguments_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn bindgen_in_the_default_members_fails() {
        assert!(default_members("cuda-driver-table v0.1.0\nsyn v2.0.1\n").is_ok());
        let err = default_members("cuda-driver-table v0.1.0\nbindgen v0.73.2\n").unwrap_err();
        assert!(err.contains("default-members"), "{err}");
        assert!(default_members("clang-sys v1.8.1\n").is_err());
        // A crate whose name only starts alike is not bindgen.
        assert!(default_members("bindgen-helper v1.0.0\n").is_ok());
    }

    #[test]
    fn the_default_build_fails_on_bindgen_the_local_crate_or_more_of_syn() {
        let tree = "cuda-driver-table v0.1.0\nsyn v2.0.1\n";
        let syn = "syn feature \"derive\"\nsyn feature \"parsing\"\nsyn feature \"printing\"\nsyn feature \"proc-macro\"\nsyn feature \"parsing\"\n";
        assert!(default_build_of(tree, syn).is_ok());
        let err = default_build_of("bindgen v0.73.2 (*)\n", syn).unwrap_err();
        assert!(err.contains("compiles bindgen"), "{err}");
        let err = default_build_of("cuda-driver-table-local v0.1.0\n", syn).unwrap_err();
        assert!(err.contains("cuda-driver-table-local"), "{err}");
        let err = default_build_of(tree, &format!("{syn}syn feature \"full\"\n")).unwrap_err();
        assert!(
            err.ends_with("features: derive full parsing printing proc-macro (expected: derive parsing printing proc-macro)"),
            "{err}"
        );
        assert!(default_build_of(tree, "syn feature \"derive\"\n").is_err());
    }

    #[test]
    fn the_fake_feature_in_fastsum_s_normal_build_fails() {
        let ok = "fastsum v0.1.0 [default]\ncuda-driver-table v0.1.0 [cuda-12000,default]\n";
        assert!(fake_dev_only(ok).is_ok());
        let bad = "fastsum v0.1.0 []\ncuda-driver-table v0.1.0 (/w/runtime) [cuda-12000,fake]\n";
        assert!(fake_dev_only(bad).is_err());
        // The fake's own crate is not the feature.
        assert!(fake_dev_only("cuda-driver-table-fake v0.1.0 [fake]\n").is_ok());
    }

    #[test]
    fn four_crates_as_large_as_cudarc_s_fail() {
        let files = |sizes: [u64; 4]| -> Vec<(String, u64)> {
            let mut files: Vec<(String, u64)> = PUBLISHED
                .iter()
                .zip(sizes)
                .map(|(n, s)| (format!("{n}-0.1.0.crate"), s))
                .collect();
            files.push(("cuda-driver-table-fake-0.1.0.crate".to_owned(), 500_000));
            files
        };
        let said = four_crates(&files([111_015, 142_734, 270_961, 47_271])).unwrap();
        assert!(said.ends_with("together: 571981 bytes"), "{said}");
        let err = four_crates(&files([111_015, 142_734, 270_961, 70_647])).unwrap_err();
        assert!(err.contains("take 595357 bytes, not less than"), "{err}");
        assert!(four_crates(&files([1, 1, 1, 1])[1..]).is_err());
    }
}
