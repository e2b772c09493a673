//! Evaluation in the reference-data format (`tests/fixtures/reference`,
//! produced by Pinocchio): read states, write this project's values for the
//! same quantities, in the file's joint order and conventions.
//!
//! The file's conventions differ from the core's in two places, converted
//! here: a free root's speeds are `[linear; angular]` (body frame) and frame
//! Jacobian rows are `[linear; angular]`.

use crate::algorithms::{
    aba, check_dynamics_size, coriolis_matrix_and_derivatives, forward_kinematics, frame_jacobian,
    frame_placement, generalized_gravity, joint_torque_regressor, kinetic_energy,
    operational_space_inverse_inertia, rnea, BodyFactorization, JacobianFrame,
    OperationalSpaceWorkspace, TooManyDofs, Workspace, PARAMETERS_PER_BODY,
};
use crate::factorization::{diagnose, Factorization, FactorizationError};
use crate::model::{ArmatureError, Joint, Model};
use crate::spatial::Vec3;
use nalgebra::{DMatrix, DVector};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

mod stream;
pub use stream::{evaluate_stream, mimic_requested};

/// Why an input file could not be evaluated.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("joint '{0}' in joint_names is not a joint of the model")]
    UnknownJoint(String),
    #[error("the model's joint '{0}' is missing from joint_names")]
    MissingJoint(String),
    #[error("joint '{0}' appears twice in joint_names")]
    DuplicateJoint(String),
    #[error("joint '{0}' in joint_names mimics another joint: with mimic joints honoured, joint_names lists the independent joints only")]
    MimicJoint(String),
    #[error(
        "the file is for mimic joints (\"mimic\": true) but the model was loaded without them"
    )]
    MimicNotLoaded,
    #[error("frame '{frame}' (sample {sample}) is not a link or joint of the model")]
    UnknownFrame { sample: usize, frame: String },
    #[error("field '{0}' is missing or is not what the format requires ({1})")]
    Field(String, &'static str),
    /// A field the samples need, given after them: the file is evaluated
    /// as it is read.
    #[error("field '{0}' comes after samples: give it before them (the samples are evaluated as they are read)")]
    AfterSamples(String),
    #[error(transparent)]
    Factorization(#[from] FactorizationError),
    #[error(transparent)]
    Armature(#[from] ArmatureError),
    #[error("the robot has {0}")]
    TooManyDofs(#[from] TooManyDofs),
    #[error("sample {sample}: {message}")]
    Sample { sample: usize, message: String },
    #[error("not valid JSON: {0}")]
    Json(serde_json::Error),
    #[error("cannot write the output: {0}")]
    Write(#[from] std::io::Error),
    #[error("sample {sample}: {quantity} is not finite (the state or the torsion is too large for f64 arithmetic)")]
    NonFinite { sample: usize, quantity: String },
    #[error("sample {sample}: '{field}' must be {expected} finite numbers")]
    BadVector {
        sample: usize,
        field: &'static str,
        expected: usize,
    },
}

/// Maps the file's joint order to the model's speed and configuration order.
#[derive(Clone, Debug)]
pub struct JointMap {
    /// `v_model[v_index[r]]` is the file's speed r.
    pub v_index: Vec<usize>,
    /// `q_model[q_index[r]]` is the file's configuration entry r.
    pub q_index: Vec<usize>,
    /// Body of each file joint, in file order, then the bodies of mimic
    /// joints in model order (the regressor's and parameters' blocks).
    pub bodies: Vec<usize>,
}

impl JointMap {
    /// Builds the map from the file's `joint_names`; a free root is
    /// `root_joint`. Every independent model joint must appear exactly
    /// once (with mimic joints honoured, the mimicking ones never).
    pub fn new(model: &Model, joint_names: &[String]) -> Result<Self, EvalError> {
        let mut seen = vec![false; model.nbodies()];
        let (mut v_index, mut q_index, mut bodies) = (Vec::new(), Vec::new(), Vec::new());
        for name in joint_names {
            let b = model
                .body_by_joint_name(name)
                .ok_or_else(|| EvalError::UnknownJoint(name.clone()))?;
            if std::mem::replace(&mut seen[b], true) {
                return Err(EvalError::DuplicateJoint(name.clone()));
            }
            let (vi, qi) = model
                .system_indices(b)
                .ok_or_else(|| EvalError::MimicJoint(name.clone()))?;
            let body = &model.bodies[b];
            match body.joint {
                // File: [linear; angular]; model: [angular; linear].
                Joint::Free => v_index.extend((0..6).map(|r| vi + (r + 3) % 6)),
                _ => v_index.push(vi),
            }
            q_index.extend(qi..qi + body.joint.nq());
            bodies.push(b);
        }
        let independent = |b: &usize| model.system_indices(*b).is_some();
        if let Some(b) = (0..model.nbodies()).find(|b| !seen[*b] && independent(b)) {
            return Err(EvalError::MissingJoint(model.bodies[b].joint_name.clone()));
        }
        bodies.extend((0..model.nbodies()).filter(|b| !independent(b)));
        Ok(JointMap {
            v_index,
            q_index,
            bodies,
        })
    }

    fn vector_to_model(index: &[usize], file: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; file.len()];
        for (r, &i) in index.iter().enumerate() {
            out[i] = file[r];
        }
        out
    }

    /// A file speed-ordered vector in model order.
    pub fn v_to_model(&self, file: &[f64]) -> Vec<f64> {
        Self::vector_to_model(&self.v_index, file)
    }

    /// A file configuration in model order.
    pub fn q_to_model(&self, file: &[f64]) -> Vec<f64> {
        Self::vector_to_model(&self.q_index, file)
    }

    /// A model speed-ordered vector in file order.
    pub fn v_to_file(&self, model: &DVector<f64>) -> Vec<f64> {
        self.v_index.iter().map(|&i| model[i]).collect()
    }

    /// A model nv x nv matrix in file order, as rows.
    pub fn matrix_to_file(&self, m: &DMatrix<f64>) -> Vec<Vec<f64>> {
        self.v_index
            .iter()
            .map(|&i| self.v_index.iter().map(|&j| m[(i, j)]).collect())
            .collect()
    }
}

/// One input state; fields other than these are ignored.
#[derive(Debug, Deserialize)]
pub struct Sample {
    #[serde(default)]
    pub q: Option<Vec<f64>>,
    #[serde(default)]
    pub v: Option<Vec<f64>>,
    #[serde(default)]
    pub a: Option<Vec<f64>>,
    #[serde(default)]
    pub v_r: Option<Vec<f64>>,
    #[serde(default)]
    pub a_r: Option<Vec<f64>>,
    /// The frames asked for, by name (their reference values are not read).
    #[serde(default)]
    pub frames: Option<BTreeMap<String, IgnoredAny>>,
}

/// `field` of sample `index`: `len` finite numbers.
fn vector<'s>(
    field: &'s Option<Vec<f64>>,
    index: usize,
    name: &'static str,
    len: usize,
) -> Result<&'s [f64], EvalError> {
    field
        .as_deref()
        .filter(|v| v.len() == len && v.iter().all(|x| x.is_finite()))
        .ok_or(EvalError::BadVector {
            sample: index,
            field: name,
            expected: len,
        })
}

/// A 6 x nv Jacobian (model rows `[angular; linear]`) in file order and rows `[linear; angular]`.
fn jacobian_to_file(map: &JointMap, j: &DMatrix<f64>) -> Vec<Vec<f64>> {
    (0..6)
        .map(|r| map.v_index.iter().map(|&c| j[((r + 3) % 6, c)]).collect())
        .collect()
}

/// The file's `joint_names`.
pub(crate) fn joint_names(value: Option<&Value>) -> Result<Vec<String>, EvalError> {
    value
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(|x| x.as_str().map(String::from)).collect())
        .ok_or(EvalError::Field(
            "joint_names".into(),
            "an array of joint names, given before samples",
        ))
}

