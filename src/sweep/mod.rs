//! Sweeps: a scenario run at every point of a grid of dotted keys and/or
//! seeded random samples, every variant, in parallel ([`SweepPlan`]); one
//! table of summary metrics per sweep ([`SweepTable`], `sweep.csv`,
//! `sweep.json` and its plot); the row stream a sweep appends to as runs
//! end (`rows.jsonl`, read back by `--resume`); shards of a sweep, their
//! merge and the check of a table against its plan's spec.

mod grid;
mod merge;
mod plan;
mod shard;
mod stream;
mod table;
mod verify;

pub use grid::{
    parse_grid, parse_sample, point_seed, Distribution, GridAxis, SampleAxis, SweepPoint,
    SweepSpec, SweepSpecError,
};
pub use merge::{merge_tables, table_from_json, SweepMergeError};
pub use plan::{run_one, with_parameters, SweepPlan, MAX_SWEEP_RUNS};
pub use shard::Selection;
pub use stream::{read_rows, RowStream, RowStreamError, ROW_STREAM};
pub use table::{
    metric_entry, metric_names, metric_value, PlanSource, SweepLine, SweepRow, SweepTable,
    DEFAULT_METRICS, TIMING_COLUMNS,
};
pub use verify::check_plan;
