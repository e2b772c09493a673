//! Balance on contacts: the wrench distribution of passivity-based balance
//! (Ott, Roa & Hirzinger (2011); Henze, Roa & Ott (2016)).
//!
//! A balance law asks for a wrench `w_d` on the robot's centre of mass (a
//! force and a moment about the CoM); the contacts have to produce it. Given
//! `k` contact points (positions `p_j` relative to the CoM, inward unit
//! normals `n_j`, friction coefficients `mu_j`) the distribution finds the
//! contact forces `f = (f_1, ..., f_k)` that realize `w_d` with the smallest
//! norm:
//!
//! ```text
//! minimize   ||G f - w_d||^2_W + eps ||f||^2
//! subject to n_j . f_j >= f_min,   f_j in the friction cone of contact j,
//! G = [ I_3      ...  I_3     ]
//!     [ [p_1]x   ...  [p_k]x  ]      (the 6 x 3k grasp map)
//! ```
//!
//! (Ott, Roa & Hirzinger (2011), eqs. (13)-(15); Henze, Roa & Ott (2016),
//! eq. (23)). The slack `delta = G f - w_d` is weighted heavily (`W`), so a
//! wrench the contacts can produce is realized to about `eps / W` of its
//! size, and one they cannot (a horizontal force above `mu m g`, a moment
//! that would tip the robot over an edge of its support polygon) is
//! realized as closely as the constraints allow instead of making the
//! problem infeasible.
//!
//! Wrenches here are in the order `[force; moment]` (as in the papers), in
//! world coordinates: not the core's Featherstone order `[angular; linear]`.
//!
//! A flat sole is its four corners ([`sole_corners`]): with every corner's
//! normal force at least `f_min >= 0`, the centre of pressure of the sole is
//! a convex combination of the corners, so it stays inside the sole without
//! a constraint of its own, and the sole's torsional friction is bounded by
//! the corners' friction.
//!
//! Two solvers behind one interface ([`WrenchDistributor`]):
//! - [`ActiveSetQp`] (the default): a dense, warm-started primal active-set
//!   QP on friction pyramids inscribed in the cones;
//! - `ConeSocp` (cargo feature `socp`): an interior-point SOCP with the exact
//!   second-order cones (the `clarabel` crate).
//!
//! [`CompliantBalance`] is the balance law around it: CoM and orientation
//! springs giving w_d, the distribution, and the joint torques realizing the
//! forces.

mod active_set;
mod balance_law;
#[cfg(feature = "socp")]
mod cone_socp;
mod wrench_distribution;

pub use active_set::ActiveSetQp;
pub use balance_law::{
    BalanceErrors, BalanceGains, BalanceStorage, BalanceTarget, CompliantBalance, Support,
};
#[cfg(feature = "socp")]
pub use cone_socp::ConeSocp;
pub use wrench_distribution::{
    grasp_map_product, sole_corners, Distribution, DistributionError, DistributionSettings,
    PyramidFacets, SupportPoint, WrenchDistributor, MAX_CONTACTS,
};

#[cfg(test)]
mod tests;