/// The file's `gravity`: three finite numbers.
pub(crate) fn gravity(value: &Value) -> Result<Vec3, EvalError> {
    let g: Option<Vec<f64>> = value
        .as_array()
        .and_then(|a| a.iter().map(Value::as_f64).collect());
    g.filter(|g| g.len() == 3 && g.iter().all(|x| x.is_finite()))
        .map(|g| Vec3::new(g[0], g[1], g[2]))
        .ok_or(EvalError::Field("gravity".into(), "3 finite numbers"))
}

/// Gives `model` the file's `armature` (absent: none): one number per
/// speed in the file's order (`joint_names`, a free root's speeds
/// `[linear; angular]`), as Pinocchio's `model.armature`.
pub(crate) fn set_armature(
    model: &mut Model,
    joint_names: &[String],
    value: Option<&Value>,
) -> Result<(), EvalError> {
    let Some(value) = value else {
        return Ok(());
    };
    let map = JointMap::new(model, joint_names)?;
    let armature: Option<Vec<f64>> = value
        .as_array()
        .and_then(|a| a.iter().map(Value::as_f64).collect());
    let armature = armature
        .filter(|a| a.len() == map.v_index.len())
        .ok_or(EvalError::Field(
            "armature".into(),
            "one number per speed, in joint_names order",
        ))?;
    Ok(model.set_armature(&map.v_to_model(&armature))?)
}

