//! Touching the robot (issue 13), as in MuJoCo's viewer: Ctrl + left drag
//! picks the body under the cursor and pulls the picked point toward the
//! cursor with a spring-damper (the cursor point stays in the plane through
//! the picked point that faces the camera); a left drag on the yellow
//! target handle moves the end-effector target (task-space laws) or q_d
//! through damped least-squares inverse kinematics (joint-space laws).
//! Both are recorded into the session's scenario (see
//! [`crate::scenario::interaction`]), so "Export as scenario" replays them.
//!
//! The mouse becomes [`PointerInput`] messages (world rays); the logic
//! reads only those, so tests drive it with synthetic rays.

use super::camera::{OrbitCamera, PanelMargins};
use super::picking::Picker;
use super::robot_view::{point, ViewLayout};
use super::session::{Session, SessionSystems};
use super::visuals::robot_visuals;
use crate::spatial::Vec3 as DVec3;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;

/// Who a drag pulls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DragScope {
    /// Every variant at the same point of the same link (a fair comparison).
    #[default]
    AllVariants,
    /// Only the variant under the cursor.
    UnderCursor,
}

/// The panel's settings for touching the robot.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct InteractionSettings {
    /// Spring stiffness per kilogram of robot, N/m/kg (MuJoCo scales its
    /// perturbation spring by mass the same way).
    pub stiffness_per_kg: f64,
    /// Damping ratio of the spring on the picked body's mass.
    pub damping_ratio: f64,
    pub scope: DragScope,
    /// Natural frequency of the target filter, rad/s.
    pub bandwidth: f64,
    pub show_handle: bool,
}

impl Default for InteractionSettings {
    fn default() -> Self {
        InteractionSettings {
            stiffness_per_kg: 100.0,
            damping_ratio: 1.0,
            scope: DragScope::AllVariants,
            bandwidth: 6.0,
            show_handle: true,
        }
    }
}

/// A mouse event as a world ray.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct PointerInput {
    pub phase: PointerPhase,
    pub origin: Vec3,
    /// Unit direction.
    pub direction: Vec3,
    /// Ctrl held at the press: pick a body instead of the handle.
    pub ctrl: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointerPhase {
    Press,
    Move,
    Release,
}

/// What the pointer holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Grab {
    /// A body of `variant`, pulled by drag `id` of the session.
    Body {
        id: usize,
        variant: usize,
        plane: (DVec3, DVec3),
        anchor: DVec3,
    },
    /// The target handle (in `variant`'s place).
    Target {
        variant: usize,
        plane: (DVec3, DVec3),
        target: DVec3,
        ik_seed: Vec<f64>,
    },
}

/// The picker and the current grab.
#[derive(Resource, Default)]
pub struct InteractionState {
    generation: Option<u64>,
    picker: Option<Picker>,
    pub grab: Option<Grab>,
}

/// Radius of the target handle, m.
pub const HANDLE_RADIUS: f64 = 0.035;

pub struct InteractionPlugin;

impl Plugin for InteractionPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<InteractionSettings>()
            .init_resource::<InteractionState>()
            .add_message::<PointerInput>()
            .add_systems(
                Update,
                (read_pointer, apply_pointer).chain().before(SessionSystems),
            );
    }
}

/// Draws the target handles (needs Bevy's gizmos).
pub struct HandlesPlugin;

/// The handles' gizmos, drawn over the robot (the handle sits inside the
/// hand when the tracking is good).
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct HandleGizmos;

impl Plugin for HandlesPlugin {
    fn build(&self, app: &mut App) {
        app.insert_gizmo_config(
            HandleGizmos,
            GizmoConfig {
                depth_bias: -1.0,
                ..default()
            },
        )
        .add_systems(Update, draw_handles.after(SessionSystems));
    }
}

fn dvec(v: Vec3) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

/// The mouse as [`PointerInput`]: left press, motion while held, release,
/// over the 3-D viewport (not over egui).
fn read_pointer(
    buttons: Option<Res<ButtonInput<MouseButton>>>,
    keys: Option<Res<ButtonInput<KeyCode>>>,
    (egui, margins): (Option<Res<EguiWantsInput>>, Option<Res<PanelMargins>>),
    state: Res<InteractionState>,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<OrbitCamera>>,
    mut out: MessageWriter<PointerInput>,
) {
    let (Some(buttons), Some(keys)) = (buttons, keys) else {
        return;
    };
    let phase = if buttons.just_pressed(MouseButton::Left) {
        let margins = margins.as_deref().copied().unwrap_or_default();
        if margins.pointer_on_egui(egui.as_deref(), windows.single().ok()) {
            return;
        }
        PointerPhase::Press
    } else if buttons.just_released(MouseButton::Left) {
        PointerPhase::Release
    } else if buttons.pressed(MouseButton::Left) && state.grab.is_some() {
        PointerPhase::Move
    } else {
        return;
    };
    let (Ok(window), Ok((camera, transform))) = (windows.single(), cameras.single()) else {
        return;
    };
    let Some(cursor) = window.cursor_position() else {
        return;
    };
    // Bevy's viewport positions are window positions (it subtracts the
    // viewport's corner itself).
    let Ok(ray) = camera.viewport_to_world(transform, cursor) else {
        return;
    };
    out.write(PointerInput {
        phase,
        origin: ray.origin,
        direction: *ray.direction,
        ctrl: keys.pressed(KeyCode::ControlLeft) || keys.pressed(KeyCode::ControlRight),
    });
}

