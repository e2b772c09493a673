//! Results on disk: `<variant>.csv` per variant, `summary.json`,
//! `scenario.resolved.toml` (every default written out) and the plots (PNG
//! and SVG, `torque_spectrum` among them),
//! written into the staging folder of a [`crate::io::RunFolder`] (which
//! adds the manifest and puts the folder in place as a whole). Each file is
//! written completely or not at all.

use super::spectra::{spectrum_summary, variant_spectra};
use crate::control::TaskSample;
use crate::io::write_atomically;
use crate::plot::{write_plots, write_torque_spectrum};
use crate::scenario::{Scenario, VariantResult};
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;

/// A variant's recorded time series as a table: the columns of
/// `<variant>.csv` (see the README's `run` command) and one row per
/// recorded sample, row-major. The CSV file and the Python package read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub columns: Vec<String>,
    /// `rows x columns.len()` numbers, row-major.
    pub data: Vec<f64>,
}

impl Series {
    /// Number of recorded samples.
    pub fn rows(&self) -> usize {
        self.data.len() / self.columns.len().max(1)
    }
}

/// The recorded series of `result` (empty when nothing was recorded).
pub fn series(result: &VariantResult) -> Series {
    let Some(first) = result.samples.first() else {
        return Series::default();
    };
    let mut columns = vec!["t".to_string()];
    let names = |columns: &mut Vec<String>, prefix: &str, n: usize| {
        columns.extend((0..n).map(|i| format!("{prefix}_{i}")));
    };
    names(&mut columns, "q", first.q.len());
    names(&mut columns, "qd", first.q_desired.len());
    names(&mut columns, "v", first.v.len());
    names(&mut columns, "tau", first.tau.len());
    columns.extend(
        [
            "V",
            "V_kinetic",
            "V_parameter",
            "e_norm",
            "s_norm",
            "skew_residual",
            "contacts",
            "contact_force",
        ]
        .map(String::from),
    );
    names(&mut columns, "pi_hat", first.parameters.len());
    if first.task.is_some() {
        for prefix in ["x", "xd", "ex", "sx"] {
            for c in ["rx", "ry", "rz", "px", "py", "pz"] {
                columns.push(format!("{prefix}_{c}"));
            }
        }
        columns.extend(["manipulability", "sigma_min"].map(String::from));
    }
    if first.energy.is_some() {
        columns.extend(
            [
                "supply",
                "dissipation",
                "mismatch",
                "slack",
                "balance_residual",
            ]
            .map(String::from),
        );
    }
    if !first.pushes.is_empty() {
        columns.extend(["push_fx", "push_fy", "push_fz"].map(String::from));
    }
    if first.constraint_drift.is_some() {
        columns.push("constraint_drift".into());
    }
    let mut data = Vec::with_capacity(columns.len() * result.samples.len());
    let v0 = first.lyapunov.value;
    for s in &result.samples {
        data.push(s.t);
        data.extend(s.q.iter().chain(&s.q_desired).chain(&s.v).chain(&s.tau));
        let l = &s.lyapunov;
        data.extend([
            l.value,
            l.kinetic,
            l.parameter,
            l.e_norm,
            l.s_norm,
            s.skew_residual,
            s.contacts as f64,
            s.contact_force,
        ]);
        data.extend(&s.parameters);
        if let Some(t) = &s.task {
            let x = t.orientation.iter().chain(&t.position);
            let xd = t.desired_orientation.iter().chain(&t.desired_position);
            data.extend(x.chain(xd).chain(&t.error).chain(&t.sliding));
            data.extend([t.manipulability, t.min_singular_value]);
        }
        if let Some(e) = &s.energy {
            let residual = e.residual(s.lyapunov.value - v0);
            data.extend([e.supply, e.dissipation, e.mismatch, e.slack, residual]);
        }
        if !first.pushes.is_empty() {
            let f = s.pushes.iter().fold([0.0; 3], |acc, p| {
                [acc[0] + p.force.x, acc[1] + p.force.y, acc[2] + p.force.z]
            });
            data.extend(f);
        }
        if first.constraint_drift.is_some() {
            data.push(s.constraint_drift.unwrap_or(f64::NAN));
        }
    }
    Series { columns, data }
}