/// Whether the file's `mimic` flag is set (absent: no).
pub(crate) fn mimic_flag(value: Option<&Value>) -> Result<bool, EvalError> {
    match value {
        None => Ok(false),
        Some(v) => v
            .as_bool()
            .ok_or(EvalError::Field("mimic".into(), "true or false")),
    }
}

/// Refuses a file for mimic joints on a model loaded without them.
pub(crate) fn check_mimic(model: &Model, value: Option<&Value>) -> Result<(), EvalError> {
    if mimic_flag(value)? && model.coupling().is_none() {
        return Err(EvalError::MimicNotLoaded);
    }
    Ok(())
}

/// What `generated_by` says.
pub(crate) fn generated_by() -> String {
    format!("passivity-lab {}", env!("CARGO_PKG_VERSION"))
}

/// Evaluates samples one at a time on a model, with buffers allocated once.
pub struct Evaluator<'m> {
    model: &'m Model,
    factorization: &'m Factorization,
    map: JointMap,
    ws: Workspace,
    gamma: Vec<f64>,
}

impl<'m> Evaluator<'m> {
    /// Checks the factorization and the file's joint names against the model.
    pub fn new(
        model: &'m Model,
        joint_names: &[String],
        factorization: &'m Factorization,
    ) -> Result<Self, EvalError> {
        check_dynamics_size(model)?;
        factorization.validate(model)?;
        let map = JointMap::new(model, joint_names)?;
        let nv = model.nv;
        Ok(Evaluator {
            model,
            factorization,
            map,
            ws: Workspace::new(model),
            gamma: vec![0.0; nv * nv * nv],
        })
    }

    /// The inertial parameters of the model's bodies, in the file's joint order.
    pub fn inertial_parameters(&self) -> Vec<f64> {
        self.map
            .bodies
            .iter()
            .flat_map(|&b| self.model.bodies[b].inertia.parameters())
            .collect()
    }

