//! What a robot looks like: the URDF's visual elements attached to the
//! model's frames (meshes in STL, COLLADA or OBJ read with mesh-loader;
//! boxes, cylinders, spheres and capsules as they are), and simple shapes
//! where there is nothing to show: a sphere of the link's mass at its centre
//! of mass (water density) and a rod to each child joint. Free of Bevy, so
//! it is tested without a window.

pub use crate::geometry::{MeshCache, MeshData, Shape};

use crate::geometry::{urdf_shapes, GeometryKind};
use crate::model::Model;
use crate::spatial::{frame_with_z, Mat3, Transform, Vec3};
use std::path::Path;

/// One shape attached to a frame of the model.
#[derive(Clone, Debug, PartialEq)]
pub struct VisualPart {
    /// Index into `model.frames`.
    pub frame: usize,
    /// Placement of the shape in the frame.
    pub origin: Transform,
    pub shape: Shape,
    /// A simple shape standing in for a missing visual.
    pub fallback: bool,
}

/// The parts of a robot and what went wrong finding them.
#[derive(Clone, Debug, Default)]
pub struct RobotVisuals {
    pub parts: Vec<VisualPart>,
    /// Readable problems (missing or unreadable meshes, unreadable URDF).
    pub warnings: Vec<String>,
}

/// Density of the stand-in spheres (water), kg/m^3.
const DENSITY: f64 = 1000.0;
/// Radius of the rods between joints, m.
const ROD_RADIUS: f64 = 0.02;

/// Radius of a sphere of `mass` at [`DENSITY`], kept visible.
fn sphere_radius(mass: f64) -> f64 {
    (3.0 * mass.max(0.0) / (4.0 * std::f64::consts::PI * DENSITY))
        .cbrt()
        .clamp(0.03, 0.15)
}

/// A rod from `a` to `b` in `frame` (nothing for coincident points).
fn rod(frame: usize, a: Vec3, b: Vec3) -> Option<VisualPart> {
    let d = b - a;
    (d.norm() > 1e-6).then(|| VisualPart {
        frame,
        origin: Transform::new(frame_with_z(&d), 0.5 * (a + b)),
        shape: Shape::Cylinder {
            radius: ROD_RADIUS,
            length: d.norm(),
        },
        fallback: false,
    })
}

/// Radius of the ball of a system that is a single point (the point mass),
/// m: small beside the loops of its path out of the plane (about 0.14 m
/// high, Wensing, Englsberger & Slotine (2023), Fig. 6), which a ball of
/// its water-density size (0.06 m for 1 kg) would cover.
const POINT_RADIUS: f64 = 0.035;

/// Simple shapes for a model without visuals (the look of the built-in
/// systems): a sphere at every massive body's centre of mass and rods to
/// its children and other frames; a system without rods (a point) is a
/// small ball.
pub fn stick_figure(model: &Model) -> Vec<VisualPart> {
    let mut parts = Vec::new();
    let body_frame = |b: usize| {
        model
            .frames
            .iter()
            .position(|f| f.body == Some(b) && f.placement.trans.norm() < 1e-12)
    };
    for (b, body) in model.bodies.iter().enumerate() {
        let Some(frame) = body_frame(b) else { continue };
        let mass = body.inertia.mass;
        if mass > 0.0 {
            parts.push(VisualPart {
                frame,
                origin: Transform::new(Mat3::identity(), body.inertia.com()),
                shape: Shape::Sphere {
                    radius: sphere_radius(mass).max(0.06),
                },
                fallback: false,
            });
        }
        let children = model
            .bodies
            .iter()
            .filter(|c| c.parent == Some(b))
            .map(|c| c.tree_placement.trans);
        let frames = model
            .frames
            .iter()
            .filter(|f| f.body == Some(b))
            .map(|f| f.placement.trans);
        parts.extend(
            children
                .chain(frames)
                .filter_map(|p| rod(frame, Vec3::zeros(), p)),
        );
    }
    if let [VisualPart {
        shape: Shape::Sphere { radius },
        ..
    }] = parts.as_mut_slice()
    {
        *radius = POINT_RADIUS;
    }
    parts
}