/// `<variant>.csv`: the series with a header line.
fn csv(result: &VariantResult) -> String {
    let series = series(result);
    if series.columns.is_empty() {
        return String::new();
    }
    let mut out = series.columns.join(",");
    out.push('\n');
    for row in series.data.chunks(series.columns.len()) {
        for (i, x) in row.iter().enumerate() {
            let _ = write!(out, "{}{x}", if i == 0 { "" } else { "," });
        }
        out.push('\n');
    }
    out
}

/// The largest of `values` (0 for none), or NaN (null in the JSON) when
/// one is NaN: `f64::max` would pass over it and report the largest of the
/// rest (a run that diverged at its first sample said max_lyapunov 0).
fn largest(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |most, x| {
        if most.is_nan() || x.is_nan() {
            f64::NAN
        } else {
            most.max(x)
        }
    })
}

/// The summary of one variant (metrics over its recorded samples).
pub fn summary(result: &VariantResult) -> serde_json::Value {
    let s = &result.samples;
    let n = s.len().max(1) as f64;
    let last = s.last();
    let fold_max = |f: &dyn Fn(&crate::sim::Sample) -> f64| largest(s.iter().map(f));
    json!({
        "completed": result.divergence.is_none() && !result.interrupted,
        "interrupted": result.interrupted,
        "divergence": result.divergence.as_ref().map(|d| d.to_string()),
        "simulated_time_s": result.simulated_time,
        "samples": s.len(),
        "final_tracking_error": last.map(|x| x.lyapunov.e_norm),
        "rms_tracking_error": (s.iter().map(|x| x.lyapunov.e_norm.powi(2)).sum::<f64>() / n).sqrt(),
        "final_lyapunov": last.map(|x| x.lyapunov.value),
        "max_lyapunov": fold_max(&|x| x.lyapunov.value),
        "max_skew_residual": fold_max(&|x| x.skew_residual),
        "max_abs_q": max_abs_q(s),
        "max_contact_force_n": result.contact.max_force,
        "contact_time_s": result.contact.time_in_contact,
        "task": task_summary(result),
        "passivity": passivity_summary(result),
        "spectrum": spectrum_summary(&variant_spectra(result)),
        "step_stability": step_stability_summary(result),
        "stance": result.stance,
        "closed_chain": result.closed_chain,
        "adaptation": last.and_then(|x| x.parameter_consistency),
        "wall_time_s": result.wall_time,
        "real_time_factor": if result.wall_time > 0.0 { result.simulated_time / result.wall_time } else { f64::INFINITY },
    })
}

/// The closed loop at the initial state against the integrator's step
/// (see `StepStability`); a step no mode limits has null for its largest
/// stable step and margin (JSON has no infinity).
fn step_stability_summary(result: &VariantResult) -> serde_json::Value {
    let Some(s) = &result.step_stability else {
        return serde_json::Value::Null;
    };
    let finite = |x: f64| x.is_finite().then_some(x);
    json!({
        "step_s": s.step,
        "largest_stable_step_s": finite(s.largest_stable_step),
        "margin": finite(s.margin),
        "limiting_rate_per_s": s.limiting_rate,
        "joint": s.joint,
        "gain_factor": s.gain_factor,
    })
}

/// The largest |q_i| over the run, per coordinate (for the point mass,
/// `max_abs_q[2]` is the largest height |z| torsion lifts it to).
fn max_abs_q(samples: &[crate::sim::Sample]) -> Vec<f64> {
    let mut out: Vec<f64> = samples.first().map_or(Vec::new(), |s| vec![0.0; s.q.len()]);
    for s in samples {
        for (m, q) in out.iter_mut().zip(&s.q) {
            *m = m.max(q.abs());
        }
    }
    out
}

/// A task counts as lost when its position error stays above this many
/// metres ([`LOST_TASK_TIME_S`] at least): ten times the errors the
/// shipped task scenarios end with, and half the default
/// `position_error_limit` at which the reference stops asking for more.
pub const LOST_TASK_ERROR_M: f64 = 0.1;

