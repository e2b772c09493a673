//! The scenario file format (TOML). Every key is checked: unknown keys are
//! errors, and defaults are written out with the results.

pub use super::adaptation_schema::{AdaptationLawSpec, AdaptationSpec};
use crate::control::stepped_target::TargetStep;
use crate::control::{Reference, TaskKind, TaskReference};
use crate::sim::{Environment, Integrator};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub use super::loop_schema::*;
pub use super::stance_schema::*;

/// A whole scenario file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub robot: RobotSpec,
    #[serde(default)]
    pub estimate: EstimateSpec,
    pub controller: ControllerSpec,
    #[serde(default)]
    pub factorization: FactorizationSpec,
    /// The joint reference; for task-space controllers the posture held in
    /// the task's null space (default: hold the initial configuration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// The end-effector task of task-space controllers (recorded for any
    /// controller when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskSpec>,
    /// The contacts a stance controller assumes and its base reference
    /// (recorded for any controller when given: the `stance` metrics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stance: Option<StanceSpec>,
    /// The cut joints of a closed chain (the URDF is its spanning tree).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loop_closures: Vec<LoopClosureSpec>,
    /// The closed chain's independent joints and initial projection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_chain: Option<ClosedChainSpec>,
    #[serde(default)]
    pub initial: InitialSpec,
    #[serde(default)]
    pub simulation: SimulationSpec,
    /// What the robot can touch (rapier plant only).
    #[serde(default, skip_serializing_if = "Environment::is_empty")]
    pub environment: Environment,
    /// Pushes on the true robot, the same in every variant (the
    /// controllers do not know them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disturbances: Vec<DisturbanceSpec>,
    /// Variants run side by side; each replaces some tables of the base.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantSpec>,
    #[serde(default)]
    pub output: OutputSpec,
    /// What the app shows beside the run when the scenario is a lesson.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson: Option<LessonSpec>,
}

/// A lesson: a title, a short Markdown text, what to look at, questions,
/// and the lessons before and after it (scenario files, relative to this
/// one; each must exist and be a lesson).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonSpec {
    pub title: String,
    /// Markdown.
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub look_at: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<PathBuf>,
    /// Views of the app the lesson turns on when it opens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<LessonView>,
}

/// A view of the app a lesson can turn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LessonView {
    /// Frames parallel-transported along each run, and their angle to C*'s.
    Transport,
    /// The contorsion force (C - C*) q_dot_r at the end effector.
    Contorsion,
    /// The adaptive estimates' inertia ellipsoids against the truth's.
    Inertia,
}

/// The robot: a URDF (path relative to the scenario file) or a built-in system.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobotSpec {
    /// URDF file, relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urdf: Option<PathBuf>,
    /// Built-in system: "point_mass" or "planar_two_link_arm".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<BuiltinSystem>,
    /// "fixed" (default) or "free".
    #[serde(default)]
    pub root: RootSpec,
    /// URDF robots: refuse a body whose inertia is not physical, instead of
    /// replacing a negligible error by the nearest physical inertia with a
    /// warning (default false).
    #[serde(default)]
    pub strict: bool,
    /// URDF robots: honour `<mimic>` tags (default true: the robot's
    /// coordinates are its independent joints); false keeps every joint
    /// independent.
    #[serde(default = "yes")]
    pub mimic: bool,
    /// URDF robots: geared motor rotors added to joints (see
    /// [`RotorSpec`]); they need `mimic`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rotors: Vec<RotorSpec>,
    /// URDF robots on a contact plant: links whose collision shapes are
    /// replaced by one bounding sphere each (ball feet, e.g. Solo-12's
    /// `FL_FOOT`); see `geometry::with_collision_spheres`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collision_spheres: Vec<String>,
    /// Gravity in world coordinates, default [0, 0, -9.81].
    #[serde(default = "default_gravity")]
    pub gravity: [f64; 3],
    /// Point mass: its mass (default 1 kg).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Planar arm: link masses and lengths (default 1 kg, 1 m each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub masses: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lengths: Option<[f64; 2]>,
    /// A payload the true robot carries (unknown to the controller unless
    /// the estimate says so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<PayloadSpec>,
}

/// A system that needs no URDF.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuiltinSystem {
    /// The 3-D point mass of Wensing, Englsberger & Slotine (2023), sec.
    /// IV-A2 (`mass`).
    PointMass,
    /// A planar arm with two revolute joints (`masses`, `lengths`).
    PlanarTwoLinkArm,
}

/// How the robot's root body is joined to the world.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootSpec {
    /// Welded to the world.
    #[default]
    Fixed,
    /// A free-floating base (legged robots): unactuated, six speeds.
    Free,
}

