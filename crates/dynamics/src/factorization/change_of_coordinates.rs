//! The Coriolis matrix under a change of coordinates or speeds, v = A v_bar
//! (Echeandia & Wensing (2021), eq. 33; Wensing, Englsberger & Slotine (2023), Thm. V.1, eq. 17):
//! H_bar = A^T H A and C_bar = A^T C A + A^T H A_dot. It keeps dH/dt - 2C
//! skew and maps C* to C* (Wensing, Englsberger & Slotine (2023), Prop. V.3); with A = H^-1 J^T Lambda it
//! gives the task-space Coriolis matrix (Wensing, Englsberger & Slotine (2023), Remark 8).

use nalgebra::DMatrix;

/// `(H_bar, C_bar)` from H, C, the map A (v = A v_bar) and its time
/// derivative A_dot along the motion.
///
/// # Panics
/// If the dimensions do not match: `h` and `c` n x n, `a` and `a_dot`
/// n x m (nalgebra's dimension checks).
pub fn transform_coriolis(
    h: &DMatrix<f64>,
    c: &DMatrix<f64>,
    a: &DMatrix<f64>,
    a_dot: &DMatrix<f64>,
) -> (DMatrix<f64>, DMatrix<f64>) {
    let at = a.transpose();
    let h_bar = &at * h * a;
    let c_bar = &at * c * a + &at * h * a_dot;
    (h_bar, c_bar)
}