    /// This project's values for sample `s` (index `s` names it in errors).
    pub fn sample(&mut self, s: usize, sample: &Sample) -> Result<Value, EvalError> {
        let (model, map, factorization) = (self.model, &self.map, self.factorization);
        let (ws, gamma) = (&mut self.ws, &mut self.gamma);
        let (nq, nv) = (model.nq, model.nv);
        let q = map.q_to_model(vector(&sample.q, s, "q", nq)?);
        let v = map.v_to_model(vector(&sample.v, s, "v", nv)?);
        let a = map.v_to_model(vector(&sample.a, s, "a", nv)?);
        let mut out = Map::new();
        for (key, x) in [
            ("q", &sample.q),
            ("v", &sample.v),
            ("a", &sample.a),
            ("v_r", &sample.v_r),
            ("a_r", &sample.a_r),
        ] {
            if let Some(x) = x {
                out.insert(key.into(), json!(x));
            }
        }
        let tau = rnea(model, ws, &q, &v, &a).clone();
        out.insert("tau_rnea".into(), json!(map.v_to_file(&tau)));
        out.insert(
            "gravity".into(),
            json!(map.v_to_file(generalized_gravity(model, ws, &q))),
        );
        coriolis_matrix_and_derivatives(
            model,
            ws,
            &q,
            &v,
            BodyFactorization::ChristoffelConsistent,
        );
        out.insert(
            "mass_matrix".into(),
            json!(map.matrix_to_file(&ws.mass_matrix)),
        );
        out.insert(
            "hdot".into(),
            json!(map.matrix_to_file(&ws.mass_matrix_dot)),
        );
        let c = factorization.coriolis_matrix(model, ws, &q, &v);
        out.insert("coriolis_matrix".into(), json!(map.matrix_to_file(c)));
        out.insert(
            "coriolis_force".into(),
            json!(map.v_to_file(&(c * DVector::from_column_slice(&v)))),
        );
        out.insert(
            "aba_ddq".into(),
            json!(map.v_to_file(aba(model, ws, &q, &v, tau.as_slice()))),
        );
        factorization.connection_coefficients(model, ws, &q, gamma);
        let g: Vec<Vec<Vec<f64>>> = map
            .v_index
            .iter()
            .map(|&i| {
                map.v_index
                    .iter()
                    .map(|&j| {
                        map.v_index
                            .iter()
                            .map(|&k| gamma[(i * nv + j) * nv + k])
                            .collect()
                    })
                    .collect()
            })
            .collect();
        out.insert("christoffel_first_kind".into(), json!(g));
        if sample.v_r.is_some() || sample.a_r.is_some() {
            let v_r = map.v_to_model(vector(&sample.v_r, s, "v_r", nv)?);
            let a_r = map.v_to_model(vector(&sample.a_r, s, "a_r", nv)?);
            let t = factorization.slotine_li_torque(model, ws, &q, &v, &v_r, &a_r);
            out.insert("tau_slotine_li".into(), json!(map.v_to_file(t)));
        }
        let d = diagnose(model, ws, &q, &v, factorization);
        out.insert(
            "diagnostics".into(),
            json!({"skew_residual": d.skew_residual, "validity_residual": d.validity_residual, "torsion_norm": d.torsion_norm}),
        );
        out.insert(
            "kinetic_energy".into(),
            json!(kinetic_energy(model, ws, &q, &v)),
        );
        let y = joint_torque_regressor(model, ws, &q, &v, &a);
        let rows: Vec<Vec<f64>> = map
            .v_index
            .iter()
            .map(|&r| {
                map.bodies
                    .iter()
                    .flat_map(|&b| {
                        (0..PARAMETERS_PER_BODY).map(move |p| PARAMETERS_PER_BODY * b + p)
                    })
                    .map(|c| y[(r, c)])
                    .collect()
            })
            .collect();
        out.insert("torque_regressor".into(), json!(rows));
        if let Some(frames) = &sample.frames {
            let ids = frames
                .keys()
                .map(|name| {
                    model
                        .frame_by_name(name)
                        .ok_or_else(|| EvalError::UnknownFrame {
                            sample: s,
                            frame: name.clone(),
                        })
                })
                .collect::<Result<Vec<usize>, EvalError>>()?;
            let mut os = OperationalSpaceWorkspace::new(model, &ids);
            let lambda_inv = operational_space_inverse_inertia(model, ws, &mut os, &q).clone();
            forward_kinematics(model, ws, &q);
            let mut out_frames = Map::new();
            for (a, (name, &f)) in frames.keys().zip(&ids).enumerate() {
                // The 6x6 diagonal block, rows and columns [linear; angular].
                let block: Vec<Vec<f64>> = (0..6)
                    .map(|r| {
                        (0..6)
                            .map(|c| lambda_inv[(6 * a + (r + 3) % 6, 6 * a + (c + 3) % 6)])
                            .collect()
                    })
                    .collect();
                let x = frame_placement(model, ws, f);
                let rot: Vec<Vec<f64>> = (0..3)
                    .map(|r| (0..3).map(|c| x.rot[(r, c)]).collect())
                    .collect();
                let local =
                    jacobian_to_file(map, frame_jacobian(model, ws, f, JacobianFrame::Local));
                let world = jacobian_to_file(
                    map,
                    frame_jacobian(model, ws, f, JacobianFrame::WorldAligned),
                );
                out_frames.insert(
                    name.clone(),
                    json!({"position": [x.trans.x, x.trans.y, x.trans.z], "rotation": rot,
                           "jacobian_local": local, "jacobian_world_aligned": world, "lambda_inv_local": block}),
                );
            }
            out.insert("frames".into(), Value::Object(out_frames));
        }
        let out = Value::Object(out);
        match non_finite_at(&out) {
            Some(quantity) => Err(EvalError::NonFinite {
                sample: s,
                quantity,
            }),
            None => Ok(out),
        }
    }
}

