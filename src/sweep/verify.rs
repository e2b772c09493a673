//! Checking a sweep's table against the plan it says it belongs to: the
//! spec and base scenario kept in `sweep.json` give the plan hash, every
//! point's values and seed, and (where the scenario's robot files are
//! found) every point's scenario hash, each recomputed and compared with
//! the table's. Tables written before `sweep.json` kept the spec can only
//! be checked against the other tables of a merge.

use super::grid::SweepSpec;
use super::merge::SweepMergeError;
use super::plan::{point_scenario, resolved_text};
use super::table::SweepTable;
use crate::scenario::{stable_hash, Scenario};
use std::path::Path;

/// Checks `table` (read from `file`) against its spec and scenario;
/// refuses, naming the file, the run or point, and what differs. Returns
/// notes on what could not be checked (no spec in the table, or the
/// scenario's robot file not found here).
pub fn check_plan(file: &Path, table: &SweepTable) -> Result<Vec<String>, SweepMergeError> {
    let error = |message: String| SweepMergeError {
        file: file.to_path_buf(),
        message,
    };
    let Some(source) = &table.source else {
        return Ok(vec![format!(
            "{}: written without its spec (by an older passivity-lab): its points, seeds and plan hash are checked only against the other tables, its scenario hashes not at all",
            file.display()
        )]);
    };
    let spec = SweepSpec::from_canonical(&source.spec).map_err(|e| error(e.to_string()))?;
    let hash = stable_hash(&format!("{}\n{}", source.scenario_text, source.spec));
    if hash != table.plan_hash {
        return Err(error(format!(
            "plan_hash {} is not the hash of its spec and scenario_text ({hash}): the table was edited",
            table.plan_hash
        )));
    }
    if spec.keys() != table.keys || spec.grid.len() != table.grid_keys {
        return Err(error(format!(
            "keys [{}] are not its spec's [{}]: the table was edited",
            table.keys.join(", "),
            spec.keys().join(", ")
        )));
    }
    if spec.len() != table.points.len() {
        return Err(error(format!(
            "{} points, but its spec has {}: the table was edited",
            table.points.len(),
            spec.len()
        )));
    }
    let points: Vec<_> = (0..spec.len()).map(|p| spec.point(p)).collect();
    if let Some(p) = (0..points.len()).find(|&p| points[p].values != table.points[p]) {
        return Err(error(format!(
            "point {p} has the values {}, but its spec gives {}: the table was edited",
            table.points[p].join(", "),
            points[p].values.join(", ")
        )));
    }
    if let Some(r) = table.rows.iter().find(|r| r.seed != points[r.point].seed) {
        return Err(error(format!(
            "run {}: seed {}, but its spec gives point {} the seed {}: the table was edited",
            r.run, r.seed, r.point, points[r.point].seed
        )));
    }
    let base = match Scenario::parse(&source.scenario_text, &source.scenario_path) {
        Ok(base) => base,
        Err(e) => {
            return Ok(vec![format!(
                "{}: scenario hashes not recomputed, its scenario does not load here ({e}); points, seeds and plan hash checked",
                file.display()
            )])
        }
    };
    let keys = spec.keys();
    let base = base.for_points();
    let mut hashes: Vec<Option<String>> = vec![None; points.len()];
    for r in &table.rows {
        let hash = match &hashes[r.point] {
            Some(hash) => hash.clone(),
            None => {
                let (scenario, _) = point_scenario(&base, &keys, &points[r.point])
                    .map_err(|e| error(format!("run {}: its point does not load: {e}", r.run)))?;
                let hash = stable_hash(&resolved_text(&scenario));
                hashes[r.point] = Some(hash.clone());
                hash
            }
        };
        if hash != r.scenario_hash {
            return Err(error(format!(
                "run {}: scenario_hash {}, but its point's scenario hashes to {hash} here: the row was edited, or the robot file changed since the sweep ran",
                r.run, r.scenario_hash
            )));
        }
    }
    Ok(Vec::new())
}
