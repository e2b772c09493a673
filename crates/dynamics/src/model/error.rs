//! Typed errors for model loading: each names the file and the element.

use crate::input::InputError;
use std::path::PathBuf;

/// Why a robot description could not be turned into a model.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Not read: unreadable, not a regular file, too large or nested too deep.
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{file}: {count} {element}s, more than the {limit} a robot description may have; refused before parsing")]
    TooMany {
        file: PathBuf,
        element: &'static str,
        count: usize,
        limit: usize,
    },
    #[error("{file}: malformed URDF: {message}")]
    Malformed { file: PathBuf, message: String },
    #[error("{file}: joint '{joint}' has type '{kind}', which is not supported (use revolute, continuous, prismatic or fixed; a free root is chosen with --root free)")]
    UnsupportedJoint {
        file: PathBuf,
        joint: String,
        kind: String,
    },
    #[error("{file}: joint '{joint}' names {role} link '{link}', which does not exist")]
    MissingLink {
        file: PathBuf,
        joint: String,
        role: &'static str,
        link: String,
    },
    #[error("{file}: link '{link}' has two parent joints, '{first}' and '{second}' (a URDF must be a tree)")]
    TwoParents {
        file: PathBuf,
        link: String,
        first: String,
        second: String,
    },
    #[error("{file}: the links form a loop through link '{link}' (a URDF must be a tree)")]
    Loop { file: PathBuf, link: String },
    #[error(
        "{file}: {count} links have no parent ({names}); a URDF must have exactly one root link"
    )]
    NotOneRoot {
        file: PathBuf,
        count: usize,
        names: String,
    },
    #[error("{file}: two {element}s are named '{name}'")]
    DuplicateName {
        file: PathBuf,
        element: &'static str,
        name: String,
    },
    #[error("{file}: {element} '{name}': {field} is not a finite number")]
    NonFinite {
        file: PathBuf,
        element: &'static str,
        name: String,
        field: &'static str,
    },
    #[error("{file}: link '{link}': negative mass {mass}")]
    NegativeMass {
        file: PathBuf,
        link: String,
        mass: f64,
    },
    #[error("{file}: link '{link}': inertia is not physical: {reason}")]
    InvalidInertia {
        file: PathBuf,
        link: String,
        reason: String,
    },
    #[error("{file}: joint '{joint}': axis has zero length")]
    ZeroAxis { file: PathBuf, joint: String },
    #[error(transparent)]
    Mimic(#[from] super::MimicError),
    #[error(transparent)]
    Rotor(#[from] super::RotorError),
    #[error("{file}: the model has no moving body (every joint is fixed and the root is fixed)")]
    NoMovingBody { file: PathBuf },
}
