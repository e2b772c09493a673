//! Affine connections on Euclidean R^3 (metric H = 1, coordinates x):
//! Wensing, Englsberger & Slotine (2023), Fig. 3's examples. With constant coefficients G_ijk (first
//! kind = second kind here), C_ik(v) = G_ijk v_j (Wensing, Englsberger & Slotine (2023), eq. 10), a
//! geodesic is x_ddot + C(x_dot) x_dot = 0 and a parallel vector Z obeys
//! Z_dot + C(x_dot) Z = 0. With the Riemannian connection G* = 0 the
//! contorsion is D = G* - G = -G (Wensing, Englsberger & Slotine (2023), sec. III-C), so (Prop. III.1
//! and the geodesic proposition after it):
//!
//! - metric compatible iff G_ijk = -G_kji (C(v) skew for every v);
//! - Riemannian (straight, constant-speed) geodesics iff G_ijk = -G_ikj
//!   (C(v) v = 0);
//! - torsion T_ijk = G_ijk - G_ikj.

use nalgebra::{Matrix3, Vector3};

/// A connection on Euclidean R^3 with constant coefficients.
#[derive(Clone, Debug, PartialEq)]
pub struct EuclideanConnection {
    /// Short name, as in the figures.
    pub name: &'static str,
    /// `G[i][j][k]` = G_ijk, C_ik(v) = G_ijk v_j (first index the row of C,
    /// second the speed, third the column).
    pub gamma: [[[f64; 3]; 3]; 3],
}

/// A point of a geodesic with the vectors transported to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Station {
    /// Time along the geodesic (s).
    pub t: f64,
    /// Position in R^3 (m).
    pub position: Vector3<f64>,
    /// The three transported vectors (they start as the standard basis).
    pub frame: [Vector3<f64>; 3],
}

fn levi_civita(i: usize, j: usize, k: usize) -> f64 {
    ((j as f64 - i as f64) * (k as f64 - i as f64) * (k as f64 - j as f64)) / 2.0
}

fn delta(i: usize, j: usize) -> f64 {
    if i == j {
        1.0
    } else {
        0.0
    }
}

impl EuclideanConnection {
    fn from_fn(name: &'static str, g: impl Fn(usize, usize, usize) -> f64) -> Self {
        EuclideanConnection {
            name,
            gamma: std::array::from_fn(|i| {
                std::array::from_fn(|j| std::array::from_fn(|k| g(i, j, k)))
            }),
        }
    }

    /// G = 0: C* of the Euclidean metric; parallel vectors stay constant.
    pub fn riemannian() -> Self {
        Self::from_fn("Riemannian: G = 0", |_, _, _| 0.0)
    }

    /// G_ijk = beta eps_ijk, C(v) = beta (v x): metric compatible, straight
    /// geodesics, torsion 2 beta eps_ijk; Z_dot = -beta v x Z turns the
    /// vectors about the geodesic at rate beta |v| (the point mass's
    /// admissible torsion, Wensing, Englsberger & Slotine (2023), eq. 12). Fig. 3 upper left.
    pub fn torsion(beta: f64) -> Self {
        Self::from_fn("C = beta (v x)", move |i, j, k| beta * levi_civita(i, j, k))
    }

    /// G_ijk = alpha (delta_ij u_k - delta_ik u_j), u = e_y:
    /// C(v) Z = alpha (v (u.Z) - Z (u.v)). C(v) v = 0 (straight geodesics)
    /// but C(v) is not skew: along x = t e_x the vector e_y shears into
    /// e_y - alpha t e_x. Fig. 3 upper right.
    pub fn shear(alpha: f64) -> Self {
        Self::from_fn("shear", move |i, j, k| {
            alpha * (delta(i, j) * delta(k, 1) - delta(i, k) * delta(j, 1))
        })
    }

    /// G_ijk = gamma n_j eps_ikl n_l, n = (e_x + e_z) / sqrt 2:
    /// C(v) Z = gamma (n.v) Z x n, skew (metric compatible) but
    /// C(v) v != 0: the geodesic from e_x is a helix about n and every
    /// vector turns about n at rate gamma (n.v). Fig. 3 lower left.
    pub fn helical(gamma: f64) -> Self {
        let n = [
            std::f64::consts::FRAC_1_SQRT_2,
            0.0,
            std::f64::consts::FRAC_1_SQRT_2,
        ];
        Self::from_fn("helical", move |i, j, k| {
            gamma * n[j] * (0..3).map(|l| levi_civita(i, k, l) * n[l]).sum::<f64>()
        })
    }

