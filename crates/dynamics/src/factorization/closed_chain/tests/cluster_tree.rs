//! The cluster-tree method (Wensing, Englsberger & Slotine (2023),
//! sec. VI-C2) against the spanning-tree method (sec. VI-C1) on random
//! closed states of the four-bar, the knee leg and the Delta (whose two
//! loops share arm 1 and merge into one cluster), and against the
//! identities of the closed chain itself: dH_bar/dt = C_bar + C_bar^T by
//! differences along the motion, zero torsion of C_bar*, Gamma_bar of
//! Algorithm 2 for clusters (sec. VI-C3) against the spanning tree's, its
//! contraction with v_bar against C_bar* and differences of H_bar.

use super::super::cluster_tree::cycle;
use super::*;
use crate::algorithms::BodyFactorization;
use crate::model::{Frame, FrameKind};
use crate::spatial::Transform;

const BODY_FACTORIZATIONS: [(BodyFactorization, &str); 3] = [
    (BodyFactorization::ChristoffelConsistent, "christoffel"),
    (BodyFactorization::Classic, "classic"),
    (BodyFactorization::Alternate, "alternate"),
];

/// The knee leg with armature `per_speed` (k + 1) on speed k.
fn knee_leg_with_armature(per_speed: f64) -> Mechanism {
    let mut mech = knee_leg();
    let armature: Vec<f64> = (0..mech.model.nv)
        .map(|s| per_speed * (s + 1) as f64)
        .collect();
    mech.model.set_armature(&armature).unwrap();
    mech
}

/// The spanning tree's chain at a random closed state, the cluster tree
/// there, q and v_bar.
fn both_chains(
    mech: &Mechanism,
    rng: &mut SplitMix64,
) -> (ClosedChain, ClusterChain, Workspace, Vec<f64>, Vec<f64>) {
    let (chain, mut ws, q, v) = closed_state(mech, rng, 0.3);
    let mut v_bar = vec![0.0; chain.mobility()];
    chain.reduced_speeds(&v, &mut v_bar);
    let clusters = ClusterChain::new(
        &mech.model,
        &mut ws,
        mech.closures.clone(),
        &q,
        &mech.independent,
    )
    .unwrap();
    (chain, clusters, ws, q, v_bar)
}

/// H_bar at the closed configuration whose independent coordinates are
/// q's moved by `step` v_bar (dependent ones projected).
fn h_bar_moved(
    mech: &Mechanism,
    (chain, clusters): (&mut ClosedChain, &mut ClusterChain),
    ws: &mut Workspace,
    q: &[f64],
    v_bar: &[f64],
    step: f64,
) -> DMatrix<f64> {
    let model = &mech.model;
    let mut qs = q.to_vec();
    for (&s, x) in chain.independent_speeds().iter().zip(v_bar) {
        qs[model.bodies[model.dof_body[s]].q_index] += step * x;
    }
    chain.project(model, ws, &mut qs).unwrap();
    let zero = vec![0.0; v_bar.len()];
    let f = BodyFactorization::ChristoffelConsistent;
    clusters
        .coriolis_matrix(model, ws, &qs, &zero, f)
        .unwrap()
        .0
        .clone()
}

#[test]
fn cluster_tree_gives_the_spanning_trees_h_bar_and_c_bar() {
    // Random seed 41; 10 states of each mechanism.
    let mut rng = SplitMix64(41);
    for mech in [fourbar(), knee_leg(), delta()] {
        let model = &mech.model;
        let (mut apart, mut largest): (f64, f64) = (0.0, 0.0);
        for _ in 0..10 {
            let (mut chain, mut clusters, mut ws, q, v_bar) = both_chains(&mech, &mut rng);
            let mut v = vec![0.0; model.nv];
            chain
                .update_with_independent_speeds(model, &mut ws, &q, &v_bar, &mut v)
                .unwrap();
            for (b, name) in BODY_FACTORIZATIONS {
                let f = Factorization::from_name(name).unwrap();
                let (h_tree, c_tree) = chain.reduced_dynamics(model, &mut ws, &q, &v, &f);
                let (h_tree, c_tree) = (h_tree.clone(), c_tree.clone());
                let (h, c) = clusters
                    .coriolis_matrix(model, &mut ws, &q, &v_bar, b)
                    .unwrap();
                let (dh, dc) = ((h - &h_tree).amax(), (c - &c_tree).amax());
                assert!(
                    dh < 1e-12 && dc < 1e-12,
                    "{} {name}: H_bar apart by {dh:e}, C_bar by {dc:e}",
                    model.name
                );
                apart = apart.max(dh).max(dc);
                largest = largest.max(c_tree.amax());
            }
            let speeds = clusters.tree_speeds();
            let dv = speeds
                .iter()
                .zip(&v)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(dv < 1e-12, "{}: v = A v_bar apart by {dv:e}", model.name);
        }
        // A comparison of zeros would prove nothing.
        assert!(largest > 1e-2, "{}: C_bar only {largest:e}", model.name);
        eprintln!(
            "{}: H_bar, C_bar apart by at most {apart:.1e} (|C_bar| up to {largest:.2})",
            model.name
        );
    }
}

