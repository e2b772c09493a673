//! Task-space quantities at the end effector, every frame and every
//! variant: its frame, its linear velocity (J v, world axes) and the
//! operational-space inertia as an ellipsoid. Lambda^-1 comes from the
//! EFPA (Wensing, Featherstone & Orin (2012), Table I); the ellipsoid's semi-axes point along the
//! eigenvectors of the translational block Lambda_v = ((Lambda^-1)_vv)^-1
//! with lengths proportional to its eigenvalues, the effective masses (kg)
//! felt when pushing the end effector along them. On a closed chain the
//! loops stiffen the end effector: Lambda_v^-1 = J_v A H_bar^-1 A^T J_v^T
//! with H_bar = A^T H A in the independent speeds (Wensing, Englsberger &
//! Slotine 2023, sec. VI-C1), infinite along what the loops forbid.

use super::robot_view::{point, to_bevy, ViewLayout};
use super::session::{Session, SessionSystems};
use super::variant_color;
use crate::algorithms::{
    crba, forward_kinematics, frame_jacobian, frame_placement, operational_space_inverse_inertia,
    JacobianFrame, OperationalSpaceWorkspace, Workspace,
};
use crate::factorization::ClosedChain;
use crate::model::Model;
use crate::sim::Simulation;
use crate::spatial::{Mat3, Vec3 as DVec3};
use bevy::prelude::*;

/// What the task-space view draws.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct TaskSpaceSettings {
    pub show_frame: bool,
    pub show_velocity: bool,
    pub show_ellipsoid: bool,
    /// Drawn length of 1 m/s, m.
    pub velocity_scale: f32,
    /// Drawn semi-axis of 1 kg, m (None: chosen on each new session so the
    /// largest initial semi-axis is 15 cm).
    pub ellipsoid_scale: Option<f32>,
}

impl Default for TaskSpaceSettings {
    fn default() -> Self {
        TaskSpaceSettings {
            show_frame: true,
            show_velocity: true,
            show_ellipsoid: true,
            velocity_scale: 0.2,
            ellipsoid_scale: None,
        }
    }
}

/// The numbers behind the drawing, per variant (for the panels).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskSpaceState {
    pub position: DVec3,
    pub rotation: Mat3,
    pub velocity: DVec3,
    /// Effective masses (eigenvalues of Lambda_v), kg, with their directions
    /// as columns of `axes`.
    pub effective_masses: DVec3,
    pub axes: Mat3,
}

/// Per-variant task-space state at the current instant.
#[derive(Resource, Default)]
pub struct TaskSpaceReadout {
    pub variants: Vec<TaskSpaceState>,
    /// Name of the end-effector frame.
    pub frame_name: String,
    generation: Option<u64>,
    end_effector: usize,
    probes: Vec<TaskSpaceProbe>,
}

/// What one variant's task-space state is computed with: its buffers, and
/// a copy of its closed chain (a chain's Lambda comes from its own A and
/// H_bar).
pub struct TaskSpaceProbe {
    ws: Workspace,
    os: OperationalSpaceWorkspace,
    chain: Option<ClosedChain>,
    end_effector: usize,
}

impl TaskSpaceProbe {
    /// For `sim`'s plant, at frame `end_effector`.
    pub fn new(sim: &Simulation, end_effector: usize) -> Self {
        TaskSpaceProbe {
            ws: Workspace::new(&sim.plant),
            os: OperationalSpaceWorkspace::new(&sim.plant, &[end_effector]),
            chain: sim.constrained_plant().map(|p| p.chain().clone()),
            end_effector,
        }
    }

    /// The end effector's state at `sim`'s current state.
    pub fn state(&mut self, sim: &Simulation) -> TaskSpaceState {
        let (model, ws, ee) = (&sim.plant, &mut self.ws, self.end_effector);
        let world_vv = match &mut self.chain {
            // A singular configuration (the run stops there) shows no mass.
            Some(chain) => {
                chain_inverse_inertia_vv(model, ws, chain, ee, &sim.q).unwrap_or_else(Mat3::zeros)
            }
            None => {
                let lambda_inv = operational_space_inverse_inertia(model, ws, &mut self.os, &sim.q);
                // Local axes: rotate the translational block into the world.
                forward_kinematics(model, ws, &sim.q);
                let rot = frame_placement(model, ws, ee).rot;
                let local_vv: Mat3 = lambda_inv.fixed_view::<3, 3>(3, 3).into_owned();
                rot * local_vv * rot.transpose()
            }
        };
        let (masses, axes) = effective_masses(&world_vv);
        forward_kinematics(model, ws, &sim.q);
        let x = frame_placement(model, ws, ee);
        let j = frame_jacobian(model, ws, ee, JacobianFrame::WorldAligned);
        let twist = j * nalgebra::DVector::from_column_slice(&sim.v);
        TaskSpaceState {
            position: x.trans,
            rotation: x.rot,
            velocity: DVec3::new(twist[3], twist[4], twist[5]),
            effective_masses: masses,
            axes,
        }
    }
}

pub struct TaskSpacePlugin;

