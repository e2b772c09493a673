//! `passivity-lab sweep`: one scenario key over several values, in parallel
//! on all cores, with one summary table and a plot of metrics against the
//! value.

use super::interrupt::{self, Interrupted};
use super::{load_scenario, output_folder};
use anyhow::Context;
use passivity_lab::scenario::{SweepPlan, DEFAULT_METRICS};
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
    /// Summary metrics to plot against the value (comma-separated or
    /// repeated), e.g. max_abs_q[2], task.rms_position_error_m; default:
    /// final_tracking_error, rms_tracking_error, max_lyapunov, final_lyapunov.
    #[arg(long, value_delimiter = ',')]
    metric: Vec<String>,
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

pub fn run(args: Args) -> anyhow::Result<()> {
    let scenario = load_scenario(Some(&args.scenario), args.strict)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let plan = SweepPlan::new(&scenario, &args.param, &args.values)?;
    let metrics: Vec<String> = if args.metric.is_empty() {
        DEFAULT_METRICS.iter().map(|m| m.to_string()).collect()
    } else {
        args.metric.clone()
    };
    let known = plan.metric_names();
    let unknown: Vec<&String> = metrics.iter().filter(|m| !known.contains(m)).collect();
    anyhow::ensure!(
        unknown.is_empty(),
        "--metric: {} not among the runs' summary metrics: {}",
        unknown
            .iter()
            .map(|m| format!("'{m}'"))
            .collect::<Vec<_>>()
            .join(", "),
        known.join(", ")
    );
    let estimate = plan.estimate(threads);
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
    let table = plan.run(threads, &progress, &interrupt::STOP);
    table
        .write(folder.path(), &scenario, &metrics)
        .with_context(|| format!("{}: cannot write", out.display()))?;
    let complete = table.complete();
    folder.commit(complete)?;
    print!("{}", table.csv(&metrics));
    eprintln!("wrote {}", out.join("sweep.csv").display());
    if !complete {
        return Err(Interrupted(format!(
            "interrupted: {} of {} runs finished; the table in {} is marked incomplete (\"complete\": false)",
            table.finished(),
            table.runs_total,
            out.display()
        ))
        .into());
    }
    let failed = table
        .rows
        .iter()
        .filter(|r| r.summary["completed"] != serde_json::Value::Bool(true))
        .count();
    anyhow::ensure!(
        failed == 0,
        "{failed} of {} runs diverged (see sweep.csv)",
        table.rows.len()
    );
    Ok(())
}
