//! `passivity-lab bench --scenario FILE`: microseconds per integration step
//! of each variant of a scenario, stepping only (no recording, no outputs),
//! best of several runs from the initial state, for side-by-side ratios
//! with ../shared/bench/mujoco-bench.sh (which times `mujoco.rollout`).
//!
//! With `--breakdown`, also the step with recording at the record period
//! (the runner's loop, as `run` uses it) and the algorithms a step must
//! call, on the variant's own models: ABA once per integrator stage, and
//! the Slotine-Li torque H a_r + C v_r + g and Y^T s (adaptive) once per
//! controller evaluation. The overhead is step / that sum - 1.
//!
//! Every variant also reports its controller's cost per evaluation
//! (`controller_us`: `Controller::compute` on the estimated model, a
//! balance or stance law's wrench distribution included), timed over 64
//! states the variant passes through (evenly spaced over its run, visited in
//! turn, so each call starts from the previous state's warm start) beside
//! the step it is part of.

use super::bench::{time_us, Calls};
use super::load_scenario;
use super::terminal::outln;
use passivity_lab::algorithms::aba;
use passivity_lab::control::{ControlLaw, SlotineLi};
use passivity_lab::scenario::{run_variant, RunEstimate, Variant};
use passivity_lab::sim::{ControlMode, Integrator, Simulation};
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

/// Seconds one repetition of a component's timing lasts.
const COMPONENT_BUDGET: f64 = 0.02;

/// What one step of a variant costs in algorithm calls (us), and the calls.
struct Components {
    aba_us: f64,
    /// What the law calls: the Slotine-Li torque, with Y^T s from the same
    /// pass when adaptive.
    controller_algorithm: &'static str,
    controller_algorithm_us: f64,
    stages: f64,
    controller_calls: f64,
}

impl Components {
    fn sum(&self) -> f64 {
        self.stages * self.aba_us + self.controller_calls * self.controller_algorithm_us
    }
}

/// Times the algorithms a step of `sim` calls (Slotine-Li laws only).
fn components(sim: &Simulation, name: &str) -> anyhow::Result<Components> {
    let ControlLaw::SlotineLi(SlotineLi { adaptation, .. }) = &sim.controller.law else {
        anyhow::bail!(
            "--breakdown: variant {name}: counts the joint-space Slotine-Li law's algorithms only"
        );
    };
    anyhow::ensure!(
        !sim.has_contact_plant(),
        "--breakdown: variant {name}: the own plant (ABA) only"
    );
    let (plant, estimate) = (&sim.plant, &sim.estimate);
    let f = &sim.controller.factorization;
    let nv = plant.nv;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let mut vector = || -> Vec<f64> { (0..nv).map(|_| rng.random_range(-1.0..1.0)).collect() };
    let (v, v_r, a_r, s, tau) = (vector(), vector(), vector(), vector(), vector());
    let q = &sim.q;
    let mut ws = passivity_lab::algorithms::Workspace::new(plant);
    let aba_us = time_us(Calls::Budget(COMPONENT_BUDGET), |_| {
        black_box(aba(plant, &mut ws, q, &v, &tau));
    });
    let mut ws = passivity_lab::algorithms::Workspace::new(estimate);
    let mut regressor_s = vec![0.0; 10 * estimate.nbodies()];
    let (controller_algorithm, controller_algorithm_us) = if adaptation.is_some() {
        let us = time_us(Calls::Budget(COMPONENT_BUDGET), |_| {
            black_box(f.slotine_li_torque_and_regressor_transpose(
                estimate,
                &mut ws,
                q,
                &v,
                &v_r,
                &a_r,
                &s,
                &mut regressor_s,
            ));
        });
        ("slotine_li_torque_and_regressor", us)
    } else {
        let us = time_us(Calls::Budget(COMPONENT_BUDGET), |_| {
            black_box(f.slotine_li_torque(estimate, &mut ws, q, &v, &v_r, &a_r));
        });
        ("slotine_li_torque", us)
    };
    let stages = match sim.integrator {
        Integrator::Rk4 => 4.0,
        Integrator::SemiImplicitEuler => 1.0,
    };
    let controller_calls = match sim.control {
        ControlMode::Continuous => stages,
        ControlMode::Sampled { period } => sim.dt / period,
    };
    Ok(Components {
        aba_us,
        controller_algorithm,
        controller_algorithm_us,
        stages,
        controller_calls,
    })
}

