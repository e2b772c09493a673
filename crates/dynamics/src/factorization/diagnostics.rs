//! Numbers that tell factorizations apart (Wensing, Englsberger & Slotine (2023), secs. III-IV): the skew
//! residual max|dH/dt - C - C^T|, the validity residual max|(C - C*) v|, the
//! contorsion D = G* - G and the torsion tensor of the factorization's
//! connection.

use super::Factorization;
use crate::algorithms::{
    christoffel_symbols, coriolis_matrix_and_derivatives, BodyFactorization, Workspace,
};
use crate::model::Model;
use nalgebra::DMatrix;

/// Diagnostics of a factorization at one state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Diagnostics {
    /// max |dH/dt - C - C^T|: zero iff dH/dt - 2C is skew (metric compatible).
    pub skew_residual: f64,
    /// max |(C - C*) v|: zero iff the factorization gives the right dynamics.
    pub validity_residual: f64,
    /// Frobenius norm of the torsion tensor T_ijk = G_ijk - G_ikj - (G*_ijk - G*_ikj).
    pub torsion_norm: f64,
    /// Largest violation of the total anti-symmetry of the contorsion
    /// D = G* - G (zero for admissible C, Wensing, Englsberger & Slotine (2023), Cor. III.1).
    pub contorsion_asymmetry: f64,
}

/// max |dH/dt - C - C^T| over the entries, without temporaries (`hdot` and
/// `c` square, of one size).
///
/// # Panics
/// If `c` has more columns than rows, or `hdot` is smaller than `c`'s
/// rows x rows.
pub fn skew_residual(hdot: &DMatrix<f64>, c: &DMatrix<f64>) -> f64 {
    let n = c.nrows();
    let mut max: f64 = 0.0;
    for j in 0..n {
        for i in 0..n {
            max = max.max((hdot[(i, j)] - c[(i, j)] - c[(j, i)]).abs());
        }
    }
    max
}

/// Buffers for [`Diagnoser::diagnose`], allocated once for a model, so that
/// monitoring every sample (the app's plots) allocates nothing.
#[derive(Clone, Debug)]
pub struct Diagnoser {
    hdot: DMatrix<f64>,
    c_star: DMatrix<f64>,
    /// The factorization's connection coefficients G (first kind,
    /// C_ik = G_ijk v_j) and the Christoffel symbols G*.
    g: Vec<f64>,
    g_star: Vec<f64>,
}

impl Diagnoser {
    /// Buffers for `model`'s nv.
    pub fn new(model: &Model) -> Self {
        let n = model.nv;
        Diagnoser {
            hdot: DMatrix::zeros(n, n),
            c_star: DMatrix::zeros(n, n),
            g: vec![0.0; n * n * n],
            g_star: vec![0.0; n * n * n],
        }
    }