/// The robot's parts from its URDF (None: a built-in system, drawn as a
/// stick figure). A missing or unreadable mesh becomes a sphere of the
/// link's mass at its centre of mass, with a warning.
pub fn robot_visuals(model: &Model, urdf: Option<&Path>, cache: &mut MeshCache) -> RobotVisuals {
    let Some(urdf) = urdf else {
        return RobotVisuals {
            parts: stick_figure(model),
            warnings: Vec::new(),
        };
    };
    let stand_in = || -> Vec<VisualPart> {
        stick_figure(model)
            .into_iter()
            .map(|p| VisualPart {
                fallback: true,
                ..p
            })
            .collect()
    };
    let shapes = match urdf_shapes(model, urdf, GeometryKind::Visual, cache) {
        Ok(s) => s,
        Err(e) => {
            return RobotVisuals {
                parts: stand_in(),
                warnings: vec![format!("no visuals ({e})")],
            }
        }
    };
    let mut out = RobotVisuals {
        parts: shapes
            .parts
            .into_iter()
            .map(|p| VisualPart {
                frame: p.frame,
                origin: p.origin,
                shape: p.shape,
                fallback: false,
            })
            .collect(),
        warnings: shapes.warnings,
    };
    out.parts.extend(shapes.missing.iter().map(|m| VisualPart {
        frame: m.frame,
        origin: Transform::new(Mat3::identity(), m.com),
        shape: Shape::Sphere {
            radius: sphere_radius(m.mass),
        },
        fallback: true,
    }));
    if out.parts.is_empty() {
        out.parts = stand_in();
    }
    out.parts.extend(rotor_stand_ins(model, &out.parts));
    out
}

