//! Christoffel symbols of the first kind of C* in O(Nd^2): Echeandia & Wensing (2021)
//! Algorithm 2, extended to multi-DoF joints with generalized speeds (the
//! free root) as in Wensing, Englsberger & Slotine (2023), Algorithm 2, in
//! the first body's frame when it is the only one on the world (a free root
//! always is), else in world coordinates (every symbol is a pairing
//! Phi_a . f, the same in any frame shared by the whole tree).
//!
//! Differentiating Algorithm 1's C*_ab = Phi_a^T (I^C_d Phi_dot_b + B^C_d Phi_b)
//! (d = deeper of the bodies of a and b) with respect to speed c gives, for
//! mutually related a, b, c with deepest body e,
//!
//!   G_acb = Phi_a . ( [c <= b] I^C_e (Phi_c x Phi_b) + B(Phi_c, I^C_e) Phi_b )
//!
//! where [c <= b] says c's body is b's body or an ancestor of it, and B is
//! the Niemeyer-Slotine factorization (Echeandia & Wensing (2021), eq. 12). It is symmetric in
//! (c, b) unless c and b belong to the same multi-DoF joint (Wensing, Englsberger & Slotine (2023), eq. 9).
//! For each body e, the symbols whose deepest body is e come in three groups
//! (Echeandia & Wensing (2021), eqs. 46-50): c in e (all a, b); b in e (by symmetry); a in e
//! with c, b above, as Phi_c . D_a Phi_b with
//! D_a = 1/2[(I^C_e Phi_a) xbar* - dI/dt(Phi_a)] (Echeandia & Wensing (2021), eq. 50). Groups
//! 1 and 3 of one speed c = a share the products dI/dt(Phi_c) Phi_b and
//! Phi_b x* (I^C_e Phi_c): group 1's loop over b computes both forces, and
//! group 3 then writes its symbols from the stored ones.
//!
//! With mimic joints (Wensing, Englsberger & Slotine (2023), Algorithm 2 for clusters, A constant so the
//! cluster term D_i vanishes) each tree symbol is added into its
//! independent speeds' symbol, scaled by the three multipliers:
//! Gamma_ijk = sum A_ai A_cj A_bk Gamma^tree_acb, without forming the tree tensor.

use super::coupled::{with_speed_map, SpeedMap};
use super::kinematics::{body_placement_and_axes_with, first_body_at_origin, inertia_at};
use super::simd::{Kernel, Simd};
use super::Workspace;
use crate::model::Model;
use crate::spatial::Force;

/// All Christoffel symbols G_ijk = [C*(q, e_j)]_{ik} (Wensing, Englsberger & Slotine (2023), eq. 10,
/// C*_ik = G_ijk v_j), left in `ws.christoffel` (index `(i * nv + j) * nv + k`),
/// in O(Nd^2) (Echeandia & Wensing 2021, Algorithm 2).
/// `ws.placements`, `ws.axes` and `ws.composite_inertias` are left in
/// body 0's frame when it is the only body on the world, as
/// [`crba`](super::crba) leaves them.
///
/// # Panics
/// If `q.len() != model.nq`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
///
/// # Examples
///
/// The symbols give C* by contraction with the speeds, C*_ik = G_ijk v_j, and
/// are symmetric in their last two indices for joint coordinates:
///
/// ```
/// use passivity_dynamics::algorithms::{
///     christoffel_symbols, coriolis_matrix, BodyFactorization, Workspace,
/// };
/// use passivity_dynamics::model::{Model, RootJoint};
///
/// let path = concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"
/// );
/// let model = Model::from_urdf_file(path, RootJoint::Fixed)?;
/// let mut ws = Workspace::new(&model);
/// let q = [0.1, -0.4, 0.2, -2.0, 0.3, 1.6, 0.7, 0.02, 0.02];
/// let v = [0.5, -0.3, 0.8, 0.2, -0.6, 0.4, 1.0, 0.01, -0.01];
/// let c_star = coriolis_matrix(&model, &mut ws, &q, &v, BodyFactorization::ChristoffelConsistent).clone();
/// christoffel_symbols(&model, &mut ws, &q);
/// let n = model.nv;
/// for i in 0..n {
///     for k in 0..n {
///         let contracted: f64 = (0..n).map(|j| ws.christoffel_symbol(i, j, k) * v[j]).sum();
///         assert!((contracted - c_star[(i, k)]).abs() < 1e-10);
///         for j in 0..n {
///             assert!((ws.christoffel_symbol(i, j, k) - ws.christoffel_symbol(i, k, j)).abs() < 1e-10);
///         }
///     }
/// }
/// # Ok::<(), passivity_dynamics::model::ModelError>(())
/// ```
pub fn christoffel_symbols<'w>(model: &Model, ws: &'w mut Workspace, q: &[f64]) -> &'w [f64] {
    assert_eq!(q.len(), model.nq, "christoffel_symbols: wrong input size");
    Simd::best().run(PlacementsAndSymbols(model, ws, q));
    &ws.christoffel
}

/// [`placements_and_symbols`]'s arguments, to run it for an instruction set.
struct PlacementsAndSymbols<'a>(&'a Model, &'a mut Workspace, &'a [f64]);

impl Kernel for PlacementsAndSymbols<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        placements_and_symbols(self.0, self.1, self.2)
    }
}

