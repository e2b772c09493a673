//! What a scenario loads with but will not run as written: for the caller
//! to report (`run` and `sweep` on stderr, the app as notices, runs in
//! `summary.json`).

use super::source_name;
use crate::model::ModelWarning;
use std::fmt;
use std::path::PathBuf;

/// A warning about a loaded scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum ScenarioWarning {
    /// What the URDF loader changed in the robot.
    Robot(ModelWarning),
    /// A value that does nothing in the run (a push that starts after the
    /// run ends), located as an error about it would be.
    NoEffect {
        file: PathBuf,
        line: usize,
        key: String,
        message: String,
    },
}

impl fmt::Display for ScenarioWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioWarning::Robot(w) => w.fmt(f),
            ScenarioWarning::NoEffect {
                file,
                line,
                key,
                message,
            } => write!(f, "{}:{line}: {key}: {message}", source_name(file)),
        }
    }
}