    /// All diagnostics of `f` at (q, v) (`model` of the size given to
    /// [`Self::new`]). The torsion tensor is
    /// T_ijk = (G_ijk - G_ikj) - (G*_ijk - G*_ikj): with generalized speeds
    /// the structure constants are G*_ijk - G*_ikj because the Riemannian
    /// connection is torsion-free, so this holds for both coordinates and
    /// the free root's body-frame speeds (Wensing, Englsberger & Slotine
    /// (2023), eq. 9). The contorsion is D = G* - G (ibid., sec. III-C1,
    /// before Prop. III.1).
    ///
    /// # Panics
    /// If the diagnoser was made for a model with another `nv`,
    /// `q.len() != model.nq` or `v.len() != model.nv`, `ws` was made for another
    /// model, or `f` does not fit the model (what [`Factorization::validate`]
    /// refuses).
    ///
    /// # Examples
    ///
    /// On the Panda, a torsion term whose strength depends on q keeps the
    /// skew-symmetry and the dynamics of C* but adds torsion:
    ///
    /// ```
    /// use passivity_dynamics::algorithms::Workspace;
    /// use passivity_dynamics::factorization::{Beta, Diagnoser, Factorization, TorsionTerm};
    /// use passivity_dynamics::model::{Model, RootJoint};
    ///
    /// let path = concat!(
    ///     env!("CARGO_MANIFEST_DIR"),
    ///     "/../../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"
    /// );
    /// let model = Model::from_urdf_file(path, RootJoint::Fixed)?;
    /// let mut ws = Workspace::new(&model);
    /// let mut diagnoser = Diagnoser::new(&model);
    /// let q = [0.1, -0.4, 0.2, -2.0, 0.3, 1.6, 0.7, 0.02, 0.02];
    /// let v = [0.5, -0.3, 0.8, 0.2, -0.6, 0.4, 1.0, 0.01, -0.01];
    /// let torsion = Factorization::Torsion(vec![TorsionTerm {
    ///     indices: [0, 2, 4],
    ///     beta: Beta { constant: 0.3, gradient: vec![(1, 0.2)] },
    /// }]);
    /// torsion.validate(&model).unwrap();
    /// let d = diagnoser.diagnose(&model, &mut ws, &q, &v, &torsion);
    /// assert!(d.torsion_norm > 0.1);
    /// assert!(d.skew_residual < 1e-10 && d.validity_residual < 1e-10);
    /// let d_star = diagnoser.diagnose(&model, &mut ws, &q, &v, &Factorization::ChristoffelConsistent);
    /// assert!(d_star.torsion_norm < 1e-10 && d_star.skew_residual < 1e-10);
    /// # Ok::<(), passivity_dynamics::model::ModelError>(())
    /// ```
    pub fn diagnose(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        v: &[f64],
        f: &Factorization,
    ) -> Diagnostics {
        let n = model.nv;
        assert_eq!(
            self.g.len(),
            n * n * n,
            "diagnose: buffers of another model"
        );
        coriolis_matrix_and_derivatives(model, ws, q, v, BodyFactorization::ChristoffelConsistent);
        self.hdot.copy_from(&ws.mass_matrix_dot);
        self.c_star.copy_from(&ws.coriolis);
        let c = f.coriolis_matrix(model, ws, q, v);
        let validity = (0..n)
            .map(|i| {
                (0..n)
                    .map(|k| (c[(i, k)] - self.c_star[(i, k)]) * v[k])
                    .sum::<f64>()
                    .abs()
            })
            .fold(0.0, f64::max);
        let skew = skew_residual(&self.hdot, c);
        self.g_star
            .copy_from_slice(christoffel_symbols(model, ws, q));
        f.connection_coefficients(model, ws, q, &mut self.g);
        let (g, g_star) = (&self.g, &self.g_star);
        let idx = |i: usize, j: usize, k: usize| (i * n + j) * n + k;
        let d = |i: usize, j: usize, k: usize| g_star[idx(i, j, k)] - g[idx(i, j, k)];
        let (mut torsion_squared, mut asymmetry) = (0.0, 0.0f64);
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    let t = (g[idx(i, j, k)] - g[idx(i, k, j)])
                        - (g_star[idx(i, j, k)] - g_star[idx(i, k, j)]);
                    torsion_squared += t * t;
                    let x = d(i, j, k);
                    asymmetry = asymmetry
                        .max((x + d(j, i, k)).abs())
                        .max((x + d(i, k, j)).abs())
                        .max((x + d(k, j, i)).abs());
                }
            }
        }
        Diagnostics {
            skew_residual: skew,
            validity_residual: validity,
            torsion_norm: torsion_squared.sqrt(),
            contorsion_asymmetry: asymmetry,
        }
    }
}

/// All diagnostics of `f` at (q, v), with buffers allocated for this call
/// (for a one-off; [`Diagnoser`] for every sample of a run).
///
/// # Panics
/// If `q.len() != model.nq` or `v.len() != model.nv`, `ws` was made for
/// another model, or `f` does not fit the model (what
/// [`Factorization::validate`] refuses).
///
/// # Examples
///
/// On the 3-D point mass, torsion C = beta (v x) is admissible (right
/// dynamics, dH/dt - 2C skew) but its connection has torsion T_ijk =
/// 2 beta eps_ijk, of Frobenius norm 2 beta sqrt(6); C* = 0 has none:
///
/// ```
/// use passivity_dynamics::algorithms::Workspace;
/// use passivity_dynamics::factorization::{diagnose, Beta, Factorization, FactorizationError};
/// use passivity_dynamics::model::point_mass;
///
/// let model = point_mass(1.5);
/// let mut ws = Workspace::new(&model);
/// let (q, v) = ([0.2, -0.1, 0.4], [0.3, -0.7, 1.1]);
/// let beta = 0.5;
/// let torsion = Factorization::torsion_on_all_triples(model.nv, Beta::constant(beta))?;
/// torsion.validate(&model)?;
/// let d = diagnose(&model, &mut ws, &q, &v, &torsion);
/// assert!((d.torsion_norm - 2.0 * beta * 6f64.sqrt()).abs() < 1e-12);
/// assert!(d.skew_residual < 1e-12);
/// assert!(d.validity_residual < 1e-12);
/// assert!(d.contorsion_asymmetry < 1e-12);
///
/// let d_star = diagnose(&model, &mut ws, &q, &v, &Factorization::ChristoffelConsistent);
/// assert!(d_star.torsion_norm < 1e-12 && d_star.skew_residual < 1e-12);
/// # Ok::<(), FactorizationError>(())
/// ```
pub fn diagnose(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    f: &Factorization,
) -> Diagnostics {
    Diagnoser::new(model).diagnose(model, ws, q, v, f)
}
