//! Task-space dynamics of m frames: Lambda = (J H^-1 J^T)^-1 and the
//! task-space Coriolis matrix C_task = A^T C A + A^T H A_dot with
//! A = H^-1 J^T Lambda (Wensing, Englsberger & Slotine (2023), Remark 8, the transform law of Thm. V.1),
//! for any factorization C. Since J A = 1, A^T H A_dot = -Lambda J_dot A, so
//! C_task = A^T C A - Lambda J_dot A. For admissible C,
//! dLambda/dt = C_task + C_task^T.

use super::Factorization;
use crate::algorithms::{crba, frame_jacobian_time_derivative, JacobianFrame, Workspace};
use crate::model::Model;
use nalgebra::DMatrix;

/// Task-space quantities of stacked frames (rows `[angular; linear]` per frame).
#[derive(Clone, Debug)]
pub struct TaskSpace {
    /// Stacked Jacobian J (6m x nv).
    pub jacobian: DMatrix<f64>,
    /// Its time derivative.
    pub jacobian_dot: DMatrix<f64>,
    /// Lambda^-1 = J H^-1 J^T.
    pub lambda_inv: DMatrix<f64>,
    /// Lambda, or `None` where Lambda^-1 is singular (fewer speeds than task
    /// rows, or a singular configuration).
    pub lambda: Option<DMatrix<f64>>,
    /// C_task, where Lambda exists.
    pub coriolis: Option<DMatrix<f64>>,
}

/// Lambda^-1, Lambda and C_task for `frames` with the factorization `f`
/// (dense formulas; the EFPA gives Lambda^-1 alone faster).
///
/// # Panics
/// If `q.len() != model.nq`, `v.len() != model.nv`, an entry of `frames` is
/// not an index into `model.frames`, `ws` was made for another model, or `f`
/// does not fit the model (what [`Factorization::validate`] refuses).
pub fn task_space_dynamics(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    frames: &[usize],
    axes: JacobianFrame,
    f: &Factorization,
) -> TaskSpace {
    let (n, m) = (model.nv, 6 * frames.len());
    let mut j = DMatrix::zeros(m, n);
    let mut j_dot = DMatrix::zeros(m, n);
    for (a, &frame) in frames.iter().enumerate() {
        frame_jacobian_time_derivative(model, ws, q, v, frame, axes);
        j.view_mut((6 * a, 0), (6, n)).copy_from(&ws.jacobian);
        j_dot
            .view_mut((6 * a, 0), (6, n))
            .copy_from(&ws.jacobian_dot);
    }
    let h = crba(model, ws, q).clone();
    let c = f.coriolis_matrix(model, ws, q, v).clone();
    let h_inv_jt = match h.clone().cholesky() {
        Some(ch) => ch.solve(&j.transpose()),
        None => DMatrix::from_element(n, m, f64::NAN),
    };
    let lambda_inv = &j * &h_inv_jt;
    let lambda = lambda_inv.clone().cholesky().map(|ch| ch.inverse());
    let coriolis = lambda.as_ref().map(|l| {
        let a = &h_inv_jt * l;
        a.transpose() * &c * &a - l * &j_dot * &a
    });
    TaskSpace {
        jacobian: j,
        jacobian_dot: j_dot,
        lambda_inv,
        lambda,
        coriolis,
    }
}
