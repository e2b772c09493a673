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
//! The library API for running elsewhere (e.g. one Ray task per run):
//! 1. driver: `SweepSpec::parse(grid, samples, n, seed)` (see
//!    `sweep_grid`), then [`SweepPlan::build`]`(&Scenario::parse(text,
//!    path)?, spec)`: every point checked before anything runs;
//!    `plan.runs.len()` runs, `plan.hash` identifies the plan;
//! 2. anywhere: [`run_one`]`(&scenario, &spec, i, &stop)` builds and runs
//!    run `i` alone and returns its [`SweepRow`]; `row.to_json()` /
//!    `SweepRow::from_json` carry it back;
//! 3. driver: [`SweepPlan::table`]`(rows, Selection::All)` assembles the
//!    table (missing runs stated, never complete with runs missing) and
//!    `table.write(dir, metrics)` writes it.

use super::grid::{SweepPoint, SweepSpec};
use super::shard::Selection;
use super::table::{metric_names, SweepRow, SweepTable};
use crate::scenario::stable_hash;
use crate::scenario::summary;
use crate::scenario::{run_variant_until, RunEstimate, Scenario, ScenarioError, Variant};
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
    for (key, value) in keys.iter().zip(values) {
        set_key(&mut doc, key, value).map_err(|m| bad(key, m))?;
    }
    toml::to_string(&doc).map_err(|e| bad("", e.to_string()))
}

