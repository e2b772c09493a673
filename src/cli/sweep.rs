//! `passivity-lab sweep`: one scenario key over several values, in parallel
//! on all cores, with one summary table.

use super::interrupt::{self, Interrupted};
use super::{load_scenario, output_folder};
use anyhow::Context;
use passivity_lab::io::write_atomically;
use passivity_lab::scenario::{sweep, sweep_runs, RunEstimate};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Scenario file (TOML).
    scenario: PathBuf,
    /// Dotted key to vary, e.g. factorization.beta, estimate.scale, variants[1].factorization.beta.
    #[arg(long)]
    param: String,
    /// Comma-separated values (TOML numbers, booleans or quoted strings), e.g. --values=0,-2.5,-5
    #[arg(
        long,
        required = true,
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    values: Vec<String>,
    /// Output folder (default: results/<scenario name>-sweep).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run even beyond the ceiling of 1e8 integration steps (all runs
    /// together) or 2 GiB of recorded samples.
    #[arg(long)]
    allow_long: bool,
    /// Replace the output folder even when it holds files that are not an
    /// earlier sweep's results (they are deleted).
    #[arg(long)]
    force: bool,
    /// Load the robot strictly, as with `robot.strict = true`: refuse a body
    /// whose inertia is not physical instead of correcting a negligible error.
    #[arg(long)]
    strict: bool,
}

const COLUMNS: [&str; 9] = [
    "completed",
    "final_tracking_error",
    "rms_tracking_error",
    "max_lyapunov",
    "final_lyapunov",
    "max_skew_residual",
    "wall_time_s",
    "real_time_factor",
    "interrupted",
];

pub fn run(args: Args) -> anyhow::Result<()> {
    let scenario = load_scenario(Some(&args.scenario), args.strict)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let runs = sweep_runs(&scenario, &args.param, &args.values)?;
    let variants: Vec<_> = runs.iter().map(|r| &r.variant).collect();
    let estimate = RunEstimate::of_sweep(&variants, threads);
    scenario.check_run_size(&estimate, args.allow_long)?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(format!("{}-sweep", scenario.file.name)));
    let folder = output_folder(&scenario, &out, args.force)?;
    interrupt::install()?;
    eprintln!(
        "sweeping {} over {} = {:?} on {threads} threads: {}",
        scenario.file.name,
        args.param,
        args.values,
        estimate.describe()
    );
    let progress = |done: usize, total: usize| eprintln!("  {done}/{total} runs done");
    let total = runs.len();
    let rows = sweep(runs, threads, &progress, &interrupt::STOP);
    let finished = rows
        .iter()
        .filter(|r| r.summary["interrupted"] == false)
        .count();
    let complete = finished == total;
    let mut csv = format!("{},variant,{}\n", args.param, COLUMNS.join(","));
    for r in &rows {
        let _ = write!(csv, "{},{}", r.value.replace(',', ";"), r.variant);
        for c in COLUMNS {
            let _ = write!(csv, ",{}", r.summary[c]);
        }
        csv.push('\n');
    }
    let json: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| serde_json::json!({"value": r.value, "variant": r.variant, "summary": r.summary}))
        .collect();
    let doc = serde_json::json!({
        "scenario": scenario.file.name,
        "parameter": args.param,
        "complete": complete,
        "runs_finished": finished,
        "runs_total": total,
        "warnings": scenario.warnings().iter().map(|w| w.to_string()).collect::<Vec<_>>(),
        "runs": json,
    });
    let cannot_write = || format!("{}: cannot write", out.display());
    write_atomically(&folder.path().join("sweep.csv"), csv.as_bytes())
        .with_context(cannot_write)?;
    write_atomically(
        &folder.path().join("sweep.json"),
        serde_json::to_string_pretty(&doc)?.as_bytes(),
    )
    .with_context(cannot_write)?;
    folder.commit(complete)?;
    print!("{csv}");
    eprintln!("wrote {}", out.join("sweep.csv").display());
    if !complete {
        return Err(Interrupted(format!(
            "interrupted: {finished} of {total} runs finished; the table in {} is marked incomplete (\"complete\": false)",
            out.display()
        ))
        .into());
    }
    let failed = rows
        .iter()
        .filter(|r| r.summary["completed"] != serde_json::Value::Bool(true))
        .count();
    anyhow::ensure!(
        failed == 0,
        "{failed} of {} runs diverged (see sweep.csv)",
        rows.len()
    );
    Ok(())
}
