//! A standing robot's balance in the 3-D view (issue 32 sec. 5), for the
//! variants whose controller has contacts of its own (the balance law, the
//! stance laws; [`super::stance_geometry`] reads them): the CoM as a ball
//! with a plumb line to its ground projection, the support polygon on the
//! ground, at every assumed contact point its friction cone and the force
//! the wrench distribution asked of it, and at the CoM the desired wrench
//! (force and moment arrows). The numbers (the CoM's margin to the
//! polygon's edge, the distributed lift against the weight) are listed in
//! the controls panel's *Balance* section.

use super::contacts::ContactSettings;
use super::robot_view::{point, ViewLayout};
use super::session::{Session, SessionSystems};
use super::stance_geometry::StanceGeometry;
use super::variant_color32;
use crate::algorithms::Workspace;
use bevy::prelude::*;
use bevy_egui::egui;

/// What the balance view draws.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct BalanceViewSettings {
    pub show: bool,
    /// Length of a desired moment's arrow per newton metre, m.
    pub meters_per_newton_meter: f32,
}

impl Default for BalanceViewSettings {
    fn default() -> Self {
        BalanceViewSettings {
            show: true,
            meters_per_newton_meter: 0.1,
        }
    }
}

/// Every variant's balance now (None for a variant without contacts of its
/// controller), in world coordinates before the layout offset.
#[derive(Resource, Default)]
pub struct BalanceViewState {
    pub variants: Vec<Option<StanceGeometry>>,
    /// A plant workspace per variant (the CoM's kinematics).
    workspaces: Vec<Workspace>,
    generation: Option<u64>,
}

/// The support polygon's colour: a spring green no variant tint has (the
/// window test looks for it near the feet).
pub const POLYGON_COLOR: Color = Color::srgb(0.0, 1.0, 0.5);
const COM_COLOR: Color = Color::WHITE;
const CONE_COLOR: Color = Color::srgba(0.85, 0.85, 0.85, 0.6);
const FORCE_COLOR: Color = Color::srgb(0.55, 0.8, 1.0);
const WRENCH_FORCE_COLOR: Color = Color::srgb(1.0, 0.3, 0.85);
const WRENCH_MOMENT_COLOR: Color = Color::srgb(0.65, 0.2, 1.0);

/// The friction cones' height along the normal, m.
const CONE_HEIGHT: f32 = 0.05;
/// Longest arrow drawn, m.
const LONGEST_ARROW: f32 = 0.5;
/// Lift of the ground drawings above the ground plane, m (so it does not
/// hide them).
const ABOVE_GROUND: f32 = 0.002;

pub struct BalanceViewPlugin;

impl Plugin for BalanceViewPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<BalanceViewSettings>()
            .init_resource::<BalanceViewState>()
            .add_systems(
                Update,
                (update_balance, draw_balance).chain().after(SessionSystems),
            );
    }
}

/// The ground's height: the scenario's ground plane, else 0.
fn ground_height(session: &Session) -> f64 {
    session
        .scenario
        .file
        .environment
        .ground
        .as_ref()
        .map_or(0.0, |g| g.height)
}

fn update_balance(session: Res<Session>, mut state: ResMut<BalanceViewState>) {
    if state.generation != Some(session.generation) {
        state.generation = Some(session.generation);
        state.workspaces = session
            .variants
            .iter()
            .map(|v| Workspace::new(&v.sim.plant))
            .collect();
    }
    let ground = ground_height(&session);
    let state = &mut *state;
    state.variants = session
        .variants
        .iter()
        .zip(&mut state.workspaces)
        .map(|(v, ws)| StanceGeometry::of(&v.sim, ws, ground))
        .collect();
}

/// An arrow of `vector` scaled by `scale` (capped), if longer than a millimetre.
fn arrow(gizmos: &mut Gizmos, from: Vec3, vector: Vec3, scale: f32, color: Color) {
    let length = (vector.length() * scale).min(LONGEST_ARROW);
    if length > 1e-3 {
        gizmos.arrow(from, from + length * vector.normalize(), color);
    }
}

