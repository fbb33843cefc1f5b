//! Command line of the generator. `generate` writes every committed file, `check` fails when a
//! fresh run differs from them, `fetch` downloads headers, `summary` prints the functions per
//! release, `layout` checks the bindings' layouts against the C compiler, `outputs` lists the
//! out-values each release's records mark, `cudart` lays out the libcudart files the runtime
//! crate's library tests load.

use cuda_driver_table_codegen::{
    self as cg, pipeline::Source, releases::Release, releases::RELEASES,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "\
usage: cuda-driver-table-codegen <command> [options]

commands:
  generate      regenerate the committed bindings and manifests of every pinned release
  check         regenerate in memory and fail when anything differs from the committed files
  fetch         download and unpack the header wheels into the cache
  summary       print the number of functions and ABIs per release
  layout        check the committed bindings against the C compiler, release by release: size
                and alignment of every struct, union, enum and typedef of cuda.h, offset and size
                of every field, every enumerator's and macro constant's value
  outputs       list the out-values the records mark (what a traced call reads back after success),
                what cuda.h documents as returned but the rule leaves out, and the counts per release
  cudart DIR    fetch the wheels of the releases the library tests load and link their libcudart
                as DIR/<release>/<file> (DIR/12.9/libcudart.so.12, ...)
  add-release W add the release whose runtime wheel has version W (e.g. 13.6.10): fetch the wheel,
                check its cuda.h, pin it in releases.rs, declare its cuda-XXXXX feature in the
                three crates, then run generate (the files, and the README's table)

options:
  --release R       only this release (12.9 or 12090), for fetch, summary, layout and outputs;
                    may repeat
  --include DIR     add a local toolkit's include folder to generate (with --version)
  --version N       the CUDA version of --include, as 1000*major+10*minor (13060)
  --root DIR        workspace root to write to or check against (default: this workspace); generate
                    writes into any folder, the README's table only where DIR has a README.md
";

struct Args {
    command: String,
    /// The operand of `cudart`.
    operand: Option<PathBuf>,
    releases: Vec<&'static Release>,
    include: Option<PathBuf>,
    version: Option<u32>,
    root: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let command = it.next().ok_or_else(|| USAGE.to_string())?;
    let mut args = Args {
        command,
        operand: None,
        releases: Vec::new(),
        include: None,
        version: None,
        root: cg::workspace_root(),
    };
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n\n{USAGE}"))
        };
        match flag.as_str() {
            "--release" => {
                let v = value()?;
                let known: Vec<String> = RELEASES.iter().map(|r| r.name()).collect();
                args.releases.push(Release::find(&v).ok_or_else(|| {
                    format!(
                        "unknown release {v}; known: {} (or use --include)",
                        known.join(", ")
                    )
                })?);
            }
            "--include" => args.include = Some(PathBuf::from(value()?)),
            "--version" => {
                let v = value()?;
                args.version = Some(
                    v.parse()
                        .map_err(|_| format!("--version takes a number like 13060, not {v}"))?,
                );
            }
            "--root" => args.root = PathBuf::from(value()?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            other if !other.starts_with('-') && args.operand.is_none() => {
                args.operand = Some(PathBuf::from(other))
            }
            other => return Err(format!("unknown option {other}\n\n{USAGE}")),
        }
    }
    Ok(args)
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let selected: Vec<Release> = if args.releases.is_empty() {
        RELEASES.to_vec()
    } else {
        args.releases.iter().map(|r| **r).collect()
    };
    let start = Instant::now();
    match args.command.as_str() {
        "fetch" => {
            for r in &selected {
                let u = cg::fetch::fetch(r)?;
                println!("CUDA {}: {}", r.name(), u.include.display());
            }
        }
        "layout" => {
            let outcomes = cg::layout::check(&args.root, &selected)?;
            let report = cg::layout::report(&outcomes)?;
            print!("{report}");
            eprintln!(
                "layouts of {} release(s) equal the C compiler's ({:.1} s)",
                outcomes.len(),
                start.elapsed().as_secs_f64()
            );
        }
        "cudart" => {
            let dir = args
                .operand
                .ok_or_else(|| format!("cudart needs a folder\n\n{USAGE}"))?;
            for (link, lib) in cg::fetch::link_cudart(&dir)? {
                println!("{} -> {}", link.display(), lib.display());
            }
        }
        "outputs" => {
            let parsed = cg::pipeline::parse_releases(&selected)?;
            print!(
                "{}",
                cg::outputs::listing(
                    &parsed
                        .iter()
                        .map(|r| (r.source.version(), r.bindings.as_str(), &r.manifest))
                        .collect::<Vec<_>>()
                )?
            );
        }
        "summary" => {
            let parsed = cg::pipeline::parse_releases(&selected)?;
            println!("release  functions  ABIs  per-thread");
            for p in &parsed {
                let (functions, abis, per_thread) = cg::add::counts(p);
                println!(
                    "{:>7}  {:>9}  {:>4}  {:>10}",
                    p.source.version(),
                    functions,
                    abis,
                    per_thread
                );
            }
        }
        "generate" | "check" => {
            if !args.releases.is_empty() {
                return Err(format!(
                    "{} covers every release (the bindings and records of all releases share files); drop --release",
                    args.command
                ));
            }
            let mut parsed = cg::pipeline::parse_releases(RELEASES)?;
            match (&args.include, args.version) {
                (Some(include), Some(version)) => {
                    if args.command == "check" {
                        return Err(
                            "check compares the pinned releases; run it without --include".into(),
                        );
                    }
                    if RELEASES.iter().any(|r| r.version == version) {
                        return Err(format!("{version} is pinned in releases.rs already"));
                    }
                    parsed.extend(cg::pipeline::parse_sources(vec![(
                        Source::Local {
                            version,
                            include: include.clone(),
                        },
                        include.clone(),
                    )])?);
                }
                (Some(_), None) => {
                    return Err("--include needs --version (e.g. --version 13060)".into())
                }
                _ => {}
            }
            let files = cg::files(&parsed);
            if args.command == "generate" {
                cg::write(&args.root, &files)?;
                if !cg::write_readme(&args.root, &parsed)? {
                    eprintln!(
                        "{} has no README.md: its table of supported releases is not written",
                        args.root.display()
                    );
                }
                eprintln!(
                    "generated {} files for {} release(s) in {:.1} s",
                    files.len(),
                    parsed.len(),
                    start.elapsed().as_secs_f64()
                );
            } else {
                let problems = cg::check(&args.root, &files, &parsed)?;
                if !problems.is_empty() {
                    return Err(format!(
                        "generated files are out of date:\n  {}\nrun `{}` and commit the result",
                        problems.join("\n  "),
                        cg::emit::REGENERATE
                    ));
                }
                eprintln!(
                    "generated files are up to date ({} files, {} releases, {:.1} s)",
                    files.len(),
                    parsed.len(),
                    start.elapsed().as_secs_f64()
                );
            }
        }
        "add-release" => {
            let wheel = args
                .operand
                .as_ref()
                .and_then(|w| w.to_str())
                .ok_or_else(|| format!("add-release needs a wheel version\n\n{USAGE}"))?;
            cg::add::add_release(&args.root, wheel)?;
        }
        other => return Err(format!("unknown command {other}\n\n{USAGE}")),
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cuda-driver-table-codegen: {e}");
            ExitCode::FAILURE
        }
    }
}
