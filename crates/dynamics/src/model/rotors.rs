//! Geared motor rotors added to a URDF's joints without editing the file:
//! each rotor is a body on its joint's parent link, at the joint origin,
//! turning about the joint axis through a continuous joint that mimics the
//! driven joint with the gear ratio as multiplier (q_rotor = g q_joint).
//! This is the model of `tests/fixtures/robots/panda_rotors.urdf`: each
//! joint and its rotor form a cluster, a local loop closure through the
//! gears (Chignoli et al. (2023)), whose C-bar* is that of Wensing,
//! Englsberger & Slotine (2023), sec. VI-C.

use super::{Model, ModelError, UrdfOptions};
use crate::input::{read_text, InputKind};
use std::path::{Path, PathBuf};

/// One geared rotor: the joint it drives, the gear ratio, and the rotor's
/// mass and inertia about its spin axis (axial) and a diameter (transverse).
#[derive(Clone, Debug, PartialEq)]
pub struct Rotor {
    /// The driven joint's name (revolute or continuous).
    pub joint: String,
    /// Gear ratio g, q_rotor = g q_joint (nonzero).
    pub gear_ratio: f64,
    /// The rotor's mass (kg, positive).
    pub mass: f64,
    /// Moment of inertia about the spin axis (kg m^2).
    pub axial_inertia: f64,
    /// Moment of inertia about a diameter through the center of mass (kg m^2).
    pub transverse_inertia: f64,
}

impl Rotor {
    /// The rotor's link name in the model (`<joint>_rotor`).
    pub fn link_name(joint: &str) -> String {
        format!("{joint}_rotor")
    }
}

/// A rotor that cannot be added; each names the file and the joint.
#[derive(Debug, thiserror::Error)]
pub enum RotorError {
    /// No joint of the description has the rotor's joint name.
    #[error("{file}: a rotor drives joint '{joint}', which does not exist")]
    MissingJoint {
        /// The description file.
        file: PathBuf,
        /// The joint name.
        joint: String,
    },
    /// The driven joint is not revolute or continuous.
    #[error("{file}: a rotor drives joint '{joint}', which is {kind} (rotors turn with revolute or continuous joints)")]
    NotRevolute {
        /// The description file.
        file: PathBuf,
        /// The driven joint.
        joint: String,
        /// Its URDF type.
        kind: String,
    },
    /// Rotors were given but [`UrdfOptions::mimic`] is off.
    #[error("{file}: rotors are mimic joints of the joints they drive; they need mimic tags honoured (robot.mimic = true)")]
    NeedsMimic {
        /// The description file.
        file: PathBuf,
    },
    /// Two rotors drive the same joint.
    #[error("{file}: two rotors drive joint '{joint}'")]
    Duplicate {
        /// The description file.
        file: PathBuf,
        /// The driven joint.
        joint: String,
    },
    /// A rotor's number is not finite, or the gear ratio is zero, the mass not positive, or the moments not those of a body symmetric about its axis.
    #[error("{file}: rotor of joint '{joint}': {field} = {} {problem}", shown(*.value))]
    Invalid {
        /// The description file.
        file: PathBuf,
        /// The driven joint.
        joint: String,
        /// The rotor field (`"gear_ratio"`, `"mass"`, ...).
        field: &'static str,
        /// Its value.
        value: f64,
        /// What is wrong with it.
        problem: &'static str,
    },
}

impl Model {
    /// Loads a URDF file and adds geared `rotors` to its joints. The rotor
    /// joints are mimic joints, so `options.mimic` must be on (off, they
    /// would be free, undriven joints, which is refused).
    ///
    /// # Errors
    /// [`ModelError::Rotor`] when rotors are given with `options.mimic` off, a rotor is
    /// invalid, drives a missing or non-revolute joint, or shares its joint with
    /// another; otherwise as [`Model::from_urdf_file`].
    pub fn from_urdf_file_with_rotors(
        path: impl AsRef<Path>,
        options: UrdfOptions,
        rotors: &[Rotor],
    ) -> Result<Model, ModelError> {
        let path = path.as_ref();
        if !options.mimic && !rotors.is_empty() {
            return Err(RotorError::NeedsMimic {
                file: path.to_path_buf(),
            }
            .into());
        }
        let text = read_text(path, InputKind::Urdf)?;
        let (mut robot, misspelt) = super::urdf::parse_urdf_with_warnings(&text, path)?;
        add_rotors(&mut robot, rotors, path)?;
        let mut model = super::urdf::build_parsed(&robot, path, options)?;
        model.warnings.extend(misspelt);
        Ok(model)
    }
}