/// A cylinder for each mimicking body with nothing drawn on it (a rotor a
/// scenario added): a solid cylinder of the body's mass with its axial
/// moment (I_a = m r^2 / 2) and transverse moment
/// (I_t = m (3 r^2 + L^2) / 12), about the joint axis, kept visible.
fn rotor_stand_ins(model: &Model, drawn: &[VisualPart]) -> Vec<VisualPart> {
    let Some(coupling) = model.coupling() else {
        return Vec::new();
    };
    let mut parts = Vec::new();
    for (b, body) in model.bodies.iter().enumerate() {
        let crate::model::Joint::Revolute { axis } = body.joint else {
            continue;
        };
        let frames: Vec<usize> = (0..model.frames.len())
            .filter(|&f| model.frames[f].body == Some(b))
            .collect();
        let bare = !drawn.iter().any(|p| frames.contains(&p.frame));
        let (Some(&frame), Some(_), true) = (frames.first(), coupling.follows(b), bare) else {
            continue;
        };
        let m = body.inertia.mass.max(1e-9);
        let i_com = body.inertia.inertia_about_com();
        let axial = (axis.transpose() * i_com * axis)[0];
        let transverse = 0.5 * i_com.trace() - 0.5 * axial;
        let radius = (2.0 * axial / m).sqrt();
        let length = (12.0 * transverse / m - 3.0 * radius * radius)
            .max(0.0)
            .sqrt();
        parts.push(VisualPart {
            frame,
            origin: Transform::new(frame_with_z(&axis), body.inertia.com()),
            shape: Shape::Cylinder {
                radius: radius.clamp(0.015, 0.08),
                length: length.clamp(0.01, 0.08),
            },
            fallback: false,
        });
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{planar_two_link_arm, point_mass, RootJoint};
    use std::path::PathBuf;

    fn panda_urdf() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf")
    }

    #[test]
    fn panda_visuals_are_its_meshes() {
        let model = Model::from_urdf_file(panda_urdf(), RootJoint::Fixed).unwrap();
        let v = robot_visuals(&model, Some(&panda_urdf()), &mut MeshCache::default());
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
        let meshes = v
            .parts
            .iter()
            .filter(|p| matches!(p.shape, Shape::Mesh { .. }))
            .count();
        // link0..link7, hand and two fingers.
        assert_eq!(meshes, 11);
        assert!(v.parts.iter().all(|p| !p.fallback));
    }

    #[test]
    fn rotors_a_scenario_adds_are_drawn_as_cylinders_about_their_axes() {
        let rotors: Vec<crate::model::Rotor> = (1..=7)
            .map(|j| crate::model::Rotor {
                joint: format!("panda_joint{j}"),
                gear_ratio: 100.0,
                mass: 0.5,
                axial_inertia: 4e-4,
                transverse_inertia: 3.5e-4,
            })
            .collect();
        let options = crate::model::UrdfOptions {
            mimic: true,
            ..Default::default()
        };
        let model = Model::from_urdf_file_with_rotors(panda_urdf(), options, &rotors).unwrap();
        let v = robot_visuals(&model, Some(&panda_urdf()), &mut MeshCache::default());
        let cylinders: Vec<&VisualPart> = v
            .parts
            .iter()
            .filter(|p| matches!(p.shape, Shape::Cylinder { .. }))
            .collect();
        // One per rotor, none for the mimicking finger (it has its mesh).
        assert_eq!(cylinders.len(), 7);
        for c in cylinders {
            let body = model.frames[c.frame].body.unwrap();
            assert!(model.bodies[body].name.ends_with("_rotor"));
            // r = sqrt(2 I_a / m) = 0.04, L = sqrt(12 I_t / m - 3 r^2) = 0.06.
            let Shape::Cylinder { radius, length } = c.shape else {
                unreachable!()
            };
            assert!((radius - 0.04).abs() < 1e-12 && (length - 0.06).abs() < 1e-12);
        }
    }

    #[test]
    fn a_missing_mesh_becomes_a_sphere_with_a_warning() {
        let text = std::fs::read_to_string(panda_urdf())
            .unwrap()
            .replace("visual/link3.dae", "visual/no_such_mesh.dae");
        let dir = std::env::temp_dir().join(format!("pl-visuals-{}", std::process::id()));
        let urdf = dir.join("robots/panda_description/urdf/panda.urdf");
        std::fs::create_dir_all(urdf.parent().unwrap()).unwrap();
        std::fs::write(&urdf, text).unwrap();
        let model = Model::from_urdf_file(&urdf, RootJoint::Fixed).unwrap();
        let v = robot_visuals(&model, Some(&urdf), &mut MeshCache::default());
        std::fs::remove_dir_all(&dir).ok();
        // No mesh resolves from the temporary folder: every link falls back.
        assert_eq!(v.warnings.len(), 11, "{:?}", v.warnings);
        assert!(v.warnings.iter().any(|w| w.contains("no_such_mesh.dae")));
        assert!(v
            .parts
            .iter()
            .all(|p| p.fallback && matches!(p.shape, Shape::Sphere { .. })));
        let link3 = model.frame_by_name("panda_link3").unwrap();
        assert!(v.parts.iter().any(|p| p.frame == link3));
    }

    #[test]
    fn built_in_systems_are_stick_figures() {
        let pm = point_mass(1.0);
        let parts = robot_visuals(&pm, None, &mut MeshCache::default()).parts;
        assert_eq!(parts.len(), 1, "one sphere for the massive body");
        assert!(matches!(parts[0].shape, Shape::Sphere { radius } if radius == POINT_RADIUS));
        let arm = planar_two_link_arm(1.0, 1.0, 1.0, 0.5);
        let parts = stick_figure(&arm);
        let rods: Vec<f64> = parts
            .iter()
            .filter_map(|p| match p.shape {
                Shape::Cylinder { length, .. } => Some(length),
                _ => None,
            })
            .collect();
        assert_eq!(parts.len() - rods.len(), 2, "two spheres");
        assert!(rods.iter().any(|l| (l - 1.0).abs() < 1e-12), "{rods:?}");
        assert!(rods.iter().any(|l| (l - 0.5).abs() < 1e-12), "{rods:?}");
    }
}
