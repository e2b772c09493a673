//! Torsion made visible in the 3-D view (issue 15 secs. 1 and 3), per
//! variant at the end effector:
//!
//! - the Transport view: the images J X of the three vectors transported
//!   along the run with the variant's factorization (H X_dot + C X = 0,
//!   Wensing, Englsberger & Slotine (2023), sec. III-B; for the point mass J = I, the vectors
//!   themselves), in the variant's colour, beside the same vectors
//!   transported with C* in grey ([`super::transported_frames`]);
//! - the contorsion force (C - C*) q_dot_r that the factorization adds to
//!   the Christoffel-consistent torque (Wensing, Englsberger & Slotine (2023), eq. 13), as the end-effector
//!   force f that produces it, J_v^T f = tau_c in the least-squares sense
//!   (f = (J_v J_v^T + d^2 I)^-1 J_v tau_c, the pseudo-inverse transpose,
//!   damped near singularities), with the power it does on s read out in
//!   the left panel's Torsion section (zero: torsion never shows in the
//!   Lyapunov function). On the point mass its vertical part divided by m
//!   is the "counterproductive upward acceleration" of Wensing, Englsberger & Slotine (2023), sec. IV-A2,
//!   read out there too.

use super::camera::{OrbitCamera, CLOSE_UP_DISTANCE};
use super::robot_view::{point, ViewLayout};
use super::session::{lesson_views_to_open, Session, SessionSystems};
use super::variant_color;
use crate::algorithms::{forward_kinematics, frame_jacobian, JacobianFrame, Workspace};
use crate::scenario::LessonView;
use crate::spatial::Vec3 as DVec3;
use bevy::prelude::*;
use bevy_egui::egui;
use nalgebra::{DVector, Matrix3};

/// What the torsion view draws.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct TorsionViewSettings {
    /// The Transport view: transported frames at the end effector and the
    /// plot of their angle to C*'s.
    pub transport: bool,
    /// The contorsion force arrows and their power readout.
    pub contorsion: bool,
}

impl Default for TorsionViewSettings {
    fn default() -> Self {
        TorsionViewSettings {
            transport: false,
            contorsion: true,
        }
    }
}

/// One variant's drawing, in world coordinates (before the layout offset).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TorsionArrows {
    /// The end effector.
    pub origin: Vec3,
    /// J X of the vectors transported with the variant's factorization.
    pub transported: Vec<Vec3>,
    /// J X of the vectors transported with C*.
    pub reference: Vec<Vec3>,
    /// The end-effector force of the contorsion term (N), None when it is
    /// zero (C*, or a law without a Coriolis term).
    pub contorsion: Option<DVec3>,
    /// Its power on s, W.
    pub power: f64,
    /// Angle between the two transported frames, rad.
    pub angle: f64,
}

/// The arrows of every variant now, and the scales they are drawn at.
#[derive(Resource, Default)]
pub struct TorsionViewState {
    pub variants: Vec<TorsionArrows>,
    /// Drawn length of a transported vector's image per unit (chosen on a
    /// new session so the longest initial image is 15 cm).
    pub vector_scale: Option<f32>,
    /// Largest contorsion force seen in this session, N (the arrows are
    /// drawn at 25 cm for it).
    pub largest_force: f64,
    /// The point mass's mass, for the acceleration readout (None for robots).
    pub point_mass: Option<f64>,
    /// The camera's distance, m: farther than the close-up, the contorsion
    /// arrows grow with it, so that they keep their size on screen (in the
    /// point mass's still view, at their close-up size, they were 15 px).
    pub camera_distance: f32,
    generation: Option<u64>,
    workspaces: Vec<Workspace>,
}

pub struct TorsionViewPlugin;

impl Plugin for TorsionViewPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TorsionViewSettings>()
            .init_resource::<TorsionViewState>()
            .add_systems(
                Update,
                (open_lesson_views, compute_arrows, draw_arrows)
                    .chain()
                    .after(SessionSystems),
            );
    }
}

/// A lesson turns on the views it is about when it opens.
fn open_lesson_views(
    session: Res<Session>,
    mut settings: ResMut<TorsionViewSettings>,
    mut seen: Local<Option<u64>>,
) {
    for view in lesson_views_to_open(&session, &mut seen) {
        match view {
            LessonView::Transport => settings.transport = true,
            LessonView::Contorsion => settings.contorsion = true,
            // The inertia view opens itself.
            LessonView::Inertia => {}
        }
    }
}