    /// G_yxx = alpha, all others 0: C(v) Z = alpha v_x Z_x e_y, neither
    /// skew nor zero on v. From x_dot = e_x the geodesic is the parabola
    /// y = -alpha t^2 / 2, and e_x is carried along it as e_x - alpha t e_y
    /// (still tangent, no longer unit or orthogonal to e_y). Fig. 3 lower
    /// right.
    pub fn drift(alpha: f64) -> Self {
        Self::from_fn("drift", move |i, j, k| {
            alpha * delta(i, 1) * delta(j, 0) * delta(k, 0)
        })
    }

    /// C(v), C_ik = G_ijk v_j.
    pub fn coriolis(&self, v: &Vector3<f64>) -> Matrix3<f64> {
        Matrix3::from_fn(|i, k| (0..3).map(|j| self.gamma[i][j][k] * v[j]).sum())
    }

    /// Whether G_ijk = -G_kji to `tol` (Wensing, Englsberger & Slotine (2023), Prop. III.1).
    pub fn is_metric_compatible(&self, tol: f64) -> bool {
        self.all(|i, j, k| (self.gamma[i][j][k] + self.gamma[k][j][i]).abs() <= tol)
    }

    /// Whether G_ijk = -G_ikj to `tol`: the geodesics are the Euclidean
    /// straight lines traversed at constant speed.
    pub fn has_riemannian_geodesics(&self, tol: f64) -> bool {
        self.all(|i, j, k| (self.gamma[i][j][k] + self.gamma[i][k][j]).abs() <= tol)
    }

    /// Whether the torsion T_ijk = G_ijk - G_ikj vanishes to `tol`.
    pub fn is_torsion_free(&self, tol: f64) -> bool {
        self.all(|i, j, k| (self.gamma[i][j][k] - self.gamma[i][k][j]).abs() <= tol)
    }

    fn all(&self, f: impl Fn(usize, usize, usize) -> bool) -> bool {
        (0..3).all(|i| (0..3).all(|j| (0..3).all(|k| f(i, j, k))))
    }

    /// The geodesic from the origin with x_dot(0) = e_x over `duration`,
    /// the standard basis transported along it; RK4 with `steps` steps,
    /// `stations` + 1 evenly spaced points returned (the ends included).
    pub fn transport_along_geodesic(
        &self,
        duration: f64,
        steps: usize,
        stations: usize,
    ) -> Vec<Station> {
        let steps = steps.max(1);
        let stations = stations.clamp(1, steps);
        let dt = duration / steps as f64;
        // State: position, velocity, then the three vectors.
        type State = [Vector3<f64>; 5];
        let rate = |s: &State| -> State {
            let c = self.coriolis(&s[1]);
            [s[1], -c * s[1], -c * s[2], -c * s[3], -c * s[4]]
        };
        let add =
            |s: &State, h: f64, d: &State| -> State { std::array::from_fn(|m| s[m] + d[m] * h) };
        let mut s: State = [
            Vector3::zeros(),
            Vector3::x(),
            Vector3::x(),
            Vector3::y(),
            Vector3::z(),
        ];
        let station = |t: f64, s: &State| Station {
            t,
            position: s[0],
            frame: [s[2], s[3], s[4]],
        };
        let mut out = vec![station(0.0, &s)];
        for step in 1..=steps {
            let k1 = rate(&s);
            let k2 = rate(&add(&s, dt / 2.0, &k1));
            let k3 = rate(&add(&s, dt / 2.0, &k2));
            let k4 = rate(&add(&s, dt, &k3));
            s = std::array::from_fn(|m| {
                s[m] + (k1[m] + k2[m] * 2.0 + k3[m] * 2.0 + k4[m]) * (dt / 6.0)
            });
            if step * stations % steps < stations {
                out.push(station(step as f64 * dt, &s));
            }
        }
        out
    }

    /// The five connections of the `figure connections` command: the
    /// Riemannian one and Wensing, Englsberger & Slotine (2023), Fig. 3's four, with strengths that turn
    /// or shear the vectors visibly over a unit-length geodesic.
    pub fn figure_set() -> [Self; 5] {
        [
            Self::riemannian(),
            Self::torsion(-2.0),
            Self::shear(1.0),
            Self::helical(2.0),
            Self::drift(1.0),
        ]
    }
}