/// How long the error must stay above [`LOST_TASK_ERROR_M`], in seconds.
pub const LOST_TASK_TIME_S: f64 = 0.1;

/// Where a run lost its task.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LostTask {
    /// When the position error last rose above [`LOST_TASK_ERROR_M`] before
    /// staying there for [`LOST_TASK_TIME_S`], s.
    pub since_s: f64,
    /// The largest position error of the run, m.
    pub max_position_error_m: f64,
}

impl std::fmt::Display for LostTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "lost its task: the position error stayed above {LOST_TASK_ERROR_M} m for {LOST_TASK_TIME_S} s from t = {:.3} s (largest {:.3} m); the run did not diverge, but the controller no longer tracks the task",
            self.since_s, self.max_position_error_m
        )
    }
}

/// Whether the run lost its task (see [`LOST_TASK_ERROR_M`]).
pub fn lost_task(result: &VariantResult) -> Option<LostTask> {
    let mut since: Option<f64> = None;
    let mut lost = None;
    let mut max_error = 0.0f64;
    for s in &result.samples {
        let Some(task) = &s.task else { continue };
        let e = task.error[3..].iter().map(|a| a * a).sum::<f64>().sqrt();
        max_error = max_error.max(e);
        if e > LOST_TASK_ERROR_M {
            let start = *since.get_or_insert(s.t);
            if lost.is_none() && s.t - start >= LOST_TASK_TIME_S {
                lost = Some(start);
            }
        } else {
            since = None;
        }
    }
    lost.map(|since_s| LostTask {
        since_s,
        max_position_error_m: max_error,
    })
}

/// Task-space metrics (null without a task): final and RMS position and
/// orientation errors, the smallest manipulability, singular value and
/// singular-value ratio of the task Jacobian, and a warning when the run
/// entered the singular region.
fn task_summary(result: &VariantResult) -> serde_json::Value {
    let tasks: Vec<&TaskSample> = result
        .samples
        .iter()
        .filter_map(|s| s.task.as_ref())
        .collect();
    let Some(last) = tasks.last() else {
        return serde_json::Value::Null;
    };
    let norm3 = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
    let position = |t: &TaskSample| norm3(&t.error[3..]);
    let orientation = |t: &TaskSample| norm3(&t.error[..3]);
    let rms = |f: &dyn Fn(&TaskSample) -> f64| {
        (tasks.iter().map(|t| f(t).powi(2)).sum::<f64>() / tasks.len() as f64).sqrt()
    };
    let min =
        |f: &dyn Fn(&TaskSample) -> f64| tasks.iter().map(|t| f(t)).fold(f64::INFINITY, f64::min);
    let ratio = min(&|t| t.singular_ratio);
    let warning = result.singular_region.filter(|r| ratio < *r).map(|r| {
        let at = tasks
            .iter()
            .zip(result.samples.iter().filter(|s| s.task.is_some()))
            .find(|(t, _)| t.singular_ratio < r)
            .map_or(0.0, |(_, s)| s.t);
        format!(
            "the task Jacobian came close to a singularity (sigma_min / sigma_rms = {ratio:.3e}, below the singular region {r}) first at t = {at:.3} s: the damped inverses acted and the task was not tracked exactly there"
        )
    });
    json!({
        "final_position_error_m": position(last),
        "rms_position_error_m": rms(&position),
        "final_orientation_error_rad": orientation(last),
        "rms_orientation_error_rad": rms(&orientation),
        "min_manipulability": min(&|t| t.manipulability),
        "min_singular_value": min(&|t| t.min_singular_value),
        "min_singular_ratio": ratio,
        "singularity_warning": warning,
        "lost_task": lost_task(result).map(|l| json!({
            "since_s": l.since_s,
            "max_position_error_m": l.max_position_error_m,
            "message": l.to_string(),
        })),
    })
}

