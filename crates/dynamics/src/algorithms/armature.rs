//! The joint armature's terms (see [`Model::armature`]): with
//! T = 1/2 v^T H_rigid v + 1/2 sum_s a_s v_s^2 and a constant, the
//! Lagrangian gives H = H_rigid + diag(a), tau = tau_rigid + a o qddot, and
//! leaves C, dH/dt, the Christoffel symbols and g unchanged (they come from
//! derivatives of H in q, and diag(a) is constant). The recursions with an
//! articulated inertia add a_s to D_s = S^T I^A S (Featherstone 2008
//! sec. 7.3, as Pinocchio's `aba` does).

use crate::model::Model;
use nalgebra::DMatrix;

/// out += a o x (system speeds); nothing without armature.
#[inline]
pub(crate) fn add_product(model: &Model, x: &[f64], out: &mut [f64]) {
    if let Some(a) = model.active_armature() {
        for ((o, a), x) in out.iter_mut().zip(a).zip(x) {
            *o += a * x;
        }
    }
}

/// H += diag(a); nothing without armature.
#[inline]
pub(crate) fn add_to_diagonal(model: &Model, h: &mut DMatrix<f64>) {
    if let Some(a) = model.active_armature() {
        for (s, a) in a.iter().enumerate() {
            h[(s, s)] += a;
        }
    }
}

/// 1/2 sum_s a_s v_s^2; zero without armature.
#[inline]
pub(crate) fn kinetic_energy(model: &Model, v: &[f64]) -> f64 {
    model.active_armature().map_or(0.0, |a| {
        0.5 * a.iter().zip(v).map(|(a, v)| a * v * v).sum::<f64>()
    })
}