/// The plant that integrates the true robot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlantKind {
    /// The own forward dynamics (ABA) with `integrator`; no contacts.
    #[default]
    Own,
    /// The own dynamics with a contact solver against `[environment]`.
    Contact,
    /// rapier3d's multibody with contacts (`substeps`).
    Rapier,
}

impl PlantKind {
    /// The name scenario files use.
    pub fn name(self) -> &'static str {
        match self {
            PlantKind::Own => "own",
            PlantKind::Contact => "contact",
            PlantKind::Rapier => "rapier",
        }
    }
}

fn default_gravity() -> [f64; 3] {
    [0.0, 0.0, -9.81]
}

/// A point mass rigidly attached to a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PayloadSpec {
    /// Link (URDF name) or body the payload is attached to.
    pub link: String,
    pub mass: f64,
    /// Position in the link frame.
    #[serde(default)]
    pub com: [f64; 3],
}

/// Geared motor rotors on `joints`, all with the same gear ratio, mass
/// (kg) and inertias (kg m^2) about the spin axis and a diameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RotorSpec {
    pub joints: Vec<String>,
    pub gear_ratio: f64,
    pub mass: f64,
    pub axial_inertia: f64,
    pub transverse_inertia: f64,
}

/// How the controller's model treats the robot's rotors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RotorEstimate {
    /// The clustered model the plant has (Chignoli et al. (2023); its C*
    /// as in Wensing, Englsberger & Slotine (2023), sec. VI-C).
    #[default]
    Exact,
    /// The common shortcut: each rotor welded to its joint's parent, its
    /// spin counted only as reflected inertia g^2 I_axial on H's diagonal
    /// (joint armature), the gyroscopic coupling dropped.
    Armature,
    /// No rotors at all.
    Ignored,
}

/// The controller's model: the nominal robot with every inertial parameter
/// scaled, plus an optional payload guess.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimateSpec {
    #[serde(default = "one")]
    pub scale: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<PayloadSpec>,
    /// The robot's rotors: "exact" (default), "armature" or "ignored".
    #[serde(default, skip_serializing_if = "is_default")]
    pub rotors: RotorEstimate,
}

fn is_default<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
}

fn one() -> f64 {
    1.0
}

impl Default for EstimateSpec {
    fn default() -> Self {
        EstimateSpec {
            scale: 1.0,
            payload: None,
            rotors: RotorEstimate::Exact,
        }
    }
}

/// A gain: one number for every joint, or one per joint.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Gain {
    All(f64),
    Each(Vec<f64>),
}

/// Read through a TOML value: an untagged enum's error ("data did not
/// match any variant of untagged enum Gain") named Rust's type, not what to
/// write; this one says what was given (so that an error reported at a
/// tagged table's header can point at the line giving it).
impl<'de> Deserialize<'de> for Gain {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use toml::Value;
        // A gain left out fails here with "missing field", not as a gain of
        // the wrong type.
        let given = Value::deserialize(deserializer)?;
        let number = |v: &Value| match v {
            Value::Float(x) => Some(*x),
            Value::Integer(i) => Some(*i as f64),
            _ => None,
        };
        if let Some(x) = number(&given) {
            return Ok(Gain::All(x));
        }
        let written = match &given {
            Value::Array(list) => match list.iter().map(number).collect::<Option<Vec<f64>>>() {
                Some(each) => return Ok(Gain::Each(each)),
                None => "a list with a non-number".to_string(),
            },
            Value::String(s) => format!("string {s:?}"),
            Value::Boolean(b) => format!("boolean `{b}`"),
            Value::Table(_) => "a table".to_string(),
            _ => "a date".to_string(),
        };
        Err(serde::de::Error::custom(format!(
            "a gain is a number or a list of numbers, one per joint, not {written}"
        )))
    }
}

impl Gain {
    /// The gain as n values (None if a list has the wrong length).
    pub fn expand(&self, n: usize) -> Option<Vec<f64>> {
        match self {
            Gain::All(x) => Some(vec![*x; n]),
            Gain::Each(v) if v.len() == n => Some(v.clone()),
            Gain::Each(_) => None,
        }
    }
}

/// Bounds on the adaptive estimates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundsSpec {
    pub lower: Gain,
    pub upper: Gain,
}

