//! The Coriolis matrix under a change of coordinates or speeds, v = A v_bar
//! (Echeandia & Wensing (2021), eq. 33; Wensing, Englsberger & Slotine (2023), Thm. V.1, eq. 17):
//! H_bar = A^T H A and C_bar = A^T C A + A^T H A_dot. It keeps dH/dt - 2C
//! skew and maps C* to C* (Wensing, Englsberger & Slotine (2023), Prop. V.3); with A = H^-1 J^T Lambda it
//! gives the task-space Coriolis matrix (Wensing, Englsberger & Slotine (2023), Remark 8).

use nalgebra::DMatrix;

/// `(H_bar, C_bar)` from H, C, the map A (v = A v_bar) and its time
/// derivative A_dot along the motion (allocates the results; see
/// [`transform_coriolis_into`] for a loop).
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
    let (n, m) = a.shape();
    let mut scratch = DMatrix::zeros(n, m);
    let mut h_bar = DMatrix::zeros(m, m);
    let mut c_bar = DMatrix::zeros(m, m);
    transform_coriolis_into(h, c, a, a_dot, &mut scratch, &mut h_bar, &mut c_bar);
    (h_bar, c_bar)
}

/// [`transform_coriolis`] into preallocated matrices, without allocating:
/// `h_bar` = A^T H A and `c_bar` = A^T C A + A^T H A_dot (Wensing,
/// Englsberger & Slotine (2023), Thm. V.1, eq. 17), with `scratch` (n x m)
/// for the products H A, H A_dot and C A.
///
/// # Panics
/// If the dimensions do not match: `h` and `c` n x n, `a`, `a_dot` and
/// `scratch` n x m, `h_bar` and `c_bar` m x m (nalgebra's dimension checks).
pub fn transform_coriolis_into(
    h: &DMatrix<f64>,
    c: &DMatrix<f64>,
    a: &DMatrix<f64>,
    a_dot: &DMatrix<f64>,
    scratch: &mut DMatrix<f64>,
    h_bar: &mut DMatrix<f64>,
    c_bar: &mut DMatrix<f64>,
) {
    product_into(h, a, scratch);
    a.tr_mul_to(scratch, h_bar);
    product_into(h, a_dot, scratch);
    a.tr_mul_to(scratch, c_bar);
    product_into(c, a, scratch);
    c_bar.gemm_tr(1.0, a, scratch, 1.0);
}

/// out = x y, one matrix-vector product per column: nalgebra's products of
/// matrices larger than 5 x 5 go through matrixmultiply, which allocates
/// its packing buffers on every call (its transposed products `tr_mul_to`
/// and `gemm_tr` are dot products and do not).
///
/// # Panics
/// If `out` is not `x.nrows()` x `y.ncols()` or `x.ncols() != y.nrows()`.
fn product_into(x: &DMatrix<f64>, y: &DMatrix<f64>, out: &mut DMatrix<f64>) {
    assert_eq!(out.ncols(), y.ncols(), "product_into: dimensions mismatch");
    for j in 0..y.ncols() {
        out.column_mut(j).gemv(1.0, x, &y.column(j), 0.0);
    }
}
