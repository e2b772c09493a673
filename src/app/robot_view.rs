//! The robots in 3-D: one copy per variant, built from the URDF visuals
//! (see [`super::visuals`]), placed every frame from the variant's forward
//! kinematics, side by side or overlaid as ghosts in the variant colours.
//! The world is the robot's (z up); the camera looks at it with z up.

use super::inertia_view::{InertiaViewSettings, ROBOT_ALPHA};
use super::session::{Notices, Session, SessionSystems};
use super::variant_color;
use super::visuals::{robot_visuals, MeshCache, MeshData, Shape};
use crate::algorithms::frame_placement;
use crate::spatial::{self, Mat3, Vec3 as DVec3};
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// How the variants share the scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrangement {
    /// Each variant's robot beside the previous one, along the world y axis.
    SideBySide,
    /// All robots at the same place; every variant after the first as a
    /// translucent ghost.
    Overlay,
}

/// Where each variant is drawn.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct ViewLayout {
    pub arrangement: Arrangement,
    /// Distance between neighbours side by side, m.
    pub spacing: f32,
}

impl Default for ViewLayout {
    fn default() -> Self {
        ViewLayout {
            arrangement: Arrangement::SideBySide,
            spacing: 1.0,
        }
    }
}

impl ViewLayout {
    /// The world offset at which variant `i` of `count` is drawn.
    pub fn offset(&self, i: usize, count: usize) -> Vec3 {
        match self.arrangement {
            Arrangement::Overlay => Vec3::ZERO,
            Arrangement::SideBySide => {
                Vec3::Y * self.spacing * (i as f32 - 0.5 * (count as f32 - 1.0))
            }
        }
    }
}

/// A core transform as Bevy's (f64 to f32, same axes). The quaternion
/// comes from a closed formula (no iteration, so a non-finite rotation
/// cannot hang it).
pub fn to_bevy(x: &spatial::Transform) -> Transform {
    let [qx, qy, qz, qw] = spatial::matrix_to_quaternion(&x.rot);
    Transform {
        translation: point(&x.trans),
        rotation: Quat::from_xyzw(qx as f32, qy as f32, qz as f32, qw as f32),
        scale: Vec3::ONE,
    }
}

/// A core point as Bevy's.
pub fn point(p: &DVec3) -> Vec3 {
    Vec3::new(p.x as f32, p.y as f32, p.z as f32)
}

/// One shape of one variant's robot.
#[derive(Component, Clone, Debug)]
pub struct RobotPart {
    pub variant: usize,
    pub frame: usize,
    /// Placement in the frame (Bevy's y-axis primitives already turned to z).
    pub origin: spatial::Transform,
    pub scale: Vec3,
    pub fallback: bool,
}

/// What the view has built.
#[derive(Resource, Default)]
pub struct RobotViewState {
    generation: Option<u64>,
    meshes: MeshCache,
    handles: HashMap<PathBuf, Handle<Mesh>>,
    /// One material per variant.
    pub materials: Vec<Handle<StandardMaterial>>,
}

pub struct RobotViewPlugin;

impl Plugin for RobotViewPlugin {
    fn build(&self, app: &mut App) {
        // The robots turn translucent while the inertia view is on: the
        // setting exists with or without that view's plugin.
        app.init_resource::<ViewLayout>()
            .init_resource::<RobotViewState>()
            .init_resource::<InertiaViewSettings>()
            .add_systems(
                Update,
                (rebuild_robots, style_ghosts, place_robots)
                    .chain()
                    .after(SessionSystems),
            );
    }
}

/// A Bevy mesh from mesh-file data.
fn bevy_mesh(data: &MeshData) -> Mesh {
    let mut mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    );
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, data.positions.clone());
    mesh.insert_indices(Indices::U32(data.indices.clone()));
    match &data.normals {
        Some(n) => mesh.insert_attribute(Mesh::ATTRIBUTE_NORMAL, n.clone()),
        None => mesh.compute_smooth_normals(),
    }
    mesh
}

/// Bevy's cylinders and capsules run along y, URDF's along z.
fn y_to_z() -> spatial::Transform {
    spatial::Transform::new(
        Mat3::new(1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0),
        DVec3::zeros(),
    )
}

/// The side-by-side spacing: the robot's width across the row (y) at the
/// current state and along its desired end-effector path, plus room
/// between the robots.
fn spacing(session: &Session) -> f32 {
    let v = &session.variants[0];
    let frames = (0..v.sim.plant.frames.len()).map(|f| {
        frame_placement(&v.sim.plant, &v.kinematics, f)
            .trans
            .y
            .abs() as f32
    });
    let path = super::trails::desired_end_effector_path(session)
        .into_iter()
        .map(|p| p.y.abs());
    let half_width = frames.chain(path).fold(0.0, f32::max);
    (2.0 * half_width + 0.6).max(0.8)
}

