//! Physical validity of the body inertias a URDF turns into, checked on
//! each BODY after the fixed links are merged into it (what the dynamics
//! uses), and the nearest physical inertia for a body whose error is
//! negligible for the robot.
//!
//! A rigid body is physical when its mass is not negative (checked per link
//! by the loader: a written mass is never a rounding error) and its
//! rotational inertia about the centre of mass is symmetric (a URDF gives
//! six numbers, so it always is) with principal moments that satisfy the
//! triangle inequalities `l_i + l_j >= l_k` (which imply `l >= 0`).
//!
//! Tolerances are relative to the robot's inertia scale `J`
//! ([`inertia_scale`]): the largest principal moment of the whole robot,
//! all bodies together, about its centre of mass at the neutral
//! configuration (kg m^2; it carries the robot's mass and size). With `d`
//! the Frobenius distance from a body's inertia to the nearest physical one:
//! - `d <= ROUNDING_INERTIA_CHANGE * J`: rounding, loaded as written;
//! - `d <= NEGLIGIBLE_INERTIA_CHANGE * J`: replaced by the nearest physical
//!   inertia with a [`ModelWarning`] (strict loading refuses it);
//! - larger: refused, strict or not.

use super::warning::merged_clause;
use super::{Body, Frame, FrameKind, ModelError, ModelWarning};
use crate::spatial::{Mat3, RigidInertia, Transform, Vec3};
use std::path::Path;

/// Changes up to this fraction of the robot's inertia scale are rounding:
/// the body is loaded as written, silently. Floating-point merging and
/// eigenvalues of an exactly zero or exactly flat inertia leave ~1e-18 of
/// the scale (iCub's legs); values written with 9 digits round at 1e-9 of
/// the body's own size, at most that of the robot.
pub const ROUNDING_INERTIA_CHANGE: f64 = 1e-9;

/// Changes up to this fraction of the robot's inertia scale are negligible
/// for the robot: the body gets the nearest physical inertia and a warning.
/// The projection changes each entry of the joint-space inertia H by at most
/// the change (unit revolute axes). The smallest diagonal entry of H at the
/// neutral pose is a median 2.8e-3 of the scale over the example-robot-data
/// robots (moved by under 0.04 %), down to 5e-7 (Talos' fingertips: a body
/// that small is negligible for the robot, not for its own joint). On
/// Romeo, changes of 1.5e-4 and 5e-4 of the scale (arm links of
/// `romeo_small.urdf`) move a diagonal entry of H by 26 %: refused.
pub const NEGLIGIBLE_INERTIA_CHANGE: f64 = 1e-6;

/// The robot's inertia scale (kg m^2): the largest principal moment of the
/// whole robot's inertia about its centre of mass with every joint at zero
/// (and the free root, if any, at the identity). Bodies must come after
/// their parents. Zero if it is not finite.
pub fn inertia_scale(bodies: &[Body]) -> f64 {
    let mut placements: Vec<Transform> = Vec::with_capacity(bodies.len());
    let mut total = RigidInertia::zero();
    for b in bodies {
        let x = match b.parent {
            Some(p) => placements[p].compose(&b.tree_placement),
            None => b.tree_placement,
        };
        total += b.inertia.transformed(&x);
        placements.push(x);
    }
    principal_moments(&total.inertia_about_com())
        .map_or(0.0, |(l, _)| l[2])
        .max(0.0)
}

/// Principal moments (ascending) and axes (columns) of a symmetric 3x3
/// matrix; `None` unless finite.
fn principal_moments(m: &Mat3) -> Option<([f64; 3], Mat3)> {
    let m = (m + m.transpose()) * 0.5;
    if !m.iter().all(|x| x.is_finite()) {
        return None;
    }
    // nalgebra scales the matrix first, so finite input converges; the
    // bound only guards against a hang.
    let eig = m.try_symmetric_eigen(f64::EPSILON, 1000)?;
    let mut order = [0, 1, 2];
    order.sort_by(|&a, &b| eig.eigenvalues[a].total_cmp(&eig.eigenvalues[b]));
    let l = order.map(|i| eig.eigenvalues[i]);
    let axes = Mat3::from_columns(&order.map(|i| eig.eigenvectors.column(i).into_owned()));
    Some((l, axes))
}

/// The triangle inequalities as `a . l >= 0` (they imply `l >= 0`).
const FACES: [[f64; 3]; 3] = [[1.0, 1.0, -1.0], [1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]];

