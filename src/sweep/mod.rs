//! Sweeps: a scenario run at every point of a grid of dotted keys and/or
//! seeded random samples, every variant, in parallel ([`SweepPlan`]); one
//! table of summary metrics per sweep ([`SweepTable`], `sweep.csv`,
//! `sweep.json` and its plot); shards of a sweep and their merge.

mod grid;
mod merge;
mod plan;
mod shard;
mod table;

pub use grid::{
    parse_grid, parse_sample, point_seed, Distribution, GridAxis, SampleAxis, SweepPoint,
    SweepSpec, SweepSpecError,
};
pub use merge::{merge_tables, table_from_json, SweepMergeError};
pub use plan::{run_one, with_parameters, SweepPlan, SweepRun, MAX_SWEEP_RUNS};
pub use shard::Selection;
pub use table::{
    metric_names, metric_value, SweepLine, SweepRow, SweepTable, DEFAULT_METRICS, TIMING_COLUMNS,
};
