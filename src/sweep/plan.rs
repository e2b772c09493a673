//! A family of runs: scenario keys set to the points of a [`SweepSpec`]
//! (a grid, random samples, or one key over a list), every (point,
//! variant) one run with one summary row. Nothing here prints: the command
//! line and the app show the progress and the table.
//!
//! Runs are numbered: run `i` is point `i / V`, variant `i % V` (V
//! variants). Each run is independent and its row holds all that rebuilds
//! it: the values of every key, the variant, the point's seed and the
//! [`stable_hash`] of the point's resolved scenario.
//!
//! A plan is built lazily: [`SweepPlan::build`] checks every point (its
//! scenario is built, sized and hashed, then dropped) and keeps per point
//! only its values, seed and hash and per run its [`RunSize`]; a worker
//! builds a run's [`Variant`] when the run starts.
//!
//! The library API for running elsewhere (e.g. one Ray task per run):
//! 1. driver: `SweepSpec::parse(grid, samples, n, seed)` (see
//!    `sweep_grid`), then [`SweepPlan::build`]`(&Scenario::parse(text,
//!    path)?, spec)`: every point checked before anything runs;
//!    `plan.len()` runs, `plan.hash` identifies the plan;
//! 2. anywhere: [`run_one`]`(&scenario, &spec, i, &stop)` builds and runs
//!    run `i` alone and returns its [`SweepRow`]; `row.to_json()` /
//!    `SweepRow::from_json` carry it back;
//! 3. driver: [`SweepPlan::table`]`(rows, Selection::All)` assembles the
//!    table (missing runs stated, never complete with runs missing) and
//!    `table.write(dir, metrics)` writes it.

