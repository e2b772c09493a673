//! Adaptive estimates made visible (issue 35): for every variant whose law
//! adapts the inertial parameters, each body's estimate as its equivalent
//! inertia ellipsoid — the uniform solid ellipsoid with the estimate's mass,
//! centre of mass and rotational inertia (Wensing, Kim & Slotine 2017;
//! [`crate::spatial::inertia_ellipsoid`]) — solid gold, against the true
//! body's as a white wireframe (its three principal sections). Where an
//! estimate is not physically consistent (its pseudo-inertia P_hat is not
//! positive definite) no such ellipsoid exists: a red wire ball with a
//! cross marks the body at its true centre of mass instead, drawn over
//! everything (inside a link, through a translucent robot, its red would
//! be washed out). The robots turn translucent while the view is on, so
//! the ellipsoids inside the links show.

use super::robot_view::{point, to_bevy, ViewLayout};
use super::session::{lesson_views_to_open, Session, SessionSystems};
use super::task_space::ellipsoid_sections;
use crate::control::Adaptation;
use crate::scenario::LessonView;
use crate::spatial::{inertia_ellipsoid, InertiaEllipsoid, RigidInertia, Transform as Placement};
use bevy::prelude::*;
use bevy_egui::egui;

/// Whether the inertia ellipsoids are drawn (off by default: they hide much
/// of the robot; a lesson with `views = ["inertia"]` turns them on).
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct InertiaViewSettings {
    pub show: bool,
}

/// One body of an adaptive variant now, in world coordinates (before the
/// layout offset).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyInertia {
    /// The estimate's ellipsoid; None where the estimate is not physical.
    pub estimate: Option<InertiaEllipsoid>,
    /// The true body's ellipsoid (None for a massless body).
    pub truth: Option<InertiaEllipsoid>,
    /// Where the body is marked when its estimate is not physical: its
    /// true centre of mass (its frame's origin when massless).
    pub marker: DVec3,
}

type DVec3 = crate::spatial::Vec3;

/// One variant's bodies (empty when its law does not adapt), and its law.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VariantInertia {
    pub law: Option<&'static str>,
    pub bodies: Vec<BodyInertia>,
}

impl VariantInertia {
    /// Bodies whose estimate is not physical now.
    pub fn non_physical(&self) -> usize {
        self.bodies.iter().filter(|b| b.estimate.is_none()).count()
    }
}

/// Every variant's bodies now, and what draws them.
#[derive(Resource, Default)]
pub struct InertiaViewState {
    pub variants: Vec<VariantInertia>,
    generation: Option<u64>,
    material: Option<Handle<StandardMaterial>>,
    sphere: Option<Handle<Mesh>>,
}

/// The solid drawn for one body's estimate: its ellipsoid (hidden while the
/// estimate is not physical).
#[derive(Component, Clone, Copy, Debug)]
pub struct EstimateSolid {
    pub variant: usize,
    pub body: usize,
}

/// Radius of the red marker of a non-physical estimate, m.
const MARKER_RADIUS: f32 = 0.035;

/// Largest semi-axis drawn, m: an estimate far from the truth can have a
/// huge ellipsoid, which would hide the scene.
const LARGEST_SEMI_AXIS: f64 = 1.0;

/// The estimates' colour (gold), the truth's (white) and the non-physical
/// marker's (pure red).
const ESTIMATE: Color = Color::srgb(0.95, 0.75, 0.15);
const TRUTH: Color = Color::srgba(1.0, 1.0, 1.0, 0.9);
const NON_PHYSICAL: Color = Color::srgb(1.0, 0.0, 0.0);

/// Opacity of the robots while the view is on.
pub const ROBOT_ALPHA: f32 = 0.3;

/// The non-physical markers' gizmos: in front of everything, 4 px wide.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct MarkerGizmos;

pub struct InertiaViewPlugin;

impl Plugin for InertiaViewPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<InertiaViewSettings>()
            .init_resource::<InertiaViewState>()
            .insert_gizmo_config(MarkerGizmos, super::in_front_gizmos(4.0))
            .add_systems(
                Update,
                (open_lesson_view, update_inertia, place_solids, draw_wires)
                    .chain()
                    .after(SessionSystems),
            );
    }
}

fn open_lesson_view(
    session: Res<Session>,
    mut settings: ResMut<InertiaViewSettings>,
    mut seen: Local<Option<u64>>,
) {
    if lesson_views_to_open(&session, &mut seen).contains(&LessonView::Inertia) {
        settings.show = true;
    }
}

/// The law's name, for an adaptive law.
fn law_name(adaptation: &Adaptation) -> &'static str {
    match adaptation {
        Adaptation::Euclidean(_) => "Euclidean",
        Adaptation::Natural(_) => "natural",
    }
}

/// The ellipsoid `e` (body coordinates) in the world, the body placed at `x`.
fn in_world(x: &Placement, e: InertiaEllipsoid) -> InertiaEllipsoid {
    InertiaEllipsoid {
        center: x.transform_point(&e.center),
        rotation: x.rot * e.rotation,
        ..e
    }
}