#[allow(clippy::too_many_arguments)]
fn rebuild_robots(
    mut commands: Commands,
    session: Res<Session>,
    mut state: ResMut<RobotViewState>,
    mut layout: ResMut<ViewLayout>,
    mut notices: ResMut<Notices>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    parts: Query<Entity, With<RobotPart>>,
) {
    if state.generation == Some(session.generation) {
        return;
    }
    state.generation = Some(session.generation);
    for e in &parts {
        commands.entity(e).despawn();
    }
    let urdf = session.scenario.urdf_path();
    let visuals = robot_visuals(session.plant(), urdf.as_deref(), &mut state.meshes);
    for w in &visuals.warnings {
        notices.warning(format!("{w}; drawn as a simple shape"));
    }
    *layout = ViewLayout {
        arrangement: if urdf.is_some() {
            Arrangement::SideBySide
        } else {
            Arrangement::Overlay
        },
        spacing: spacing(&session),
    };
    state.materials = (0..session.variants.len())
        .map(|i| {
            let tint = variant_color(i).to_srgba();
            materials.add(StandardMaterial {
                base_color: Color::srgb(
                    0.35 + 0.65 * tint.red,
                    0.35 + 0.65 * tint.green,
                    0.35 + 0.65 * tint.blue,
                ),
                perceptual_roughness: 0.55,
                ..default()
            })
        })
        .collect();
    for part in &visuals.parts {
        let (handle, origin, scale) = match &part.shape {
            Shape::Mesh { path, data, scale } => {
                let handle = state
                    .handles
                    .entry(path.clone())
                    .or_insert_with(|| meshes.add(bevy_mesh(data)))
                    .clone();
                let s = Vec3::new(scale[0] as f32, scale[1] as f32, scale[2] as f32);
                (handle, part.origin, s)
            }
            Shape::Box { size } => (
                meshes.add(Cuboid::new(size[0] as f32, size[1] as f32, size[2] as f32)),
                part.origin,
                Vec3::ONE,
            ),
            Shape::Sphere { radius } => (
                meshes.add(Sphere::new(*radius as f32).mesh().uv(32, 16)),
                part.origin,
                Vec3::ONE,
            ),
            Shape::Cylinder { radius, length } => (
                meshes.add(Cylinder::new(*radius as f32, *length as f32)),
                part.origin.compose(&y_to_z()),
                Vec3::ONE,
            ),
            Shape::Capsule { radius, length } => (
                meshes.add(Capsule3d::new(*radius as f32, *length as f32)),
                part.origin.compose(&y_to_z()),
                Vec3::ONE,
            ),
        };
        for (variant, material) in state.materials.iter().enumerate() {
            commands.spawn((
                Mesh3d(handle.clone()),
                MeshMaterial3d(material.clone()),
                Transform::default(),
                RobotPart {
                    variant,
                    frame: part.frame,
                    origin,
                    scale,
                    fallback: part.fallback,
                },
            ));
        }
    }
}

/// Overlaid variants after the first are translucent ghosts; every robot
/// is, fainter, while the inertia view draws the ellipsoids inside it.
fn style_ghosts(
    layout: Res<ViewLayout>,
    inertia: Res<InertiaViewSettings>,
    state: Res<RobotViewState>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    if !layout.is_changed() && !inertia.is_changed() {
        return;
    }
    for (i, handle) in state.materials.iter().enumerate() {
        if let Some(mut m) = materials.get_mut(handle) {
            let ghost = i > 0 && layout.arrangement == Arrangement::Overlay;
            let alpha = match (inertia.show, ghost) {
                (true, _) => ROBOT_ALPHA,
                (false, true) => 0.4,
                (false, false) => 1.0,
            };
            m.base_color.set_alpha(alpha);
            m.alpha_mode = if alpha < 1.0 {
                AlphaMode::Blend
            } else {
                AlphaMode::Opaque
            };
        }
    }
}

fn place_robots(
    session: Res<Session>,
    layout: Res<ViewLayout>,
    mut parts: Query<(&RobotPart, &mut Transform)>,
) {
    let count = session.variants.len();
    for (part, mut transform) in &mut parts {
        let Some(v) = session.variants.get(part.variant) else {
            continue;
        };
        let x = frame_placement(&v.sim.plant, &v.kinematics, part.frame).compose(&part.origin);
        let mut t = to_bevy(&x);
        t.translation += layout.offset(part.variant, count);
        t.scale = part.scale;
        *transform = t;
    }
}