/// Where the first non-finite number of a sample's output is, as a path
/// like `coriolis_matrix[0][2]` or `frames.tool0.position[1]` (serde_json
/// writes NaN and infinities as null, and the output has no other null).
fn non_finite_at(value: &Value) -> Option<String> {
    match value {
        Value::Null => Some(String::new()),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| non_finite_at(x).map(|p| format!("[{i}]{p}"))),
        Value::Object(m) => m.iter().find_map(|(k, x)| {
            non_finite_at(x).map(|p| {
                let sep = if p.starts_with('[') || p.is_empty() {
                    ""
                } else {
                    "."
                };
                format!("{k}{sep}{p}")
            })
        }),
        _ => None,
    }
}

/// Evaluates every sample of `input` (the reference-data format) on `model`
/// and returns the same structure with this project's values;
/// `coriolis_matrix`, `coriolis_force`, `christoffel_first_kind` (its
/// connection coefficients) and `tau_slotine_li` are those of
/// `factorization`, and each sample gains `diagnostics`. For files too
/// large to hold in memory, see [`evaluate_stream`].
pub fn evaluate(
    model: &mut Model,
    input: &Value,
    factorization: &Factorization,
) -> Result<Value, EvalError> {
    let names = joint_names(input.get("joint_names"))?;
    check_mimic(model, input.get("mimic"))?;
    if let Some(g) = input.get("gravity") {
        model.gravity = gravity(g)?;
    }
    set_armature(model, &names, input.get("armature"))?;
    let samples = input
        .get("samples")
        .and_then(Value::as_array)
        .ok_or(EvalError::Field("samples".into(), "an array of states"))?;
    let mut evaluator = Evaluator::new(model, &names, factorization)?;
    let out_samples = samples
        .iter()
        .enumerate()
        .map(|(s, value)| {
            let sample = Sample::deserialize(value).map_err(|e| EvalError::Sample {
                sample: s,
                message: e.to_string(),
            })?;
            evaluator.sample(s, &sample)
        })
        .collect::<Result<Vec<Value>, EvalError>>()?;
    let mut top = input.as_object().cloned().unwrap_or_default();
    top.insert(
        "inertial_parameters".into(),
        json!(evaluator.inertial_parameters()),
    );
    top.insert("generated_by".into(), json!(generated_by()));
    top.insert("samples".into(), Value::Array(out_samples));
    Ok(Value::Object(top))
}

/// Largest difference between this project's values and a reference file's
/// for one quantity, over all samples (and frames), relative to
/// max(1, largest reference magnitude).
#[derive(Clone, Debug)]
pub struct Comparison {
    pub quantity: String,
    pub relative_error: f64,
    /// The tolerance the project holds itself to for this quantity.
    pub tolerance: f64,
}

/// Where a quantity stands in the reference format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Once per file (the model's inertial parameters).
    Model,
    /// In every sample.
    Sample,
    /// In every sample, for every frame named in `frames`.
    Frame,
}

/// A quantity that [`compare`] checks: its name in the comparison, where it
/// stands, the reference's key it is compared with (our output's key is the
/// last word of the name), and the tolerance the project holds itself to.
#[derive(Clone, Copy, Debug)]
pub struct Quantity {
    pub name: &'static str,
    pub scope: Scope,
    pub reference_key: &'static str,
    pub tolerance: f64,
}

/// Closed-form quantities agree with Pinocchio to about 1e-9 relative.
const CLOSED_FORM_TOLERANCE: f64 = 1e-9;
/// The reference's dH/dt is a central difference with step 1e-6, itself only
/// accurate to about 1e-7 relative.
const FINITE_DIFFERENCE_TOLERANCE: f64 = 1e-6;

const fn closed_form(name: &'static str, scope: Scope, reference_key: &'static str) -> Quantity {
    Quantity {
        name,
        scope,
        reference_key,
        tolerance: CLOSED_FORM_TOLERANCE,
    }
}

