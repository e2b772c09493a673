//! What the loader changed in a robot description to load it. Returned
//! with the model as data ([`super::Model::warnings`]); the library never
//! prints them, its callers (the command line, scenario runs) report them.

use std::fmt;
use std::path::PathBuf;

/// A change the loader made to a robot description, naming the file and
/// the link.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelWarning {
    /// A body's inertia was not physical but the change to the nearest
    /// physical one is negligible for the robot (see
    /// [`super::NEGLIGIBLE_INERTIA_CHANGE`]), so it was replaced by it.
    InertiaProjected {
        /// The description file.
        file: PathBuf,
        /// The link that carries the body's frame.
        link: String,
        /// Links merged into the body through fixed joints.
        merged: Vec<String>,
        /// Principal moments about the centre of mass as loaded and as
        /// loaded, ascending (kg m^2).
        before: [f64; 3],
        /// Principal moments about the centre of mass as replaced, ascending
        /// (kg m^2).
        after: [f64; 3],
        /// Frobenius norm of the change of the rotational inertia (kg m^2).
        change: f64,
        /// The robot's inertia scale (kg m^2, see [`super::inertia_scale`]).
        scale: f64,
    },
    /// An element or attribute URDF does not know but within two edits of
    /// one it does (`<inertal>`, `xzy`): urdf-rs ignores it, so what it
    /// meant to give is missing (a massless link, a zero offset).
    MisspeltName {
        /// The description file.
        file: PathBuf,
        /// Its line (from 1).
        line: usize,
        /// What is misspelt, and the name meant.
        message: String,
    },
    /// A `<mimic>` tag that loading with mimic joints on would refuse
    /// (it names no joint, a fixed one, a cycle...), ignored because they
    /// are off: the file is broken all the same.
    MimicIgnored {
        /// The refusal, naming the file and the joint.
        problem: String,
    },
}

/// ` (with the fixed links 'a', 'b' merged in)`, or nothing.
pub(crate) fn merged_clause(merged: &[String]) -> String {
    if merged.is_empty() {
        return String::new();
    }
    let names: Vec<String> = merged.iter().map(|m| format!("'{m}'")).collect();
    format!(" (with the fixed links {} merged in)", names.join(", "))
}

impl fmt::Display for ModelWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelWarning::InertiaProjected {
                file,
                link,
                merged,
                before,
                after,
                change,
                scale,
            } => write!(
                f,
                "{}: link '{link}'{}: inertia is not physical ({}), but the nearest physical inertia \
                 differs by only {change:.3e} kg m^2 ({:.1e} of the robot's inertia scale \
                 {scale:.3e} kg m^2): replaced by it, principal moments {:.6e}, {:.6e}, {:.6e} \
                 (strict loading refuses it instead)",
                file.display(),
                merged_clause(merged),
                super::inertia_check::describe_moments(before, *scale),
                change / scale,
                after[0],
                after[1],
                after[2]
            ),
            ModelWarning::MisspeltName {
                file,
                line,
                message,
            } => write!(f, "{}:{line}: {message}", file.display()),
            ModelWarning::MimicIgnored { problem } => write!(
                f,
                "{problem} (ignored while mimic joints are off: every joint is a coordinate)"
            ),
        }
    }
}