/// The end-effector force whose joint torques are `tau` in the
/// least-squares sense: (J_v J_v^T + d^2 I)^-1 J_v tau, d = 1e-3.
fn end_effector_force(j_linear: &nalgebra::DMatrix<f64>, tau: &[f64]) -> DVec3 {
    let jt = j_linear * DVector::from_column_slice(tau);
    let m: Matrix3<f64> = (j_linear * j_linear.transpose())
        .fixed_view::<3, 3>(0, 0)
        .into_owned()
        + Matrix3::identity() * 1e-6;
    m.cholesky().map_or(DVec3::zeros(), |c| {
        c.solve(&DVec3::new(jt[0], jt[1], jt[2]))
    })
}

fn compute_arrows(
    session: Res<Session>,
    cameras: Query<&OrbitCamera>,
    mut state: ResMut<TorsionViewState>,
) {
    if let Some(camera) = cameras.iter().next() {
        state.camera_distance = camera.distance;
    }
    let ee = session.end_effector;
    let new_session = state.generation != Some(session.generation);
    if new_session {
        state.generation = Some(session.generation);
        state.workspaces = session
            .variants
            .iter()
            .map(|v| Workspace::new(&v.sim.plant))
            .collect();
        state.vector_scale = None;
        state.largest_force = 0.0;
        let file = &session.scenario.file;
        state.point_mass = (file.robot.builtin == Some(crate::scenario::BuiltinSystem::PointMass))
            .then(|| session.plant().bodies.iter().map(|b| b.inertia.mass).sum());
    }
    let TorsionViewState {
        variants,
        workspaces,
        ..
    } = &mut *state;
    variants.clear();
    for (v, ws) in session.variants.iter().zip(workspaces.iter_mut()) {
        let (Some(sample), Some(view)) = (v.samples.last(), v.view.last()) else {
            variants.push(TorsionArrows::default());
            continue;
        };
        if !sample.q.iter().all(|x| x.is_finite()) {
            variants.push(TorsionArrows::default());
            continue;
        }
        let model = &v.sim.plant;
        forward_kinematics(model, ws, &sample.q);
        let j = frame_jacobian(model, ws, ee, JacobianFrame::WorldAligned);
        let j_linear = j.rows(3, 3).into_owned();
        let image = |x: &[f64]| {
            let p = &j_linear * DVector::from_column_slice(x);
            Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32)
        };
        let images = |t: &crate::analysis::ParallelTransport| {
            (0..t.count()).map(|c| image(t.vector(c))).collect()
        };
        let force = sample.torsion_force.iter().any(|f| *f != 0.0);
        variants.push(TorsionArrows {
            origin: Vec3::from_array(view.end_effector.map(|x| x as f32)),
            transported: images(&v.transport.own),
            reference: images(v.transport.reference()),
            contorsion: force.then(|| end_effector_force(&j_linear, &sample.torsion_force)),
            power: sample.torsion_power,
            angle: view.transport_angle,
        });
    }
    if state.vector_scale.is_none() {
        let longest = state
            .variants
            .iter()
            .flat_map(|a| a.transported.iter().map(|x| x.length()))
            .fold(0.0, f32::max);
        if longest > 1e-9 {
            state.vector_scale = Some(0.15 / longest);
        }
    }
    let largest = state
        .variants
        .iter()
        .filter_map(|a| a.contorsion.map(|f| f.norm()))
        .fold(state.largest_force, f64::max);
    state.largest_force = largest;
}

/// The colour of transported vector `c` of variant `i`: the variant's
/// colour, lighter or darker per vector.
fn vector_color(i: usize, c: usize) -> Color {
    let base = variant_color(i).to_srgba();
    let mix = |target: f32, k: f32| {
        Color::srgb(
            base.red + k * (target - base.red),
            base.green + k * (target - base.green),
            base.blue + k * (target - base.blue),
        )
    };
    match c {
        0 => mix(0.0, 0.0),
        1 => mix(1.0, 0.45),
        _ => mix(0.0, 0.45),
    }
}

/// Contorsion arrows are ARROW_MIN + ARROW_SPAN x |f| / (largest |f| so
/// far) long, m: long enough to see while the force is a thousandth of its
/// largest or more (the label gives the value), not drawn below that.
const ARROW_MIN: f32 = 0.08;
const ARROW_SPAN: f32 = 0.17;