/// The scenario of `point`; an error names the keys and values set.
fn point_scenario(
    base: &Scenario,
    keys: &[String],
    point: &SweepPoint,
) -> Result<Scenario, ScenarioError> {
    let text = with_parameters(base, keys, &point.values)?;
    Scenario::parse(&text, &base.path).map_err(|e| match e {
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
fn resolved_text(scenario: &Scenario) -> String {
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

/// Most runs (points x variants) a sweep may hold. A plan builds every run
/// before the first one starts: 10,000 point-mass points of two variants
/// took 525 MB, so 20,000 runs stay far below the machine's memory even
/// for robots several times heavier, and the run-length budget
/// ([`RunEstimate`]) still bounds their steps.
pub const MAX_SWEEP_RUNS: usize = 20_000;

/// One run of a sweep: its point and one variant built with it.
#[derive(Clone, Debug)]
pub struct SweepRun {
    pub point: usize,
    pub variant: Variant,
}

/// A sweep ready to run: every point's scenario built and checked before
/// anything runs.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    pub spec: SweepSpec,
    pub points: Vec<SweepPoint>,
    /// [`stable_hash`] of each point's resolved scenario.
    pub point_hashes: Vec<String>,
    /// The variants' names, in the scenario's order.
    pub variants: Vec<String>,
    /// Every run, in (point, variant) order: run `i` is `runs[i]`.
    pub runs: Vec<SweepRun>,
    /// [`stable_hash`] of the base scenario and the spec: shards of one
    /// plan carry the same hash.
    pub hash: String,
    scenario_name: String,
    plots: bool,
    warnings: Vec<String>,
}

impl SweepPlan {
    /// One key over `values` (the app's and `--param/--values`' form).
    pub fn new(scenario: &Scenario, key: &str, values: &[String]) -> Result<Self, ScenarioError> {
        SweepPlan::build(scenario, SweepSpec::one_key(key, values))
    }

    /// Builds and checks every run of `scenario` over the points of `spec`.
    /// Refuses a spec without points, a key the scenario does not have
    /// (named), and any point whose scenario is not valid.
    pub fn build(scenario: &Scenario, spec: SweepSpec) -> Result<Self, ScenarioError> {
        let keys = spec.keys();
        let invalid = |key: &str, message: String| ScenarioError::Invalid {
            file: scenario.path.clone(),
            line: 1,
            key: key.to_string(),
            message,
        };
        if let Some(axis) = spec.grid.iter().find(|a| a.values.is_empty()) {
            return Err(invalid(&axis.key, "no values to sweep over".into()));
        }
        if keys.is_empty() {
            return Err(invalid("", "nothing to sweep: no key given".into()));
        }
        // Every run is built before the sweep starts: size the plan before
        // building it (a million sampled points aborted, out of memory).
        let runs_wanted = spec
            .len()
            .saturating_mul(scenario.file.variants.len().max(1));
        if runs_wanted > MAX_SWEEP_RUNS {
            return Err(invalid(
                &keys.join(", "),
                format!(
                    "the sweep has {} points x {} variants = {runs_wanted} runs, more than the {MAX_SWEEP_RUNS} a sweep may hold: every run is built (its models and workspaces, about 25 kB for the point mass and more for robots) before the first one starts; sweep fewer points, or split the sweep into separate ones",
                    spec.len(),
                    scenario.file.variants.len().max(1)
                ),
            ));
        }
        let points = spec.points();
        // Each key alone first, so an unknown key is named on its own.
        for (k, key) in keys.iter().enumerate() {
            let unknown = |message: String| {
                invalid(key, format!("not a key this scenario can set: {message}"))
            };
            let value = std::slice::from_ref(&points[0].values[k]);
            let text = with_parameters(scenario, std::slice::from_ref(key), value).map_err(
                |e| match e {
                    ScenarioError::Invalid { message, .. } => unknown(message),
                    other => other,
                },
            )?;
            if let Err(ScenarioError::Syntax { message, .. }) =
                Scenario::parse(&text, &scenario.path)
            {
                return Err(unknown(message));
            }
        }
        let mut runs = Vec::new();
        let mut point_hashes = Vec::with_capacity(points.len());
        let mut variants = Vec::new();
        for (p, point) in points.iter().enumerate() {
            let s = point_scenario(scenario, &keys, point)?;
            let built = s.variants()?;
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
            runs.extend(
                built
                    .into_iter()
                    .map(|variant| SweepRun { point: p, variant }),
            );
        }
        let hash = stable_hash(&format!(
            "{}\n{}",
            resolved_text(scenario),
            spec.canonical()
        ));
        Ok(SweepPlan {
            scenario_name: scenario.file.name.clone(),
            plots: scenario.file.output.plots,
            warnings: scenario.warnings().iter().map(|w| w.to_string()).collect(),
            spec,
            points,
            point_hashes,
            variants,
            runs,
            hash,
        })
    }

    /// The size of the runs `selection` picks on `threads` threads.
    pub fn estimate(&self, threads: usize) -> RunEstimate {
        self.estimate_of(&Selection::All, threads)
    }

    /// The size of the runs `selection` picks on `threads` threads.
    pub fn estimate_of(&self, selection: &Selection, threads: usize) -> RunEstimate {
        let variants: Vec<&Variant> = selection
            .indices(self.runs.len())
            .into_iter()
            .map(|i| &self.runs[i].variant)
            .collect();
        RunEstimate::of_sweep(&variants, threads)
    }

    /// The metrics the runs will report (see [`SweepTable::metric`]):
    /// the numbers of the summaries of one step of each variant at the
    /// first point.
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

    /// The row of run `index` from its summary.
    fn row(&self, index: usize, variant: String, summary: serde_json::Value) -> SweepRow {
        let point = self.runs[index].point;
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
            scenario: self.scenario_name.clone(),
            plots: self.plots,
            warnings: self.warnings.clone(),
            keys: self.spec.keys(),
            grid_keys: self.spec.grid.len(),
            points: self.points.iter().map(|p| p.values.clone()).collect(),
            variants: self.variants.clone(),
            plan_hash: self.hash.clone(),
            selection,
            rows,
            runs_total: self.runs.len(),
        }
    }

    /// Runs the whole sweep (see [`SweepPlan::run_selection`]).
    pub fn run(
        self,
        threads: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
        stop: &AtomicBool,
    ) -> SweepTable {
        self.run_selection(Selection::All, threads, progress, stop)
    }

    /// Runs the runs `selection` picks on `threads` threads;
    /// `progress(done, total)` is called as runs finish (from the worker
    /// threads). Setting `stop` ends the runs under way (their rows say
    /// so) and starts no more.
    pub fn run_selection(
        self,
        selection: Selection,
        threads: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
        stop: &AtomicBool,
    ) -> SweepTable {
        let mut queue = selection.indices(self.runs.len());
        let total = queue.len();
        queue.reverse();
        let queue = Mutex::new(queue);
        let rows = Mutex::new(Vec::with_capacity(total));
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some(i) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop() else {
                        break;
                    };
                    let result = run_variant_until(self.runs[i].variant.clone(), &mut |_| {}, stop);
                    let row = self.row(i, result.name.clone(), summary(&result));
                    let mut rows = rows.lock().unwrap_or_else(|e| e.into_inner());
                    rows.push(row);
                    progress(rows.len(), total);
                });
            }
        });
        let rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
        self.table(rows, selection)
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
    let total = spec.len() * variants;
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
    let s = point_scenario(scenario, &spec.keys(), &point)?;
    let variant = s
        .variants()?
        .into_iter()
        .nth(v)
        .ok_or_else(|| ScenarioError::Invalid {
            file: scenario.path.clone(),
            line: 1,
            key: "variants".into(),
            message: format!("point {p} has no variant {v}: a sweep must keep the variants"),
        })?;
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
