//! How big a run is before it starts: integration steps, recorded samples,
//! the memory they take and an estimated wall time (from timing the first
//! steps), and the ceiling beyond which a run needs an explicit request
//! (`--allow-long` on the command line; the app never goes beyond it).

use crate::scenario::{Scenario, ScenarioError, Variant};
use crate::sim::{Sample, Simulation};
use std::time::{Duration, Instant};

/// Integration steps (all variants, or all runs of a sweep, together) a
/// run may take without `--allow-long`: minutes on the own plant, hours on
/// the rapier plant (a few µs and ~150 µs per step).
pub const MAX_STEPS: f64 = 1e8;
/// Memory the recordings may need without `--allow-long`, bytes (2 GiB).
pub const MAX_MEMORY_BYTES: f64 = 2.0 * 1024.0 * 1024.0 * 1024.0;
/// Steps of one variant beyond which no run is possible, even when asked:
/// past 2^53 the step counter and the simulated time stop being exact.
pub const HARD_MAX_STEPS: f64 = 9_007_199_254_740_992.0;

/// Steps run before timing (they pay for cold caches).
const WARM_UP_STEPS: usize = 20;
/// Steps timed per variant to estimate the wall time, at most.
const TIMED_STEPS: usize = 200;
/// Wall time spent timing steps, at most, over all variants.
const TIMING_BUDGET: Duration = Duration::from_millis(100);
/// Bytes of CSV text per recorded number (digits, sign, exponent, comma).
const CSV_BYTES_PER_NUMBER: f64 = 22.0;

/// The size of a run, before it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunEstimate {
    /// Variants (or sweep runs).
    pub runs: usize,
    /// Integration steps of all runs together.
    pub steps: f64,
    /// The most steps one run takes.
    pub max_run_steps: f64,
    /// That run's duration, step and record period, seconds.
    pub longest: [f64; 3],
    /// Samples recorded, all runs together.
    pub samples: f64,
    /// Memory the recordings need at once (with the CSV text being
    /// written), bytes.
    pub memory_bytes: f64,
    /// Size of the CSV files, bytes (none for a sweep).
    pub csv_bytes: f64,
    /// Estimated wall-clock time, seconds.
    pub seconds: f64,
    /// Mean measured cost of one step (with its share of recording), seconds.
    pub seconds_per_step: f64,
}

/// One variant's size and measured cost: a few numbers, so that a sweep
/// can keep one per run without keeping the run's models.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSize {
    steps: f64,
    samples: f64,
    sample_bytes: f64,
    csv_bytes: f64,
    /// Measured cost of one step and of one sample, seconds.
    step_cost: f64,
    sample_cost: f64,
    /// Duration, step and record period, seconds.
    periods: [f64; 3],
}

impl RunSize {
    /// Measures `variant` as one of `runs` runs sized together (they share
    /// the timing budget): see `RunSize::of`.
    pub fn measure(variant: &Variant, runs: usize) -> RunSize {
        RunSize::of(
            variant,
            TIMING_BUDGET / runs.clamp(1, u32::MAX as usize) as u32,
        )
    }

    /// `variant`'s steps and samples, with the step and sample costs
    /// measured on `timed` (a run of the same variant at another point of
    /// a sweep): a sweep of many points times a few of them, since the
    /// timing steps of every run cost nearly as much as short runs.
    pub fn with_costs_of(variant: &Variant, timed: &RunSize) -> RunSize {
        let mut sim = variant.simulation.clone();
        RunSize {
            step_cost: timed.step_cost,
            sample_cost: timed.sample_cost,
            ..RunSize::count(variant, &mut sim)
        }
    }

