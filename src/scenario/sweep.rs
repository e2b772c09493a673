//! A family of runs: one scenario key set to each of several values, every
//! (value, variant) run in parallel on all cores, one summary row each.

use super::output::summary;
use super::{run_variant_until, Scenario, ScenarioError, Variant};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// One row of a sweep's table.
#[derive(Clone, Debug)]
pub struct SweepRow {
    pub value: String,
    pub variant: String,
    /// The variant's summary (as in `summary.json`).
    pub summary: serde_json::Value,
}

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

/// One run of a sweep: a value of the key and one variant built with it.
#[derive(Clone, Debug)]
pub struct SweepRun {
    pub value: String,
    pub variant: Variant,
}

/// Every run of the scenario with `key` set to each of `values`, every
/// variant, in (value, variant) order; all are checked before any runs.
pub fn sweep_runs(
    scenario: &Scenario,
    key: &str,
    values: &[String],
) -> Result<Vec<SweepRun>, ScenarioError> {
    let mut runs = Vec::new();
    for value in values {
        let text = with_parameter(scenario, key, value)?;
        let s = Scenario::parse(&text, &scenario.path)?;
        for variant in s.variants()? {
            runs.push(SweepRun {
                value: value.clone(),
                variant,
            });
        }
    }
    Ok(runs)
}

/// Runs `runs` on `threads` threads; `progress(done, total)` is called as
/// runs finish. Rows come in the order of `runs`. Setting `stop` ends the
/// runs under way (their rows say so) and starts no more.
pub fn sweep(
    runs: Vec<SweepRun>,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    stop: &AtomicBool,
) -> Vec<SweepRow> {
    let total = runs.len();
    let queue = Mutex::new(runs.into_iter().enumerate().collect::<Vec<_>>());
    let rows = Mutex::new(Vec::with_capacity(total));
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let Some((i, SweepRun { value, variant })) =
                    queue.lock().unwrap_or_else(|e| e.into_inner()).pop()
                else {
                    break;
                };
                let result = run_variant_until(variant, &mut |_| {}, stop);
                let row = SweepRow {
                    value,
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
    rows.into_iter().map(|(_, r)| r).collect()
}
