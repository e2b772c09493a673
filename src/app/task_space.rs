//! Task-space quantities at the end effector, every frame and every
//! variant: its frame, its linear velocity (J v, world axes) and the
//! operational-space inertia as an ellipsoid. Lambda^-1 comes from the
//! EFPA (Wensing, Featherstone & Orin (2012), Table I); the ellipsoid's semi-axes point along the
//! eigenvectors of the translational block Lambda_v = ((Lambda^-1)_vv)^-1
//! with lengths proportional to its eigenvalues, the effective masses (kg)
//! felt when pushing the end effector along them.

use super::robot_view::{point, to_bevy, ViewLayout};
use super::session::{Session, SessionSystems};
use super::variant_color;
use crate::algorithms::{
    frame_jacobian, frame_placement, operational_space_inverse_inertia, JacobianFrame,
    OperationalSpaceWorkspace, Workspace,
};
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
    workspaces: Vec<(Workspace, OperationalSpaceWorkspace)>,
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
        readout.workspaces = session
            .variants
            .iter()
            .map(|v| {
                (
                    Workspace::new(&v.sim.plant),
                    OperationalSpaceWorkspace::new(&v.sim.plant, &[ee]),
                )
            })
            .collect();
    }
    let TaskSpaceReadout {
        variants,
        workspaces,
        ..
    } = &mut *readout;
    variants.clear();
    for (v, (ws, os)) in session.variants.iter().zip(workspaces.iter_mut()) {
        let model = &v.sim.plant;
        let lambda_inv = operational_space_inverse_inertia(model, ws, os, &v.sim.q);
        // Local axes: rotate the translational block into the world.
        let x = frame_placement(model, &v.kinematics, ee);
        let local_vv: Mat3 = lambda_inv.fixed_view::<3, 3>(3, 3).into_owned();
        let (masses, axes) = effective_masses(&(x.rot * local_vv * x.rot.transpose()));
        // The workspace's kinematics are at the same q (the EFPA ran them).
        let j = frame_jacobian(model, ws, ee, JacobianFrame::WorldAligned);
        let twist = j * nalgebra::DVector::from_column_slice(&v.sim.v);
        variants.push(TaskSpaceState {
            position: x.trans,
            rotation: x.rot,
            velocity: DVec3::new(twist[3], twist[4], twist[5]),
            effective_masses: masses,
            axes,
        });
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
