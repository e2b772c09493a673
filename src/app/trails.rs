//! End-effector trails: where each variant's end effector has been (solid,
//! in the variant's colour) against where the reference would put it,
//! FK(q_d) (faint), from the recorded samples.

use super::robot_view::ViewLayout;
use super::session::{Session, SessionSystems};
use super::variant_color;
use crate::algorithms::{forward_kinematics, frame_placement, Workspace};
use bevy::prelude::*;

/// What the trails show.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct TrailSettings {
    pub show: bool,
    pub show_desired: bool,
    /// Seconds of history drawn; None: the whole run.
    pub window: Option<f64>,
}

impl Default for TrailSettings {
    fn default() -> Self {
        TrailSettings {
            show: true,
            show_desired: true,
            window: None,
        }
    }
}

pub struct TrailsPlugin;

impl Plugin for TrailsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TrailSettings>()
            .add_systems(Update, draw_trails.after(SessionSystems));
    }
}

fn to_vec3(p: [f64; 3]) -> Vec3 {
    Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32)
}

fn draw_trails(
    mut gizmos: Gizmos,
    session: Res<Session>,
    layout: Res<ViewLayout>,
    settings: Res<TrailSettings>,
) {
    if !settings.show {
        return;
    }
    let count = session.variants.len();
    let since = settings
        .window
        .map_or(f64::NEG_INFINITY, |w| session.time() - w);
    for (i, v) in session.variants.iter().enumerate() {
        let offset = layout.offset(i, count);
        let first = v.samples.partition_point(|s| s.t < since);
        let recent = &v.view[first.min(v.view.len())..];
        let color = variant_color(i);
        gizmos.linestrip(
            recent.iter().map(|t| to_vec3(t.end_effector) + offset),
            color,
        );
        if settings.show_desired {
            gizmos.linestrip(
                recent.iter().map(|t| to_vec3(t.desired) + offset),
                color.with_alpha(0.3),
            );
        }
    }
}

/// The end effector's desired path over the whole run, 51 points: the
/// task's x_d when the end effector is the controlled frame, else FK(q_d).
pub fn desired_end_effector_path(session: &Session) -> Vec<Vec3> {
    let v = &session.variants[0];
    let model = &v.sim.plant;
    let mut ws = Workspace::new(model);
    let mut controller = v.sim.controller.clone();
    let task = controller
        .task()
        .filter(|t| t.frame == session.end_effector)
        .cloned();
    let mut x_d = crate::control::task::TaskDesired::default();
    (0..=50)
        .map(|k| {
            let t = session.duration * k as f64 / 50.0;
            if let Some(task) = &task {
                task.reference.evaluate(t, &task.start, &mut x_d);
                return super::robot_view::point(&x_d.position);
            }
            let d = controller.desired_at(t, &v.sim.q, &v.sim.v);
            forward_kinematics(model, &mut ws, &d.q);
            super::robot_view::point(&frame_placement(model, &ws, session.end_effector).trans)
        })
        .collect()
}

/// Centre and size (largest extent, m) of the end effector's desired path
/// over the whole run (for framing the camera).
pub fn end_effector_path_extent(session: &Session) -> (Vec3, f32) {
    let points = desired_end_effector_path(session);
    let (lo, hi) = points.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    (0.5 * (lo + hi), (hi - lo).max_element())
}