use super::grid::{SweepPoint, SweepSpec};
use super::shard::Selection;
use super::table::{metric_names, PlanSource, SweepRow, SweepTable};
use crate::scenario::summary;
use crate::scenario::{key_line, stable_hash};
use crate::scenario::{run_variant_until, RunEstimate, RunSize, Scenario, ScenarioError, Variant};
use passivity_sim::FastReference;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Sets the dotted `key` (e.g. `factorization.beta`,
/// `variants[1].factorization.beta`) of `doc` to the TOML `value`. Tables
/// missing on the path are created (a key the schema does not know is
/// then refused by [`Scenario::parse`]); array elements must exist.
fn set_key(doc: &mut toml::Table, key: &str, value: &str) -> Result<(), String> {
    let parsed: toml::Table = toml::from_str(&format!("x = {value}"))
        .map_err(|_| format!("'{value}' is not a TOML value"))?;
    let new = parsed["x"].clone();
    let segments: Vec<&str> = key.split('.').collect();
    let mut table = doc;
    for (depth, seg) in segments.iter().enumerate() {
        let (name, index) = match seg.split_once('[') {
            Some((n, rest)) => (
                n,
                Some(
                    rest.strip_suffix(']')
                        .and_then(|i| i.parse::<usize>().ok())
                        .ok_or_else(|| format!("bad index in '{seg}'"))?,
                ),
            ),
            None => (*seg, None),
        };
        if name.is_empty() {
            return Err(format!("empty segment in '{key}'"));
        }
        let last = depth + 1 == segments.len();
        if last && index.is_none() {
            table.insert(name.to_string(), new);
            return Ok(());
        }
        let entry = match index {
            Some(i) => table
                .get_mut(name)
                .and_then(|e| e.as_array_mut())
                .and_then(|a| a.get_mut(i))
                .ok_or_else(|| format!("the scenario has no '{name}[{i}]'"))?,
            None => table
                .entry(name)
                .or_insert_with(|| toml::Value::Table(toml::Table::new())),
        };
        if last {
            *entry = new;
            return Ok(());
        }
        table = entry
            .as_table_mut()
            .ok_or_else(|| format!("'{seg}' is not a table"))?;
    }
    Err("empty key".into())
}

/// Scenario text with each of `keys` set to the TOML value at the same
/// place in `values` (see `set_key`).
pub fn with_parameters(
    scenario: &Scenario,
    keys: &[String],
    values: &[String],
) -> Result<String, ScenarioError> {
    let bad = |key: &str, message: String| ScenarioError::Invalid {
        file: scenario.path.clone(),
        line: 1,
        key: key.to_string(),
        message,
    };
    let mut doc: toml::Table =
        toml::from_str(scenario.text()).map_err(|e| bad("", e.to_string()))?;
    // A scenario made strict (`--strict`) keeps its file's text.
    if scenario.file.robot.strict {
        set_key(&mut doc, "robot.strict", "true").map_err(|m| bad("robot.strict", m))?;
    }
    for (key, value) in keys.iter().zip(values) {
        set_key(&mut doc, key, value).map_err(|m| bad(key, m))?;
    }
    toml::to_string(&doc).map_err(|e| bad("", e.to_string()))
}

/// The scenario of `point` and its variants (sharing `base`'s hulls and
/// robots, see [`Scenario::parse_point`]); an error names the keys and
/// values set.
pub(super) fn point_scenario(
    base: &Scenario,
    keys: &[String],
    point: &SweepPoint,
) -> Result<(Scenario, Vec<Variant>), ScenarioError> {
    let text = with_parameters(base, keys, &point.values)?;
    base.parse_point(&text).map_err(|e| match e {
        // The line of the rewritten text would mislead: name the keys.
        ScenarioError::Syntax { message, .. } => ScenarioError::Invalid {
            file: base.path.clone(),
            line: 1,
            key: keys
                .iter()
                .zip(&point.values)
                .map(|(k, v)| format!("{k} = {v}"))
                .collect::<Vec<_>>()
                .join(", "),
            message: format!("not accepted by the scenario: {message}"),
        },
        other => other,
    })
}

/// The resolved text of a point's scenario that its hash is taken of:
/// every default written out, paths as the file gives them (so the hash
/// is the same wherever the repository lies), and the hash of the URDF's
/// content (so an edited robot file under the same path changes it; its
/// meshes are not included).
pub(super) fn resolved_text(scenario: &Scenario) -> String {
    let mut text = toml::to_string(&scenario.file).unwrap_or_default();
    if let Some(urdf) = scenario.urdf_path() {
        // The scenario has been built, so the file was read; should it have
        // gone since, the text without it still tells runs apart.
        if let Ok(content) = std::fs::read(&urdf) {
            let content = String::from_utf8_lossy(&content);
            text.push_str(&format!("\n# urdf content {}\n", stable_hash(&content)));
        }
    }
    text
}

/// Most runs (points x variants) a sweep may hold, checked before any
/// point is built. A plan keeps per point only its values, seed and hash
/// and per run its [`RunSize`]; what grows with the runs is the table,
/// every row and its summary kept until `sweep.json` is written (as it is
/// serialized). Measured (peak resident memory, `/usr/bin/time -v`, debug
/// build) on 10,000 sampled point-mass points of two variants (`duration =
/// 0.002`, `plots = false`; 12.7 MB for 10 points): the plan alone
/// (`--run-index 0`) 514 MB (50 kB per point) when every run was built up
/// front, 17.5 MB now (0.5 kB per point); the whole sweep 671 MB before,
/// 141 MB now (6.4 kB per run, nearly all the rows' summaries). 200,000
/// runs then take about 1.3 GB.
pub const MAX_SWEEP_RUNS: usize = 200_000;

/// Points of a sweep whose runs are timed for the estimate, at most
/// (spread evenly over the points); the rest are counted only.
const TIMED_POINTS: usize = 16;

/// A sweep ready to run: every point's scenario checked before anything
/// runs; each run's [`Variant`] is built when the run starts.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    pub spec: SweepSpec,
    pub points: Vec<SweepPoint>,
    /// [`stable_hash`] of each point's resolved scenario.
    pub point_hashes: Vec<String>,
    /// The variants' names, in the scenario's order.
    pub variants: Vec<String>,
    /// [`stable_hash`] of the base scenario and the spec: shards of one
    /// plan carry the same hash.
    pub hash: String,
    /// The base scenario each run's point is built from; its points share
    /// the robots loaded (`Scenario::for_points`), and so do the plan's
    /// clones.
    scenario: Scenario,
    /// The base scenario's resolved text (part of the hash).
    scenario_text: String,
    /// Each run's size, measured when its point was checked.
    sizes: Vec<RunSize>,
    /// The runs whose dragged reference is faster than their step can
    /// follow (run index and what was found), found when their points were
    /// checked.
    fast_references: Vec<(usize, FastReference)>,
    plots: bool,
    warnings: Vec<String>,
}