/// Microseconds per `Controller::compute` of `variant`'s controller over
/// 64 states of its run (see the module documentation).
fn controller_us(variant: &Variant, steps: usize) -> anyhow::Result<f64> {
    let mut sim = variant.simulation.clone();
    let every = (steps / STATES).max(1);
    let mut states = Vec::with_capacity(STATES);
    for k in 0..steps {
        if k % every == 0 && states.len() < STATES {
            states.push((sim.t, sim.q.clone(), sim.v.clone()));
        }
        sim.step()
            .map_err(|d| anyhow::anyhow!("variant {}: {d}", variant.name))?;
    }
    let mut controller = sim.controller.clone();
    let estimate = &sim.estimate;
    Ok(time_us(Calls::Budget(COMPONENT_BUDGET), |i| {
        let (t, q, v) = &states[i % states.len()];
        controller.compute(*t, estimate, q, v);
        black_box(&controller.tau);
    }))
}

/// States `controller_us` times the controller over.
const STATES: usize = 64;

/// Best seconds per step of the runner's loop (recording at the record
/// period) over `repeats` runs.
fn recorded_step(variant: &Variant, repeats: usize) -> f64 {
    (0..repeats)
        .map(|_| {
            let result = run_variant(variant.clone(), &mut |_| {});
            result.wall_time / variant.steps()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Times every variant of `path` `repeats` times and prints one line (or
/// JSON line) per variant; with `breakdown`, the overhead over the
/// algorithms a step calls as well. Refused beyond the ceiling of `run`
/// (all repeats counted) unless `allow_long`.
pub fn run(
    path: &Path,
    repeats: usize,
    json: bool,
    breakdown: bool,
    allow_long: bool,
) -> anyhow::Result<()> {
    anyhow::ensure!(repeats >= 1, "--repeats must be at least 1");
    let scenario = load_scenario(Some(path), false)?;
    let variants = scenario.variants()?;
    // Every variant is stepped `repeats` times: sized as that many runs,
    // under the ceiling of `run` (a duration of 1e9 s stepped without end
    // and without a word).
    let mut estimate = RunEstimate::of_run(&variants);
    estimate.runs *= repeats;
    estimate.steps *= repeats as f64;
    estimate.seconds *= repeats as f64;
    scenario.check_run_size(&estimate, allow_long)?;
    for variant in variants {
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
        let plant = scenario.file.simulation.plant.name();
        let controller = controller_us(&variant, steps)?;
        let mut line = serde_json::json!({"scenario": scenario.file.name, "variant": variant.name,
            "plant": plant, "dt": variant.simulation.dt, "steps": steps,
            "us_per_step": us, "rtf": rtf, "controller_us": controller});
        let mut text = format!(
            "{} {} ({plant}): {us:.2} us/step, {rtf:.1}x real time; controller {controller:.2} us/evaluation",
            scenario.file.name, variant.name
        );
        if breakdown {
            let c = components(&variant.simulation, &variant.name)?;
            let recorded = recorded_step(&variant, repeats) * 1e6;
            let sum = c.sum();
            line["recorded_us_per_step"] = recorded.into();
            line["aba_us"] = c.aba_us.into();
            line["controller_algorithm"] = c.controller_algorithm.into();
            line["controller_algorithm_us"] = c.controller_algorithm_us.into();
            line["aba_calls"] = c.stages.into();
            line["controller_calls"] = c.controller_calls.into();
            line["algorithms_us_per_step"] = sum.into();
            line["overhead"] = (us / sum - 1.0).into();
            line["overhead_recorded"] = (recorded / sum - 1.0).into();
            text += &format!(
                "\n  with recording every {} s: {recorded:.2} us/step\n  algorithms: {} x aba {:.3} + {} x {} {:.3} = {sum:.3} us\n  overhead: {:.1} % stepping, {:.1} % with recording",
                variant.record_period,
                c.stages,
                c.aba_us,
                c.controller_calls,
                c.controller_algorithm,
                c.controller_algorithm_us,
                100.0 * (us / sum - 1.0),
                100.0 * (recorded / sum - 1.0),
            );
        }
        if json {
            outln!("{line}")?;
        } else {
            outln!("{text}")?;
        }
    }
    Ok(())
}
