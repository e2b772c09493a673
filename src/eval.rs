//! Evaluation in the reference-data format (`tests/fixtures/reference`,
//! produced by Pinocchio): read states, write this project's values for the
//! same quantities, in the file's joint order and conventions.
//!
//! The file's conventions differ from the core's in two places, converted
//! here: a free root's speeds are `[linear; angular]` (body frame) and frame
//! Jacobian rows are `[linear; angular]`.

use crate::algorithms::{
    aba, coriolis_matrix_and_derivatives, forward_kinematics, frame_jacobian, frame_placement,
    generalized_gravity, joint_torque_regressor, kinetic_energy, operational_space_inverse_inertia,
    rnea, BodyFactorization, JacobianFrame, OperationalSpaceWorkspace, Workspace,
    PARAMETERS_PER_BODY,
};
use crate::factorization::{diagnose, Factorization, FactorizationError};
use crate::model::{Joint, Model};
use nalgebra::{DMatrix, DVector};
use serde_json::{json, Map, Value};

/// Why an input file could not be evaluated.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("joint '{0}' in joint_names is not a joint of the model")]
    UnknownJoint(String),
    #[error("the model's joint '{0}' is missing from joint_names")]
    MissingJoint(String),
    #[error("joint '{0}' appears twice in joint_names")]
    DuplicateJoint(String),
    #[error("frame '{frame}' (sample {sample}) is not a link or joint of the model")]
    UnknownFrame { sample: usize, frame: String },
    #[error("field '{0}' is missing or is not what the format requires ({1})")]
    Field(String, &'static str),
    #[error(transparent)]
    Factorization(#[from] FactorizationError),
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
    /// Body of each file joint, in file order.
    pub bodies: Vec<usize>,
}

impl JointMap {
    /// Builds the map from the file's `joint_names`; a free root is
    /// `root_joint`. Every model joint must appear exactly once.
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
            let body = &model.bodies[b];
            match body.joint {
                // File: [linear; angular]; model: [angular; linear].
                Joint::Free => v_index.extend((0..6).map(|r| body.v_index + (r + 3) % 6)),
                _ => v_index.push(body.v_index),
            }
            q_index.extend(body.q_index..body.q_index + body.joint.nq());
            bodies.push(b);
        }
        if let Some(b) = seen.iter().position(|s| !s) {
            return Err(EvalError::MissingJoint(model.bodies[b].joint_name.clone()));
        }
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

fn vector(
    sample: &Value,
    index: usize,
    field: &'static str,
    len: usize,
) -> Result<Vec<f64>, EvalError> {
    let bad = || EvalError::BadVector {
        sample: index,
        field,
        expected: len,
    };
    let arr = sample
        .get(field)
        .and_then(Value::as_array)
        .ok_or_else(bad)?;
    let v: Option<Vec<f64>> = arr.iter().map(Value::as_f64).collect();
    let v = v
        .filter(|v| v.len() == len && v.iter().all(|x| x.is_finite()))
        .ok_or_else(bad)?;
    Ok(v)
}

/// A 6 x nv Jacobian (model rows `[angular; linear]`) in file order and rows `[linear; angular]`.
fn jacobian_to_file(map: &JointMap, j: &DMatrix<f64>) -> Vec<Vec<f64>> {
    (0..6)
        .map(|r| map.v_index.iter().map(|&c| j[((r + 3) % 6, c)]).collect())
        .collect()
}

/// Evaluates every sample of `input` (the reference-data format) on `model`
/// and returns the same structure with this project's values;
/// `coriolis_matrix`, `coriolis_force`, `christoffel_first_kind` (its
/// connection coefficients) and `tau_slotine_li` are those of
/// `factorization`, and each sample gains `diagnostics`.
pub fn evaluate(
    model: &mut Model,
    input: &Value,
    factorization: &Factorization,
) -> Result<Value, EvalError> {
    let names: Vec<String> = input
        .get("joint_names")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(|x| x.as_str().map(String::from)).collect())
        .ok_or(EvalError::Field(
            "joint_names".into(),
            "an array of joint names",
        ))?;
    if let Some(g) = input.get("gravity") {
        let g: Option<Vec<f64>> = g
            .as_array()
            .and_then(|a| a.iter().map(Value::as_f64).collect());
        let g = g
            .filter(|g| g.len() == 3)
            .ok_or(EvalError::Field("gravity".into(), "3 numbers"))?;
        model.gravity = crate::spatial::Vec3::new(g[0], g[1], g[2]);
    }
    let model = &*model;
    factorization.validate(model)?;
    let map = JointMap::new(model, &names)?;
    let samples = input
        .get("samples")
        .and_then(Value::as_array)
        .ok_or(EvalError::Field("samples".into(), "an array of states"))?;
    let mut ws = Workspace::new(model);
    let (nq, nv) = (model.nq, model.nv);
    let mut out_samples = Vec::with_capacity(samples.len());
    let mut gamma = vec![0.0; nv * nv * nv];
    for (s, sample) in samples.iter().enumerate() {
        let q = map.q_to_model(&vector(sample, s, "q", nq)?);
        let v = map.v_to_model(&vector(sample, s, "v", nv)?);
        let a = map.v_to_model(&vector(sample, s, "a", nv)?);
        let mut out = Map::new();
        for key in ["q", "v", "a", "v_r", "a_r"] {
            if let Some(x) = sample.get(key) {
                out.insert(key.into(), x.clone());
            }
        }
        let tau = rnea(model, &mut ws, &q, &v, &a).clone();
        out.insert("tau_rnea".into(), json!(map.v_to_file(&tau)));
        out.insert(
            "gravity".into(),
            json!(map.v_to_file(generalized_gravity(model, &mut ws, &q))),
        );
        coriolis_matrix_and_derivatives(
            model,
            &mut ws,
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
        let c = factorization.coriolis_matrix(model, &mut ws, &q, &v);
        out.insert("coriolis_matrix".into(), json!(map.matrix_to_file(c)));
        out.insert(
            "coriolis_force".into(),
            json!(map.v_to_file(&(c * DVector::from_column_slice(&v)))),
        );
        out.insert(
            "aba_ddq".into(),
            json!(map.v_to_file(aba(model, &mut ws, &q, &v, tau.as_slice()))),
        );
        factorization.connection_coefficients(model, &mut ws, &q, &mut gamma);
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
        if sample.get("v_r").is_some() || sample.get("a_r").is_some() {
            let v_r = map.v_to_model(&vector(sample, s, "v_r", nv)?);
            let a_r = map.v_to_model(&vector(sample, s, "a_r", nv)?);
            let t = factorization.slotine_li_torque(model, &mut ws, &q, &v, &v_r, &a_r);
            out.insert("tau_slotine_li".into(), json!(map.v_to_file(t)));
        }
        let d = diagnose(model, &mut ws, &q, &v, factorization);
        out.insert(
            "diagnostics".into(),
            json!({"skew_residual": d.skew_residual, "validity_residual": d.validity_residual, "torsion_norm": d.torsion_norm}),
        );
        out.insert(
            "kinetic_energy".into(),
            json!(kinetic_energy(model, &mut ws, &q, &v)),
        );
        let y = joint_torque_regressor(model, &mut ws, &q, &v, &a);
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
        if let Some(frames) = sample.get("frames").and_then(Value::as_object) {
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
            let lambda_inv = operational_space_inverse_inertia(model, &mut ws, &mut os, &q).clone();
            forward_kinematics(model, &mut ws, &q);
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
                let x = frame_placement(model, &ws, f);
                let rot: Vec<Vec<f64>> = (0..3)
                    .map(|r| (0..3).map(|c| x.rot[(r, c)]).collect())
                    .collect();
                let local = jacobian_to_file(
                    &map,
                    frame_jacobian(model, &mut ws, f, JacobianFrame::Local),
                );
                let world = jacobian_to_file(
                    &map,
                    frame_jacobian(model, &mut ws, f, JacobianFrame::WorldAligned),
                );
                out_frames.insert(
                    name.clone(),
                    json!({"position": [x.trans.x, x.trans.y, x.trans.z], "rotation": rot,
                           "jacobian_local": local, "jacobian_world_aligned": world, "lambda_inv_local": block}),
                );
            }
            out.insert("frames".into(), Value::Object(out_frames));
        }
        out_samples.push(Value::Object(out));
    }
    let mut top = input.as_object().cloned().unwrap_or_default();
    let params: Vec<f64> = map
        .bodies
        .iter()
        .flat_map(|&b| model.bodies[b].inertia.parameters())
        .collect();
    top.insert("inertial_parameters".into(), json!(params));
    top.insert(
        "generated_by".into(),
        json!(format!("passivity-lab {}", env!("CARGO_PKG_VERSION"))),
    );
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

/// Quantities compared in closed form: about 1e-9 relative.
const CLOSED_FORM: [&str; 10] = [
    "tau_rnea",
    "gravity",
    "mass_matrix",
    "coriolis_matrix",
    "coriolis_force",
    "aba_ddq",
    "christoffel_first_kind",
    "tau_slotine_li",
    "kinetic_energy",
    "torque_regressor",
];
const FRAME_QUANTITIES: [&str; 5] = [
    "position",
    "rotation",
    "jacobian_local",
    "jacobian_world_aligned",
    "lambda_inv_local",
];
const CLOSED_FORM_TOLERANCE: f64 = 1e-9;
/// The reference's dH/dt is a central difference with step 1e-6, itself only
/// accurate to about 1e-7 relative.
const FINITE_DIFFERENCE_TOLERANCE: f64 = 1e-6;

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
/// parameters. A quantity missing from `ours` counts as an infinite error.
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
    record(
        "inertial_parameters".into(),
        relative_error(
            &ours["inertial_parameters"],
            &reference["inertial_parameters"],
        ),
        CLOSED_FORM_TOLERANCE,
    );
    let empty = Vec::new();
    let samples = reference["samples"].as_array().unwrap_or(&empty);
    for (s, want) in samples.iter().enumerate() {
        let got = &ours["samples"][s];
        for key in CLOSED_FORM.iter().filter(|k| !want[**k].is_null()) {
            record(
                key.to_string(),
                relative_error(&got[*key], &want[*key]),
                CLOSED_FORM_TOLERANCE,
            );
        }
        if !want["hdot_finite_difference"].is_null() {
            record(
                "hdot".into(),
                relative_error(&got["hdot"], &want["hdot_finite_difference"]),
                FINITE_DIFFERENCE_TOLERANCE,
            );
        }
        for (name, frame) in want["frames"].as_object().into_iter().flatten() {
            for key in FRAME_QUANTITIES.iter().filter(|k| !frame[**k].is_null()) {
                record(
                    format!("frame {key}"),
                    relative_error(&got["frames"][name][*key], &frame[*key]),
                    CLOSED_FORM_TOLERANCE,
                );
            }
        }
    }
    worst
}