/// The control law and its gains.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ControllerSpec {
    SlotineLi {
        lambda: Gain,
        kd: Gain,
        #[serde(default)]
        adaptation: AdaptationSpec,
        /// Adaptation gain: Euclidean, per inertial parameter (10 per body)
        /// or one for all (geared rotors' divided by g^4); natural, per body
        /// or one for all.
        #[serde(default = "unit_gain")]
        gamma: Gain,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bounds: Option<BoundsSpec>,
    },
    PdPlus {
        kp: Gain,
        kd: Gain,
    },
    ComputedTorque {
        kp: Gain,
        kd: Gain,
    },
    /// Task space: Slotine and Li's Cartesian law with the joint-space
    /// sliding variable; `lambda` per task coordinate, `kd` and
    /// `posture_gain` (k_0) per joint.
    TaskSlotineLi {
        lambda: Gain,
        kd: Gain,
        #[serde(default = "zero_gain")]
        posture_gain: Gain,
        #[serde(default)]
        adaptation: AdaptationSpec,
        #[serde(default = "unit_gain")]
        gamma: Gain,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bounds: Option<BoundsSpec>,
    },
    /// Task space: operational-space Slotine-Li; `lambda` and `kd` per task
    /// coordinate, the posture PD per joint.
    OperationalSlotineLi {
        lambda: Gain,
        kd: Gain,
        #[serde(default = "zero_gain")]
        posture_kp: Gain,
        #[serde(default = "zero_gain")]
        posture_kd: Gain,
    },
    /// Task space: operational-space PD+; `kp` and `kd` per task coordinate,
    /// the posture PD per joint.
    OperationalPdPlus {
        kp: Gain,
        kd: Gain,
        #[serde(default = "zero_gain")]
        posture_kp: Gain,
        #[serde(default = "zero_gain")]
        posture_kd: Gain,
    },
    /// Slotine–Li on the stance manifold of `[stance]`: `lambda` and `kd`
    /// per independent speed (the base's six `[angular; linear]` first),
    /// optionally adaptive.
    StanceSlotineLi {
        lambda: Gain,
        kd: Gain,
        #[serde(default)]
        adaptation: AdaptationSpec,
        #[serde(default = "unit_gain")]
        gamma: Gain,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bounds: Option<BoundsSpec>,
    },
    /// PD+ on the stance manifold: `kp` and `kd` per independent speed.
    StancePdPlus {
        kp: Gain,
        kd: Gain,
    },
    /// The compliant balance law (Ott, Roa & Hirzinger 2011) on the
    /// `[stance]`'s supports: CoM and base-rotation springs (one number or
    /// three, world x, y, z) and a joint posture spring (one number). The
    /// defaults are the machines-in-motion `mim_control` Solo-12 set-up
    /// (`demos/demo_robot_com_ctrl_cpp.py`, see [`BalanceDefaults`]).
    Balance {
        #[serde(default = "BalanceDefaults::com_stiffness")]
        com_stiffness: Gain,
        #[serde(default = "BalanceDefaults::com_damping")]
        com_damping: Gain,
        #[serde(default = "BalanceDefaults::rotation_stiffness")]
        rotation_stiffness: Gain,
        #[serde(default = "BalanceDefaults::rotation_damping")]
        rotation_damping: Gain,
        #[serde(default = "BalanceDefaults::posture_stiffness")]
        posture_stiffness: f64,
        #[serde(default = "BalanceDefaults::posture_damping")]
        posture_damping: f64,
    },
}

/// The balance law's default gains, from the machines-in-motion
/// `mim_control` centroidal controller on Solo-12
/// (`demos/demo_robot_com_ctrl_cpp.py`: kc = 200, dc = 50 per unit mass,
/// kb = [100, 100, 200] N m/rad, db = [50, 50, 200] per unit of the base's
/// rotational inertia), in this law's units for Solo-12 (2.5 kg):
/// K_p = 2.5 * 200 = 500 N/m, D = 2.5 * 50 = 125 N s/m; K_R = 100 N m/rad
/// on every axis (isotropic, so the spring's energy 1/2 k |theta|^2 has the
/// gradient k theta: mim_control's yaw 200 is not taken); D_R = db times
/// Solo-12's rotational inertia about the base at the neutral pose (the
/// CRBA's angular diagonal, [0.0398, 0.0735, 0.0803] kg m^2, as mim_control
/// takes it from Pinocchio's mass matrix): [2.0, 3.7, 16.1] N m s/rad. The
/// posture gains are not from mim_control (Solo-12's
/// legs have no posture joint: every joint moves a foot); 50 N m/rad and
/// 1 N m s/rad hold a humanoid's arms.
pub struct BalanceDefaults;