    /// Counts `variant`'s steps and samples, and times up to
    /// [`TIMED_STEPS`] of its steps (on a copy) within `budget`.
    fn of(variant: &Variant, budget: Duration) -> RunSize {
        let mut sim = variant.simulation.clone();
        let counted = RunSize::count(variant, &mut sim);
        // The first steps pay for cold caches: time the ones after them.
        let mut healthy = (0..WARM_UP_STEPS).all(|_| sim.step().is_ok());
        let start = Instant::now();
        let mut timed = 0usize;
        while healthy && timed < TIMED_STEPS && (timed == 0 || start.elapsed() < budget) {
            timed += 1;
            healthy = sim.step().is_ok();
        }
        let step_cost = start.elapsed().as_secs_f64() / timed.max(1) as f64;
        let start = Instant::now();
        sim.sample();
        RunSize {
            step_cost,
            sample_cost: start.elapsed().as_secs_f64(),
            ..counted
        }
    }

    /// `variant`'s steps, samples and their bytes, without costs (`sim`
    /// is a copy of its simulation, left at its initial state).
    fn count(variant: &Variant, sim: &mut Simulation) -> RunSize {
        let steps = variant.steps();
        // (duration / record_period when both counts overflow to infinity)
        let samples = (1.0 + (steps / variant.record_every()).ceil())
            .max(1.0 + (variant.duration / variant.record_period).ceil());
        let sample = sim.sample();
        let heap_numbers = sample.q.len()
            + sample.q_desired.len()
            + sample.v.len()
            + sample.tau.len()
            + sample.parameters.len();
        let sample_bytes = (std::mem::size_of::<Sample>() + 8 * heap_numbers) as f64;
        // t, the vectors, 8 scalars, and 26 task columns with a task.
        let row_numbers = 1 + heap_numbers + 8 + sample.task.as_ref().map_or(0, |_| 26);
        RunSize {
            steps,
            samples,
            sample_bytes,
            csv_bytes: samples * row_numbers as f64 * CSV_BYTES_PER_NUMBER,
            step_cost: 0.0,
            sample_cost: 0.0,
            periods: [
                variant.duration,
                variant.simulation.dt,
                variant.record_period,
            ],
        }
    }

    /// The estimated wall time of the run, seconds.
    fn seconds(&self) -> f64 {
        self.steps * self.step_cost + self.samples * self.sample_cost
    }
}

impl RunEstimate {
    /// The variants of one `run`, one after the other; every recording is
    /// kept until the results are written.
    pub fn of_run(variants: &[Variant]) -> RunEstimate {
        let sizes: Vec<RunSize> = variants
            .iter()
            .map(|v| RunSize::measure(v, variants.len()))
            .collect();
        RunEstimate::combine(&sizes, 1, true)
    }

    /// The runs of a sweep (each measured by [`RunSize::measure`]) on
    /// `threads` threads; each recording is kept only until its summary is
    /// made.
    pub fn of_sweep(runs: &[RunSize], threads: usize) -> RunEstimate {
        RunEstimate::combine(runs, threads.clamp(1, runs.len().max(1)), false)
    }

    fn combine(sizes: &[RunSize], threads: usize, keep_all: bool) -> RunEstimate {
        // From +0: the sum of no runs (an empty shard) was -0, printed
        // "-0 integration steps".
        let sum = |f: &dyn Fn(&RunSize) -> f64| sizes.iter().map(f).fold(0.0, |a, x| a + x);
        let max = |f: &dyn Fn(&RunSize) -> f64| sizes.iter().map(f).fold(0.0, f64::max);
        let recording = |s: &RunSize| s.samples * s.sample_bytes;
        let memory = if keep_all {
            sum(&recording) + max(&|s| s.csv_bytes)
        } else {
            threads as f64 * max(&recording)
        };
        let steps = sum(&|s| s.steps);
        let longest = sizes
            .iter()
            .max_by(|a, b| a.steps.total_cmp(&b.steps))
            .map_or([0.0; 3], |s| s.periods);
        let seconds = sum(&RunSize::seconds) / threads as f64;
        RunEstimate {
            runs: sizes.len(),
            steps,
            max_run_steps: max(&|s| s.steps),
            longest,
            samples: sum(&|s| s.samples),
            memory_bytes: memory,
            csv_bytes: if keep_all { sum(&|s| s.csv_bytes) } else { 0.0 },
            seconds,
            seconds_per_step: seconds * threads as f64 / steps.max(1.0),
        }
    }