/// `error` of point `p` said with the point: its index and the values of
/// the keys (a key the error names is then the scenario's, e.g. a value
/// out of range), at the line of the user's file `base_text` that gives the
/// key (or its table), not of the point's text the error was found in.
fn at_point(
    error: ScenarioError,
    base_text: &str,
    p: usize,
    keys: &[String],
    point: &SweepPoint,
) -> ScenarioError {
    match error {
        ScenarioError::Invalid {
            file, key, message, ..
        } => ScenarioError::Invalid {
            file,
            line: key_line(base_text, &key),
            key,
            message: format!(
                "{message} (at point {p} of the sweep: {})",
                keys.iter()
                    .zip(&point.values)
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        other => other,
    }
}

/// Point `point`'s scenario and its variant `v` built from `base`.
fn build_run(
    base: &Scenario,
    keys: &[String],
    p: usize,
    point: &SweepPoint,
    v: usize,
) -> Result<(Scenario, Variant), ScenarioError> {
    let (s, variants) = point_scenario(base, keys, point)?;
    let variant = variants
        .into_iter()
        .nth(v)
        .ok_or_else(|| ScenarioError::Invalid {
            file: base.path.clone(),
            line: 1,
            key: "variants".into(),
            message: format!("point {p} has no variant {v}: a sweep must keep the variants"),
        })?;
    Ok((s, variant))
}

impl SweepPlan {
    /// One key over `values` (the app's and `--param/--values`' form).
    pub fn new(scenario: &Scenario, key: &str, values: &[String]) -> Result<Self, ScenarioError> {
        SweepPlan::build(scenario, SweepSpec::one_key(key, values))
    }

    /// Checks every point of `spec` on `scenario`: each point's scenario
    /// is built, its runs sized and its hash taken, then dropped. Refuses
    /// a spec without points, more than [`MAX_SWEEP_RUNS`] runs (before
    /// building any point), a key the scenario does not have (named), and
    /// any point whose scenario is not valid.
    pub fn build(scenario: &Scenario, spec: SweepSpec) -> Result<Self, ScenarioError> {
        let keys = spec.keys();
        // At the line of the key's table when the file gives it (a key the
        // file leaves out has no line of its own).
        let invalid = |key: &str, message: String| ScenarioError::Invalid {
            file: scenario.path.clone(),
            line: key_line(scenario.text(), key),
            key: key.to_string(),
            message,
        };
        if let Some(axis) = spec.grid.iter().find(|a| a.values.is_empty()) {
            return Err(invalid(&axis.key, "no values to sweep over".into()));
        }
        if keys.is_empty() {
            return Err(invalid("", "nothing to sweep: no key given".into()));
        }
        // Size the plan before checking its points: a million sampled
        // points took minutes to check and their rows more memory than
        // there was.
        let per_point = scenario.file.variants.len().max(1);
        let runs_wanted = spec.len().saturating_mul(per_point);
        if runs_wanted > MAX_SWEEP_RUNS {
            return Err(invalid(
                &keys.join(", "),
                format!(
                    "the sweep has {} points x {per_point} variants = {} runs, more than the {MAX_SWEEP_RUNS} a sweep may hold: every point is checked before the first run starts and every row (about 6 kB with its summary) is kept until the table is written; sweep fewer points, or split the sweep into separate ones",
                    counted(spec.len()),
                    counted(runs_wanted),
                ),
            ));
        }
        let points = spec.points();
        let base = scenario.for_points();
        // Each key alone first, so an unknown key is named on its own.
        for (k, key) in keys.iter().enumerate() {
            let unknown = |message: String| {
                let message = message
                    .strip_prefix(&format!("{key}: "))
                    .unwrap_or(&message);
                invalid(key, format!("not a key this scenario can set: {message}"))
            };
            let value = std::slice::from_ref(&points[0].values[k]);
            let text = with_parameters(scenario, std::slice::from_ref(key), value).map_err(
                |e| match e {
                    ScenarioError::Invalid { message, .. } => unknown(message),
                    other => other,
                },
            )?;
            if let Err(ScenarioError::Syntax { message, .. }) = base.parse_point(&text) {
                return Err(unknown(message));
            }
        }
        // Timing a run costs at least 21 of its steps; with thousands of
        // points that was as much as running them (a fuzzed sweep of
        // 60,003 short points spent minutes, silent, before its first run).
        let stride = points.len().div_ceil(TIMED_POINTS).max(1);
        let timed_runs = points.len().div_ceil(stride) * per_point;
        let mut sizes = Vec::with_capacity(runs_wanted);
        let mut point_hashes = Vec::with_capacity(points.len());
        let mut variants = Vec::new();
        let mut fast_references = Vec::new();
        for (p, point) in points.iter().enumerate() {
            let at_point = |e| at_point(e, base.text(), p, &keys, point);
            let (s, built) = point_scenario(&base, &keys, point).map_err(at_point)?;
            let names: Vec<String> = built.iter().map(|v| v.name.clone()).collect();
            if p == 0 {
                variants = names;
            } else if names != variants {
                return Err(invalid(
                    &keys.join(", "),
                    format!(
                        "point {p} has the variants {names:?}, the first point {variants:?}: a sweep must keep the variants"
                    ),
                ));
            }
            point_hashes.push(stable_hash(&resolved_text(&s)));
            for (k, v) in built.iter().enumerate() {
                if let Some(fast) = v.simulation.fast_reference() {
                    fast_references.push((p * built.len() + k, fast));
                }
            }
            // Every `stride`-th point is timed; the others take the costs
            // of the last timed point's runs (the same variants).
            if p % stride == 0 {
                sizes.extend(built.iter().map(|v| RunSize::measure(v, timed_runs)));
            } else {
                let timed = sizes.len() - (p % stride) * built.len();
                for (k, v) in built.iter().enumerate() {
                    let size = RunSize::with_costs_of(v, &sizes[timed + k]);
                    sizes.push(size);
                }
            }
        }
        let scenario_text = resolved_text(scenario);
        let hash = stable_hash(&format!("{scenario_text}\n{}", spec.canonical()));
        Ok(SweepPlan {
            plots: scenario.file.output.plots,
            warnings: scenario.warnings().iter().map(|w| w.to_string()).collect(),
            scenario: base,
            scenario_text,
            spec,
            points,
            point_hashes,
            variants,
            sizes,
            fast_references,
            hash,
        })
    }

    /// The selected runs whose dragged reference is faster than their step
    /// can follow, said in one line (how many, the first 20, the first in
    /// full), or None when there are none. `finished` lists the runs a
    /// resumed sweep already has (in any order), which are left out. Unlike
    /// the step's check, which needs a linearization per point and comes
    /// after the runs, this one was a product per run when the points were
    /// checked.
    pub fn fast_references_said(
        &self,
        selection: &Selection,
        finished: &[usize],
    ) -> Option<String> {
        let mut finished = finished.to_vec();
        finished.sort_unstable();
        let left = |run: usize| finished.binary_search(&run).is_err();
        let fast: Vec<&(usize, FastReference)> = self
            .fast_references
            .iter()
            .filter(|(run, _)| selection.contains(*run) && left(*run))
            .collect();
        let (first, reference) = fast.first()?;
        let runs: Vec<String> = fast.iter().take(20).map(|(r, _)| r.to_string()).collect();
        let selected = selection.indices(self.len());
        let of = if finished.is_empty() {
            format!("{} runs", selected.len())
        } else {
            let left = selected.into_iter().filter(|&r| left(r)).count();
            format!("the {left} runs left")
        };
        Some(format!(
            "{} of {of} drag a reference faster than their step can follow: runs {}{}; run {first} (variant {}): {}",
            fast.len(),
            runs.join(", "),
            if fast.len() > 20 { ", ..." } else { "" },
            self.variants[first % self.variants.len()],
            reference.describe()
        ))
    }

    /// The number of runs (points x variants).
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// Whether the plan has no run (never, once built).
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// Builds run `index`'s variant (its point's scenario, checked when
    /// the plan was built).
    pub fn variant(&self, index: usize) -> Result<Variant, ScenarioError> {
        let (p, v) = (index / self.variants.len(), index % self.variants.len());
        build_run(&self.scenario, &self.spec.keys(), p, &self.points[p], v).map(|(_, v)| v)
    }

    /// The size of all the plan's runs on `threads` threads.
    pub fn estimate(&self, threads: usize) -> RunEstimate {
        self.estimate_of(&Selection::All, threads)
    }

    /// The size of the runs `selection` picks on `threads` threads.
    pub fn estimate_of(&self, selection: &Selection, threads: usize) -> RunEstimate {
        self.estimate_without(selection, &[], threads)
    }

    /// [`SweepPlan::estimate_of`] without the runs `finished` (a resumed
    /// sweep's, which do not run again).
    pub fn estimate_without(
        &self,
        selection: &Selection,
        finished: &[usize],
        threads: usize,
    ) -> RunEstimate {
        let mut skip = vec![false; self.len()];
        for &i in finished {
            if let Some(s) = skip.get_mut(i) {
                *s = true;
            }
        }
        let sizes: Vec<RunSize> = (selection.indices(self.len()).into_iter())
            .filter(|&i| !skip[i])
            .map(|i| self.sizes[i])
            .collect();
        RunEstimate::of_sweep(&sizes, threads)
    }

    /// The metrics the runs will report (see [`SweepTable::metric`]):
    /// the numbers of the summaries of eight steps of each variant at the
    /// first point.
    pub fn metric_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for v in 0..self.variants.len() {
            let Ok(mut probe) = self.variant(v) else {
                continue;
            };
            // A few samples, so that the spectrum's numbers are numbers (one
            // step left them null, and `--metric spectrum...` was refused).
            probe.record_period = probe.simulation.dt;
            probe.duration = 8.0 * probe.simulation.dt;
            let result = run_variant_until(probe, &mut |_| {}, &AtomicBool::new(false));
            for name in metric_names(&summary(&result)) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Why `row` is not run `row.run` of this plan (its point, values,
    /// variant, seed or scenario hash differ), if it is not.
    pub fn check_row(&self, row: &SweepRow) -> Result<(), String> {
        if row.run >= self.len() {
            return Err(format!(
                "run {} is not a run of this plan ({} runs)",
                row.run,
                self.len()
            ));
        }
        let (p, v) = (row.run / self.variants.len(), row.run % self.variants.len());
        let point = &self.points[p];
        let differs = |what: &str, got: String, want: String| {
            Err(format!(
                "run {}: its {what} is {got}, this plan's is {want}",
                row.run
            ))
        };
        if row.point != p {
            return differs("point", row.point.to_string(), p.to_string());
        }
        if row.values != point.values {
            return differs("values", row.values.join(", "), point.values.join(", "));
        }
        if row.variant != self.variants[v] {
            return differs("variant", row.variant.clone(), self.variants[v].clone());
        }
        if row.seed != point.seed {
            return differs("seed", row.seed.to_string(), point.seed.to_string());
        }
        if row.scenario_hash != self.point_hashes[p] {
            return differs(
                "scenario_hash",
                row.scenario_hash.clone(),
                self.point_hashes[p].clone(),
            );
        }
        Ok(())
    }

    /// The row of run `index` from its summary.
    fn row(&self, index: usize, variant: String, summary: serde_json::Value) -> SweepRow {
        let point = index / self.variants.len();
        SweepRow {
            run: index,
            point,
            values: self.points[point].values.clone(),
            variant,
            seed: self.points[point].seed,
            scenario_hash: self.point_hashes[point].clone(),
            summary,
        }
    }

    /// The table of `rows` (runs of this plan, any order, each once) for
    /// the runs `selection` picks; runs without a row are missing.
    pub fn table(&self, mut rows: Vec<SweepRow>, selection: Selection) -> SweepTable {
        rows.sort_by_key(|r| r.run);
        SweepTable {
            scenario: self.scenario.file.name.clone(),
            plots: self.plots,
            warnings: self.warnings.clone(),
            keys: self.spec.keys(),
            grid_keys: self.spec.grid.len(),
            points: self.points.iter().map(|p| p.values.clone()).collect(),
            variants: self.variants.clone(),
            plan_hash: self.hash.clone(),
            source: Some(PlanSource {
                spec: self.spec.canonical(),
                scenario_text: self.scenario_text.clone(),
                scenario_path: self.scenario.path.clone(),
            }),
            selection,
            rows,
            runs_total: self.len(),
        }
    }

    /// Runs the whole sweep (see [`SweepPlan::run_selection`]).
    pub fn run(
        self,
        threads: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
        stop: &AtomicBool,
    ) -> SweepTable {
        let on_row = |_: &SweepRow, done, total| progress(done, total);
        self.run_selection(Selection::All, Vec::new(), threads, &on_row, stop)
    }

    /// Runs the runs `selection` picks that `previous` (finished rows of
    /// this plan, kept in the table) does not hold, on `threads` threads,
    /// building each run's variant when it starts. `on_row(row, done,
    /// total)` is called as each run finishes (from the worker threads,
    /// one at a time; `done` counts `previous`). Setting `stop` ends the
    /// runs under way (their rows say so) and starts no more. A run whose
    /// point no longer builds (its robot file changed since the plan was
    /// built) has no row; a warning of the table says why.
    pub fn run_selection(
        self,
        selection: Selection,
        previous: Vec<SweepRow>,
        threads: usize,
        on_row: &(dyn Fn(&SweepRow, usize, usize) + Sync),
        stop: &AtomicBool,
    ) -> SweepTable {
        let selected = selection.indices(self.len());
        let total = selected.len();
        let mut held = vec![false; self.len()];
        for row in &previous {
            if let Some(h) = held.get_mut(row.run) {
                *h = true;
            }
        }
        let mut queue: Vec<usize> = selected.into_iter().filter(|&i| !held[i]).collect();
        queue.reverse();
        let queue = Mutex::new(queue);
        let rows = Mutex::new(previous);
        let failures = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            // At most one worker per run: a thread count of 2^31 (from
            // Python) spawned threads until the machine gave out.
            let queued = queue.lock().map_or(1, |q| q.len());
            for _ in 0..threads.min(queued).max(1) {
                scope.spawn(|| loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some(i) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop() else {
                        break;
                    };
                    let variant = match self.variant(i) {
                        Ok(variant) => variant,
                        Err(e) => {
                            let mut failures = failures.lock().unwrap_or_else(|e| e.into_inner());
                            failures.push(format!("run {i} could not be built: {e}"));
                            continue;
                        }
                    };
                    let result = run_variant_until(variant, &mut |_| {}, stop);
                    let row = self.row(i, result.name.clone(), summary(&result));
                    let mut rows = rows.lock().unwrap_or_else(|e| e.into_inner());
                    on_row(&row, rows.len() + 1, total);
                    rows.push(row);
                });
            }
        });
        let rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut table = self.table(rows, selection);
        table
            .warnings
            .extend(failures.into_inner().unwrap_or_else(|e| e.into_inner()));
        table
    }
}

/// A count of points or runs as a sentence may give it: the count, or
/// "more than 1.8e19" where it saturated (five grids of 60,000 values
/// were said to hold 18446744073709551615 points).
fn counted(n: usize) -> String {
    if n == usize::MAX {
        format!("more than {:.1e}", usize::MAX as f64)
    } else {
        n.to_string()
    }
}

/// Builds and runs run `index` of the sweep of `scenario` over `spec`
/// alone (without building the other points) and returns its row, the
/// same as [`SweepPlan::run`] gives for it; for a worker of a plan the
/// driver built and checked. `stop` as in [`SweepPlan::run`].
pub fn run_one(
    scenario: &Scenario,
    spec: &SweepSpec,
    index: usize,
    stop: &AtomicBool,
) -> Result<SweepRow, ScenarioError> {
    let variants = scenario.file.variants.len().max(1);
    let total = spec.len().saturating_mul(variants);
    if index >= total {
        return Err(ScenarioError::Invalid {
            file: scenario.path.clone(),
            line: 1,
            key: "run index".into(),
            message: format!(
                "{index} is out of range: the sweep has {total} runs (0 to {})",
                total.saturating_sub(1)
            ),
        });
    }
    let (p, v) = (index / variants, index % variants);
    let point = spec.point(p);
    let (s, variant) = build_run(scenario, &spec.keys(), p, &point, v)?;
    let result = run_variant_until(variant, &mut |_| {}, stop);
    Ok(SweepRow {
        run: index,
        point: p,
        seed: point.seed,
        values: point.values,
        variant: result.name.clone(),
        scenario_hash: stable_hash(&resolved_text(&s)),
        summary: summary(&result),
    })
}