impl BalanceDefaults {
    pub fn com_stiffness() -> Gain {
        Gain::All(500.0)
    }
    pub fn com_damping() -> Gain {
        Gain::All(125.0)
    }
    pub fn rotation_stiffness() -> Gain {
        Gain::All(100.0)
    }
    pub fn rotation_damping() -> Gain {
        Gain::Each(vec![2.0, 3.7, 16.1])
    }
    pub fn posture_stiffness() -> f64 {
        50.0
    }
    pub fn posture_damping() -> f64 {
        1.0
    }
}

impl ControllerSpec {
    /// The law's name, as in scenario files.
    pub fn kind(&self) -> &'static str {
        match self {
            ControllerSpec::SlotineLi { .. } => "slotine_li",
            ControllerSpec::PdPlus { .. } => "pd_plus",
            ControllerSpec::ComputedTorque { .. } => "computed_torque",
            ControllerSpec::TaskSlotineLi { .. } => "task_slotine_li",
            ControllerSpec::OperationalSlotineLi { .. } => "operational_slotine_li",
            ControllerSpec::OperationalPdPlus { .. } => "operational_pd_plus",
            ControllerSpec::StanceSlotineLi { .. } => "stance_slotine_li",
            ControllerSpec::StancePdPlus { .. } => "stance_pd_plus",
            ControllerSpec::Balance { .. } => "balance",
        }
    }

    /// Whether the law stands on the `[stance]`.
    pub fn is_stance(&self) -> bool {
        matches!(
            self,
            ControllerSpec::StanceSlotineLi { .. }
                | ControllerSpec::StancePdPlus { .. }
                | ControllerSpec::Balance { .. }
        )
    }

    /// Whether the law tracks the `[task]`.
    pub fn is_task_space(&self) -> bool {
        matches!(
            self,
            ControllerSpec::TaskSlotineLi { .. }
                | ControllerSpec::OperationalSlotineLi { .. }
                | ControllerSpec::OperationalPdPlus { .. }
        )
    }
}

fn unit_gain() -> Gain {
    Gain::All(1.0)
}

fn zero_gain() -> Gain {
    Gain::All(0.0)
}

/// An end-effector task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    /// The controlled frame: a URDF link or joint name.
    pub frame: String,
    /// "pose" (default: orientation and position) or "position".
    #[serde(default)]
    pub kind: TaskKind,
    /// Damping of the generalized inverses at a singularity, relative to
    /// the inverted matrix's scale (0: exact inverses everywhere).
    #[serde(default = "default_task_damping")]
    pub damping: f64,
    /// The damping acts where the task Jacobian's smallest singular value
    /// falls below this fraction of its RMS singular value; the summary
    /// warns when a run got there.
    #[serde(default = "default_singular_region")]
    pub singular_region: f64,
    /// The position error (m) and orientation error (rad) the reference
    /// velocity feeds back are limited smoothly to these, so that a far
    /// target asks for a bounded speed (`inf`: no limit).
    #[serde(default = "default_position_error_limit")]
    pub position_error_limit: f64,
    #[serde(default = "default_orientation_error_limit")]
    pub orientation_error_limit: f64,
    pub reference: TaskReference,
}

impl TaskSpec {
    /// A task on `frame` with the default kind (pose), damping and limits.
    pub fn new(frame: impl Into<String>, kind: TaskKind, reference: TaskReference) -> Self {
        TaskSpec {
            frame: frame.into(),
            kind,
            damping: default_task_damping(),
            singular_region: default_singular_region(),
            position_error_limit: default_position_error_limit(),
            orientation_error_limit: default_orientation_error_limit(),
            reference,
        }
    }
}

fn default_task_damping() -> f64 {
    0.05
}

fn default_singular_region() -> f64 {
    0.1
}

fn default_position_error_limit() -> f64 {
    0.2
}

fn default_orientation_error_limit() -> f64 {
    1.0
}

/// The Coriolis factorization the controller uses. The kinds without
/// parameters are empty structs, not unit variants: serde lets a unit
/// variant of a tagged enum take any key (`{ kind = "classic", beta = 2 }`
/// ran the classic C without a word), `deny_unknown_fields` holds for
/// structs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FactorizationSpec {
    Christoffel {},
    Classic {},
    Alternate {},
    /// C* + beta S^T (S v x) S on the given speed triples (default: all i < j < k).
    Torsion {
        beta: f64,
        /// `beta(q) = beta + sum of gradient[l] q_l` (optional).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        beta_gradient: Vec<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        triples: Option<Vec<[usize; 3]>>,
    },
    /// C* in joint space, plus beta S^T (S x_dot x) S on triples of task
    /// coordinates (default: the three position coordinates); for the
    /// operational-space controllers.
    TaskTorsion {
        beta: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        triples: Option<Vec<[usize; 3]>>,
    },
}

