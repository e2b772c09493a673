//! `passivity-lab sweep`: a scenario over a grid of keys' values and/or
//! random samples, in parallel on all cores with a progress line and an
//! ETA, one summary table and a plot of metrics against the first key;
//! `--shard K/N` runs one shard of it (joined by `sweep merge`),
//! `--run-index I` one run of it.

use super::interrupt::{self, Interrupted};
use super::sweep_merge;
use super::{load_scenario, output_folder};
use anyhow::Context;
use passivity_lab::scenario::{format_duration, Scenario};
use passivity_lab::sweep::{with_parameters, Selection, SweepPlan, SweepSpec, DEFAULT_METRICS};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<SweepCommand>,
    /// Scenario file (TOML).
    #[arg(required = true)]
    scenario: Option<PathBuf>,
    /// Dotted key to vary (with --values), e.g. factorization.beta,
    /// estimate.scale, variants[1].factorization.beta.
    #[arg(long, requires = "values")]
    param: Option<String>,
    /// Comma-separated values of --param (TOML numbers, booleans or quoted
    /// strings), e.g. --values=0,-2.5,-5
    #[arg(
        long,
        requires = "param",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    values: Vec<String>,
    /// A grid axis KEY=V1,V2,... (repeat for a Cartesian product), e.g.
    /// --grid 'factorization.beta=0,-2,-5' --grid 'controller.kd=5,10'.
    #[arg(long, allow_hyphen_values = true)]
    grid: Vec<String>,
    /// A sampled key: KEY=uniform(LO,HI), KEY=normal(MEAN,SD) or
    /// KEY=loguniform(LO,HI) (repeatable; needs --samples).
    #[arg(long, allow_hyphen_values = true)]
    sample: Vec<String>,
    /// Draws of the sampled keys (per grid point).
    #[arg(long)]
    samples: Option<usize>,
    /// Seed of the samples (each point's own seed is derived from it and
    /// the point's index).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Run only shard K of N (1 <= K <= N): the runs i with i mod N = K-1;
    /// join the shards' folders with `sweep merge`.
    #[arg(long, conflicts_with = "run_index")]
    shard: Option<String>,
    /// Run only run I (the `run` column of sweep.csv) and write its
    /// scenario as scenario.resolved.toml beside its one-row table.
    #[arg(long)]
    run_index: Option<usize>,
    /// Summary metrics to plot against the first key (comma-separated or
    /// repeated), e.g. max_abs_q[2], task.rms_position_error_m; default:
    /// final_tracking_error, rms_tracking_error, max_lyapunov, final_lyapunov.
    #[arg(long, value_delimiter = ',')]
    metric: Vec<String>,
    /// Output folder (default: results/<scenario name>-sweep, with
    /// -shard-K-of-N or -run-I for a part of it).
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

#[derive(clap::Subcommand)]
enum SweepCommand {
    /// Join the tables of a sweep's shards (folders or sweep.json files)
    /// into one, stating which runs are missing.
    Merge(sweep_merge::Args),
}

/// The grid and samples of the command line.
fn spec(args: &Args) -> anyhow::Result<SweepSpec> {
    let mut grid = Vec::new();
    if let Some(key) = &args.param {
        anyhow::ensure!(
            args.values.iter().all(|v| !v.trim().is_empty()),
            "--values for '{key}': a value is empty"
        );
        grid.push(format!("{key}={}", args.values.join(",")));
    }
    grid.extend(args.grid.iter().cloned());
    Ok(SweepSpec::parse(
        &grid,
        &args.sample,
        args.samples,
        args.seed,
    )?)
}