    /// Whether the run stays within [`MAX_STEPS`] and [`MAX_MEMORY_BYTES`].
    pub fn within_ceiling(&self) -> bool {
        self.steps <= MAX_STEPS && self.memory_bytes <= MAX_MEMORY_BYTES
    }

    /// "N integration steps over R runs, S samples (M in memory, C of
    /// CSV), about T (P per step measured)".
    pub fn describe(&self) -> String {
        let csv = if self.csv_bytes > 0.0 {
            format!(", {} of CSV", bytes(self.csv_bytes))
        } else {
            String::new()
        };
        format!(
            "{} integration steps over {} run{}, {} samples ({} in memory{csv}), about {} ({} per step measured)",
            count(self.steps),
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            count(self.samples),
            bytes(self.memory_bytes),
            format_duration(self.seconds),
            format_duration(self.seconds_per_step),
        )
    }
}

impl Scenario {
    /// Refuses a run beyond the ceiling ([`MAX_STEPS`] integration steps,
    /// [`MAX_MEMORY_BYTES`] of recording) unless `allow_long`, and any run
    /// whose step count cannot be represented ([`HARD_MAX_STEPS`]). The
    /// message says how many steps, how much memory, how long, and the flag.
    pub fn check_run_size(
        &self,
        estimate: &RunEstimate,
        allow_long: bool,
    ) -> Result<(), ScenarioError> {
        let [duration, step, record_period] = estimate.longest.map(number);
        if estimate.max_run_steps.is_nan() || estimate.max_run_steps > HARD_MAX_STEPS {
            return Err(self.invalid(
                "simulation",
                format!(
                    "duration {} s / step {} s = {} integration steps: more than a run can count (2^53); enlarge simulation.step or shorten simulation.duration",
                    duration, step, count(estimate.max_run_steps)
                ),
            ));
        }
        if allow_long || estimate.within_ceiling() {
            return Ok(());
        }
        // Name the ceiling passed (both said, when only the memory was
        // beyond, read as if the steps were too).
        // By how much, when the rounded numbers read alike ("needs 1.00e8
        // ... beyond the ceiling of 1.00e8").
        let by = |x: f64, limit: f64, shown: &dyn Fn(f64) -> String, unit: &str| {
            if shown(x) == shown(limit) {
                format!(" (by {:.0} {unit})", x - limit)
            } else {
                String::new()
            }
        };
        let steps = format!(
            "{} integration steps{}",
            count(MAX_STEPS),
            by(estimate.steps, MAX_STEPS, &count, "steps")
        );
        let memory = format!(
            "{} of memory{}",
            bytes(MAX_MEMORY_BYTES),
            by(estimate.memory_bytes, MAX_MEMORY_BYTES, &bytes, "bytes")
        );
        let beyond = match (
            estimate.steps > MAX_STEPS,
            estimate.memory_bytes > MAX_MEMORY_BYTES,
        ) {
            (true, true) => format!("the ceilings of {steps} and {memory}"),
            (true, false) => format!("the ceiling of {steps}"),
            _ => format!("the ceiling of {memory}"),
        };
        Err(self.invalid(
            "simulation",
            format!(
                "the run needs {} (longest run: duration {duration} s, step {step} s, record_period {record_period} s): beyond {beyond}; shorten simulation.duration, enlarge simulation.step or simulation.record_period, or run it anyway with --allow-long (`run`, `sweep` and `bench --scenario` take it)",
                estimate.describe(),
            ),
        ))
    }
}

/// A count: exact below a million, else in scientific notation.
fn count(x: f64) -> String {
    if x < 1e6 {
        format!("{x:.0}")
    } else {
        format!("{x:.2e}")
    }
}