impl Default for FactorizationSpec {
    fn default() -> Self {
        FactorizationSpec::Christoffel {}
    }
}

/// Initial state; zeros (neutral configuration) by default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v: Option<Vec<f64>>,
    /// Instead of `v`: the task's initial twist (world-aligned `[angular;
    /// linear]`, or linear for a position task), reached by the joint
    /// speeds of least norm, v = J^T (J J^T)^-1 x_dot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_velocity: Option<Vec<f64>>,
}

/// Integration and timing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// Seconds.
    #[serde(default = "default_duration")]
    pub duration: f64,
    /// Integrator step, seconds.
    #[serde(default = "default_step")]
    pub step: f64,
    /// "own" (the project's ABA and `integrator`) or "rapier" (rapier3d's
    /// multibody, with contacts against the environment).
    #[serde(default)]
    pub plant: PlantKind,
    /// "rk4" or "semi_implicit_euler" (own plant).
    #[serde(default = "default_integrator")]
    pub integrator: Integrator,
    /// Rapier plant: solver sub-steps per step (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substeps: Option<usize>,
    /// Contact and rapier plants: viscous damping on every joint but a free
    /// root, N m s/rad or N s/m (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint_damping: Option<f64>,
    /// Control rate in Hz (zero-order hold); absent: continuous control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_rate: Option<f64>,
    /// Seconds between recorded samples.
    #[serde(default = "default_record_period")]
    pub record_period: f64,
}

fn default_duration() -> f64 {
    10.0
}
fn default_step() -> f64 {
    1e-3
}
fn default_integrator() -> Integrator {
    Integrator::Rk4
}
/// `simulation.record_period` when a scenario does not give it, s.
pub(crate) fn default_record_period() -> f64 {
    0.01
}

impl Default for SimulationSpec {
    fn default() -> Self {
        SimulationSpec {
            duration: default_duration(),
            step: default_step(),
            plant: PlantKind::Own,
            integrator: default_integrator(),
            substeps: None,
            joint_damping: None,
            control_rate: None,
            record_period: default_record_period(),
        }
    }
}

/// One variant: a name and the tables it replaces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factorization: Option<FactorizationSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<ControllerSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<EstimateSpec>,
}

/// What to write besides the CSV files and the summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// PNG plots of trajectories, Lyapunov values, errors, parameters.
    #[serde(default = "yes")]
    pub plots: bool,
}

fn yes() -> bool {
    true
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec { plots: true }
    }
}

/// A push on a link point: a wrench with a time profile, or a spring-damper
/// toward a moving world point (the headless form of a mouse drag).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DisturbanceSpec {
    /// Force (N) and torque (N m) at `point` (link frame, m), in world axes
    /// or the link's, scaled by `profile`.
    Wrench {
        link: String,
        #[serde(default)]
        point: [f64; 3],
        #[serde(default)]
        force: [f64; 3],
        #[serde(default)]
        torque: [f64; 3],
        #[serde(default)]
        axes: WrenchAxes,
        profile: crate::sim::Profile,
    },
    /// f = stiffness (a(t) - p) - damping p_dot on the link point p; the
    /// anchor a(t) follows `path` (a task reference's position, starting at
    /// the point's initial position).
    Spring {
        link: String,
        #[serde(default)]
        point: [f64; 3],
        stiffness: f64,
        #[serde(default)]
        damping: f64,
        path: TaskReference,
    },
    /// The same spring toward an anchor moved in steps: a mouse drag
    /// recorded by the app. Anchor i (world [x, y, z]) holds for t > its
    /// time; the spring acts on (first anchor's time, release], on every
    /// variant or only on `variant`.
    Drag {
        link: String,
        #[serde(default)]
        point: [f64; 3],
        stiffness: f64,
        #[serde(default)]
        damping: f64,
        anchors: Vec<TargetStep>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        release: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variant: Option<String>,
    },
}

impl DisturbanceSpec {
    /// The link pushed.
    pub fn link(&self) -> &str {
        match self {
            DisturbanceSpec::Wrench { link, .. }
            | DisturbanceSpec::Spring { link, .. }
            | DisturbanceSpec::Drag { link, .. } => link,
        }
    }

    /// The only variant pushed, if not all.
    pub fn variant(&self) -> Option<&str> {
        match self {
            DisturbanceSpec::Drag { variant, .. } => variant.as_deref(),
            _ => None,
        }
    }
}

/// The axes a wrench is given in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WrenchAxes {
    #[default]
    World,
    Link,
}