/// The energy balance (null for computed torque): V(T) - V(0), the supply,
/// dissipation, mismatch and slack integrals at the end, the largest
/// |residual|, and the largest excess of V(t) over V(0) + supply(t) +
/// mismatch(t) + slack(t) (never above the residual: the dissipation only
/// takes energy out).
fn passivity_summary(result: &VariantResult) -> serde_json::Value {
    let (Some(first), Some(last)) = (result.samples.first(), result.samples.last()) else {
        return serde_json::Value::Null;
    };
    let Some(end) = last.energy else {
        return serde_json::Value::Null;
    };
    let v0 = first.lyapunov.value;
    let mut max_residual = 0.0f64;
    let mut max_excess = f64::NEG_INFINITY;
    for s in &result.samples {
        if let Some(e) = &s.energy {
            max_residual = max_residual.max(e.residual(s.lyapunov.value - v0).abs());
            max_excess = max_excess.max(s.lyapunov.value - v0 - e.supply - e.mismatch - e.slack);
        }
    }
    json!({
        "storage_change_j": last.lyapunov.value - v0,
        "supply_j": end.supply,
        "dissipation_j": end.dissipation,
        "mismatch_j": end.mismatch,
        "slack_j": end.slack,
        "max_abs_balance_residual_j": max_residual,
        "max_storage_above_supply_j": max_excess,
    })
}

/// The variants of `scenario` that have no result.
fn not_run(scenario: &Scenario, results: &[VariantResult]) -> Vec<String> {
    let names: Vec<&str> = if scenario.file.variants.is_empty() {
        vec!["default"]
    } else {
        scenario
            .file
            .variants
            .iter()
            .map(|v| v.name.as_str())
            .collect()
    };
    names
        .into_iter()
        .filter(|n| !results.iter().any(|r| r.name == *n))
        .map(String::from)
        .collect()
}

/// Whether `results` are the whole run of `scenario`: every variant run
/// to its end (or its divergence), none interrupted.
pub fn run_complete(scenario: &Scenario, results: &[VariantResult]) -> bool {
    results.iter().all(|r| !r.interrupted) && not_run(scenario, results).is_empty()
}

/// Writes every output into the folder `dir`; `summary.json` says whether
/// the run is complete, and if not, where it was interrupted and which
/// variants did not run.
pub fn write_results(
    dir: &Path,
    scenario: &Scenario,
    results: &[VariantResult],
) -> std::io::Result<()> {
    for r in results {
        write_atomically(&dir.join(format!("{}.csv", r.name)), csv(r).as_bytes())?;
    }
    let variants: serde_json::Map<String, serde_json::Value> = results
        .iter()
        .map(|r| (r.name.clone(), summary(r)))
        .collect();
    let doc = json!({
        "scenario": scenario.file.name,
        "source": scenario.path,
        "generated_by": format!("passivity-lab {}", env!("CARGO_PKG_VERSION")),
        "complete": run_complete(scenario, results),
        "interrupted": results.iter().find(|r| r.interrupted).map(|r| json!({
            "variant": r.name,
            "time_reached_s": r.simulated_time,
            "duration_s": scenario.file.simulation.duration,
        })),
        "not_run": not_run(scenario, results),
        "warnings": scenario.warnings().iter().map(|w| w.to_string()).collect::<Vec<_>>(),
        "variants": variants,
    });
    write_atomically(
        &dir.join("summary.json"),
        serde_json::to_string_pretty(&doc)
            .unwrap_or_default()
            .as_bytes(),
    )?;
    write_atomically(
        &dir.join("scenario.resolved.toml"),
        scenario.resolved_toml().as_bytes(),
    )?;
    if scenario.file.output.plots {
        write_plots(dir, scenario, results)?;
        let spectra: Vec<_> = results
            .iter()
            .map(|r| (r.name.clone(), variant_spectra(r)))
            .collect();
        write_torque_spectrum(dir, &spectra)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::largest;

    #[test]
    fn largest_passes_a_nan_on_instead_of_over() {
        assert_eq!(largest([1.0, 3.0, 2.0].into_iter()), 3.0);
        assert_eq!(largest(std::iter::empty()), 0.0);
        assert!(largest([f64::NAN].into_iter()).is_nan());
        assert!(largest([1.0, f64::NAN, 2.0].into_iter()).is_nan());
        assert_eq!(largest([f64::INFINITY, 1.0].into_iter()), f64::INFINITY);
    }
}
