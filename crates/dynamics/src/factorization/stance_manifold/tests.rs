//! The stance manifold on Solo-12 standing on four point feet and on Talos
//! standing on its two flat soles, at random states: J_c A = 0, A_dot and
//! dH_bar/dt against central differences along the motion, dH_bar/dt =
//! C_bar + C_bar^T for every factorization, and the torsion of the induced
//! connections (zero for C_bar*, the pulled-back torsion otherwise).

use super::*;
use crate::algorithms::{christoffel_symbols, crba, forward_kinematics, frame_placement};
use crate::factorization::{Beta, Factorization};
use crate::model::{Frame, FrameKind, RootJoint, SplitMix64};
use crate::spatial::Transform;
use nalgebra::DVector;

struct Robot {
    model: Model,
    contacts: Vec<StanceContact>,
    /// The speeds the QR may make dependent: every joint, not the base.
    candidates: Vec<usize>,
}

fn solo() -> Robot {
    let path = crate::shipped_robot_file("solo_description/robots/solo12.urdf");
    let model = Model::from_urdf_file(path, RootJoint::Free).unwrap();
    // The foot frames are the centres of the round feet; the contact
    // points are 1 cm below them (exercising the offset).
    let contacts = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
        .iter()
        .map(|name| StanceContact::Point {
            frame: model.frame_by_name(name).unwrap(),
            offset: Vec3::new(0.0, 0.0, -0.01),
        })
        .collect();
    let candidates = (6..model.nv).collect();
    Robot {
        model,
        contacts,
        candidates,
    }
}

fn talos() -> Robot {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/robots/talos_data/robots/talos_reduced.urdf");
    let model = Model::from_urdf_file(path, RootJoint::Free).unwrap();
    let contacts = ["left_sole_link", "right_sole_link"]
        .iter()
        .map(|name| StanceContact::Rigid {
            frame: model.frame_by_name(name).unwrap(),
        })
        .collect();
    let candidates = (6..model.nv).collect();
    Robot {
        model,
        contacts,
        candidates,
    }
}

/// A standing pose's joint angle (bent knees, away from the stretched-leg
/// singularity), 0 for the other joints.
fn standing(joint: &str) -> f64 {
    match joint {
        "FL_HFE" | "FR_HFE" => 0.8,
        "HL_HFE" | "HR_HFE" => -0.8,
        "FL_KFE" | "FR_KFE" => -1.6,
        "HL_KFE" | "HR_KFE" => 1.6,
        "leg_left_3_joint" | "leg_right_3_joint" => -0.41,
        "leg_left_4_joint" | "leg_right_4_joint" => 0.86,
        "leg_left_5_joint" | "leg_right_5_joint" => -0.45,
        _ => 0.0,
    }
}

/// The standing pose, plus `spread` times a uniform perturbation of every
/// joint and of the base (position, and a random orientation when spread > 0).
fn pose(model: &Model, rng: &mut SplitMix64, spread: f64) -> Vec<f64> {
    let mut q = model.neutral_configuration();
    for x in &mut q[..3] {
        *x = spread * rng.uniform(-1.0, 1.0);
    }
    if spread > 0.0 {
        let quat: Vec<f64> = (0..4).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let n = quat.iter().map(|x| x * x).sum::<f64>().sqrt();
        for (x, y) in q[3..7].iter_mut().zip(&quat) {
            *x = y / n;
        }
    }
    for b in model.bodies.iter().skip(1) {
        q[b.q_index] = standing(&b.joint_name) + spread * rng.uniform(-0.3, 0.3);
    }
    q
}

fn moved(model: &Model, q: &[f64], v: &[f64], dt: f64) -> Vec<f64> {
    let mut out = vec![0.0; q.len()];
    model.integrate(q, v, dt, &mut out);
    out
}

/// A random state consistent with the contacts: q near the standing pose,
/// v = A(q) v_bar with v_bar uniform in [-1, 1]; the stance updated there.
fn random_state(
    robot: &Robot,
    stance: &mut StanceManifold,
    ws: &mut Workspace,
    rng: &mut SplitMix64,
) -> (Vec<f64>, Vec<f64>) {
    let model = &robot.model;
    let q = pose(model, rng, 1.0);
    stance.update(model, ws, &q, &vec![0.0; model.nv]).unwrap();
    let v_bar = DVector::from_fn(model.nv - stance.dependent_speeds().len(), |_, _| {
        rng.uniform(-1.0, 1.0)
    });
    let v: Vec<f64> = (stance.basis() * v_bar).iter().copied().collect();
    stance.update(model, ws, &q, &v).unwrap();
    (q, v)
}