/// Where the ray meets the plane (point, normal); None if parallel or behind.
fn on_plane(origin: &DVec3, direction: &DVec3, (p, n): &(DVec3, DVec3)) -> Option<DVec3> {
    let denominator = direction.dot(n);
    if denominator.abs() < 1e-9 {
        return None;
    }
    let s = (p - origin).dot(n) / denominator;
    (s > 0.0 && s.is_finite()).then(|| origin + direction * s)
}

/// Where the target handle of variant `i` is: its desired end-effector
/// position (the task's x_d, or FK of q_d).
fn handle_position(session: &Session, i: usize) -> Option<DVec3> {
    session.variants[i]
        .view
        .last()
        .map(|s| DVec3::from(s.desired))
}

fn apply_pointer(
    mut input: MessageReader<PointerInput>,
    mut session: ResMut<Session>,
    mut state: ResMut<InteractionState>,
    settings: Res<InteractionSettings>,
    layout: Option<Res<ViewLayout>>,
) {
    if state.generation != Some(session.generation) {
        // A new session: its robot, and nothing held.
        state.generation = Some(session.generation);
        state.picker = None;
        state.grab = None;
    }
    let count = session.variants.len();
    let offset = |i: usize| dvec(layout.as_ref().map_or(Vec3::ZERO, |l| l.offset(i, count)));
    for event in input.read() {
        let (origin, direction) = (dvec(event.origin), dvec(event.direction).normalize());
        match event.phase {
            PointerPhase::Press if event.ctrl => {
                if state.picker.is_none() {
                    let urdf = session.scenario.urdf_path();
                    let mut cache = Default::default();
                    let parts = robot_visuals(session.plant(), urdf.as_deref(), &mut cache).parts;
                    state.picker = Some(Picker::new(session.plant(), &parts));
                }
                let picker = state.picker.as_ref().expect("built above");
                let hit = session
                    .variants
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.divergence.is_none())
                    .filter_map(|(i, v)| {
                        let o = origin - offset(i);
                        picker
                            .cast(&v.sim.plant, &v.kinematics, &o, &direction)
                            .map(|h| (i, h))
                    })
                    .min_by(|a, b| a.1.distance.total_cmp(&b.1.distance));
                let Some((variant, hit)) = hit else {
                    continue;
                };
                let v = &session.variants[variant];
                let model = &v.sim.plant;
                let point = v.kinematics.placements[hit.body]
                    .inverse()
                    .transform_point(&hit.point);
                let mass: f64 = model.bodies.iter().map(|b| b.inertia.mass).sum();
                let stiffness = settings.stiffness_per_kg * mass;
                let damping = 2.0
                    * settings.damping_ratio
                    * (stiffness * model.bodies[hit.body].inertia.mass).sqrt();
                let only = (settings.scope == DragScope::UnderCursor).then_some(variant);
                let id = session.begin_drag(only, hit.body, point, &hit.point, stiffness, damping);
                state.grab = Some(Grab::Body {
                    id,
                    variant,
                    plane: (hit.point, -direction),
                    anchor: hit.point,
                });
            }
            PointerPhase::Press => {
                let grabbed = (0..count).find_map(|i| {
                    let c = handle_position(&session, i)?;
                    let o = origin - offset(i);
                    let along = (c - o).dot(&direction);
                    let miss = (o + direction * along - c).norm();
                    (along > 0.0 && miss <= HANDLE_RADIUS).then_some((i, c))
                });
                if let Some((variant, c)) = grabbed {
                    state.grab = Some(Grab::Target {
                        variant,
                        plane: (c, -direction),
                        target: c,
                        ik_seed: Vec::new(),
                    });
                }
            }
            PointerPhase::Move => match &mut state.grab {
                Some(Grab::Body {
                    id,
                    variant,
                    plane,
                    anchor,
                }) => {
                    let Some(p) = on_plane(&(origin - offset(*variant)), &direction, plane) else {
                        continue;
                    };
                    if p != *anchor {
                        *anchor = p;
                        session.move_drag(*id, &p);
                    }
                }
                Some(Grab::Target {
                    variant,
                    plane,
                    target,
                    ik_seed,
                }) => {
                    let Some(p) = on_plane(&(origin - offset(*variant)), &direction, plane) else {
                        continue;
                    };
                    if p != *target {
                        *target = p;
                        session.move_target(&p, settings.bandwidth, ik_seed);
                    }
                }
                None => {}
            },
            PointerPhase::Release => {
                if let Some(Grab::Body { id, .. }) = state.grab {
                    session.end_drag(id);
                }
                state.grab = None;
            }
        }
    }
}

/// The target handles (a yellow ball at each variant's desired end
/// effector; the raw target while it is dragged).
fn draw_handles(
    session: Res<Session>,
    state: Res<InteractionState>,
    settings: Res<InteractionSettings>,
    layout: Res<ViewLayout>,
    mut gizmos: Gizmos<HandleGizmos>,
) {
    if !settings.show_handle {
        return;
    }
    const HANDLE: Color = Color::srgb(1.0, 0.85, 0.1);
    let count = session.variants.len();
    for i in 0..count {
        let Some(c) = handle_position(&session, i) else {
            continue;
        };
        let offset = layout.offset(i, count);
        let c = point(&c) + offset;
        gizmos.sphere(
            Isometry3d::from_translation(c),
            HANDLE_RADIUS as f32,
            HANDLE,
        );
        if let Some(Grab::Target { target, .. }) = &state.grab {
            let t = point(target) + offset;
            gizmos.line(c, t, HANDLE);
            gizmos.sphere(
                Isometry3d::from_translation(t),
                0.4 * HANDLE_RADIUS as f32,
                HANDLE,
            );
        }
    }
}
