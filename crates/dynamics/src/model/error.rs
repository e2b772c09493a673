//! Typed errors for model loading: each names the file and the element.

use crate::input::InputError;
use std::path::PathBuf;

/// Why a robot description could not be turned into a model.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Not read: unreadable, not a regular file, too large or nested too deep.
    #[error(transparent)]
    Input(#[from] InputError),
    /// More links or joints than [`super::MAX_URDF_LINKS`]; refused before parsing.
    #[error("{file}: {count} {element}s, more than the {limit} a robot description may have; refused before parsing")]
    TooMany {
        /// The description file.
        file: PathBuf,
        /// `"link"` or `"joint"`.
        element: &'static str,
        /// How many the file has.
        count: usize,
        /// The most allowed.
        limit: usize,
    },
    /// What the URDF's text says before urdf-rs reads it: not a URDF (no
    /// element, or a root other than `<robot>`), or an attribute that holds
    /// numbers with a word that is not one or another count of them
    /// (urdf-rs kept the words that parse).
    #[error("{file}:{line}: {message}")]
    UrdfText {
        /// The description file.
        file: PathBuf,
        /// Its line (from 1).
        line: usize,
        /// What is wrong: the element, the attribute and the word.
        message: String,
    },
    /// urdf-rs could not parse the text as a URDF.
    #[error("{file}: malformed URDF: {message}")]
    Malformed {
        /// The description file.
        file: PathBuf,
        /// urdf-rs's message.
        message: String,
    },
    /// A joint type other than revolute, continuous, prismatic or fixed (a floating or planar joint, say).
    #[error("{file}: joint '{joint}' has type '{kind}', which is not supported (use revolute, continuous, prismatic or fixed; a free root is chosen with --root free)")]
    UnsupportedJoint {
        /// The description file.
        file: PathBuf,
        /// The joint's name.
        joint: String,
        /// Its URDF type.
        kind: String,
    },
    /// A joint names a parent or child link that the file does not define.
    #[error("{file}: joint '{joint}' names {role} link '{link}', which does not exist")]
    MissingLink {
        /// The description file.
        file: PathBuf,
        /// The joint's name.
        joint: String,
        /// `"parent"` or `"child"`.
        role: &'static str,
        /// The missing link's name.
        link: String,
    },
    /// A link is the child of two joints: the description is not a tree.
    #[error("{file}: link '{link}' has two parent joints, '{first}' and '{second}' (a URDF must be a tree)")]
    TwoParents {
        /// The description file.
        file: PathBuf,
        /// The link's name.
        link: String,
        /// The first parent joint.
        first: String,
        /// The second parent joint.
        second: String,
    },
    /// The joints form a cycle: the description is not a tree.
    #[error("{file}: the links form a loop through link '{link}' (a URDF must be a tree)")]
    Loop {
        /// The description file.
        file: PathBuf,
        /// A link on the cycle.
        link: String,
    },
    /// Zero or several links have no parent joint.
    #[error(
        "{file}: {count} links have no parent ({names}); a URDF must have exactly one root link"
    )]
    NotOneRoot {
        /// The description file.
        file: PathBuf,
        /// How many links have no parent.
        count: usize,
        /// Their names (quoted, comma-separated), or a note when there are
        /// no links at all.
        names: String,
    },
    /// Two links or two joints share a name.
    #[error("{file}: two {element}s are named '{name}'")]
    DuplicateName {
        /// The description file.
        file: PathBuf,
        /// `"link"` or `"joint"`.
        element: &'static str,
        /// The shared name.
        name: String,
    },
    /// A number in the description is NaN or infinite.
    #[error("{file}: {element} '{name}': {field} is not a finite number")]
    NonFinite {
        /// The description file.
        file: PathBuf,
        /// `"link"` or `"joint"`.
        element: &'static str,
        /// The element's name.
        name: String,
        /// Which value (`"origin xyz"`, `"axis xyz"`, `"mass"`, `"inertia"`, ...).
        field: &'static str,
    },
    /// A number in the description beyond what any robot has (a joint at
    /// 1e300 m loaded, then made H singular).
    #[error("{file}: {element} '{name}': {field} must be at most {limit:e} in magnitude")]
    OutOfRange {
        /// The description file.
        file: PathBuf,
        /// `"link"` or `"joint"`.
        element: &'static str,
        /// The element's name.
        name: String,
        /// Which value (`"origin xyz"`, `"inertial origin xyz"`, `"mass"`,
        /// `"inertia"`).
        field: &'static str,
        /// The largest magnitude allowed.
        limit: f64,
    },
    /// A link with a negative mass.
    #[error("{file}: link '{link}': negative mass {mass}")]
    NegativeMass {
        /// The description file.
        file: PathBuf,
        /// The link's name.
        link: String,
        /// Its mass (kg).
        mass: f64,
    },
    /// A body's merged inertia is not physical (beyond rounding, or at all with [`super::UrdfOptions::strict`]).
    #[error("{file}: link '{link}': inertia is not physical: {reason}")]
    InvalidInertia {
        /// The description file.
        file: PathBuf,
        /// The body's link name.
        link: String,
        /// What is wrong with it, and by how much.
        reason: String,
    },
    /// A joint axis of zero length.
    #[error("{file}: joint '{joint}': axis has zero length")]
    ZeroAxis {
        /// The description file.
        file: PathBuf,
        /// The joint's name.
        joint: String,
    },
    /// A revolute or prismatic joint whose lower position limit is above
    /// its upper one.
    #[error("{file}: joint '{joint}': limit lower = {lower} is above upper = {upper}")]
    InvertedLimits {
        /// The description file.
        file: PathBuf,
        /// The joint's name.
        joint: String,
        /// The `<limit lower>`.
        lower: f64,
        /// The `<limit upper>`.
        upper: f64,
    },
    /// The `<mimic>` tags could not be honoured (with [`super::UrdfOptions::mimic`]).
    #[error(transparent)]
    Mimic(#[from] super::MimicError),
    /// A geared rotor could not be attached.
    #[error(transparent)]
    Rotor(#[from] super::RotorError),
    /// Every joint is fixed and the root is fixed: nothing moves.
    #[error("{file}: the model has no moving body (every joint is fixed and the root is fixed)")]
    NoMovingBody {
        /// The description file.
        file: PathBuf,
    },
}