fn draw_balance(
    mut gizmos: Gizmos,
    settings: Res<BalanceViewSettings>,
    forces: Res<ContactSettings>,
    state: Res<BalanceViewState>,
    layout: Res<ViewLayout>,
) {
    if !settings.show {
        return;
    }
    let count = state.variants.len();
    let lift = Vec3::Z * ABOVE_GROUND;
    for (i, g) in state.variants.iter().enumerate() {
        let Some(g) = g else { continue };
        let offset = layout.offset(i, count);
        let at = |p: &crate::spatial::Vec3| point(p) + offset;
        let polygon: Vec<Vec3> = g.polygon.iter().map(|p| at(p) + lift).collect();
        if polygon.len() >= 2 {
            gizmos.lineloop(polygon, POLYGON_COLOR);
        }
        let (com, below) = (at(&g.com), at(&g.com_on_ground) + lift);
        gizmos.sphere(Isometry3d::from_translation(com), 0.012, COM_COLOR);
        gizmos.line(com, below, COM_COLOR);
        gizmos.circle(Isometry3d::from_translation(below), 0.01, COM_COLOR);
        for f in &g.feet {
            let p = at(&f.position);
            let n = point(&f.normal).normalize_or_zero();
            // The cone: the rim at CONE_HEIGHT along the normal, four edges.
            let rim_centre = p + CONE_HEIGHT * n;
            let radius = CONE_HEIGHT * f.friction as f32;
            let turn = Quat::from_rotation_arc(Vec3::Z, n);
            gizmos.circle(Isometry3d::new(rim_centre, turn), radius, CONE_COLOR);
            for k in 0..4 {
                let side =
                    turn * Quat::from_rotation_z(k as f32 * std::f32::consts::FRAC_PI_2) * Vec3::X;
                gizmos.line(p, rim_centre + radius * side, CONE_COLOR);
            }
            arrow(
                &mut gizmos,
                p,
                point(&f.force),
                forces.meters_per_newton,
                FORCE_COLOR,
            );
        }
        let w = &g.wrench;
        let force = Vec3::new(w[0] as f32, w[1] as f32, w[2] as f32);
        let moment = Vec3::new(w[3] as f32, w[4] as f32, w[5] as f32);
        arrow(
            &mut gizmos,
            com,
            force,
            forces.meters_per_newton,
            WRENCH_FORCE_COLOR,
        );
        arrow(
            &mut gizmos,
            com,
            moment,
            settings.meters_per_newton_meter,
            WRENCH_MOMENT_COLOR,
        );
    }
}

/// The controls panel's *Balance* section (scenarios whose controllers
/// have contacts): the switch, the moment scale and per variant the CoM's
/// margin to the support polygon's edge and the distributed lift.
pub fn balance_section(
    ui: &mut egui::Ui,
    settings: &mut BalanceViewSettings,
    state: &BalanceViewState,
    session: &Session,
) {
    if state.variants.iter().all(Option::is_none) {
        return;
    }
    egui::CollapsingHeader::new("Balance")
        .default_open(true)
        .show(ui, |ui| {
            ui.checkbox(
                &mut settings.show,
                "CoM, support polygon, friction cones, distributed forces, desired wrench",
            );
            super::number_fields::slider(
                ui,
                &mut settings.meters_per_newton_meter,
                1e-3..=1.0,
                |s| s.logarithmic(true).text("m per N m (moment)"),
            );
            ui.small("forces at the Contacts section's m per N");
            for (i, (g, v)) in state.variants.iter().zip(&session.variants).enumerate() {
                let Some(g) = g else { continue };
                let lift: f64 = g.feet.iter().map(|f| f.force.z).sum();
                ui.colored_label(
                    variant_color32(i),
                    format!(
                        "{}: CoM {:+.1} mm inside the polygon; lift {:.1} N, wrench {:.1} N",
                        v.name,
                        1e3 * g.margin,
                        lift,
                        g.wrench[2]
                    ),
                );
            }
        });
}
