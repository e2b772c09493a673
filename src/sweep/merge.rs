//! Joining the tables of one sweep's shards (or of any runs of it): the
//! tables must carry the same plan hash; a run present in two tables must
//! agree in every column but the timing ones; the joined table selects
//! every run of the plan and states which are missing.

use super::shard::Selection;
use super::table::{PlanSource, SweepRow, SweepTable};
use serde_json::Value;
use std::path::PathBuf;

/// Why tables cannot be read or joined; names the file and the problem.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct SweepMergeError {
    pub file: PathBuf,
    pub message: String,
}

/// Reads a table written by [`SweepTable::json`] (`file` names it in errors).
pub fn table_from_json(
    json: &Value,
    file: &std::path::Path,
) -> Result<SweepTable, SweepMergeError> {
    let error = |message: String| SweepMergeError {
        file: file.to_path_buf(),
        message,
    };
    let field = |name: &str| {
        json.get(name)
            .ok_or_else(|| error(format!("no '{name}': not a sweep.json")))
    };
    let text = |name: &str| {
        field(name)?
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| error(format!("'{name}' is not text")))
    };
    let count = |name: &str| {
        field(name)?
            .as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| error(format!("'{name}' is not a whole number")))
    };
    let texts = |value: &Value| -> Option<Vec<String>> {
        value
            .as_array()?
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let list = |name: &str| {
        texts(field(name)?).ok_or_else(|| error(format!("'{name}' is not a list of text")))
    };
    let points = field("points")?
        .as_array()
        .and_then(|p| p.iter().map(texts).collect::<Option<Vec<_>>>())
        .ok_or_else(|| error("'points' is not a list of lists of text".into()))?;
    let selection = Selection::parse(&text("selection")?)
        .ok_or_else(|| error("'selection' is not all, shard K/N or runs I,J".into()))?;
    let rows = field("runs")?
        .as_array()
        .ok_or_else(|| error("'runs' is not a list".into()))?
        .iter()
        .map(|r| SweepRow::from_json(r).map_err(&error))
        .collect::<Result<Vec<_>, _>>()?;
    let source = match json.get("spec") {
        None | Some(Value::Null) => None,
        Some(_) => Some(PlanSource {
            spec: text("spec")?,
            scenario_text: text("scenario_text")?,
            scenario_path: PathBuf::from(text("scenario_path")?),
        }),
    };
    let table = SweepTable {
        scenario: text("scenario")?,
        plots: field("plots")?.as_bool().unwrap_or(false),
        warnings: list("warnings")?,
        keys: list("keys")?,
        grid_keys: count("grid_keys")?,
        points,
        variants: list("variants")?,
        plan_hash: text("plan_hash")?,
        source,
        selection,
        rows,
        runs_total: count("runs_total")?,
    };
    if let Some(r) = table
        .rows
        .iter()
        .find(|r| r.run >= table.runs_total || r.point >= table.points.len())
    {
        return Err(error(format!(
            "run {} (point {}) is outside the plan's {} runs and {} points",
            r.run,
            r.point,
            table.runs_total,
            table.points.len()
        )));
    }
    let per_point = table.variants.len();
    if per_point == 0 || table.runs_total != table.points.len() * per_point {
        return Err(error(format!(
            "{} runs is not {} points x {} variants: the table was edited",
            table.runs_total,
            table.points.len(),
            per_point
        )));
    }
    // Run i is variant i % V of point i / V (the plan's order): a row's
    // point, values and variant follow from its run index.
    for r in &table.rows {
        let (p, v) = (r.run / per_point, r.run % per_point);
        if r.point != p || r.values != table.points[p] || r.variant != table.variants[v] {
            return Err(error(format!(
                "run {}: its point {} ({}, variant '{}') contradicts its run index: run {} is point {p} ({}, variant '{}') of the plan; the table was edited",
                r.run,
                r.point,
                r.values.join(", "),
                r.variant,
                r.run,
                table.points[p].join(", "),
                table.variants[v]
            )));
        }
    }
    Ok(table)
}

/// Joins `tables` (each with the file it came from) into one table of the
/// whole plan. Refuses tables of different plans, and a run two tables
/// hold with different results (timing aside); a finished row wins over
/// an interrupted one of the same run.
pub fn merge_tables(tables: Vec<(PathBuf, SweepTable)>) -> Result<SweepTable, SweepMergeError> {
    let mut tables = tables.into_iter();
    let Some((first_file, mut merged)) = tables.next() else {
        return Err(SweepMergeError {
            file: PathBuf::from("sweep merge"),
            message: "no tables to merge".into(),
        });
    };
    let mut rows: Vec<Option<SweepRow>> = vec![None; merged.runs_total];
    let mut origin: Vec<PathBuf> = vec![PathBuf::new(); merged.runs_total];
    // The seed and scenario hash of each point, with the row that gave them
    // first: every run of a point, in any table, carries the same ones.
    let mut point_of: Vec<Option<(u64, String, usize, PathBuf)>> = vec![None; merged.points.len()];
    let mut add = |file: &PathBuf, table_rows: Vec<SweepRow>| -> Result<(), SweepMergeError> {
        for row in table_rows {
            let i = row.run;
            match &point_of[row.point] {
                Some((seed, hash, run, first)) => {
                    if (*seed, hash) != (row.seed, &row.scenario_hash) {
                        return Err(SweepMergeError {
                            file: file.clone(),
                            message: format!(
                                "run {i}: point {} has seed {} and scenario_hash {}, but run {run} of the same point in {} has seed {seed} and scenario_hash {hash}: a table was edited",
                                row.point,
                                row.seed,
                                row.scenario_hash,
                                first.display()
                            ),
                        });
                    }
                }
                None => {
                    point_of[row.point] =
                        Some((row.seed, row.scenario_hash.clone(), i, file.clone()))
                }
            }
            match &rows[i] {
                Some(old) if old.finished() && row.finished() => {
                    if old.without_timing() != row.without_timing() {
                        return Err(SweepMergeError {
                            file: file.clone(),
                            message: format!(
                                "run {i} differs from the one in {} (timing aside): these are not the same runs",
                                origin[i].display()
                            ),
                        });
                    }
                }
                Some(old) if old.finished() => {}
                _ => {
                    rows[i] = Some(row);
                    origin[i] = file.clone();
                }
            }
        }
        Ok(())
    };
    add(&first_file, std::mem::take(&mut merged.rows))?;
    for (file, table) in tables {
        if table.plan_hash != merged.plan_hash
            || table.runs_total != merged.runs_total
            || (&table.keys, &table.points, &table.variants)
                != (&merged.keys, &merged.points, &merged.variants)
        {
            return Err(SweepMergeError {
                file,
                message: format!(
                    "plan {} ({} runs) is not the plan of {} ({} runs, {}): tables of different sweeps",
                    table.plan_hash,
                    table.runs_total,
                    first_file.display(),
                    merged.runs_total,
                    merged.plan_hash
                ),
            });
        }
        merged.source = merged.source.or(table.source);
        add(&file, table.rows)?;
    }
    merged.rows = rows.into_iter().flatten().collect();
    merged.selection = Selection::All;
    Ok(merged)
}