#[test]
fn joint_armature_enters_h_bar_and_c_bar_as_in_the_spanning_tree() {
    // Random seed 43.
    let mut rng = SplitMix64(43);
    let mech = knee_leg_with_armature(0.01);
    let model = &mech.model;
    for _ in 0..3 {
        let (mut chain, mut clusters, mut ws, q, v_bar) = both_chains(&mech, &mut rng);
        let mut v = vec![0.0; model.nv];
        chain
            .update_with_independent_speeds(model, &mut ws, &q, &v_bar, &mut v)
            .unwrap();
        let f = Factorization::ChristoffelConsistent;
        let (h_tree, c_tree) = chain.reduced_dynamics(model, &mut ws, &q, &v, &f);
        let (h_tree, c_tree) = (h_tree.clone(), c_tree.clone());
        let b = BodyFactorization::ChristoffelConsistent;
        let (h, c) = clusters
            .coriolis_matrix(model, &mut ws, &q, &v_bar, b)
            .unwrap();
        assert!((h - &h_tree).amax() < 1e-9 && (c - &c_tree).amax() < 1e-9);
    }
}

#[test]
fn cluster_trees_h_bar_rate_is_c_bar_plus_its_transpose_along_the_motion() {
    // Random seed 47. dH_bar/dt by Richardson-extrapolated central
    // differences along the motion, (4 D(h/2) - D(h)) / 3 with h = 1e-3:
    // truncation O(h^4) ~ 1e-12 and the projections' 1e-13 over h ~ 1e-10,
    // so 1e-9 tests the identity, not the differences.
    let mut rng = SplitMix64(47);
    for mech in [fourbar(), knee_leg(), delta()] {
        let model = &mech.model;
        let mut worst: f64 = 0.0;
        for _ in 0..5 {
            let (mut chain, mut clusters, mut ws, q, v_bar) = both_chains(&mech, &mut rng);
            let mut central = |h: f64| {
                let mut at = |s: f64| {
                    h_bar_moved(&mech, (&mut chain, &mut clusters), &mut ws, &q, &v_bar, s)
                };
                (at(h) - at(-h)) / (2.0 * h)
            };
            let h = 1e-3;
            let fd = (central(h / 2.0) * 4.0 - central(h)) / 3.0;
            for (b, name) in BODY_FACTORIZATIONS {
                let (_, c) = clusters
                    .coriolis_matrix(model, &mut ws, &q, &v_bar, b)
                    .unwrap();
                let err = (&fd - c - c.transpose()).amax();
                worst = worst.max(err);
                assert!(
                    err < 1e-9,
                    "{} {name}: dH_bar/dt - C_bar - C_bar^T = {err:e}",
                    model.name
                );
            }
        }
        eprintln!(
            "{}: largest |dH_bar/dt - C_bar - C_bar^T| {worst:.1e}",
            model.name
        );
    }
}