/// A scenario value as short as it reads in the file.
fn number(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Bytes in binary units.
fn bytes(x: f64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if !x.is_finite() {
        return "unbounded memory".into();
    }
    let (mut value, mut unit) = (x, 0);
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value >= 1e6 {
        format!("{value:.2e} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A duration in the largest fitting unit.
pub fn format_duration(seconds: f64) -> String {
    const UNITS: [(f64, &str); 6] = [
        (365.25 * 86400.0, "years"),
        (86400.0, "days"),
        (3600.0, "h"),
        (60.0, "min"),
        (1.0, "s"),
        (1e-3, "ms"),
    ];
    if !seconds.is_finite() {
        return "forever".into();
    }
    if seconds <= 0.0 {
        return "0 s".into();
    }
    if seconds < 1e-3 {
        return format!("{:.1} µs", seconds * 1e6);
    }
    let (unit, name) = UNITS
        .iter()
        .find(|(u, _)| seconds >= *u)
        .copied()
        .unwrap_or((1e-3, "ms"));
    let value = seconds / unit;
    if value >= 1e6 {
        format!("{value:.2e} {name}")
    } else {
        format!("{value:.1} {name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty shard's start line reads 0, not -0.
    #[test]
    fn no_runs_are_zero_steps_not_minus_zero() {
        let d = RunEstimate::of_sweep(&[], 2).describe();
        assert!(
            d.starts_with("0 integration steps over 0 runs, 0 samples"),
            "{d}"
        );
        assert!(!d.contains("-0"), "{d}");
    }

    /// No time left reads "0 s" (the last progress line said "0.0 µs").
    #[test]
    fn durations_keep_a_unit_that_fits() {
        assert_eq!(format_duration(0.0), "0 s");
        assert_eq!(format_duration(2.5e-4), "250.0 µs");
        assert_eq!(format_duration(90.0), "1.5 min");
        assert_eq!(format_duration(f64::INFINITY), "forever");
    }

    /// The refusal names the ceiling the run passes: both were named when
    /// only the memory was beyond, which read as if the steps were too.
    #[test]
    fn the_refusal_names_the_ceiling_passed() {
        let text = "name = \"t\"\n[robot]\nbuiltin = \"point_mass\"\n[controller]\nkind = \"pd_plus\"\nkp = 1.0\nkd = 1.0\n[reference]\nkind = \"hold\"\nq = [0.0, 0.0, 0.0]\n";
        let scenario = Scenario::parse(text, "t.toml").unwrap();
        let estimate = |steps: f64, memory_bytes: f64| RunEstimate {
            runs: 1,
            steps,
            max_run_steps: steps,
            longest: [10.0, 1e-3, 1e-2],
            samples: 1e3,
            memory_bytes,
            csv_bytes: 0.0,
            seconds: 1.0,
            seconds_per_step: 1e-6,
        };
        let refusal = |steps, memory| {
            scenario
                .check_run_size(&estimate(steps, memory), false)
                .unwrap_err()
                .to_string()
        };
        let memory = refusal(1e4, 3.0 * MAX_MEMORY_BYTES);
        assert!(
            memory.contains("beyond the ceiling of 2.0 GiB of memory;"),
            "{memory}"
        );
        let steps = refusal(2.0 * MAX_STEPS, 1e3);
        assert!(
            steps.contains("beyond the ceiling of 1.00e8 integration steps;"),
            "{steps}"
        );
        let just = refusal(MAX_STEPS + 20_000.0, 1e3);
        assert!(
            just.contains("beyond the ceiling of 1.00e8 integration steps (by 20000 steps);"),
            "{just}"
        );
        let both = refusal(2.0 * MAX_STEPS, 3.0 * MAX_MEMORY_BYTES);
        assert!(
            both.contains("beyond the ceilings of 1.00e8 integration steps and 2.0 GiB of memory;"),
            "{both}"
        );
        assert!(scenario.check_run_size(&estimate(1e4, 1e3), false).is_ok());
        assert!(scenario
            .check_run_size(&estimate(2.0 * MAX_STEPS, 1e3), true)
            .is_ok());
    }
}
