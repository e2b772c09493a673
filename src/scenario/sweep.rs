//! A family of runs: one scenario key set to each of several values, every
//! (value, variant) run in parallel, one summary row each. Nothing here
//! prints: the command line and the app show the progress and the table.

use super::output::summary;
use super::sweep_table::{metric_names, SweepRow, SweepTable};
use super::{run_variant_until, RunEstimate, Scenario, ScenarioError, Variant};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Scenario text with the dotted `key` (e.g. `factorization.beta`,
/// `variants[1].factorization.beta`, `estimate.scale`) set to `value`, a
/// TOML value (`2.5`, `[1.0, 2.0]`, `"classic"`). Every table on the path
/// must exist.
pub fn with_parameter(
    scenario: &Scenario,
    key: &str,
    value: &str,
) -> Result<String, ScenarioError> {
    let bad = |message: String| ScenarioError::Invalid {
        file: scenario.path.clone(),
        line: 1,
        key: key.to_string(),
        message,
    };
    let mut doc: toml::Table = toml::from_str(&scenario.text).map_err(|e| bad(e.to_string()))?;
    let parsed: toml::Table = toml::from_str(&format!("x = {value}"))
        .map_err(|_| bad(format!("'{value}' is not a TOML value")))?;
    let new = parsed["x"].clone();
    let segments: Vec<&str> = key.split('.').collect();
    let mut table = &mut doc;
    for (depth, seg) in segments.iter().enumerate() {
        let (name, index) = match seg.split_once('[') {
            Some((n, rest)) => (
                n,
                Some(
                    rest.trim_end_matches(']')
                        .parse::<usize>()
                        .map_err(|_| bad(format!("bad index in '{seg}'")))?,
                ),
            ),
            None => (*seg, None),
        };
        let last = depth + 1 == segments.len();
        if last && index.is_none() {
            table.insert(name.to_string(), new);
            return toml::to_string(&doc).map_err(|e| bad(e.to_string()));
        }
        let entry = table
            .get_mut(name)
            .ok_or_else(|| bad(format!("the scenario has no '{name}' here")))?;
        let entry = match index {
            Some(i) => entry
                .as_array_mut()
                .and_then(|a| a.get_mut(i))
                .ok_or_else(|| bad(format!("'{name}' has no element {i}")))?,
            None => entry,
        };
        if last {
            *entry = new;
            return toml::to_string(&doc).map_err(|e| bad(e.to_string()));
        }
        table = entry
            .as_table_mut()
            .ok_or_else(|| bad(format!("'{seg}' is not a table")))?;
    }
    Err(bad("empty key".into()))
}

/// One run of a sweep: a value of the key (its index in the plan's
/// values) and one variant built with it.
#[derive(Clone, Debug)]
pub struct SweepRun {
    pub point: usize,
    pub variant: Variant,
}

/// A sweep ready to run: the scenario with `parameter` set to each of
/// `values`, every variant, built and checked before anything runs.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    pub parameter: String,
    pub values: Vec<String>,
    /// The variants' names, in the scenario's order.
    pub variants: Vec<String>,
    /// Every run, in (value, variant) order.
    pub runs: Vec<SweepRun>,
}

impl SweepPlan {
    /// Builds every run of `scenario` with `key` set to each of `values`.
    pub fn new(scenario: &Scenario, key: &str, values: &[String]) -> Result<Self, ScenarioError> {
        let mut runs = Vec::new();
        let mut variants = Vec::new();
        for (point, value) in values.iter().enumerate() {
            let text = with_parameter(scenario, key, value)?;
            let s = Scenario::parse(&text, &scenario.path)?;
            let built = s.variants()?;
            if point == 0 {
                variants = built.iter().map(|v| v.name.clone()).collect();
            }
            runs.extend(built.into_iter().map(|variant| SweepRun { point, variant }));
        }
        Ok(SweepPlan {
            parameter: key.to_string(),
            values: values.to_vec(),
            variants,
            runs,
        })
    }

    /// The size of the whole sweep on `threads` threads.
    pub fn estimate(&self, threads: usize) -> RunEstimate {
        let variants: Vec<&Variant> = self.runs.iter().map(|r| &r.variant).collect();
        RunEstimate::of_sweep(&variants, threads)
    }

    /// The metrics the runs will report (see [`SweepTable::metric`]):
    /// the numbers of the summaries of one step of each variant at the
    /// first value.
    pub fn metric_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for run in self.runs.iter().filter(|r| r.point == 0) {
            let mut probe = run.variant.clone();
            probe.duration = probe.simulation.dt;
            let result = run_variant_until(probe, &mut |_| {}, &AtomicBool::new(false));
            for name in metric_names(&summary(&result)) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Runs the sweep on `threads` threads; `progress(done, total)` is
    /// called as runs finish (from the worker threads). Setting `stop` ends
    /// the runs under way (their rows say so) and starts no more.
    pub fn run(
        self,
        threads: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
        stop: &AtomicBool,
    ) -> SweepTable {
        let total = self.runs.len();
        let mut queue: Vec<(usize, SweepRun)> = self.runs.into_iter().enumerate().collect();
        queue.reverse();
        let queue = Mutex::new(queue);
        let rows = Mutex::new(Vec::with_capacity(total));
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some((i, SweepRun { point, variant })) =
                        queue.lock().unwrap_or_else(|e| e.into_inner()).pop()
                    else {
                        break;
                    };
                    let result = run_variant_until(variant, &mut |_| {}, stop);
                    let row = SweepRow {
                        point,
                        value: self.values[point].clone(),
                        variant: result.name.clone(),
                        summary: summary(&result),
                    };
                    let mut rows = rows.lock().unwrap_or_else(|e| e.into_inner());
                    rows.push((i, row));
                    progress(rows.len(), total);
                });
            }
        });
        let mut rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
        rows.sort_by_key(|(i, _)| *i);
        SweepTable {
            parameter: self.parameter,
            values: self.values,
            variants: self.variants,
            rows: rows.into_iter().map(|(_, r)| r).collect(),
            runs_total: total,
        }
    }
}