#[allow(clippy::too_many_arguments)]
fn update_inertia(
    mut commands: Commands,
    session: Res<Session>,
    mut state: ResMut<InertiaViewState>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    solids: Query<Entity, With<EstimateSolid>>,
) {
    let state = &mut *state;
    if state.generation != Some(session.generation) {
        state.generation = Some(session.generation);
        for e in &solids {
            commands.entity(e).despawn();
        }
        let sphere = state
            .sphere
            .get_or_insert_with(|| meshes.add(Sphere::new(1.0).mesh().uv(24, 12)))
            .clone();
        let estimate = state
            .material
            .get_or_insert_with(|| {
                materials.add(StandardMaterial {
                    base_color: ESTIMATE,
                    perceptual_roughness: 0.6,
                    ..default()
                })
            })
            .clone();
        state.variants.clear();
        for (i, v) in session.variants.iter().enumerate() {
            let law = v.sim.controller.law.adaptation().map(law_name);
            let bodies = if law.is_some() {
                v.sim.plant.nbodies()
            } else {
                0
            };
            for body in 0..bodies {
                commands.spawn((
                    Mesh3d(sphere.clone()),
                    MeshMaterial3d(estimate.clone()),
                    Transform::default(),
                    Visibility::Hidden,
                    EstimateSolid { variant: i, body },
                ));
            }
            state.variants.push(VariantInertia {
                law,
                bodies: Vec::with_capacity(bodies),
            });
        }
    }
    for (v, out) in session.variants.iter().zip(state.variants.iter_mut()) {
        out.bodies.clear();
        if out.law.is_none() || v.sim.parameters.len() != 10 * v.sim.plant.nbodies() {
            continue;
        }
        let truth = v.sim.true_parameters();
        for (b, x) in v.kinematics.placements.iter().enumerate() {
            let range = 10 * b..10 * b + 10;
            let true_body = &truth[range.clone()];
            let marker = if true_body[0] > 0.0 {
                RigidInertia::from_parameters(true_body).com()
            } else {
                DVec3::zeros()
            };
            out.bodies.push(BodyInertia {
                estimate: inertia_ellipsoid(&v.sim.parameters[range]).map(|e| in_world(x, e)),
                truth: inertia_ellipsoid(true_body).map(|e| in_world(x, e)),
                marker: x.transform_point(&marker),
            });
        }
    }
}

/// Where `solid` is drawn now: its transform and whether it marks a
/// non-physical estimate; None when it is not drawn.
pub fn solid_placement(
    settings: &InertiaViewSettings,
    state: &InertiaViewState,
    layout: &ViewLayout,
    solid: &EstimateSolid,
) -> Option<(Transform, bool)> {
    if !settings.show {
        return None;
    }
    let body = state.variants.get(solid.variant)?.bodies.get(solid.body)?;
    let offset = layout.offset(solid.variant, state.variants.len());
    Some(match &body.estimate {
        Some(e) => {
            let mut t = to_bevy(&Placement::new(e.rotation, e.center));
            t.translation += offset;
            t.scale = point(&e.semi_axes.map(|a| a.min(LARGEST_SEMI_AXIS)));
            (t, false)
        }
        None => (
            Transform::from_translation(point(&body.marker) + offset)
                .with_scale(Vec3::splat(MARKER_RADIUS)),
            true,
        ),
    })
}

fn place_solids(
    settings: Res<InertiaViewSettings>,
    state: Res<InertiaViewState>,
    layout: Res<ViewLayout>,
    mut solids: Query<(&EstimateSolid, &mut Transform, &mut Visibility)>,
) {
    for (solid, mut transform, mut visibility) in &mut solids {
        match solid_placement(&settings, &state, &layout, solid) {
            Some((t, false)) => {
                *transform = t;
                visibility.set_if_neq(Visibility::Inherited);
            }
            _ => {
                visibility.set_if_neq(Visibility::Hidden);
            }
        }
    }
}

/// The true ellipsoids as wireframes, and the non-physical estimates' markers.
fn draw_wires(
    mut gizmos: Gizmos,
    mut markers: Gizmos<MarkerGizmos>,
    settings: Res<InertiaViewSettings>,
    state: Res<InertiaViewState>,
    layout: Res<ViewLayout>,
) {
    if !settings.show {
        return;
    }
    let count = state.variants.len();
    for (i, v) in state.variants.iter().enumerate() {
        let offset = layout.offset(i, count);
        for b in v.bodies.iter().filter(|b| b.estimate.is_none()) {
            let p = point(&b.marker) + offset;
            markers.sphere(Isometry3d::from_translation(p), MARKER_RADIUS, NON_PHYSICAL);
            for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
                let arm = 1.5 * MARKER_RADIUS * axis;
                markers.line(p - arm, p + arm, NON_PHYSICAL);
            }
        }
        for e in v.bodies.iter().filter_map(|b| b.truth.as_ref()) {
            let rotation = to_bevy(&Placement::new(e.rotation, e.center)).rotation;
            let radii = point(&e.semi_axes.map(|a| a.min(LARGEST_SEMI_AXIS)));
            ellipsoid_sections(
                &mut gizmos,
                point(&e.center) + offset,
                rotation,
                radii,
                TRUTH,
            );
        }
    }
}

/// The view panel's switch, and per adaptive variant its law and how many
/// of its bodies' estimates are not physical now.
pub fn inertia_section(
    ui: &mut egui::Ui,
    settings: &mut InertiaViewSettings,
    state: &InertiaViewState,
    session: &Session,
) {
    if state.variants.iter().all(|v| v.law.is_none()) {
        return;
    }
    ui.checkbox(&mut settings.show, "inertia ellipsoids of the estimates")
        .on_hover_text(
            "each body's estimate as the uniform solid ellipsoid with its mass, centre of mass \
             and rotational inertia (gold; Wensing, Kim & Slotine 2017), the truth's as a white \
             wireframe; a red wire ball where the estimate is not physical (P_hat not \
             positive definite: no ellipsoid exists)",
        );
    for (i, (v, live)) in state.variants.iter().zip(&session.variants).enumerate() {
        let Some(law) = v.law else { continue };
        ui.colored_label(
            super::variant_color32(i),
            format!(
                "{} ({law}): {} of {} estimates not physical",
                live.name,
                v.non_physical(),
                v.bodies.len()
            ),
        );
    }
}