/// Largest |Gamma_ijk - Gamma_ikj| with Gamma_{:, j, :} = C_bar(q, e_j).
fn torsion(
    mech: &Mechanism,
    clusters: &mut ClusterChain,
    ws: &mut Workspace,
    q: &[f64],
    b: BodyFactorization,
) -> f64 {
    let r = clusters.mobility();
    let slices: Vec<DMatrix<f64>> = (0..r)
        .map(|j| {
            let mut e = vec![0.0; r];
            e[j] = 1.0;
            clusters
                .coriolis_matrix(&mech.model, ws, q, &e, b)
                .unwrap()
                .1
                .clone()
        })
        .collect();
    largest_torsion(&slices)
}

#[test]
fn cluster_trees_c_bar_star_is_torsion_free_and_the_classic_c_bar_is_not() {
    // Random seed 53; the knee leg (mobility 3: the four-bar's one speed
    // has no torsion to show).
    let mut rng = SplitMix64(53);
    let mech = knee_leg();
    for _ in 0..5 {
        let (_, mut clusters, mut ws, q, _) = both_chains(&mech, &mut rng);
        let star = torsion(
            &mech,
            &mut clusters,
            &mut ws,
            &q,
            BodyFactorization::ChristoffelConsistent,
        );
        assert!(star < 1e-12, "C_bar* torsion {star:e}");
        let classic = torsion(
            &mech,
            &mut clusters,
            &mut ws,
            &q,
            BodyFactorization::Classic,
        );
        assert!(
            classic > 1e-3,
            "the classic C_bar's torsion only {classic:e}"
        );
    }
}

