//! `passivity-lab sweep`: a scenario over a grid of keys' values and/or
//! random samples, in parallel on all cores with a progress line and an
//! ETA, one summary table and a plot of metrics against the first key;
//! `--shard K/N` runs one shard of it (joined by `sweep merge`),
//! `--run-index I` one run of it. Each row is appended to `rows.jsonl` as
//! its run ends; `--resume` continues a sweep that was stopped or killed.

use super::interrupt::{self, Interrupted};
use super::sweep_merge;
use super::terminal::{noteln, out};
use super::{load_scenario, output_folder_resuming};
use anyhow::Context;
use passivity_lab::io::RunFolder;
use passivity_lab::scenario::{format_duration, Scenario};
use passivity_lab::sweep::{
    read_rows, with_parameters, RowStream, RowStreamError, Selection, SweepPlan, SweepRow,
    SweepSpec, DEFAULT_METRICS, MAX_SWEEP_RUNS, ROW_STREAM,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
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
    /// Continue the sweep that was stopped or killed into the output
    /// folder (same arguments): the runs whose rows it wrote to rows.jsonl
    /// are kept, the others run.
    #[arg(long)]
    resume: bool,
    /// Refuse instead of warning: load the robot strictly, as with
    /// `robot.strict = true` (refuse a body whose inertia is not physical
    /// instead of correcting a negligible error), and refuse runs whose
    /// dragged reference is faster than their step can follow.
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

/// Points from which the sweep says that it is checking them.
const LOUD_PLAN_POINTS: usize = 1000;

/// Refuses, under `--strict`, a sweep with selected runs whose dragged
/// reference is faster than their step can follow. It comes before the
/// output folder is made, so that a refusal writes nothing.
fn refuse_fast_references(plan: &SweepPlan, selection: &Selection) -> anyhow::Result<()> {
    match plan.fast_references_said(selection, &[]) {
        Some(message) => {
            anyhow::bail!("{message} (refused by --strict; without it the sweep would run them)")
        }
        None => Ok(()),
    }
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
    // (Not for a sweep the plan refuses for its size: a saturated count
    // was announced as 18446744073709551615 points to check.)
    if (LOUD_PLAN_POINTS..=MAX_SWEEP_RUNS).contains(&spec.len()) {
        // Checking takes about 0.8 ms per point in a debug build: say so
        // before a silent minute.
        noteln!(
            "checking the sweep's {} points before the first run (each point's scenario is built once)",
            spec.len()
        );
    }
    let plan = SweepPlan::build(&scenario, spec)?;
    selection.check(plan.len())?;
    if args.strict {
        refuse_fast_references(&plan, &selection)?;
    }
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
    let resume = args.resume.then_some(ROW_STREAM);
    let folder = output_folder_resuming(&scenario, &out, args.force, resume)?;
    if let Selection::Runs(runs) = &selection {
        write_run_scenario(&scenario, &plan, runs[0], folder.path())?;
    }
    let stream_path = folder.path().join(ROW_STREAM);
    let previous = if args.resume {
        resumed_rows(&plan, &selection, &folder, &out)?
    } else {
        Vec::new()
    };
    let resumed = previous.len();
    // Warned as `run` warns, for the runs still to run.
    let finished: Vec<usize> = previous.iter().map(|row| row.run).collect();
    if let Some(message) = plan.fast_references_said(&selection, &finished) {
        noteln!("warning: {message}");
    }
    let stream = RowStream::start(&stream_path, &plan.hash, &previous)?;
    interrupt::install()?;
    let keys = plan.spec.keys().join(" x ");
    // A resumed sweep sizes the runs still to run.
    let estimate = plan.estimate_without(&selection, &finished, threads);
    noteln!(
        "sweeping {} over {keys}: {} of {} runs ({}, plan {}) on {threads} threads: {}",
        scenario.file.name,
        selection.indices(plan.len()).len(),
        plan.len(),
        selection.describe(),
        plan.hash,
        estimate.describe()
    );
    if args.resume {
        let sources: Vec<String> = (folder.gathered_files().iter())
            .map(|f| f.display().to_string())
            .collect();
        noteln!(
            "resuming: {resumed} runs already finished{}",
            if sources.is_empty() {
                String::new()
            } else {
                format!(" (rows gathered from {})", sources.join(", "))
            }
        );
    }
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
            noteln!("  {done}/{total} runs done in {}", format_duration(elapsed));
            return;
        }
        let ran = done.saturating_sub(resumed).max(1);
        let eta = elapsed / ran as f64 * (total - done) as f64;
        noteln!(
            "  {done}/{total} runs done, {} elapsed, ETA {}",
            format_duration(elapsed),
            format_duration(eta)
        );
    };
    let stream_error: Mutex<Option<RowStreamError>> = Mutex::new(None);
    let on_row = |row: &SweepRow, done: usize, total: usize| {
        if let Err(e) = stream.append(row) {
            let mut first = stream_error.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(e);
            interrupt::STOP.store(true, Ordering::SeqCst);
        }
        progress(done, total);
    };
    let table = plan.run_selection(selection, previous, threads, &on_row, &interrupt::STOP);
    interrupt::simulations_over();
    drop(stream);
    table
        .write(folder.path(), &metrics)
        .with_context(|| format!("{}: cannot write", out.display()))?;
    // The loader's warnings were reported when the scenario loaded; the
    // rest say which runs could not be built.
    for warning in table.warnings.iter().skip(scenario.warnings().len()) {
        noteln!("warning: {warning}");
    }
    // `run` checks the loop against the step before it starts; a sweep's
    // points each have their own, so it says afterwards which runs were
    // beyond it.
    let beyond: Vec<String> = table
        .rows
        .iter()
        .filter(|r| r.step_margin().is_some_and(|m| m < 1.0))
        .map(|r| r.run.to_string())
        .collect();
    if !beyond.is_empty() {
        noteln!(
            "warning: {} of {} runs started with a closed-loop mode beyond the integrator's stability at their step (step_stability.margin below 1 in sweep.json): runs {}{}",
            beyond.len(),
            table.rows.len(),
            beyond.iter().take(20).cloned().collect::<Vec<_>>().join(", "),
            if beyond.len() > 20 { ", ..." } else { "" }
        );
    }
    let complete = table.selection_complete();
    folder.commit(complete)?;
    if let Some(e) = stream_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        anyhow::bail!("the sweep stopped: cannot append its rows: {e}");
    }
    out!("{}", table.csv(&metrics))?;
    noteln!("wrote {}", out.join("sweep.csv").display());
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
        noteln!(
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

/// The finished rows of `plan`'s runs in `selection` that earlier runs
/// into `out` wrote to their row stream (gathered at `stream`): each
/// checked against the plan; interrupted rows are left out (those runs run
/// again), and a run's first finished row is kept.
fn resumed_rows(
    plan: &SweepPlan,
    selection: &Selection,
    folder: &RunFolder,
    out: &Path,
) -> anyhow::Result<Vec<SweepRow>> {
    let context = || {
        format!(
            "--resume: the rows of {} (and of killed sweeps into it)",
            out.display()
        )
    };
    // A bad line is named in the file it was gathered from (the staging
    // folder's copy of them all is removed when the sweep stops).
    let rows = read_rows(&folder.path().join(ROW_STREAM), &plan.hash)
        .map_err(|e| match e {
            RowStreamError::Line {
                file,
                line,
                message,
            } => {
                let (file, line) = folder
                    .gathered_line(line)
                    .map_or((file, line), |(f, l)| (f.to_path_buf(), l));
                RowStreamError::Line {
                    file,
                    line,
                    message,
                }
            }
            other => other,
        })
        .with_context(context)?;
    let mut selected = vec![false; plan.len()];
    for i in selection.indices(plan.len()) {
        selected[i] = true;
    }
    let mut kept: Vec<SweepRow> = Vec::new();
    let mut held = vec![false; plan.len()];
    for row in rows {
        plan.check_row(&row)
            .map_err(anyhow::Error::msg)
            .with_context(context)?;
        anyhow::ensure!(
            selected[row.run],
            "{}: run {} is not among the runs of {}: resume with the arguments the sweep was started with",
            context(),
            row.run,
            selection.describe()
        );
        if row.finished() && !held[row.run] {
            held[row.run] = true;
            kept.push(row);
        }
    }
    Ok(kept)
}

/// Writes run `index`'s point scenario, resolved, as
/// `scenario.resolved.toml` into `dir` (`passivity-lab run` runs it).
fn write_run_scenario(
    base: &Scenario,
    plan: &SweepPlan,
    index: usize,
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    let point = &plan.points[index / plan.variants.len()];
    let text = with_parameters(base, &plan.spec.keys(), &point.values)?;
    let resolved = Scenario::parse(&text, &base.path)?.resolved_toml();
    let file = dir.join("scenario.resolved.toml");
    passivity_lab::io::write_atomically(&file, resolved.as_bytes())
        .with_context(|| format!("{}: cannot write", file.display()))
}
