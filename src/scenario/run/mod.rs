//! Running a scenario's variants headless and writing what they recorded:
//! the run-length budget checked before anything runs, the runner, the
//! outputs (CSV, summary, resolved scenario, plots) and the torque spectra.

pub(crate) mod budget;
pub(crate) mod output;
pub(crate) mod runner;
pub(crate) mod spectra;
pub(crate) mod stance_metrics;
