//! The rapier plant's world in 3-D: the environment's boxes and spheres
//! beside every variant's robot and a dark ground plane, and each step's
//! contacts as gizmos (a dot at the point, the normal, and an arrow of the
//! normal force along it), and the scenario's pushes (an orange force arrow,
//! a yellow spring to its anchor).

use super::robot_view::{point, ViewLayout};
use super::session::{Session, SessionSystems};
use super::variant_color;
use crate::spatial::rpy_to_matrix;
use bevy::prelude::*;

/// What the contact view shows.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct ContactSettings {
    pub show: bool,
    /// Length of a force arrow per newton, m.
    pub meters_per_newton: f32,
}

impl Default for ContactSettings {
    fn default() -> Self {
        ContactSettings {
            show: true,
            meters_per_newton: 0.01,
        }
    }
}

/// Longest force arrow drawn, m (impacts are one-step spikes of hundreds of newtons).
const LONGEST_ARROW: f32 = 0.5;

/// One environment object drawn for one variant (None: shared, the ground).
#[derive(Component, Clone, Copy, Debug)]
pub struct EnvironmentPart {
    pub variant: Option<usize>,
    /// Placement without the variant's offset.
    pub at: Transform,
}

#[derive(Resource, Default)]
struct EnvironmentViewState {
    generation: Option<u64>,
}

pub struct ContactsPlugin;

impl Plugin for ContactsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ContactSettings>()
            .init_resource::<EnvironmentViewState>()
            .add_systems(
                Update,
                (rebuild_environment, place_environment, draw_contacts)
                    .chain()
                    .after(SessionSystems),
            );
    }
}

fn rebuild_environment(
    mut commands: Commands,
    session: Res<Session>,
    mut state: ResMut<EnvironmentViewState>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    parts: Query<Entity, With<EnvironmentPart>>,
) {
    if state.generation == Some(session.generation) {
        return;
    }
    state.generation = Some(session.generation);
    for e in &parts {
        commands.entity(e).despawn();
    }
    let env = &session.scenario.file.environment;
    // Dark surfaces, so they never pass for a robot in a screenshot check.
    let material = materials.add(StandardMaterial {
        base_color: Color::srgb(0.2, 0.17, 0.14),
        perceptual_roughness: 0.9,
        ..default()
    });
    if let Some(g) = &env.ground {
        commands.spawn((
            Mesh3d(meshes.add(Plane3d::new(Vec3::Z, Vec2::splat(20.0)))),
            MeshMaterial3d(materials.add(StandardMaterial {
                base_color: Color::srgb(0.1, 0.11, 0.12),
                perceptual_roughness: 1.0,
                ..default()
            })),
            Transform::default(),
            EnvironmentPart {
                variant: None,
                // Just below the grid lines, which stay visible.
                at: Transform::from_xyz(0.0, 0.0, g.height as f32 - 1e-3),
            },
        ));
    }
    let mut objects: Vec<(Handle<Mesh>, Transform)> = Vec::new();
    for b in &env.boxes {
        let size = b.size.map(|s| s as f32);
        let [x, y, z, w] = crate::spatial::matrix_to_quaternion(&rpy_to_matrix(b.rpy));
        objects.push((
            meshes.add(Cuboid::new(size[0], size[1], size[2])),
            Transform::from_translation(point(&b.center.into()))
                .with_rotation(Quat::from_xyzw(x as f32, y as f32, z as f32, w as f32)),
        ));
    }
    for s in &env.spheres {
        objects.push((
            meshes.add(Sphere::new(s.radius as f32).mesh().uv(32, 16)),
            Transform::from_translation(point(&s.center.into())),
        ));
    }
    for variant in 0..session.variants.len() {
        for (mesh, at) in &objects {
            commands.spawn((
                Mesh3d(mesh.clone()),
                MeshMaterial3d(material.clone()),
                Transform::default(),
                EnvironmentPart {
                    variant: Some(variant),
                    at: *at,
                },
            ));
        }
    }
}

fn place_environment(
    session: Res<Session>,
    layout: Res<ViewLayout>,
    mut parts: Query<(&EnvironmentPart, &mut Transform)>,
) {
    let count = session.variants.len();
    for (part, mut transform) in &mut parts {
        let mut t = part.at;
        if let Some(i) = part.variant {
            t.translation += layout.offset(i, count);
        }
        if *transform != t {
            *transform = t;
        }
    }
}

fn draw_contacts(
    mut gizmos: Gizmos,
    session: Res<Session>,
    layout: Res<ViewLayout>,
    settings: Res<ContactSettings>,
) {
    if !settings.show {
        return;
    }
    let count = session.variants.len();
    for (i, v) in session.variants.iter().enumerate() {
        let offset = layout.offset(i, count);
        let color = variant_color(i);
        for c in v.sim.contacts() {
            let p = point(&c.point) + offset;
            let n = point(&c.normal);
            let length = (c.force as f32 * settings.meters_per_newton).min(LONGEST_ARROW);
            gizmos.sphere(Isometry3d::from_translation(p), 0.006, Color::WHITE);
            gizmos.line(p, p + 0.03 * n, Color::WHITE);
            if length > 1e-3 {
                gizmos.arrow(p, p + length * n, color);
            }
        }
        for w in &v.sim.disturbances.applied {
            let p = point(&w.point) + offset;
            let f = point(&w.force);
            let length = (f.length() * settings.meters_per_newton).min(LONGEST_ARROW);
            if length > 1e-3 {
                gizmos.arrow(p, p + length * f.normalize(), PUSH_COLOR);
            }
            let anchor = point(&w.anchor) + offset;
            if anchor.distance(p) > 1e-4 {
                gizmos.line(p, anchor, SPRING_COLOR);
                gizmos.sphere(Isometry3d::from_translation(anchor), 0.01, SPRING_COLOR);
            }
        }
    }
}

/// The pushes' force arrows and the springs toward their anchors.
const PUSH_COLOR: Color = Color::srgb(1.0, 0.55, 0.0);
const SPRING_COLOR: Color = Color::srgb(1.0, 0.85, 0.2);