/// Every quantity [`compare`] checks against a reference file, in the
/// order it reports them.
pub const QUANTITIES: [Quantity; 17] = [
    closed_form("inertial_parameters", Scope::Model, "inertial_parameters"),
    closed_form("tau_rnea", Scope::Sample, "tau_rnea"),
    closed_form("gravity", Scope::Sample, "gravity"),
    closed_form("mass_matrix", Scope::Sample, "mass_matrix"),
    closed_form("coriolis_matrix", Scope::Sample, "coriolis_matrix"),
    closed_form("coriolis_force", Scope::Sample, "coriolis_force"),
    closed_form("aba_ddq", Scope::Sample, "aba_ddq"),
    closed_form(
        "christoffel_first_kind",
        Scope::Sample,
        "christoffel_first_kind",
    ),
    closed_form("tau_slotine_li", Scope::Sample, "tau_slotine_li"),
    closed_form("kinetic_energy", Scope::Sample, "kinetic_energy"),
    closed_form("torque_regressor", Scope::Sample, "torque_regressor"),
    Quantity {
        name: "hdot",
        scope: Scope::Sample,
        reference_key: "hdot_finite_difference",
        tolerance: FINITE_DIFFERENCE_TOLERANCE,
    },
    closed_form("frame position", Scope::Frame, "position"),
    closed_form("frame rotation", Scope::Frame, "rotation"),
    closed_form("frame jacobian_local", Scope::Frame, "jacobian_local"),
    closed_form(
        "frame jacobian_world_aligned",
        Scope::Frame,
        "jacobian_world_aligned",
    ),
    closed_form("frame lambda_inv_local", Scope::Frame, "lambda_inv_local"),
];

impl Quantity {
    /// Our output's key: the name's last word (`frame position` is a
    /// frame's `position`).
    pub fn key(&self) -> &'static str {
        self.name.rsplit(' ').next().unwrap_or(self.name)
    }
}

fn numbers(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::Number(n) => out.push(n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(a) => a.iter().for_each(|x| numbers(x, out)),
        _ => out.push(f64::NAN),
    }
}

fn relative_error(ours: &Value, reference: &Value) -> f64 {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    numbers(ours, &mut a);
    numbers(reference, &mut b);
    if a.len() != b.len() || b.is_empty() {
        return f64::INFINITY;
    }
    let scale = b.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    // NaN-propagating max: a NaN anywhere makes the comparison fail.
    a.iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, |m: f64, d| {
            if d.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(d)
            }
        })
        / scale
}

/// Compares an [`evaluate`] output with the reference file it was computed
/// from: every quantity present in the reference, `hdot` against
/// `hdot_finite_difference`, every frame quantity, and the inertial
/// parameters (when the reference has them). A quantity missing from `ours` counts as an infinite error.
pub fn compare(ours: &Value, reference: &Value) -> Vec<Comparison> {
    let mut worst: Vec<Comparison> = Vec::new();
    let mut record = |quantity: String, err: f64, tolerance: f64| match worst
        .iter_mut()
        .find(|c| c.quantity == quantity)
    {
        Some(c) => {
            c.relative_error = if err.is_nan() {
                f64::NAN
            } else {
                c.relative_error.max(err)
            }
        }
        None => worst.push(Comparison {
            quantity,
            relative_error: err,
            tolerance,
        }),
    };
    let empty = Vec::new();
    let samples = reference["samples"].as_array().unwrap_or(&empty);
    for q in &QUANTITIES {
        match q.scope {
            Scope::Model => {
                if !reference[q.reference_key].is_null() {
                    record(
                        q.name.into(),
                        relative_error(&ours[q.key()], &reference[q.reference_key]),
                        q.tolerance,
                    );
                }
            }
            Scope::Sample => {
                for (s, want) in samples.iter().enumerate() {
                    if !want[q.reference_key].is_null() {
                        record(
                            q.name.into(),
                            relative_error(&ours["samples"][s][q.key()], &want[q.reference_key]),
                            q.tolerance,
                        );
                    }
                }
            }
            Scope::Frame => {
                for (s, want) in samples.iter().enumerate() {
                    for (name, frame) in want["frames"].as_object().into_iter().flatten() {
                        if !frame[q.reference_key].is_null() {
                            record(
                                q.name.into(),
                                relative_error(
                                    &ours["samples"][s]["frames"][name][q.key()],
                                    &frame[q.reference_key],
                                ),
                                q.tolerance,
                            );
                        }
                    }
                }
            }
        }
    }
    worst
}