/// The tip of variant `i`'s contorsion arrow (layout applied), if drawn.
pub fn contorsion_tip(state: &TorsionViewState, a: &TorsionArrows, offset: Vec3) -> Option<Vec3> {
    let f = a.contorsion?;
    let share = (f.norm() / state.largest_force.max(1e-12)) as f32;
    let direction = point(&f).normalize_or_zero();
    (share > 1e-3 && direction != Vec3::ZERO).then(|| {
        a.origin + offset + arrow_zoom(state) * (ARROW_MIN + ARROW_SPAN * share) * direction
    })
}

/// How much longer the contorsion arrows are drawn than at the close-up:
/// the camera's distance over the close-up's, at least 1.
fn arrow_zoom(state: &TorsionViewState) -> f32 {
    (state.camera_distance / CLOSE_UP_DISTANCE).max(1.0)
}

/// The drawn transported vectors of one variant (layout applied): (from,
/// to) per vector, empty while the Transport view is off.
pub fn transported_segments(
    settings: &TorsionViewSettings,
    state: &TorsionViewState,
    a: &TorsionArrows,
    offset: Vec3,
) -> Vec<(Vec3, Vec3)> {
    match (settings.transport, state.vector_scale) {
        (true, Some(scale)) => {
            let origin = a.origin + offset;
            a.transported
                .iter()
                .map(|x| (origin, origin + scale * *x))
                .collect()
        }
        _ => Vec::new(),
    }
}

fn draw_arrows(
    mut gizmos: Gizmos,
    settings: Res<TorsionViewSettings>,
    state: Res<TorsionViewState>,
    layout: Res<ViewLayout>,
) {
    let count = state.variants.len();
    for (i, a) in state.variants.iter().enumerate() {
        let offset = layout.offset(i, count);
        let origin = a.origin + offset;
        if let (true, Some(scale)) = (settings.transport, state.vector_scale) {
            // Where C*'s vector is the variant's own (C* itself), the grey
            // copy would only fight the colour for the same pixels.
            let differs = |k: usize, x: &Vec3| {
                a.transported
                    .get(k)
                    .is_none_or(|own| (*own - *x).length() > 1e-3 * own.length())
            };
            for (_, x) in a
                .reference
                .iter()
                .enumerate()
                .filter(|(k, x)| differs(*k, x))
            {
                gizmos.arrow(
                    origin,
                    origin + scale * *x,
                    Color::srgba(0.7, 0.7, 0.7, 0.6),
                );
            }
        }
        for (c, (from, to)) in transported_segments(&settings, &state, a, offset)
            .into_iter()
            .enumerate()
        {
            gizmos.arrow(from, to, vector_color(i, c));
        }
        if settings.contorsion {
            if let Some(tip) = contorsion_tip(&state, a, offset) {
                gizmos
                    .arrow(origin, tip, Color::srgb(1.0, 0.25, 0.2))
                    .with_tip_length(0.04 * arrow_zoom(&state));
            }
        }
    }
}

/// The left panel's "Torsion" section: the view switches and the numbers.
pub fn torsion_section(
    ui: &mut egui::Ui,
    settings: &mut TorsionViewSettings,
    state: &TorsionViewState,
    session: &Session,
) {
    egui::CollapsingHeader::new("Torsion: transport and contorsion")
        .default_open(settings.transport)
        .show(ui, |ui| {
            ui.checkbox(
                &mut settings.transport,
                "Transport view: H X' + C X = 0 along each run",
            )
            .on_hover_text(
                "Three H-orthonormal vectors carried along the run with the variant's C \
                 (its colour) and with C* (grey), drawn at the end effector as J X \
                 (Wensing, Englsberger & Slotine (2023), sec. III-B, Fig. 3)",
            );
            ui.checkbox(
                &mut settings.contorsion,
                "contorsion force (C - C*) q̇_r at the end effector",
            );
            ui.small("red arrows: the end-effector force f with J_v^T f = (C - C*) q̇_r; length 8 cm + 17 cm x |f| / largest |f| so far at the close-up, longer as the camera moves away");
            for (i, (v, a)) in session.variants.iter().zip(&state.variants).enumerate() {
                let mut text = format!(
                    "{}: frame vs C* {:.2}°, |f| {:.3} N, power on s {:.1e} W",
                    v.name,
                    a.angle.to_degrees(),
                    a.contorsion.map_or(0.0, |f| f.norm()),
                    a.power
                );
                if let (Some(m), Some(f)) = (state.point_mass, a.contorsion) {
                    let up = if f.z > 0.0 { "upward" } else { "downward" };
                    text.push_str(&format!(", {up} acceleration f_z / m = {:.3} m/s²", f.z / m));
                }
                ui.colored_label(super::variant_color32(i), text);
            }
        });
}