impl Plugin for TaskSpacePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TaskSpaceSettings>()
            .init_resource::<TaskSpaceReadout>()
            .add_systems(
                Update,
                (compute_task_space, draw_task_space)
                    .chain()
                    .after(SessionSystems),
            );
    }
}

/// Lambda_v and its eigen-decomposition; an infinite effective mass (a
/// direction the end effector cannot move in) is capped at 1e6 kg.
fn effective_masses(lambda_inv_vv: &Mat3) -> (DVec3, Mat3) {
    let eig = nalgebra::SymmetricEigen::new(*lambda_inv_vv);
    let masses = eig
        .eigenvalues
        .map(|l| if l > 1e-6 { 1.0 / l } else { 1e6 });
    (masses, eig.eigenvectors)
}

/// A closed chain's Lambda_v^-1 at `frame` in world axes:
/// J_v A H_bar^-1 A^T J_v^T, H_bar = A^T H A; None where K_d or H_bar is
/// singular.
fn chain_inverse_inertia_vv(
    model: &Model,
    ws: &mut Workspace,
    chain: &mut ClosedChain,
    frame: usize,
    q: &[f64],
) -> Option<Mat3> {
    chain.update_basis(model, ws, q).ok()?;
    let a = chain.basis();
    let h_bar = a.transpose() * crba(model, ws, q) * a;
    forward_kinematics(model, ws, q);
    let j = frame_jacobian(model, ws, frame, JacobianFrame::WorldAligned);
    let jv_a = j.rows(3, 3) * a;
    let x = h_bar.cholesky()?.solve(&jv_a.transpose());
    Some(Mat3::from_iterator((jv_a * x).iter().copied()))
}

fn compute_task_space(
    session: Res<Session>,
    mut readout: ResMut<TaskSpaceReadout>,
    mut settings: ResMut<TaskSpaceSettings>,
) {
    let ee = session.end_effector;
    let new_session = readout.generation != Some(session.generation);
    if new_session || readout.end_effector != ee {
        readout.generation = Some(session.generation);
        readout.end_effector = ee;
        readout.frame_name = session.plant().frames[ee].name.clone();
        readout.probes = session
            .variants
            .iter()
            .map(|v| TaskSpaceProbe::new(&v.sim, ee))
            .collect();
    }
    let TaskSpaceReadout {
        variants, probes, ..
    } = &mut *readout;
    variants.clear();
    for (v, probe) in session.variants.iter().zip(probes.iter_mut()) {
        variants.push(probe.state(&v.sim));
    }
    if new_session && settings.ellipsoid_scale.is_none() {
        let largest = variants
            .iter()
            .map(|s| s.effective_masses.max())
            .fold(0.0, f64::max)
            .min(1e3);
        if largest > 0.0 {
            settings.ellipsoid_scale = Some((0.15 / largest) as f32);
        }
    }
}

fn draw_task_space(
    mut gizmos: Gizmos,
    readout: Res<TaskSpaceReadout>,
    settings: Res<TaskSpaceSettings>,
    layout: Res<ViewLayout>,
) {
    let count = readout.variants.len();
    for (i, s) in readout.variants.iter().enumerate() {
        let offset = layout.offset(i, count);
        let p = point(&s.position) + offset;
        let color = variant_color(i);
        if settings.show_frame {
            let mut t = to_bevy(&crate::spatial::Transform::new(s.rotation, s.position));
            t.translation += offset;
            gizmos.axes(t, 0.12);
        }
        if settings.show_velocity {
            let tip = p + settings.velocity_scale * point(&s.velocity);
            if (tip - p).length() > 1e-3 {
                gizmos.arrow(p, tip, Color::WHITE);
            }
        }
        if let (true, Some(scale)) = (settings.show_ellipsoid, settings.ellipsoid_scale) {
            // Three principal sections of the ellipsoid.
            let r = |k: usize| (scale * s.effective_masses[k] as f32).min(1.0);
            let proper = if s.axes.determinant() < 0.0 {
                s.axes * Mat3::from_diagonal(&DVec3::new(1.0, 1.0, -1.0))
            } else {
                s.axes
            };
            let axes = to_bevy(&crate::spatial::Transform::new(proper, s.position)).rotation;
            let radii = Vec3::new(r(0), r(1), r(2));
            ellipsoid_sections(&mut gizmos, p, axes, radii, color.with_alpha(0.8));
        }
    }
}

/// An ellipsoid drawn as its three principal sections: centre `p`, its
/// axes the columns of `axes` with semi-axes `radii`.
pub fn ellipsoid_sections(gizmos: &mut Gizmos, p: Vec3, axes: Quat, radii: Vec3, color: Color) {
    // The ellipse lies in its isometry's xy plane.
    gizmos.ellipse(Isometry3d::new(p, axes), radii.truncate(), color);
    gizmos.ellipse(
        Isometry3d::new(p, axes * Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
        Vec2::new(radii.x, radii.z),
        color,
    );
    gizmos.ellipse(
        Isometry3d::new(p, axes * Quat::from_rotation_y(std::f32::consts::FRAC_PI_2)),
        Vec2::new(radii.z, radii.y),
        color,
    );
}
