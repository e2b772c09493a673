//! Which body is under the cursor: a ray cast (parry, which comes with
//! rapier) against the shapes the view draws, placed by the variant's
//! forward kinematics. Meshes are cast against their convex hulls, built
//! once per session on the first pick.

use super::visuals::VisualPart;
use crate::algorithms::{frame_placement, Workspace};
use crate::model::Model;
use crate::sim::colliders::{collider_shape, pose, vector};
use crate::spatial::{Transform, Vec3};
use parry3d_f64::query::Ray;
use parry3d_f64::shape::SharedShape;

/// One shape that can be picked.
struct PickPart {
    frame: usize,
    /// The shape's placement in its frame.
    origin: Transform,
    shape: SharedShape,
}

/// The shapes of one robot, shared by its variants.
#[derive(Default)]
pub struct Picker {
    parts: Vec<PickPart>,
}

/// Where a ray meets the robot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub body: usize,
    /// The point hit, world coordinates.
    pub point: Vec3,
    /// Distance along the (unit) ray.
    pub distance: f64,
}

impl Picker {
    /// The pickable shapes among `parts` (those on a moving body; a shape
    /// parry cannot build is left out).
    pub fn new(model: &Model, parts: &[VisualPart]) -> Self {
        let parts = parts
            .iter()
            .filter(|p| model.frames[p.frame].body.is_some())
            .filter_map(|p| {
                let (shape, rot) = collider_shape(&p.shape, None).ok()?;
                Some(PickPart {
                    frame: p.frame,
                    origin: p.origin.compose(&Transform::new(rot, Vec3::zeros())),
                    shape,
                })
            })
            .collect();
        Picker { parts }
    }

    /// The nearest hit of the ray from `origin` along the unit `direction`
    /// on the robot placed by `ws` (after `forward_kinematics`).
    pub fn cast(
        &self,
        model: &Model,
        ws: &Workspace,
        origin: &Vec3,
        direction: &Vec3,
    ) -> Option<Hit> {
        let ray = Ray::new(vector(origin), vector(direction));
        self.parts
            .iter()
            .filter_map(|p| {
                let placement = frame_placement(model, ws, p.frame).compose(&p.origin);
                let distance = p.shape.cast_ray(&pose(&placement), &ray, 1e4, true)?;
                Some(Hit {
                    body: model.frames[p.frame].body?,
                    point: origin + direction * distance,
                    distance,
                })
            })
            .min_by(|a, b| a.distance.total_cmp(&b.distance))
    }
}
