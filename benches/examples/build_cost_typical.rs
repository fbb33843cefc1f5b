//! The typical application of the build-cost measurement (row 4T of `BENCHMARKS.md`): a
//! command-line tool on clap (derive), serde (derive) and serde_json, anyhow, thiserror, tracing
//! (an `#[instrument]`ed function) and tracing-subscriber. `bench-build` builds it three times as
//! `src/main.rs` of a throw-away project: (a) as it is, whose `cuda` module does nothing; (b) with
//! the module replaced by the 4-function table program (`build_cost_table.rs`) and a dependency on
//! `runtime/`; (c) with it replaced by the cudarc program (`build_cost_cudarc.rs`) and cudarc.
//! What (b) and (c) build beyond (a) is what the table and cudarc add to such an application. It
//! is an example here only so that the workspace build checks it.

use anyhow::Context;
use clap::Parser;
use serde::{Deserialize, Serialize};

/// A typical command-line tool: reads jobs from JSON, checks them, prints them back.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// A JSON file of jobs (a built-in list without it).
    #[arg(long)]
    input: Option<std::path::PathBuf>,
    /// How many times to check them.
    #[arg(short, long, default_value_t = 1)]
    repeat: u32,
}

#[derive(Serialize, Deserialize, Debug)]
struct Job {
    name: String,
    size: u64,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(thiserror::Error, Debug)]
enum JobError {
    #[error("job {0} is empty")]
    Empty(String),
}

#[tracing::instrument]
fn check(job: &Job) -> Result<u64, JobError> {
    if job.size == 0 {
        return Err(JobError::Empty(job.name.clone()));
    }
    Ok(job.size)
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt::init();
    let args = Args::parse();
    let text = match &args.input {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => r#"[{"name": "a", "size": 1}, {"name": "b", "size": 2, "tags": ["x"]}]"#.to_owned(),
    };
    let jobs: Vec<Job> = serde_json::from_str(&text).context("the jobs are not valid JSON")?;
    for _ in 0..args.repeat {
        for job in &jobs {
            let size = check(job)?;
            tracing::info!(size, "checked {}", job.name);
        }
    }
    println!("{}", serde_json::to_string(&jobs)?);
    cuda::main();
    Ok(())
}

// The CUDA part: nothing in (a); `bench-build` replaces this module for (b) and (c).
mod cuda {
    pub fn main() {}
}