#[test]
fn cluster_trees_christoffel_symbols_match_differences_of_its_h_bar() {
    // Random seed 59. Central differences with h = 1e-5 in each
    // independent coordinate: truncation ~1e-10, projections' 1e-13 / h
    // ~1e-8; the spanning tree's test uses the same 1e-7.
    let mut rng = SplitMix64(59);
    for mech in [fourbar(), knee_leg(), delta()] {
        let model = &mech.model;
        for _ in 0..3 {
            let (mut chain, mut clusters, mut ws, q, _) = both_chains(&mech, &mut rng);
            let gamma = clusters
                .christoffel_symbols(model, &mut ws, &q)
                .unwrap()
                .to_vec();
            let r = clusters.mobility();
            let h = 1e-5;
            let dh: Vec<DMatrix<f64>> = (0..r)
                .map(|k| {
                    let mut e = vec![0.0; r];
                    e[k] = 1.0;
                    let mut at = |s: f64| {
                        h_bar_moved(&mech, (&mut chain, &mut clusters), &mut ws, &q, &e, s)
                    };
                    (at(h) - at(-h)) / (2.0 * h)
                })
                .collect();
            for i in 0..r {
                for j in 0..r {
                    for k in 0..r {
                        let fd = 0.5 * (dh[k][(i, j)] + dh[j][(i, k)] - dh[i][(j, k)]);
                        let err = (gamma[j][(i, k)] - fd).abs();
                        assert!(
                            err < 1e-7,
                            "{}: Gamma_bar_{i}{j}{k} off by {err:e}",
                            model.name
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn algorithm_2_for_clusters_gives_the_spanning_trees_gamma_bar_and_contracts_to_c_bar_star() {
    // Random seed 67; 5 states of each mechanism: Gamma_bar against the
    // spanning tree's (r runs of Algorithm 1 and the transform), its
    // contraction sum_j Gamma_bar_ijk v_bar_j against the cluster tree's
    // C_bar*(v_bar), each slice against Algorithm 1 at v_bar = e_j.
    let mut rng = SplitMix64(67);
    for mech in [fourbar(), knee_leg(), delta()] {
        let model = &mech.model;
        let (mut apart, mut largest): (f64, f64) = (0.0, 0.0);
        for _ in 0..5 {
            let (mut chain, mut clusters, mut ws, q, v_bar) = both_chains(&mech, &mut rng);
            let tree = chain
                .christoffel_symbols(model, &mut ws, &q)
                .unwrap()
                .to_vec();
            let gamma = clusters
                .christoffel_symbols(model, &mut ws, &q)
                .unwrap()
                .to_vec();
            let star = BodyFactorization::ChristoffelConsistent;
            let c_star = clusters
                .coriolis_matrix(model, &mut ws, &q, &v_bar, star)
                .unwrap()
                .1
                .clone();
            let r = v_bar.len();
            let mut contracted = DMatrix::zeros(r, r);
            for (j, g) in gamma.iter().enumerate() {
                contracted += g * v_bar[j];
                let mut e = vec![0.0; r];
                e[j] = 1.0;
                let (_, slice) = clusters
                    .coriolis_matrix(model, &mut ws, &q, &e, star)
                    .unwrap();
                let (dt, ds) = ((g - &tree[j]).amax(), (g - slice).amax());
                assert!(
                    dt < 1e-12 && ds < 1e-12,
                    "{} slice {j}: apart from the spanning tree's by {dt:e}, from Algorithm 1's by {ds:e}",
                    model.name
                );
                apart = apart.max(dt).max(ds);
                largest = largest.max(g.amax());
            }
            let dc = (&contracted - &c_star).amax();
            assert!(
                dc < 1e-12,
                "{}: sum Gamma_bar v_bar - C_bar* = {dc:e}",
                model.name
            );
            apart = apart.max(dc);
        }
        // A comparison of zeros would prove nothing (the light Delta's
        // symbols reach 1.0e-2, the knee leg's 0.44).
        assert!(largest > 1e-3, "{}: Gamma_bar only {largest:e}", model.name);
        eprintln!(
            "{}: Gamma_bar apart by at most {apart:.1e} (|Gamma_bar| up to {largest:.2})",
            model.name
        );
    }
}

#[test]
fn algorithm_2_for_clusters_takes_the_armature_as_algorithm_1_does() {
    // Random seed 71: the knee leg with armature on every speed.
    let mut rng = SplitMix64(71);
    let mech = knee_leg_with_armature(0.02);
    let model = &mech.model;
    for _ in 0..3 {
        let (mut chain, mut clusters, mut ws, q, _) = both_chains(&mech, &mut rng);
        let tree = chain
            .christoffel_symbols(model, &mut ws, &q)
            .unwrap()
            .to_vec();
        let gamma = clusters
            .christoffel_symbols(model, &mut ws, &q)
            .unwrap()
            .to_vec();
        for (j, g) in gamma.iter().enumerate() {
            let d = (g - &tree[j]).amax();
            assert!(d < 1e-12, "slice {j} apart by {d:e}");
        }
    }
}

#[test]
fn the_deltas_loops_share_arm_1_and_merge_into_one_cluster() {
    let mech = delta();
    let mut ws = Workspace::new(&mech.model);
    let mut q = mech.nominal.clone();
    ClosedChain::assemble(
        &mech.model,
        &mut ws,
        mech.closures.clone(),
        &mut q,
        Some(&mech.independent),
    )
    .unwrap();
    let clusters = ClusterChain::new(
        &mech.model,
        &mut ws,
        mech.closures.clone(),
        &q,
        &mech.independent,
    )
    .unwrap();
    // Every body of the three arms in one cluster, both loops' six rows in
    // its K.
    assert_eq!(clusters.cluster_count(), 1);
    assert_eq!(clusters.mobility(), 3);
}

#[test]
fn the_spanning_trees_refusals_stand_for_the_cluster_tree() {
    let mech = knee_leg();
    let mut ws = Workspace::new(&mech.model);
    // Open by 0.1 rad in the motor: not closed, named as ClosedChain names it.
    let mut q = mech.nominal.clone();
    q[speed_of(&mech.model, "knee_motor_joint")] += 0.1;
    let err = ClusterChain::new(
        &mech.model,
        &mut ws,
        mech.closures.clone(),
        &q,
        &mech.independent,
    )
    .unwrap_err();
    assert!(
        matches!(&err, ClusterChainError::Chain(ClosedChainError::NotClosed { name, .. }) if name == "knee linkage"),
        "{err:?}"
    );
}

#[test]
fn loop_jacobian_from_the_axes_equals_the_one_from_frame_jacobians() {
    // Random seed 61; random trees, every kind, random (open) q and v: the
    // restricted K and K_dot on all speeds against the frame-Jacobian ones.
    let mut rng = SplitMix64(61);
    let mut largest: f64 = 0.0;
    for seed in 0..4u64 {
        let model = random_tree(
            RandomTreeOptions {
                joints: 7,
                free_root: false,
                prismatic_probability: 0.2,
            },
            seed,
        );
        let mut ws = Workspace::new(&model);
        let mut lw = LoopJacobianWorkspace::new(&model);
        let on_bodies: Vec<usize> = (0..model.frames.len())
            .filter(|&f| model.frames[f].body.is_some())
            .collect();
        let axis = Vec3::new(rng.uniform(-1.0, 1.0), 0.3, rng.uniform(-1.0, 1.0));
        for kind in [
            LoopKind::Point,
            LoopKind::Planar { axis },
            LoopKind::Revolute { axis },
        ] {
            let closure = LoopClosure {
                name: "l".into(),
                frame_a: on_bodies[2],
                frame_b: on_bodies[on_bodies.len() - 1],
                kind,
            };
            let m = kind.rows();
            let q: Vec<f64> = (0..model.nq).map(|_| rng.uniform(-1.5, 1.5)).collect();
            let v: Vec<f64> = (0..model.nv).map(|_| rng.uniform(-2.0, 2.0)).collect();
            let (mut k, mut k_dot) = (DMatrix::zeros(m, model.nv), DMatrix::zeros(m, model.nv));
            let closures = [closure.clone()];
            loop_jacobian_time_derivative(
                &model, &mut ws, &mut lw, &q, &v, &closures, &mut k, &mut k_dot,
            );
            let all: Vec<usize> = (0..model.nv).collect();
            let (mut k2, mut k2_dot) = (DMatrix::zeros(m, model.nv), DMatrix::zeros(m, model.nv));
            forward_kinematics(&model, &mut ws, &q);
            crate::algorithms::velocity_pass(&model, &mut ws, &v);
            crate::algorithms::loop_jacobian_on_speeds(
                &model,
                &ws,
                (&closure, 0),
                &all,
                Some(&mut k2),
                Some(&mut k2_dot),
            );
            let (dk, dk_dot) = ((&k2 - &k).amax(), (&k2_dot - &k_dot).amax());
            assert!(
                dk < 1e-12 && dk_dot < 1e-12,
                "{kind:?} seed {seed}: K apart by {dk:e}, K_dot by {dk_dot:e}"
            );
            largest = largest.max(k_dot.amax());
        }
    }
    // A comparison of zeros would prove nothing.
    assert!(largest > 1e-2, "K_dot only {largest:e}");
}

/// A random tree (random seed `seed`) with `loops` point or planar
/// closures between random bodies whose cycle has more joints than the
/// closure has rows, closed at a random configuration by placing each cut's
/// second frame where its first is; the chain there with the default
/// independent speeds, or `None` if the spanning tree refuses it (e.g.
/// redundant rows).
fn random_closed_chain(seed: u64, loops: usize) -> Option<(Mechanism, ClosedChain, Workspace)> {
    let mut model = random_tree(
        RandomTreeOptions {
            joints: 12,
            free_root: false,
            prismatic_probability: 0.2,
        },
        seed,
    );
    let mut rng = SplitMix64(seed + 1000);
    let mut ws = Workspace::new(&model);
    let q: Vec<f64> = (0..model.nq).map(|_| rng.uniform(-1.5, 1.5)).collect();
    forward_kinematics(&model, &mut ws, &q);
    let nb = model.nbodies();
    let mut closures = Vec::new();
    for attempt in 0..200 {
        if closures.len() == loops {
            break;
        }
        let pick = |rng: &mut SplitMix64| (rng.uniform(0.0, nb as f64) as usize).min(nb - 1);
        let (a, b) = (pick(&mut rng), pick(&mut rng));
        let kind = if rng.uniform(0.0, 1.0) < 0.5 {
            LoopKind::Point
        } else {
            LoopKind::Planar {
                axis: Vec3::new(rng.uniform(-1.0, 1.0), 1.0, rng.uniform(-1.0, 1.0)).normalize(),
            }
        };
        let placement = ws.placements[b].inverse().compose(&ws.placements[a]);
        let frame = |name: String, body: usize, placement| Frame {
            name,
            kind: FrameKind::Link,
            body: Some(body),
            placement,
        };
        model
            .frames
            .push(frame(format!("cut {attempt} a"), a, Transform::identity()));
        model
            .frames
            .push(frame(format!("cut {attempt} b"), b, placement));
        let closure = LoopClosure {
            name: format!("loop {attempt}"),
            frame_a: model.frames.len() - 2,
            frame_b: model.frames.len() - 1,
            kind,
        };
        if a != b && cycle(&model, &closure).len() > kind.rows() {
            closures.push(closure);
        }
    }
    let chain = ClosedChain::new(&model, &mut ws, closures.clone(), &q, None).ok()?;
    let independent = chain.independent_speeds().to_vec();
    let mech = Mechanism {
        model,
        closures,
        independent,
        nominal: q,
    };
    Some((mech, chain, ws))
}

#[test]
fn random_trees_with_shared_and_separate_loops_agree_with_the_spanning_tree() {
    // Random seeds 0..80 for the trees, seed + 1000 for their loops and
    // configurations, 83 for the speeds. Two or three loops each: some
    // cycles share bodies (merged clusters), some chains have two or more
    // loop clusters, which the shipped mechanisms do not show. Entries up
    // to ~10 here: 1e-12 relative to max(1, |C_bar|).
    let mut rng = SplitMix64(83);
    let (mut tested, mut merged, mut separate) = (0, 0, 0);
    let mut worst: f64 = 0.0;
    for seed in 0..80 {
        let loops = 2 + seed as usize % 2;
        let Some((mech, mut chain, mut ws)) = random_closed_chain(seed, loops) else {
            continue;
        };
        let (model, q) = (&mech.model, &mech.nominal);
        let mut clusters =
            ClusterChain::new(model, &mut ws, mech.closures.clone(), q, &mech.independent).unwrap();
        let on_cycles: std::collections::BTreeSet<usize> =
            mech.closures.iter().flat_map(|c| cycle(model, c)).collect();
        let loop_clusters = clusters.cluster_count() - (model.nbodies() - on_cycles.len());
        merged += usize::from(loop_clusters < mech.closures.len());
        separate += usize::from(loop_clusters > 1);
        let r = chain.mobility();
        let v_bar: Vec<f64> = (0..r).map(|_| rng.uniform(-2.0, 2.0)).collect();
        let mut v = vec![0.0; model.nv];
        chain
            .update_with_independent_speeds(model, &mut ws, q, &v_bar, &mut v)
            .unwrap();
        for (b, name) in BODY_FACTORIZATIONS {
            let f = Factorization::from_name(name).unwrap();
            let (h_tree, c_tree) = chain.reduced_dynamics(model, &mut ws, q, &v, &f);
            let (h_tree, c_tree) = (h_tree.clone(), c_tree.clone());
            let (h, c) = clusters
                .coriolis_matrix(model, &mut ws, q, &v_bar, b)
                .unwrap();
            let scale = c_tree.amax().max(h_tree.amax()).max(1.0);
            let (dh, dc) = ((h - &h_tree).amax(), (c - &c_tree).amax());
            worst = worst.max(dh.max(dc) / scale);
            assert!(
                dh < 1e-12 * scale && dc < 1e-12 * scale,
                "seed {seed} {name}: H_bar apart by {dh:e}, C_bar by {dc:e} (scale {scale:.1})"
            );
        }
        let tree = chain
            .christoffel_symbols(model, &mut ws, q)
            .unwrap()
            .to_vec();
        let gamma = clusters.christoffel_symbols(model, &mut ws, q).unwrap();
        for (j, (g, t)) in gamma.iter().zip(&tree).enumerate() {
            let scale = t.amax().max(1.0);
            let d = (g - t).amax();
            worst = worst.max(d / scale);
            assert!(
                d < 1e-12 * scale,
                "seed {seed} slice {j}: Gamma_bar apart by {d:e}"
            );
        }
        tested += 1;
    }
    eprintln!(
        "{tested} random chains: {merged} with merged loops, {separate} with two or more loop \
         clusters; H_bar, C_bar, Gamma_bar apart by at most {worst:.1e} relative"
    );
    // Both kinds of cluster tree must have been met, or the test proves little.
    assert!(
        tested >= 10 && merged >= 3 && separate >= 3,
        "{tested} tested, {merged} merged, {separate} separate"
    );
}
