//! What a standing robot's balance looks like, in world coordinates (f64,
//! no Bevy): the centre of mass and its projection on the ground, the
//! support polygon (the convex hull of the assumed contact points on the
//! ground), each contact point with its friction cone and the force the
//! controller's wrench distribution gave it, and the desired wrench at the
//! CoM. Read from the balance law ([`crate::control::balance`]) or a stance
//! law ([`crate::control::stance`]) after its last evaluation; other
//! controllers have no contacts of their own and give nothing.

use crate::algorithms::{center_of_mass, frame_placement, ContactPoint, Workspace};
use crate::model::Model;
use crate::sim::Simulation;
use crate::spatial::Vec3;
use nalgebra::Vector6;

/// One assumed contact point.
#[derive(Clone, Debug, PartialEq)]
pub struct SupportFoot {
    /// Where it is now (world, m), from the plant's kinematics.
    pub position: Vec3,
    /// The ground's normal, pointing into the robot.
    pub normal: Vec3,
    /// The friction coefficient the controller assumes (the cone's slope).
    pub friction: f64,
    /// The force the distribution asked of this point (world, N).
    pub force: Vec3,
}

/// A standing robot's balance at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct StanceGeometry {
    /// The plant's centre of mass and its vertical projection on the ground.
    pub com: Vec3,
    pub com_on_ground: Vec3,
    pub feet: Vec<SupportFoot>,
    /// The support polygon on the ground, counter-clockwise seen from above
    /// (fewer than three points when the contacts are on one line).
    pub polygon: Vec<Vec3>,
    /// The distance from the CoM's projection to the polygon's nearest
    /// edge (m): positive inside, negative outside.
    pub margin: f64,
    /// The desired wrench [force; moment about the CoM] (world, N and N m).
    pub wrench: Vector6<f64>,
}

impl StanceGeometry {
    /// The geometry of `sim`'s robot at its current state, from its
    /// controller's last evaluation; None when the controller has no
    /// contacts. `ws` is a workspace of the plant (its placements are
    /// overwritten); the ground is the plane z = `ground`.
    pub fn of(sim: &Simulation, ws: &mut Workspace, ground: f64) -> Option<StanceGeometry> {
        let model = &sim.plant;
        let com = center_of_mass(model, ws, &sim.q);
        let (feet, wrench) = if let Some(balance) = sim.controller.balance() {
            let law = &balance.law;
            let feet: Vec<SupportFoot> = law
                .supports()
                .iter()
                .zip(&law.forces)
                .map(|(s, f)| foot(model, ws, &s.point, s.normal, s.friction, *f))
                .collect();
            (feet, law.wrench)
        } else if let Some(stance) = sim.controller.stance() {
            let points = stance.stance.support_points().ok()?;
            let forces = stance.status().distribution.forces();
            let (normal, friction) = (stance.stance.ground_normal, stance.stance.friction);
            let feet = points
                .iter()
                .enumerate()
                .map(|(k, p)| {
                    let f = forces.get(k).copied().unwrap_or_else(Vec3::zeros);
                    foot(model, ws, p, normal, friction, f)
                })
                .collect();
            // About the base origin o: the moment about c is M_o + (o - c) x F.
            let w = stance.desired_wrench();
            let base = Vec3::new(sim.q[0], sim.q[1], sim.q[2]);
            let force = w.fixed_rows::<3>(0).into_owned();
            let moment = w.fixed_rows::<3>(3) + (base - com).cross(&force);
            let wrench = Vector6::new(force.x, force.y, force.z, moment.x, moment.y, moment.z);
            (feet, wrench)
        } else {
            return None;
        };
        let on_ground = |p: &Vec3| Vec3::new(p.x, p.y, ground);
        let polygon: Vec<Vec3> = convex_hull(
            &feet
                .iter()
                .map(|f| [f.position.x, f.position.y])
                .collect::<Vec<_>>(),
        )
        .into_iter()
        .map(|[x, y]| Vec3::new(x, y, ground))
        .collect();
        Some(StanceGeometry {
            com,
            com_on_ground: on_ground(&com),
            margin: margin(&polygon, &com),
            polygon,
            feet,
            wrench,
        })
    }
}

/// A contact point in world coordinates with its cone and force.
fn foot(
    model: &Model,
    ws: &Workspace,
    point: &ContactPoint,
    normal: Vec3,
    friction: f64,
    force: Vec3,
) -> SupportFoot {
    SupportFoot {
        position: frame_placement(model, ws, point.frame).transform_point(&point.offset),
        normal,
        friction,
        force,
    }
}

/// The convex hull of `points` (x, y), counter-clockwise, without
/// collinear points (Andrew's monotone chain).
pub fn convex_hull(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut p: Vec<[f64; 2]> = points
        .iter()
        .copied()
        .filter(|q| q.iter().all(|x| x.is_finite()))
        .collect();
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(2 * p.len());
    for pass in [&p[..], &p.iter().rev().copied().collect::<Vec<_>>()[..]] {
        let start = hull.len();
        for &q in pass {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 0.0
            {
                hull.pop();
            }
            hull.push(q);
        }
        // The last point of a pass is the first of the next.
        hull.pop();
    }
    hull
}

/// The signed distance from `c`'s projection to the nearest edge of the
/// counter-clockwise `polygon` (positive inside); -inf without an area.
fn margin(polygon: &[Vec3], c: &Vec3) -> f64 {
    if polygon.len() < 3 {
        return f64::NEG_INFINITY;
    }
    (0..polygon.len())
        .map(|i| {
            let (a, b) = (polygon[i], polygon[(i + 1) % polygon.len()]);
            let edge = (b - a).xy();
            let to_c = (c - a).xy();
            // Left of a counter-clockwise edge is inside.
            (edge.x * to_c.y - edge.y * to_c.x) / edge.norm()
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hull_of_four_feet_and_an_inner_point_is_the_feet_counter_clockwise() {
        let feet = [
            [0.2, 0.15],
            [-0.2, 0.15],
            [0.0, 0.0],
            [0.2, -0.15],
            [-0.2, -0.15],
        ];
        let hull = convex_hull(&feet);
        assert_eq!(
            hull,
            vec![[-0.2, -0.15], [0.2, -0.15], [0.2, 0.15], [-0.2, 0.15]]
        );
        let polygon: Vec<Vec3> = hull.iter().map(|[x, y]| Vec3::new(*x, *y, 0.0)).collect();
        // 15 cm from the side edges at the centre, 5 cm outside beyond x = 0.2.
        assert!((margin(&polygon, &Vec3::new(0.0, 0.0, 0.3)) - 0.15).abs() < 1e-12);
        assert!((margin(&polygon, &Vec3::new(0.25, 0.0, 0.3)) + 0.05).abs() < 1e-12);
    }

    #[test]
    fn feet_on_a_line_have_no_polygon_area() {
        let hull = convex_hull(&[[0.0, 0.0], [1.0, 0.0], [0.5, 0.0], [f64::NAN, 0.0]]);
        assert_eq!(hull, vec![[0.0, 0.0], [1.0, 0.0]]);
        let polygon: Vec<Vec3> = hull.iter().map(|[x, y]| Vec3::new(*x, *y, 0.0)).collect();
        assert_eq!(margin(&polygon, &Vec3::zeros()), f64::NEG_INFINITY);
    }
}
