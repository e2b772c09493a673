//! Scenarios: a TOML file that states everything a run needs
//! (docs/src/scenarios.md), turned into closed-loop simulations, run headless, and written out as
//! CSV time series, a JSON summary, the resolved scenario and plots (PNG and
//! SVG); lessons. Sweeps of a scenario are the sibling module `sweep`.

mod build;
mod for_urdf;
pub mod interaction;
mod lesson;
mod parse;
pub(crate) use parse::key_line;
mod run;
mod stable_hash;
mod warning;

pub use for_urdf::scenario_for_urdf;
pub use lesson::{lesson_chain, Lesson, MAX_LESSONS};
pub use parse::names::{name_problem, variant_name_problem, MAX_NAME_LENGTH, RESERVED_NAMES};
pub use parse::schema::*;
pub use run::budget::{
    format_duration, RunEstimate, RunSize, HARD_MAX_STEPS, MAX_MEMORY_BYTES, MAX_STEPS,
};
pub use run::output::{
    lost_task, run_complete, series, summary, write_results, LostTask, Series, LOST_TASK_ERROR_M,
    LOST_TASK_TIME_S,
};
pub use run::runner::{run_variant, run_variant_until, ChainReport, VariantResult};
pub use run::spectra::{spectrum_summary, variant_spectra, VariantSpectra};
pub use run::stance_metrics::{
    DistributionMetrics, Slip, StanceMetrics, StanceProbe, SLACK_ZERO, SLIP_DISTANCE_M,
};
pub use stable_hash::stable_hash;
pub use warning::ScenarioWarning;

use crate::input::InputError;
use crate::model::ModelError;
use crate::sim::{HullCache, Simulation};
pub(crate) use build::ModelCache;
use std::path::PathBuf;

/// Why a scenario cannot be run; each names the file and, where it can, the
/// line and key.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// Not read: unreadable, not a regular file or too large.
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{}:{line}:{column}: {message}", source_name(file))]
    Syntax {
        file: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}:{line}: {key}: {message}", source_name(file))]
    Invalid {
        file: PathBuf,
        line: usize,
        key: String,
        message: String,
    },
    /// The robot did not load; `line` is where the scenario names it (none
    /// for a scenario generated from a URDF).
    #[error("{}{}: robot: {error}", source_name(file), line.map_or(String::new(), |l| format!(":{l}")))]
    Model {
        file: PathBuf,
        line: Option<usize>,
        error: Box<ModelError>,
    },
}

/// How messages name a scenario's source: its path, or "(scenario text)"
/// for text parsed without one (Python's `Scenario.parse(text, path="")`
/// said ":1:8: ...", naming nothing).
fn source_name(file: &std::path::Path) -> String {
    if file.as_os_str().is_empty() {
        "(scenario text)".to_string()
    } else {
        file.display().to_string()
    }
}

/// The scenario `passivity-lab run` and the app use when given none: the
/// point-mass torsion experiment of Wensing, Englsberger & Slotine (2023), embedded in the binary.
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/point_mass_torsion.toml");
const DEFAULT_SCENARIO_NAME: &str = "scenarios/point_mass_torsion.toml (embedded)";

/// A loaded scenario and where it came from.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub file: ScenarioFile,
    /// The source file (for messages and relative paths).
    pub path: PathBuf,
    text: String,
    /// What the URDF loader changed in the robot, and values that do
    /// nothing (see [`Scenario::warnings`]).
    warnings: Vec<ScenarioWarning>,
    /// The collision meshes' hulls, built at the first `variants()` call.
    hulls: HullCache,
    /// The robots of a sweep's points (None outside a sweep: the robot is
    /// loaded at every `variants()` call).
    models: Option<ModelCache>,
}

/// One variant ready to run.
#[derive(Clone, Debug)]
pub struct Variant {
    pub name: String,
    pub simulation: Simulation,
    pub duration: f64,
    pub record_period: f64,
    /// The task's `singular_region` (runs with a task).
    pub singular_region: Option<f64>,
    /// What the stance metrics are computed from (runs with a `[stance]`).
    pub stance: Option<StanceProbe>,
    /// The closed chain's partition (runs with `[[loop_closures]]`; the
    /// runner adds the drift).
    pub closed_chain: Option<ChainReport>,
}

impl Scenario {
    /// What the URDF loader changed in the robot to load it (for example a
    /// negligible inertia error replaced by the nearest physical inertia),
    /// then the values that do nothing in the run (a push after its end):
    /// for the caller to report; runs write them into `summary.json`.
    pub fn warnings(&self) -> &[ScenarioWarning] {
        &self.warnings
    }

    /// The TOML text the scenario was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The collision meshes' hulls built so far (shared by its clones).
    pub fn hulls(&self) -> &HullCache {
        &self.hulls
    }

    /// The embedded default scenario ([`DEFAULT_SCENARIO`]).
    pub fn embedded_default() -> Result<Scenario, ScenarioError> {
        Scenario::parse(DEFAULT_SCENARIO, DEFAULT_SCENARIO_NAME)
    }

    /// The robot's URDF, resolved against the scenario file's folder (None
    /// for a built-in system).
    pub fn urdf_path(&self) -> Option<PathBuf> {
        self.file.robot.urdf.as_ref().map(|u| self.relative(u))
    }

    /// Builds every variant's simulation (one variant named "default" when
    /// the file has none).
    pub fn variants(&self) -> Result<Vec<Variant>, ScenarioError> {
        self.check_names()?;
        self.variants_of(self.nominal_model()?)
    }
}