/// Appends each rotor's link and mimic joint to the parsed `robot`.
fn add_rotors(robot: &mut urdf_rs::Robot, rotors: &[Rotor], file: &Path) -> Result<(), ModelError> {
    for (i, rotor) in rotors.iter().enumerate() {
        let invalid = |field, value, problem| RotorError::Invalid {
            file: file.to_path_buf(),
            joint: rotor.joint.clone(),
            field,
            value,
            problem,
        };
        check_rotor(rotor, invalid)?;
        if rotors[..i].iter().any(|r| r.joint == rotor.joint) {
            return Err(RotorError::Duplicate {
                file: file.to_path_buf(),
                joint: rotor.joint.clone(),
            }
            .into());
        }
        let Some(driven) = robot.joints.iter().find(|j| j.name == rotor.joint) else {
            return Err(RotorError::MissingJoint {
                file: file.to_path_buf(),
                joint: rotor.joint.clone(),
            }
            .into());
        };
        use urdf_rs::JointType as T;
        if !matches!(driven.joint_type, T::Revolute | T::Continuous) {
            return Err(RotorError::NotRevolute {
                file: file.to_path_buf(),
                joint: rotor.joint.clone(),
                kind: format!("{:?}", driven.joint_type).to_lowercase(),
            }
            .into());
        }
        let link = Rotor::link_name(&rotor.joint);
        let joint = urdf_rs::Joint {
            name: format!("{link}_joint"),
            joint_type: T::Continuous,
            child: urdf_rs::LinkName { link: link.clone() },
            limit: urdf_rs::JointLimit::default(),
            mimic: Some(urdf_rs::Mimic {
                joint: rotor.joint.clone(),
                multiplier: Some(rotor.gear_ratio),
                offset: Some(0.0),
            }),
            dynamics: None,
            safety_controller: None,
            calibration: None,
            ..driven.clone()
        };
        robot.links.push(urdf_rs::Link {
            name: link,
            inertial: rotor_inertial(rotor, &joint.axis.xyz.0),
            visual: Vec::new(),
            collision: Vec::new(),
        });
        robot.joints.push(joint);
    }
    Ok(())
}

/// A number as a message shows it: plainly, or in exponent form when it
/// would take more than a dozen digits.
fn shown(x: f64) -> String {
    if x != 0.0 && !(1e-6..1e9).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// The largest magnitude of a rotor's gear ratio, mass (kg) and moments
/// (kg m^2): real gear trains are below 1e3, and the reflected inertia
/// g^2 I_axial must stay far from overflow.
pub const MAX_ROTOR_NUMBER: f64 = 1e4;

/// Finite values at most [`MAX_ROTOR_NUMBER`] in magnitude, a nonzero gear ratio, a positive mass, and moments of a
/// body symmetric about its axis: 0 <= axial <= 2 transverse (the triangle
/// inequality of principal moments).
fn check_rotor(
    rotor: &Rotor,
    invalid: impl Fn(&'static str, f64, &'static str) -> RotorError,
) -> Result<(), RotorError> {
    let fields = [
        ("gear_ratio", rotor.gear_ratio),
        ("mass", rotor.mass),
        ("axial_inertia", rotor.axial_inertia),
        ("transverse_inertia", rotor.transverse_inertia),
    ];
    for (field, value) in fields {
        if !value.is_finite() {
            return Err(invalid(field, value, "is not a finite number"));
        }
        if value.abs() > MAX_ROTOR_NUMBER {
            return Err(invalid(
                field,
                value,
                "exceeds 1e4 in magnitude (a gear ratio beyond 1e4, or a rotor of more than 1e4 kg or kg m^2, is not a motor rotor; g^2 I_axial enters H)",
            ));
        }
    }
    if rotor.gear_ratio == 0.0 {
        return Err(invalid("gear_ratio", 0.0, "would hold the rotor still"));
    }
    if rotor.mass <= 0.0 {
        return Err(invalid("mass", rotor.mass, "must be positive"));
    }
    if rotor.axial_inertia <= 0.0 {
        return Err(invalid(
            "axial_inertia",
            rotor.axial_inertia,
            "must be positive",
        ));
    }
    if rotor.transverse_inertia < 0.5 * rotor.axial_inertia {
        return Err(invalid(
            "transverse_inertia",
            rotor.transverse_inertia,
            "is below half the axial inertia (no body has such moments)",
        ));
    }
    Ok(())
}

/// The rotor's inertia at its centre (the joint origin), axisymmetric
/// about the joint axis `a` (in the joint frame):
/// I = I_t (1 - a a^T) + I_a a a^T.
fn rotor_inertial(rotor: &Rotor, axis: &[f64; 3]) -> urdf_rs::Inertial {
    // A zero axis is refused with the driven joint; any unit vector will do.
    let norm = axis.iter().map(|x| x * x).sum::<f64>().sqrt();
    let a = if norm > 0.0 {
        axis.map(|x| x / norm)
    } else {
        [0.0, 0.0, 1.0]
    };
    let (it, ia) = (rotor.transverse_inertia, rotor.axial_inertia);
    let entry = |i: usize, j: usize| {
        let delta = if i == j { 1.0 } else { 0.0 };
        it * (delta - a[i] * a[j]) + ia * a[i] * a[j]
    };
    urdf_rs::Inertial {
        origin: urdf_rs::Pose::default(),
        mass: urdf_rs::Mass { value: rotor.mass },
        inertia: urdf_rs::Inertia {
            ixx: entry(0, 0),
            ixy: entry(0, 1),
            ixz: entry(0, 2),
            iyy: entry(1, 1),
            iyz: entry(1, 2),
            izz: entry(2, 2),
        },
    }
}
