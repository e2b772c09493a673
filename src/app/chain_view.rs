//! A closed chain in the 3-D view (issue 33 sec. 5), for the variants that
//! run on a constrained plant ([`super::chain_geometry`] reads them): each
//! loop closure as a line between its two frames with a ring at each,
//! facing the camera, green while the loop is closed and red once it is
//! open by more than [`CLOSED_BELOW`]; each independent joint as a ring
//! around its axis in the independent colour, each dependent joint as a
//! smaller grey ring.
//! The controls panel's *Closed chain* section lists the partition and the
//! loops' residuals; the plots show the drift before each projection.

use super::camera::OrbitCamera;
use super::chain_geometry::{ChainGeometry, CLOSED_BELOW};
use super::robot_view::{point, ViewLayout};
use super::session::{Session, SessionSystems};
use super::variant_color32;
use bevy::prelude::*;
use bevy_egui::egui;

/// What the chain view draws.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct ChainViewSettings {
    pub show: bool,
}

impl Default for ChainViewSettings {
    fn default() -> Self {
        ChainViewSettings { show: true }
    }
}

/// Every variant's chain now (None for a variant on another plant), in
/// world coordinates before the layout offset.
#[derive(Resource, Default)]
pub struct ChainViewState {
    pub variants: Vec<Option<ChainGeometry>>,
}

/// A closed loop's colour: a green no variant tint has (the window test
/// looks for it at the closures).
pub const CLOSED_COLOR: Color = Color::srgb(0.1, 0.95, 0.2);
/// An open loop's colour.
pub const OPEN_COLOR: Color = Color::srgb(1.0, 0.1, 0.1);
/// An independent joint's ring.
pub const INDEPENDENT_COLOR: Color = Color::srgb(1.0, 0.45, 0.0);
const DEPENDENT_COLOR: Color = Color::srgb(0.75, 0.75, 0.75);

/// Radii of the joint rings, m.
const INDEPENDENT_RING: f32 = 0.03;
const DEPENDENT_RING: f32 = 0.018;
/// Radius of the closure rings, m: larger than the target handle
/// ([`super::interaction::HANDLE_RADIUS`], 35 mm), which sits where a
/// parallel robot's loops close (the Delta's platform), so that each
/// shows around the other. A 12 mm ball there hid inside the handle, a
/// pixel or two wide on the farthest variant; a ball larger than the
/// handle hid the handle.
const CLOSURE_RING: f32 = 0.06;

/// The chain's gizmos: in front of the links (a closure's frames sit
/// inside the links it joins), 3 px wide.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct ChainGizmos;

pub struct ChainViewPlugin;

impl Plugin for ChainViewPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ChainViewSettings>()
            .init_resource::<ChainViewState>()
            .insert_gizmo_config(ChainGizmos, super::in_front_gizmos(3.0))
            .add_systems(
                Update,
                (update_chains, draw_chains).chain().after(SessionSystems),
            );
    }
}

fn update_chains(session: Res<Session>, mut state: ResMut<ChainViewState>) {
    state.variants = session
        .variants
        .iter()
        .map(|v| ChainGeometry::of(&v.sim, &v.kinematics))
        .collect();
}

fn draw_chains(
    mut gizmos: Gizmos<ChainGizmos>,
    settings: Res<ChainViewSettings>,
    state: Res<ChainViewState>,
    layout: Res<ViewLayout>,
    camera: Query<&GlobalTransform, With<OrbitCamera>>,
) {
    if !settings.show {
        return;
    }
    // The closure rings lie in the screen's plane.
    let facing = camera.single().map_or(Quat::IDENTITY, |c| c.rotation());
    let count = state.variants.len();
    for (i, g) in state.variants.iter().enumerate() {
        let Some(g) = g else { continue };
        let offset = layout.offset(i, count);
        for c in &g.closures {
            let color = if c.closed() { CLOSED_COLOR } else { OPEN_COLOR };
            let (a, b) = (point(&c.frame_a) + offset, point(&c.frame_b) + offset);
            gizmos.line(a, b, color);
            gizmos.circle(Isometry3d::new(a, facing), CLOSURE_RING, color);
            gizmos.circle(Isometry3d::new(b, facing), CLOSURE_RING, color);
        }
        for j in &g.joints {
            let (radius, color) = if j.independent {
                (INDEPENDENT_RING, INDEPENDENT_COLOR)
            } else {
                (DEPENDENT_RING, DEPENDENT_COLOR)
            };
            let at = point(&j.position) + offset;
            let axis = point(&j.axis).normalize_or_zero();
            let turn = Quat::from_rotation_arc(Vec3::Z, axis);
            gizmos.circle(Isometry3d::new(at, turn), radius, color);
            if j.independent {
                // A second ring and the axis: the actuated joints stand out.
                gizmos.circle(Isometry3d::new(at, turn), 0.8 * radius, color);
                gizmos.line(at - 1.5 * radius * axis, at + 1.5 * radius * axis, color);
            }
        }
    }
}

/// The controls panel's *Closed chain* section (scenarios with
/// `[[loop_closures]]`): the switch, the independent and dependent joints,
/// and per variant each loop's residual now and the largest drift a step
/// left before its projection.
pub fn chain_section(
    ui: &mut egui::Ui,
    settings: &mut ChainViewSettings,
    state: &ChainViewState,
    session: &Session,
) {
    let Some(first) = state.variants.iter().flatten().next() else {
        return;
    };
    egui::CollapsingHeader::new("Closed chain")
        .default_open(true)
        .show(ui, |ui| {
            ui.checkbox(
                &mut settings.show,
                "loops (green closed, red open), independent joints (orange rings)",
            );
            let names = |independent: bool| {
                let names: Vec<&str> = first
                    .joints
                    .iter()
                    .filter(|j| j.independent == independent)
                    .map(|j| j.name.as_str())
                    .collect();
                names.join(", ")
            };
            let chosen = if session
                .scenario
                .file
                .closed_chain
                .as_ref()
                .is_some_and(|c| c.independent.is_some())
            {
                "given"
            } else {
                "chosen by column-pivoted QR"
            };
            ui.label(format!("independent ({chosen}): {}", names(true)));
            ui.label(format!("dependent: {}", names(false)));
            ui.small(format!(
                "a loop is drawn open beyond |phi| = {CLOSED_BELOW:e}"
            ));
            for (i, (g, v)) in state.variants.iter().zip(&session.variants).enumerate() {
                let (Some(g), Some(plant)) = (g, v.sim.constrained_plant()) else {
                    continue;
                };
                let now = g.closures.iter().fold(0.0, |w: f64, c| w.max(c.residual));
                ui.colored_label(
                    variant_color32(i),
                    format!(
                        "{}: |phi| now {now:.1e}; before projection at most {:.1e}",
                        v.name,
                        plant.drift().before_projection
                    ),
                );
            }
        });
}
