//! A ready-to-run scenario for a URDF that comes without one (the app's
//! "open URDF"): non-adaptive Slotine-Li tracking slow sinusoids around the
//! middle of each joint's range, with C*, the classic (v x*) I factorization
//! and, when the robot has three consecutive revolute joints, beta-torsion on
//! those triples, side by side.

use super::{
    AdaptationSpec, ControllerSpec, EstimateSpec, FactorizationSpec, Gain, InitialSpec, OutputSpec,
    RobotSpec, RootSpec, Scenario, ScenarioError, ScenarioFile, SimulationSpec, VariantSpec,
};
use crate::control::{JointTerms, Reference, Sine};
use crate::model::{Joint, Model, UrdfOptions};
use std::path::Path;

/// Largest amplitude of the generated reference (rad or m).
const AMPLITUDE: f64 = 0.3;

/// The generated scenario for `urdf` (fixed base).
pub fn scenario_for_urdf(urdf: &Path) -> Result<Scenario, ScenarioError> {
    let urdf = urdf.canonicalize().unwrap_or_else(|_| urdf.to_path_buf());
    let options = UrdfOptions {
        mimic: true,
        ..UrdfOptions::default()
    };
    let model = Model::from_urdf_file(&urdf, options).map_err(|error| ScenarioError::Model {
        file: urdf.clone(),
        line: None,
        error: Box::new(error),
    })?;
    // One entry per speed (fixed root: one per independent 1-DoF joint).
    let speed_bodies: Vec<&crate::model::Body> = (0..model.nv)
        .map(|k| &model.bodies[model.speed_body(k)])
        .collect();
    let joints: Vec<JointTerms> = speed_bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let l = b.limits;
            let (offset, amplitude) = if l.lower.is_finite() && l.upper.is_finite() {
                (
                    0.5 * (l.lower + l.upper),
                    (0.25 * (l.upper - l.lower)).min(AMPLITUDE),
                )
            } else {
                (0.0, AMPLITUDE)
            };
            JointTerms {
                offset,
                rate: 0.0,
                sines: vec![Sine {
                    amplitude,
                    frequency: 1.0 + 0.2 * i as f64,
                    phase: i as f64,
                }],
            }
        })
        .collect();
    // Start on the reference: q_d(0) = offset + sum of a sin(phi).
    let q0 = joints
        .iter()
        .map(|j| {
            j.offset
                + j.sines
                    .iter()
                    .map(|s| s.amplitude * s.phase.sin())
                    .sum::<f64>()
        })
        .collect();
    let reference = Reference::Terms { joints };
    let revolute: Vec<usize> = (0..model.nv)
        .filter(|&k| matches!(speed_bodies[k].joint, Joint::Revolute { .. }))
        .collect();
    let triples: Vec<[usize; 3]> = revolute.windows(3).map(|w| [w[0], w[1], w[2]]).collect();
    let mut variants = vec![
        variant("c_star", FactorizationSpec::Christoffel {}),
        variant("classic", FactorizationSpec::Classic {}),
    ];
    if !triples.is_empty() {
        variants.push(variant(
            "torsion_beta_1",
            FactorizationSpec::Torsion {
                beta: 1.0,
                beta_gradient: Vec::new(),
                triples: Some(triples),
            },
        ));
    }
    let stem = super::parse::names::sanitized_name(
        &urdf
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned()),
    );
    let file = ScenarioFile {
        name: stem,
        description: format!(
            "Generated for {}: Slotine-Li tracking sinusoids, C* vs classic vs torsion",
            urdf.display()
        ),
        robot: RobotSpec {
            urdf: Some(urdf.clone()),
            builtin: None,
            root: RootSpec::Fixed,
            strict: false,
            mimic: true,
            rotors: Vec::new(),
            collision_spheres: Vec::new(),
            gravity: [0.0, 0.0, -9.81],
            mass: None,
            masses: None,
            lengths: None,
            payload: None,
        },
        estimate: EstimateSpec::default(),
        disturbances: Vec::new(),
        lesson: None,
        environment: Default::default(),
        controller: ControllerSpec::SlotineLi {
            lambda: Gain::All(5.0),
            kd: Gain::All(10.0),
            adaptation: AdaptationSpec::OFF,
            gamma: Gain::All(1.0),
            bounds: None,
        },
        factorization: FactorizationSpec::Christoffel {},
        reference: Some(reference),
        task: None,
        loop_closures: Vec::new(),
        closed_chain: None,
        stance: None,
        initial: InitialSpec {
            q: Some(q0),
            v: None,
            task_velocity: None,
        },
        simulation: SimulationSpec::default(),
        variants,
        output: OutputSpec::default(),
    };
    Scenario::from_file(file, urdf.with_extension("urdf (generated scenario)"))
}

fn variant(name: &str, factorization: FactorizationSpec) -> VariantSpec {
    VariantSpec {
        name: name.into(),
        factorization: Some(factorization),
        controller: None,
        estimate: None,
    }
}