fn built(robot: &Robot, ws: &mut Workspace) -> StanceManifold {
    let q = pose(&robot.model, &mut SplitMix64(0), 0.0);
    StanceManifold::new(
        &robot.model,
        ws,
        robot.contacts.clone(),
        &q,
        &robot.candidates,
    )
    .unwrap()
}

/// The factorizations of the crate: C*, the two other body-level choices and
/// beta torsion on every triple with a configuration-dependent strength.
fn factorizations(model: &Model) -> Vec<Factorization> {
    let beta = Beta {
        constant: 0.5,
        gradient: vec![(8, 0.3)],
    };
    let torsion = Factorization::torsion_on_all_triples(model.nv, beta).unwrap();
    torsion.validate(model).unwrap();
    vec![
        Factorization::ChristoffelConsistent,
        Factorization::Classic,
        Factorization::Alternate,
        torsion,
    ]
}

fn robots() -> [(&'static str, Robot, usize); 2] {
    [("Solo-12", solo(), 6), ("Talos", talos(), 3)]
}

/// The QR picks the legs' joints; the basis spans the null space of J_c,
/// its independent rows are the identity; J_c and J_c_dot match central
/// differences of the contact points' positions and of J_c along the motion.
#[test]
fn basis_spans_the_null_space_and_the_constraint_jacobians_are_exact() {
    for (name, robot, states) in robots() {
        let model = &robot.model;
        let mut ws = Workspace::new(model);
        let mut stance = built(&robot, &mut ws);
        let legs: Vec<usize> = model
            .bodies
            .iter()
            .filter(|b| b.joint_name.contains("_HFE") || b.joint_name.contains("_KFE"))
            .chain(
                model
                    .bodies
                    .iter()
                    .filter(|b| b.joint_name.contains("_HAA") || b.joint_name.starts_with("leg_")),
            )
            .map(|b| b.v_index)
            .collect();
        let mut sorted = legs.clone();
        sorted.sort_unstable();
        assert_eq!(stance.dependent_speeds(), &sorted[..], "{name}");
        let mut rng = SplitMix64(1);
        let (mut null, mut jac, mut jac_dot) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..states {
            let (q, v) = random_state(&robot, &mut stance, &mut ws, &mut rng);
            let a = stance.basis();
            null = null.max((stance.constraint_jacobian() * a).amax());
            for (c, &k) in stance.independent_speeds().iter().enumerate() {
                assert_eq!(a.row(k).iter().filter(|x| **x != 0.0).count(), 1);
                assert_eq!(a[(k, c)], 1.0);
            }
            let (jc, jc_dot) = (
                stance.constraint_jacobian().clone(),
                stance.constraint_jacobian_dot().clone(),
            );
            // J_c v is each contact's twist or point velocity in its frame's
            // axes: check it on the unconstrained speeds e (J_c A v_bar = 0
            // would say nothing).
            let e: Vec<f64> = (0..model.nv).map(|k| (0.7 * k as f64).sin()).collect();
            let eps = 1e-6;
            let (qp, qm) = (moved(model, &q, &e, eps), moved(model, &q, &e, -eps));
            let jce = &jc * DVector::from_column_slice(&e);
            let mut row = 0;
            for contact in stance.contacts() {
                let place = |q: &[f64], ws: &mut Workspace| {
                    forward_kinematics(model, ws, q);
                    frame_placement(model, ws, contact.frame())
                };
                let (xp, xm, x) = (place(&qp, &mut ws), place(&qm, &mut ws), place(&q, &mut ws));
                let offset = match *contact {
                    StanceContact::Point { offset, .. } => offset,
                    StanceContact::Rigid { .. } => Vec3::zeros(),
                };
                let point = |x: &Transform| x.trans + x.rot * offset;
                let lin = x.rot.tr_mul(&((point(&xp) - point(&xm)) / (2.0 * eps)));
                let fd: Vec<f64> = match contact {
                    StanceContact::Point { .. } => lin.iter().copied().collect(),
                    StanceContact::Rigid { .. } => {
                        // R^T dR/dt = [w]x in the frame's axes.
                        let w = x.rot.tr_mul(&((xp.rot - xm.rot) / (2.0 * eps)));
                        let ang = [w[(2, 1)], w[(0, 2)], w[(1, 0)]];
                        ang.iter().chain(lin.iter()).copied().collect()
                    }
                };
                for (r, f) in fd.iter().enumerate() {
                    jac = jac.max((jce[row + r] - f).abs());
                }
                row += contact.rows();
            }
            // J_c_dot along v against J_c at q -/+ eps v.
            let mut other = stance.clone();
            let mut at = |s: f64| {
                other
                    .update(model, &mut ws, &moved(model, &q, &v, s * eps), &v)
                    .unwrap();
                other.constraint_jacobian().clone()
            };
            let fd = (at(1.0) - at(-1.0)) / (2.0 * eps);
            jac_dot = jac_dot.max((fd - &jc_dot).amax() / jc_dot.amax().max(1.0));
        }
        println!("{name}: max |J_c A| = {null:.1e}, J_c v against differences {jac:.1e}, J_c_dot {jac_dot:.1e} (relative)");
        assert!(null < 1e-12, "{name}: J_c A = {null:e}");
        assert!(jac < 1e-8, "{name}: J_c against differences: {jac:e}");
        assert!(
            jac_dot < 1e-7,
            "{name}: J_c_dot against differences: {jac_dot:e}"
        );
    }
}

/// A_dot against a central difference of A along the motion (q moved on
/// its manifold by the model's integration).
#[test]
fn basis_derivative_matches_central_differences_along_the_motion() {
    for (name, robot, states) in robots() {
        let model = &robot.model;
        let mut ws = Workspace::new(model);
        let mut stance = built(&robot, &mut ws);
        let mut rng = SplitMix64(2);
        let mut worst = 0.0f64;
        for _ in 0..states {
            let (q, v) = random_state(&robot, &mut stance, &mut ws, &mut rng);
            let a_dot = stance.basis_dot().clone();
            assert!(a_dot.amax() > 0.1, "{name}: the basis moves");
            let eps = 1e-6;
            let mut other = stance.clone();
            let mut at = |s: f64| {
                other
                    .update(model, &mut ws, &moved(model, &q, &v, s * eps), &v)
                    .unwrap();
                other.basis().clone()
            };
            let fd = (at(1.0) - at(-1.0)) / (2.0 * eps);
            worst = worst.max((fd - &a_dot).amax() / a_dot.amax());
        }
        println!("{name}: A_dot against central differences: {worst:.1e} (relative)");
        assert!(worst < 1e-7, "{name}: A_dot against differences: {worst:e}");
    }
}

/// For C*, classic, alternate and beta torsion: dH_bar/dt (exactly, as
/// A_dot^T H A + A^T H_dot A + A^T H A_dot) = C_bar + C_bar^T (Wensing,
/// Englsberger & Slotine (2023), Prop. V.1) and matches a central
/// difference of A^T H A along the motion (H from the CRBA); C_bar v_bar is
/// the same for all (Prop. V.2).
#[test]
fn reduced_inertia_rate_is_c_bar_plus_its_transpose_for_every_factorization() {
    for (name, robot, states) in robots() {
        let model = &robot.model;
        let mut ws = Workspace::new(model);
        let mut stance = built(&robot, &mut ws);
        let mut rng = SplitMix64(3);
        let (mut skew, mut fd_error, mut validity) = (0.0f64, 0.0f64, 0.0f64);
        let mut largest = 0.0f64;
        for _ in 0..states {
            let (q, v) = random_state(&robot, &mut stance, &mut ws, &mut rng);
            let mut v_bar = vec![0.0; stance.independent_speeds().len()];
            stance.reduced_speeds(&v, &mut v_bar);
            let v_bar = DVector::from_vec(v_bar);
            let (a, a_dot) = (stance.basis().clone(), stance.basis_dot().clone());
            let mut c_star_v = None;
            for f in factorizations(model) {
                let (h_bar, c_bar) = stance.reduced_dynamics(model, &mut ws, &q, &v, &f);
                let (h_bar, c_bar) = (h_bar.clone(), c_bar.clone());
                let (h, h_dot) = (&ws.mass_matrix, &ws.mass_matrix_dot);
                assert!((a.transpose() * h * &a - &h_bar).amax() < 1e-12);
                let h_bar_dot = a_dot.transpose() * h * &a
                    + a.transpose() * h_dot * &a
                    + a.transpose() * h * &a_dot;
                let scale = h_bar_dot.amax().max(1.0);
                skew = skew.max((&h_bar_dot - &c_bar - c_bar.transpose()).amax());
                largest = largest.max(h_bar_dot.amax());
                let c_v = &c_bar * &v_bar;
                let c_star_v = c_star_v.get_or_insert_with(|| c_v.clone());
                validity = validity.max((c_v - &*c_star_v).amax() / scale);
                if f == Factorization::ChristoffelConsistent {
                    let eps = 1e-6;
                    let mut other = stance.clone();
                    let mut at = |s: f64| {
                        let qs = moved(model, &q, &v, s * eps);
                        other.update(model, &mut ws, &qs, &v).unwrap();
                        let a = other.basis();
                        a.transpose() * crba(model, &mut ws, &qs) * a
                    };
                    let fd = (at(1.0) - at(-1.0)) / (2.0 * eps);
                    fd_error = fd_error.max((fd - &h_bar_dot).amax() / scale);
                }
            }
        }
        println!("{name}: |dH_bar/dt - C_bar - C_bar^T| {skew:.1e} (max |dH_bar/dt| {largest:.1e}); relative: dH_bar/dt against differences {fd_error:.1e}, |C_bar v_bar - C_bar* v_bar| {validity:.1e}");
        assert!(skew < 1e-9, "{name}: skew residual {skew:e}");
        assert!(
            fd_error < 1e-7,
            "{name}: dH_bar/dt against differences {fd_error:e}"
        );
        assert!(validity < 1e-9, "{name}: validity residual {validity:e}");
    }
}

/// G_bar_ijk = [C_bar(q, e_j)]_ik of the induced connection (Wensing,
/// Englsberger & Slotine (2023), eq. 10, on the reduced speeds), index
/// `(i * r + j) * r + k`; also returns A and A_dot along each e_j.
fn reduced_connection(
    model: &Model,
    stance: &mut StanceManifold,
    ws: &mut Workspace,
    q: &[f64],
    f: &Factorization,
) -> (Vec<f64>, DMatrix<f64>, Vec<DMatrix<f64>>) {
    stance.update(model, ws, q, &vec![0.0; model.nv]).unwrap();
    let a = stance.basis().clone();
    let r = a.ncols();
    let mut g = vec![0.0; r * r * r];
    let mut a_dots = Vec::new();
    for j in 0..r {
        let vj: Vec<f64> = a.column(j).iter().copied().collect();
        stance.update(model, ws, q, &vj).unwrap();
        a_dots.push(stance.basis_dot().clone());
        let (_, c_bar) = stance.reduced_dynamics(model, ws, q, &vj, f);
        for i in 0..r {
            for k in 0..r {
                g[(i * r + j) * r + k] = c_bar[(i, k)];
            }
        }
    }
    (g, a, a_dots)
}

/// The induced connections' torsion, measured without the reduced C_bar*:
/// T_bar_ijk = G_bar_ijk - G_bar_ikj - <X_i, [X_j, X_k]> in the frame
/// X_j = A e_j of the stance manifold, with the Lie bracket
/// [X_j, X_k] = A_dot(e_j) e_k - A_dot(e_k) e_j + [A e_j, A e_k]_root
/// (the directional derivatives of A are exact A_dot, checked against
/// differences above; the free root's body-twist fields are left-invariant
/// on SE(3), [(w1, u1), (w2, u2)] = (w1 x w2, w1 x u2 - w2 x u1), and the
/// joints' coordinate fields commute with everything) and <x, y> = x^T H y.
/// C_bar* is torsion-free (Wensing, Englsberger & Slotine (2023),
/// Prop. V.3); every other factorization's T_bar is its full torsion tensor
/// T_ijk = (G_ijk - G_ikj) - (G*_ijk - G*_ikj) (as `Diagnoser` measures
/// it) pulled back by A, nonzero for beta torsion.
#[test]
fn the_induced_christoffel_connection_is_torsion_free_and_beta_torsion_is_not() {
    for (name, robot, states) in robots() {
        let model = &robot.model;
        let n = model.nv;
        let mut ws = Workspace::new(model);
        let mut stance = built(&robot, &mut ws);
        let mut rng = SplitMix64(4);
        for state in 0..states.min(2) {
            let (q, _) = random_state(&robot, &mut stance, &mut ws, &mut rng);
            let g_star_full = christoffel_symbols(model, &mut ws, &q).to_vec();
            let h = crba(model, &mut ws, &q).clone();
            let mut norms = Vec::new();
            for f in factorizations(model) {
                let (g_bar, a, a_dots) = reduced_connection(model, &mut stance, &mut ws, &q, &f);
                let r = a.ncols();
                let at_h = a.transpose() * &h;
                let mut torsion = vec![0.0; r * r * r];
                for j in 0..r {
                    for k in 0..r {
                        let (xj, xk) = (a.column(j), a.column(k));
                        let mut w = a_dots[j].column(k) - a_dots[k].column(j);
                        let (wj, uj) = (xj.fixed_rows::<3>(0), xj.fixed_rows::<3>(3));
                        let (wk, uk) = (xk.fixed_rows::<3>(0), xk.fixed_rows::<3>(3));
                        let ang = wj.cross(&wk);
                        let lin = wj.cross(&uk) - wk.cross(&uj);
                        for c in 0..3 {
                            w[c] += ang[c];
                            w[3 + c] += lin[c];
                        }
                        let s = &at_h * w;
                        for i in 0..r {
                            torsion[(i * r + j) * r + k] =
                                g_bar[(i * r + j) * r + k] - g_bar[(i * r + k) * r + j] - s[i];
                        }
                    }
                }
                // The full torsion tensor, pulled back by A one index at a time.
                let mut g_full = vec![0.0; n * n * n];
                f.connection_coefficients(model, &mut ws, &q, &mut g_full);
                let full = |i: usize, j: usize, k: usize| {
                    let x = |g: &[f64]| g[(i * n + j) * n + k] - g[(i * n + k) * n + j];
                    x(&g_full) - x(&g_star_full)
                };
                let mut t1 = vec![0.0; n * n * r];
                for i in 0..n {
                    for j in 0..n {
                        for c in 0..r {
                            t1[(i * n + j) * r + c] =
                                (0..n).map(|k| full(i, j, k) * a[(k, c)]).sum();
                        }
                    }
                }
                let mut t2 = vec![0.0; n * r * r];
                for i in 0..n {
                    for b in 0..r {
                        for c in 0..r {
                            t2[(i * r + b) * r + c] =
                                (0..n).map(|j| a[(j, b)] * t1[(i * n + j) * r + c]).sum();
                        }
                    }
                }
                let (mut norm, mut mismatch, mut scale) = (0.0f64, 0.0f64, 0.0f64);
                for a_ in 0..r {
                    for b in 0..r {
                        for c in 0..r {
                            let pulled: f64 =
                                (0..n).map(|i| a[(i, a_)] * t2[(i * r + b) * r + c]).sum();
                            let t = torsion[(a_ * r + b) * r + c];
                            norm += t * t;
                            mismatch = mismatch.max((t - pulled).abs());
                            scale = scale.max(g_bar[(a_ * r + b) * r + c].abs());
                        }
                    }
                }
                let norm = norm.sqrt();
                println!("{name}, state {state}, {}: |T_bar| = {norm:.3e}, |T_bar - A^*T| = {mismatch:.1e}, max |G_bar| = {scale:.2e}", f.name());
                assert!(mismatch < 1e-9 * scale, "{name} {}: {mismatch:e}", f.name());
                norms.push((norm, scale));
            }
            let (star, scale) = norms[0];
            assert!(star < 1e-10 * scale, "{name}: C_bar* has torsion {star:e}");
            let (beta, _) = norms[3];
            assert!(
                beta > 0.1,
                "{name}: beta torsion's C_bar has torsion {beta:e}"
            );
        }
    }
}

/// Refused: redundant contacts, an unusable partition, a J_d that turned
/// singular (Solo's front-left knee stretched straight), frames that are not
/// usable; accepted: no contacts at all (flight: A = 1, A_dot = 0).
#[test]
fn bad_stances_are_refused_with_typed_errors() {
    let robot = solo();
    let model = &robot.model;
    let mut ws = Workspace::new(model);
    let q = pose(model, &mut SplitMix64(0), 0.0);
    let all: Vec<usize> = (0..model.nv).collect();
    let new =
        |contacts: Vec<StanceContact>, candidates: &[usize], q: &[f64], ws: &mut Workspace| {
            StanceManifold::new(model, ws, contacts, q, candidates).map(|_| ())
        };
    let mut twice = robot.contacts.clone();
    twice.push(robot.contacts[0]);
    assert_eq!(
        new(twice, &all, &q, &mut ws),
        Err(StanceError::RedundantContacts { rank: 12, rows: 15 })
    );
    let foot = robot.contacts[0].frame();
    let sole_and_point = vec![
        StanceContact::Rigid { frame: foot },
        StanceContact::Point {
            frame: foot,
            offset: Vec3::new(0.05, 0.0, 0.0),
        },
    ];
    assert_eq!(
        new(sole_and_point, &all, &q, &mut ws),
        Err(StanceError::RedundantContacts { rank: 6, rows: 9 })
    );
    let soles = robot
        .contacts
        .iter()
        .map(|c| StanceContact::Rigid { frame: c.frame() })
        .collect();
    assert_eq!(
        new(soles, &all, &q, &mut ws),
        Err(StanceError::TooManyConstraints { rows: 24, nv: 18 })
    );
    assert_eq!(
        new(
            vec![StanceContact::Rigid { frame: 9999 }],
            &all,
            &q,
            &mut ws
        ),
        Err(StanceError::UnknownFrame {
            contact: 0,
            frame: 9999,
            frames: model.frames.len()
        })
    );
    let mut fixed = model.clone();
    fixed.frames.push(Frame {
        name: "ground".into(),
        kind: FrameKind::Link,
        body: None,
        placement: Transform::identity(),
    });
    let ground = fixed.frames.len() - 1;
    assert_eq!(
        StanceManifold::with_dependent_speeds(
            &fixed,
            vec![StanceContact::Rigid { frame: ground }],
            &[6, 7, 8, 9, 10, 11]
        )
        .map(|_| ()),
        Err(StanceError::WorldFrame {
            contact: 0,
            name: "ground".into()
        })
    );
    assert_eq!(
        new(robot.contacts.clone(), &[6, 7, 99], &q, &mut ws),
        Err(StanceError::BadSpeedIndex { index: 99, nv: 18 })
    );
    let with = |dependent: &[usize]| {
        StanceManifold::with_dependent_speeds(model, robot.contacts.clone(), dependent).map(|_| ())
    };
    assert_eq!(
        with(&[6, 7, 8]),
        Err(StanceError::WrongDependentCount { given: 3, rows: 12 })
    );
    assert_eq!(
        with(&[6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 6]),
        Err(StanceError::DuplicateSpeed { index: 6 })
    );

    // The front-left leg stretched: its foot Jacobian over its three joints
    // has rank 2. The legs' partition no longer fits; the QR over the legs
    // finds them redundant, over every speed it takes a base speed instead.
    let mut stretched = q.clone();
    let knee = model.body_by_joint_name("FL_KFE").unwrap();
    let hip = model.body_by_joint_name("FL_HFE").unwrap();
    stretched[model.bodies[knee].q_index] = 0.0;
    stretched[model.bodies[hip].q_index] = 0.0;
    let mut stance = built(&robot, &mut ws);
    let zero = vec![0.0; model.nv];
    assert!(stance.update(model, &mut ws, &q, &zero).is_ok());
    assert!(matches!(
        stance.update(model, &mut ws, &stretched, &zero),
        Err(StanceError::SingularDependentBlock { pivot }) if pivot < 1e-12
    ));
    assert_eq!(
        new(
            robot.contacts.clone(),
            &robot.candidates,
            &stretched,
            &mut ws
        ),
        Err(StanceError::RedundantContacts { rank: 11, rows: 12 })
    );
    let mut base_too =
        StanceManifold::new(model, &mut ws, robot.contacts.clone(), &stretched, &all).unwrap();
    assert!(base_too.dependent_speeds().iter().any(|&k| k < 6));
    base_too.update(model, &mut ws, &stretched, &zero).unwrap();
    assert!((base_too.constraint_jacobian() * base_too.basis()).amax() < 1e-12);

    let mut broken = q.clone();
    broken[7] = f64::NAN;
    assert_eq!(
        stance.update(model, &mut ws, &broken, &zero),
        Err(StanceError::NonFinite)
    );
    assert_eq!(
        new(robot.contacts.clone(), &all, &broken, &mut ws),
        Err(StanceError::NonFinite)
    );

    // Flight: no contacts, every speed independent.
    let mut flight = StanceManifold::new(model, &mut ws, Vec::new(), &q, &all).unwrap();
    let v: Vec<f64> = (0..model.nv).map(|k| (k as f64).cos()).collect();
    flight.update(model, &mut ws, &q, &v).unwrap();
    assert_eq!(flight.basis(), &DMatrix::identity(18, 18));
    assert_eq!(flight.basis_dot(), &DMatrix::zeros(18, 18));
    let (_, c_bar) = flight.reduced_dynamics(
        model,
        &mut ws,
        &q,
        &v,
        &Factorization::ChristoffelConsistent,
    );
    assert_eq!(c_bar, &ws.coriolis);
}