/// The nearest point (Euclidean) to principal moments `l` in the cone of
/// physical ones. The cone is `{l : a_k . l >= 0}` for the three faces
/// `a_k`; the nearest point lies on the face set where its constraints are
/// active, where it is the orthogonal projection of `l` onto those faces'
/// common subspace. All 8 face sets are tried and the nearest feasible
/// projection kept. Since the set of symmetric matrices with physical
/// eigenvalues is invariant under rotation, keeping the principal axes and
/// projecting the moments gives the nearest physical inertia in the
/// Frobenius norm (Lewis 1996, spectral functions).
pub fn nearest_physical_moments(l: [f64; 3]) -> [f64; 3] {
    let l = Vec3::from(l);
    let faces = FACES.map(Vec3::from);
    let slack = 1e-12 * l.amax();
    let mut best: Option<(f64, Vec3)> = None;
    for set in 0u8..8 {
        let mut active = [Vec3::zeros(); 3];
        let mut n = 0;
        for (k, a) in faces.iter().enumerate() {
            if set & (1 << k) != 0 {
                active[n] = *a;
                n += 1;
            }
        }
        let p = match &active[..n] {
            [] => l,
            [a] => l - a * (a.dot(&l) / a.dot(a)),
            [a, b] => {
                // Solve the 2x2 Gram system for the multipliers.
                let (aa, ab, bb) = (a.dot(a), a.dot(b), b.dot(b));
                let (ra, rb) = (a.dot(&l), b.dot(&l));
                let det = aa * bb - ab * ab;
                let ca = (bb * ra - ab * rb) / det;
                let cb = (aa * rb - ab * ra) / det;
                l - a * ca - b * cb
            }
            _ => Vec3::zeros(),
        };
        if faces.iter().all(|a| a.dot(&p) >= -slack) {
            let d = (p - l).norm();
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, p));
            }
        }
    }
    // The apex (all faces active) is always feasible.
    let p = best.map_or(Vec3::zeros(), |(_, p)| p);
    [p.x, p.y, p.z]
}

/// What is wrong with principal moments `l` (ascending) of a robot of
/// inertia scale `scale`, for messages: a negative moment beyond rounding,
/// else the triangle inequality.
pub(crate) fn describe_moments(l: &[f64; 3], scale: f64) -> String {
    let problem = if l[0] < -ROUNDING_INERTIA_CHANGE * scale {
        format!("principal moment {:.6e} is negative", l[0])
    } else {
        format!(
            "they violate the triangle inequality: the two smaller fall short of the largest by {:.3e}",
            l[2] - l[0] - l[1]
        )
    };
    format!(
        "principal moments about the centre of mass {:.6e}, {:.6e}, {:.6e} kg m^2: {problem}",
        l[0], l[1], l[2]
    )
}

/// Checks every body's inertia (see the module doc), replaces those whose
/// error is negligible unless `strict`, and returns a warning for each
/// replaced body. `frames` name the links merged into each body.
pub(crate) fn check_body_inertias(
    bodies: &mut [Body],
    frames: &[Frame],
    file: &Path,
    strict: bool,
) -> Result<Vec<ModelWarning>, ModelError> {
    let scale = inertia_scale(bodies);
    let mut merged: Vec<Vec<String>> = vec![Vec::new(); bodies.len()];
    for f in frames {
        if let (FrameKind::Link, Some(b)) = (f.kind, f.body) {
            if f.name != bodies[b].name {
                merged[b].push(f.name.clone());
            }
        }
    }
    let mut warnings = Vec::new();
    for (i, body) in bodies.iter_mut().enumerate() {
        let invalid = |problem: String| ModelError::InvalidInertia {
            file: file.to_path_buf(),
            link: body.name.clone(),
            reason: format!("{}{problem}", body_clause(&merged[i])),
        };
        let Some((before, axes)) = principal_moments(&body.inertia.inertia_about_com()) else {
            return Err(invalid(
                "not finite once the fixed links are merged (numbers too large)".into(),
            ));
        };
        let after = nearest_physical_moments(before);
        let change = Vec3::from(before).metric_distance(&Vec3::from(after));
        if change <= ROUNDING_INERTIA_CHANGE * scale {
            continue;
        }
        let distance = format!(
            "the nearest physical inertia differs by {change:.3e} kg m^2, {:.1e} of the robot's \
             inertia scale {scale:.3e} kg m^2",
            change / scale
        );
        if change > NEGLIGIBLE_INERTIA_CHANGE * scale {
            return Err(invalid(format!(
                "{}; {distance}, more than the {NEGLIGIBLE_INERTIA_CHANGE:e} that is negligible",
                describe_moments(&before, scale)
            )));
        }
        if strict {
            return Err(invalid(format!(
                "{}; strict loading refuses it (otherwise it is replaced with a warning: {distance})",
                describe_moments(&before, scale)
            )));
        }
        let projected = axes * Mat3::from_diagonal(&Vec3::from(after)) * axes.transpose();
        body.inertia = RigidInertia::from_com(body.inertia.mass, body.inertia.com(), projected);
        warnings.push(ModelWarning::InertiaProjected {
            file: file.to_path_buf(),
            link: body.name.clone(),
            merged: std::mem::take(&mut merged[i]),
            before,
            after,
            change,
            scale,
        });
    }
    Ok(warnings)
}

/// `the body with the fixed links 'a', 'b' merged in: `, or nothing.
fn body_clause(merged: &[String]) -> String {
    if merged.is_empty() {
        String::new()
    } else {
        format!("the body{}: ", merged_clause(merged))
    }
}