pub fn run(mut args: Args) -> anyhow::Result<()> {
    if let Some(SweepCommand::Merge(merge)) = args.command.take() {
        return sweep_merge::run(merge);
    }
    let Some(path) = args.scenario.clone() else {
        anyhow::bail!("give a scenario file (or `sweep merge`)");
    };
    let selection = match (&args.shard, args.run_index) {
        (Some(shard), _) => Selection::shard(shard)?,
        (None, Some(i)) => Selection::Runs(vec![i]),
        (None, None) => Selection::All,
    };
    let spec = spec(&args)?;
    let scenario = load_scenario(Some(&path), args.strict)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let plan = SweepPlan::build(&scenario, spec)?;
    selection.check(plan.runs.len())?;
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
    let estimate = plan.estimate_of(&selection, threads);
    scenario.check_run_size(&estimate, args.allow_long)?;
    let suffix = match &selection {
        Selection::All => String::new(),
        Selection::Shard { k, n } => format!("-shard-{k}-of-{n}"),
        Selection::Runs(runs) => format!("-run-{}", runs[0]),
    };
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("results").join(format!("{}-sweep{suffix}", scenario.file.name))
    });
    let folder = output_folder(&scenario, &out, args.force)?;
    if let Selection::Runs(runs) = &selection {
        write_run_scenario(&scenario, &plan, runs[0], folder.path())?;
    }
    interrupt::install()?;
    let keys = plan.spec.keys().join(" x ");
    eprintln!(
        "sweeping {} over {keys}: {} of {} runs ({}, plan {}) on {threads} threads: {}",
        scenario.file.name,
        selection.indices(plan.runs.len()).len(),
        plan.runs.len(),
        selection.describe(),
        plan.hash,
        estimate.describe()
    );
    let started = Instant::now();
    let last_line = Mutex::new(started);
    let progress = |done: usize, total: usize| {
        let mut last = last_line.lock().unwrap_or_else(|e| e.into_inner());
        if done < total && last.elapsed() < Duration::from_secs(1) {
            return;
        }
        *last = Instant::now();
        let elapsed = started.elapsed().as_secs_f64();
        if done == total {
            eprintln!("  {done}/{total} runs done in {}", format_duration(elapsed));
            return;
        }
        let eta = elapsed / done.max(1) as f64 * (total - done) as f64;
        eprintln!(
            "  {done}/{total} runs done, {} elapsed, ETA {}",
            format_duration(elapsed),
            format_duration(eta)
        );
    };
    let table = plan.run_selection(selection, threads, &progress, &interrupt::STOP);
    table
        .write(folder.path(), &metrics)
        .with_context(|| format!("{}: cannot write", out.display()))?;
    let complete = table.selection_complete();
    folder.commit(complete)?;
    print!("{}", table.csv(&metrics));
    eprintln!("wrote {}", out.join("sweep.csv").display());
    if !complete {
        return Err(Interrupted(format!(
            "interrupted: {} of {} runs finished; the table in {} is marked incomplete (\"complete\": false)",
            table.finished(),
            table.selection.indices(table.runs_total).len(),
            out.display()
        ))
        .into());
    }
    if !table.complete() {
        eprintln!(
            "{}: {} runs of {} done; join the parts with `passivity-lab sweep merge`",
            table.selection.describe(),
            table.rows.len(),
            table.runs_total
        );
    }
    let failed = table
        .rows
        .iter()
        .filter(|r| r.status() == "diverged")
        .count();
    anyhow::ensure!(
        failed == 0,
        "{failed} of {} runs diverged (rows marked \"diverged\" in sweep.csv)",
        table.rows.len()
    );
    Ok(())
}

/// Writes run `index`'s point scenario, resolved, as
/// `scenario.resolved.toml` into `dir` (`passivity-lab run` runs it).
fn write_run_scenario(
    base: &Scenario,
    plan: &SweepPlan,
    index: usize,
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    let point = &plan.points[plan.runs[index].point];
    let text = with_parameters(base, &plan.spec.keys(), &point.values)?;
    let resolved = Scenario::parse(&text, &base.path)?.resolved_toml();
    let file = dir.join("scenario.resolved.toml");
    passivity_lab::io::write_atomically(&file, resolved.as_bytes())
        .with_context(|| format!("{}: cannot write", file.display()))
}
