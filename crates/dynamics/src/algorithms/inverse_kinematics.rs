//! Damped least-squares inverse kinematics of a frame's position
//! (Wampler 1986; Buss, "Introduction to inverse kinematics", 2004, eq. 11):
//! dq = J^T (J J^T + lambda^2 I)^-1 (x* - x(q)), J the 3 x n position rows
//! of the frame Jacobian over the joints (a free root stays where it is),
//! repeated a few times. The damping keeps steps bounded near singular
//! configurations and for targets out of reach, where it settles at the
//! closest reachable point in the damped sense. Independent joints stay
//! within their URDF limits.

use super::{forward_kinematics, frame_jacobian, frame_placement, JacobianFrame, Workspace};
use crate::model::Model;
use crate::spatial::{Mat3, Vec3};

/// Moves `q` so that frame `frame` approaches `target` (world), in at most
/// `iterations` damped steps; returns the remaining distance, m.
///
/// # Panics
/// If `q.len() != model.nq` or `frame` is not an index into
/// `model.frames`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn position_ik(
    model: &Model,
    ws: &mut Workspace,
    frame: usize,
    q: &mut [f64],
    target: &Vec3,
    damping: f64,
    iterations: usize,
) -> f64 {
    let root = if model.has_free_root() { 6 } else { 0 };
    let mut dq = vec![0.0; model.nv];
    let mut next = q.to_vec();
    let mut error = f64::INFINITY;
    for _ in 0..=iterations {
        forward_kinematics(model, ws, q);
        let e = target - frame_placement(model, ws, frame).trans;
        error = e.norm();
        if error < 1e-9 {
            break;
        }
        let j = frame_jacobian(model, ws, frame, JacobianFrame::WorldAligned);
        let mut jjt = Mat3::identity() * (damping * damping);
        for k in root..model.nv {
            let c = Vec3::new(j[(3, k)], j[(4, k)], j[(5, k)]);
            jjt += c * c.transpose();
        }
        let Some(y) = jjt.lu().solve(&e) else {
            break;
        };
        for k in root..model.nv {
            dq[k] = j[(3, k)] * y.x + j[(4, k)] * y.y + j[(5, k)] * y.z;
        }
        model.integrate(q, &dq, 1.0, &mut next);
        q.copy_from_slice(&next);
        // The independent joints' own limits (a mimicking joint's are not
        // mapped back onto its primary).
        for (b, body) in model.bodies.iter().enumerate() {
            let l = &body.limits;
            if let (1, Some((_, qi))) = (body.joint.nq(), model.system_indices(b)) {
                if l.lower <= l.upper {
                    q[qi] = q[qi].clamp(l.lower, l.upper);
                }
            }
        }
    }
    error
}
