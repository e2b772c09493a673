//! `passivity-lab run`: a scenario headless, with per-variant CSV files, a
//! summary, the resolved scenario and plots.

use anyhow::Context;
use passivity_lab::scenario::{run_variant, write_results, Scenario, VariantResult};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Default)]
pub struct Args {
    /// Scenario file (TOML); the embedded point-mass torsion experiment if absent.
    scenario: Option<PathBuf>,
    /// Output folder (default: results/<scenario name>).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Loads the scenario named on the command line, or the embedded default.
pub fn load(path: Option<&Path>) -> anyhow::Result<Scenario> {
    Ok(match path {
        Some(p) => Scenario::load(p)?,
        None => Scenario::embedded_default()?,
    })
}

/// Runs every variant of `scenario`, one after the other, with a progress
/// line on a terminal.
pub fn run_all(scenario: &Scenario, quiet: bool) -> anyhow::Result<Vec<VariantResult>> {
    let variants = scenario.variants()?;
    let tty = !quiet && std::io::stderr().is_terminal();
    let mut results = Vec::new();
    for v in variants {
        let name = v.name.clone();
        let mut progress = |f: f64| {
            if tty {
                eprint!("\r  {name}: {:>3.0}%", 100.0 * f);
                let _ = std::io::stderr().flush();
            }
        };
        let r = run_variant(v, &mut progress);
        if tty {
            eprint!("\r");
        }
        results.push(r);
    }
    Ok(results)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let scenario = load(args.scenario.as_deref())?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(&scenario.file.name));
    eprintln!(
        "running {} ({})",
        scenario.file.name,
        scenario.path.display()
    );
    let results = run_all(&scenario, false)?;
    let written = write_results(&out, &scenario, &results)
        .with_context(|| format!("{}: cannot write the results", out.display()))?;
    for r in &results {
        let rtf = r.simulated_time / r.wall_time.max(1e-12);
        let last = r.samples.last().map(|s| s.lyapunov);
        eprintln!(
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
    }
    eprintln!("wrote {} files to {}", written.len(), out.display());
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
