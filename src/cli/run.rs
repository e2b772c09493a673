//! `passivity-lab run`: a scenario headless, with per-variant CSV files, a
//! summary, the resolved scenario and plots.

use super::interrupt::{self, Interrupted};
use super::terminal::{note, noteln};
use super::{load_scenario, output_folder};
use anyhow::Context;
use passivity_lab::scenario::{
    format_duration, lost_task, run_complete, run_variant_until, write_results, RunEstimate,
    Variant, VariantResult,
};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args, Default)]
pub struct Args {
    /// Scenario file (TOML); the embedded point-mass torsion experiment if absent.
    scenario: Option<PathBuf>,
    /// Output folder (default: results/<scenario name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run even beyond the ceiling of 1e8 integration steps or 2 GiB of
    /// recorded samples.
    #[arg(long)]
    allow_long: bool,
    /// Replace the output folder even when it holds files that are not an
    /// earlier run's results (they are deleted).
    #[arg(long)]
    force: bool,
    /// Refuse instead of warning: load the robot as with `robot.strict =
    /// true` (a body whose inertia is not physical is refused instead of
    /// corrected), refuse gains the integrator cannot take at its step and
    /// a dragged reference faster than the step.
    #[arg(long)]
    strict: bool,
}

/// Warns about each variant whose closed loop the integrator cannot take at
/// its step (or, `strict`, refuses the run naming them all).
fn check_step_stability(variants: &[Variant], strict: bool) -> anyhow::Result<()> {
    let unstable_loops = variants.iter().filter_map(|v| {
        let s = v.simulation.step_stability()?;
        (!s.is_stable()).then(|| {
            format!(
                "variant {}: {}",
                v.name,
                s.describe(v.simulation.integrator)
            )
        })
    });
    let unstable: Vec<String> = unstable_loops
        .chain(variants.iter().filter_map(too_fast_reference))
        .collect();
    anyhow::ensure!(
        !strict || unstable.is_empty(),
        "{} (refused by --strict; without it the run would start and most likely diverge)",
        unstable.join("; ")
    );
    for line in &unstable {
        noteln!("warning: {line}");
    }
    Ok(())
}

/// A dragged reference whose filter is faster than the step can follow.
fn too_fast_reference(v: &Variant) -> Option<String> {
    let fast = v.simulation.fast_reference()?;
    Some(format!("variant {}: {}", v.name, fast.describe()))
}

/// Runs `variants` one after the other, with a progress line and the
/// time left on a terminal (and a line every 10 % elsewhere when the run is
/// expected to take 10 s or more), until one is interrupted.
fn run_all(variants: Vec<Variant>, estimate: &RunEstimate) -> Vec<VariantResult> {
    let tty = std::io::stderr().is_terminal();
    let long = estimate.seconds >= 10.0;
    let start = Instant::now();
    let (mut done, mut next_line) = (0.0, 0.1);
    let mut results = Vec::new();
    for v in variants {
        let (name, steps) = (v.name.clone(), v.steps());
        let mut progress = |f: f64| {
            let now = (done + f * steps) / estimate.steps.max(1.0);
            let elapsed = start.elapsed().as_secs_f64();
            let left = format_duration(elapsed / now.max(1e-12) * (1.0 - now));
            if tty {
                note!("\r  {name}: {:>3.0}%  {left} left    ", 100.0 * f);
                let _ = std::io::stderr().flush();
            } else if long && now >= next_line {
                noteln!("  {name}: {:.0}% of the run done, {left} left", 100.0 * now);
                next_line += 0.1;
            }
        };
        let r = run_variant_until(v, &mut progress, &interrupt::STOP);
        if tty {
            note!("\r{:60}\r", "");
        }
        done += steps;
        let interrupted = r.interrupted;
        results.push(r);
        if interrupted || interrupt::requested() {
            break;
        }
    }
    results
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let scenario = load_scenario(args.scenario.as_deref(), args.strict)?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(&scenario.file.name));
    let variants = scenario.variants()?;
    let estimate = RunEstimate::of_run(&variants);
    scenario.check_run_size(&estimate, args.allow_long)?;
    check_step_stability(&variants, args.strict)?;
    let folder = output_folder(&scenario, &out, args.force)?;
    interrupt::install()?;
    noteln!(
        "running {} ({}): {}",
        scenario.file.name,
        scenario.path.display(),
        estimate.describe()
    );
    if let Some(c) = variants.first().and_then(|v| v.closed_chain.as_ref()) {
        noteln!("closed chain: {}", c.partition());
    }
    let results = run_all(variants, &estimate);
    interrupt::simulations_over();
    write_results(folder.path(), &scenario, &results)
        .with_context(|| format!("{}: cannot write the results", out.display()))?;
    let complete = run_complete(&scenario, &results);
    let written = folder.commit(complete)?;
    for r in &results {
        let rtf = r.simulated_time / r.wall_time.max(1e-12);
        let last = r.samples.last().map(|s| s.lyapunov);
        noteln!(
            "  {:<24} t = {:>7.3} s  |e| = {:.4e}  V = {:.4e}  {:.0}x real time{}",
            r.name,
            r.simulated_time,
            last.map_or(f64::NAN, |l| l.e_norm),
            last.map_or(f64::NAN, |l| l.value),
            rtf,
            r.divergence
                .as_ref()
                .map_or(String::new(), |d| format!("  STOPPED: {d}"))
        );
        if let Some(lost) = lost_task(r) {
            noteln!("  warning: {}: {lost}", r.name);
        }
        if let Some(slip) = r.stance.as_ref().and_then(|m| m.slip.as_ref()) {
            noteln!("  warning: {}: {slip}", r.name);
        }
        if let Some(c) = &r.closed_chain {
            noteln!(
                "  {:<24} loops: |phi| <= {:.1e} before projection, {:.1e} after ({} Newton steps at most)",
                "",
                c.max_drift_before_projection,
                c.max_drift_after_projection,
                c.max_newton_iterations
            );
        }
    }
    noteln!("wrote {} files to {}", written.len(), out.display());
    if !complete {
        let at = results
            .iter()
            .find(|r| r.interrupted)
            .map_or(String::new(), |r| {
                format!(
                    " at t = {:.3} s of {} s in variant {}",
                    r.simulated_time, scenario.file.simulation.duration, r.name
                )
            });
        return Err(Interrupted(format!(
            "interrupted{at}: what was recorded is in {}, marked incomplete (manifest.json and summary.json: \"complete\": false)",
            out.display()
        ))
        .into());
    }
    let diverged: Vec<String> = results
        .iter()
        .filter_map(|r| r.divergence.as_ref().map(|d| format!("{}: {d}", r.name)))
        .collect();
    anyhow::ensure!(
        diverged.is_empty(),
        "{} (the data up to that point was written)",
        diverged.join("; ")
    );
    Ok(())
}