/// The world placements, axes and inertias, then the symbols. Always
/// inlined, with what it calls, so that each build (portable, AVX2,
/// AVX-512: see [`Simd`]) compiles all of it.
#[inline(always)]
fn placements_and_symbols(model: &Model, ws: &mut Workspace, q: &[f64]) {
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, []) = tree.expand(model, q, []);
    let mut trig = std::mem::take(&mut ws.joint_sin_cos);
    trig.compute(q);
    let free = model.has_free_root();
    let first_body = first_body_at_origin(model, ws);
    for i in first_body..model.nbodies() {
        let placement =
            body_placement_and_axes_with(model, ws, q, i, first_body == 1, |k| trig.get(k));
        ws.composite_inertias[i] = inertia_at(&placement, &model.bodies[i].inertia);
    }
    ws.joint_sin_cos = trig;
    ws.tree = tree;
    if free {
        with_speed_map!(model, map => symbols::<true>(model, ws, map));
    } else {
        with_speed_map!(model, map => symbols::<false>(model, ws, map));
    }
}

/// The symbols from the bodies' inertias in `ws.composite_inertias`, all in
/// one frame with `ws.axes`. With `FREE_ROOT` that frame is the free root's
/// body frame, where the root's six axes are the unit vectors, so
/// Phi_a . f for a root speed a is f's component a (no dot product).
#[inline(always)]
fn symbols<const FREE_ROOT: bool>(model: &Model, ws: &mut Workspace, map: impl SpeedMap) {
    let n = model.nv;
    // Slices, not the workspace's vectors: their pointers and lengths stay
    // in registers across the stores into the symbols.
    let Workspace {
        axes,
        dof_forces,
        composite_inertias,
        christoffel,
        chain_runs,
        ..
    } = ws;
    let (axes, dof_forces, g) = (&axes[..], &mut dof_forces[..], &mut christoffel[..]);
    let composite_inertias = &mut composite_inertias[..];
    map.clear(g);
    // Every tree symbol below is written exactly once.
    let put = |g: &mut [f64], a: usize, c: usize, b: usize, x: f64| map.put3(g, n, a, c, b, x);
    for e in (0..model.nbodies()).rev() {
        let body = &model.bodies[e];
        let ic = composite_inertias[e];
        let own = body.v_index..body.v_index + body.joint.nv();
        // The chain, e's speeds and its strict ancestors', as runs of
        // consecutive speeds (e's run first), walked once per body: the
        // loops below read them from this buffer (its capacity is every
        // tree speed, so it never allocates).
        chain_runs.clear();
        chain_runs.extend(model.support_runs(own.end - 1));
        let runs = &chain_runs[..];
        // Phi_k . f, read off f for a free root's speed.
        let pair = |k: usize, f: &Force| {
            if FREE_ROOT && k < 6 {
                f.to_array()[k]
            } else {
                axes[k].dot(f)
            }
        };

        for c in own.clone() {
            // Halved once here, so that X and Y below come out halved.
            let hc = ic.mul_motion(&axes[c]) * 0.5;
            let idot_c = ic.derivative(&axes[c]) * 0.5;
            // Group 1: c in e, every a and b on the chain (eq. 46/47 and the
            // multi-DoF term). Group 2 (b in e, c above) follows by symmetry.
            // With X = dI/dt(Phi_c) Phi_b / 2 and Y = Phi_b x* (I^C_e Phi_c) / 2,
            // its force is X + Y, and group 3's for a = c is Y - X.
            for b in runs.iter().flat_map(|run| run.clone()) {
                let x = idot_c.mul_motion(&axes[b]);
                let y = axes[b].cross_force(&hc);
                let mut f = x + y;
                let same_body = own.contains(&b);
                if same_body {
                    // Phi_c x Phi_c = 0: only a multi-DoF joint adds a term.
                    if b != c {
                        f += ic.mul_motion(&axes[c].cross(&axes[b]));
                    }
                } else {
                    dof_forces[b] = y - x;
                }
                for run in runs {
                    let values = run.clone().map(|a| pair(a, &f));
                    map.put3_along_run(g, n, run.clone(), (c, b, !same_body), values);
                }
            }
            // Group 3: a = c in e, c' and b on strict ancestors (eq. 50),
            // G_{a c' b} = Phi_c' . D_a Phi_b.
            let a = c;
            for (r, run_b) in runs.iter().enumerate() {
                // e's own speeds end the first run: b is above them.
                let above = run_b.start..run_b.end.min(own.start);
                for b in above {
                    let gb = dof_forces[b];
                    // b's body's speeds are the last of its support, which is
                    // b's run up to b, then the runs after it.
                    let body_b_first = model.bodies[model.dof_body[b]].v_index;
                    let support_b =
                        std::iter::once(run_b.start..b + 1).chain(runs[r + 1..].iter().cloned());
                    for run in support_b {
                        for cc in run {
                            let val = pair(cc, &gb);
                            put(g, a, cc, b, val);
                            if cc < body_b_first {
                                put(g, a, b, cc, val);
                            } else if cc != b {
                                let x = pair(b, &dof_forces[cc]);
                                put(g, a, b, cc, x);
                            }
                        }
                    }
                }
            }
        }
        if let Some(p) = body.parent {
            composite_inertias[p] += ic;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::test_models::{bent, models};

    /// Every build this CPU runs (portable, AVX2, AVX-512) gives the
    /// portable build's bits: the arithmetic and its order are the same.
    #[test]
    fn every_instruction_set_gives_the_portable_bits() {
        for model in &models() {
            let (mut built, mut portable) = (Workspace::new(model), Workspace::new(model));
            for seed in 0..2 {
                let q = bent(model, seed as f64);
                placements_and_symbols(model, &mut portable, &q);
                for simd in Simd::available() {
                    simd.run(PlacementsAndSymbols(model, &mut built, &q));
                    let differ = built
                        .christoffel
                        .iter()
                        .zip(&portable.christoffel)
                        .position(|(x, y)| x.to_bits() != y.to_bits());
                    assert_eq!(differ, None, "{} {simd:?}", model.name);
                }
            }
        }
    }
}
