//! `passivity-lab bench --scenario FILE`: microseconds per integration step
//! of each variant of a scenario, stepping only (no recording, no outputs),
//! best of several runs from the initial state, for side-by-side ratios
//! with ../shared/bench/mujoco-bench.sh (which times `mujoco.rollout`).

use super::load_scenario;
use std::path::Path;
use std::time::Instant;

/// Times every variant of `path` `repeats` times and prints one line (or
/// JSON line) per variant.
pub fn run(path: &Path, repeats: usize, json: bool) -> anyhow::Result<()> {
    anyhow::ensure!(repeats >= 1, "--repeats must be at least 1");
    let scenario = load_scenario(Some(path), false)?;
    for variant in scenario.variants()? {
        let steps = variant.steps().round() as usize;
        let mut best = f64::INFINITY;
        let mut stopped = None;
        for _ in 0..repeats {
            let mut sim = variant.simulation.clone();
            let start = Instant::now();
            for _ in 0..steps {
                if let Err(d) = sim.step() {
                    stopped = Some(d);
                    break;
                }
            }
            best = best.min(start.elapsed().as_secs_f64() / steps.max(1) as f64);
        }
        if let Some(d) = stopped {
            anyhow::bail!("{}: variant {}: {d}", path.display(), variant.name);
        }
        let us = best * 1e6;
        let rtf = variant.simulation.dt / best;
        let plant = &scenario.file.simulation.plant;
        if json {
            println!(
                "{}",
                serde_json::json!({"scenario": scenario.file.name, "variant": variant.name,
                    "plant": plant, "dt": variant.simulation.dt, "steps": steps,
                    "us_per_step": us, "rtf": rtf})
            );
        } else {
            println!(
                "{} {} ({plant}): {us:.2} us/step, {rtf:.1}x real time",
                scenario.file.name, variant.name
            );
        }
    }
    Ok(())
}
