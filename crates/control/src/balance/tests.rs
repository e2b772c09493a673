//! Tests of the wrench distribution on Solo-12-like and Talos-like stances.

use super::wrench_distribution::tangents;
use super::*;
use nalgebra::{DMatrix, DVector, Matrix3, Vector3, Vector6};

const G: f64 = 9.81;

/// A stance: contacts relative to the CoM, mass, friction, settings.
struct Stance {
    name: &'static str,
    contacts: Vec<SupportPoint>,
    mass: f64,
    mu: f64,
    settings: DistributionSettings,
}

impl Stance {
    fn weight(&self) -> f64 {
        self.mass * G
    }
    fn gravity_wrench(&self) -> Vector6<f64> {
        Vector6::new(0.0, 0.0, self.weight(), 0.0, 0.0, 0.0)
    }
}

/// Solo-12-like: 4 feet at the corners of a 0.38 x 0.28 m rectangle, CoM
/// 0.24 m above, 2.5 kg.
fn solo() -> Stance {
    let mu = 0.6;
    let contacts = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
        .iter()
        .map(|&(sx, sy)| SupportPoint {
            position: Vector3::new(sx * 0.19, sy * 0.14, -0.24),
            normal: Vector3::z(),
            friction: mu,
        })
        .collect();
    Stance {
        name: "solo",
        contacts,
        mass: 2.5,
        mu,
        settings: DistributionSettings {
            min_normal_force: 0.2,
            ..DistributionSettings::default()
        },
    }
}

/// Talos-like: two 0.2 x 0.1 m soles 0.2 m apart (centre to centre), 8
/// corners, CoM 0.87 m above, 93 kg.
fn talos() -> Stance {
    let mu = 0.6;
    let mut contacts = Vec::new();
    for y in [0.1, -0.1] {
        contacts.extend(sole_corners(
            Vector3::new(0.0, y, -0.87),
            &Matrix3::identity(),
            0.2,
            0.1,
            mu,
        ));
    }
    Stance {
        name: "talos",
        contacts,
        mass: 93.0,
        mu,
        settings: DistributionSettings {
            min_normal_force: 5.0,
            ..DistributionSettings::default()
        },
    }
}

fn stances() -> [Stance; 2] {
    [solo(), talos()]
}

/// The constraint rows of contact c built from the pyramid's definition
/// (not normalized): (a, b) with a . f >= b.
fn pyramid_rows(c: &SupportPoint, settings: &DistributionSettings) -> Vec<(Vector3<f64>, f64)> {
    let m = settings.facets.count();
    let (t1, t2) = tangents(&c.normal);
    let mut rows = vec![(c.normal, settings.min_normal_force)];
    for l in 0..m {
        let angle = 2.0 * std::f64::consts::PI * l as f64 / m as f64;
        let d = t1 * angle.cos() + t2 * angle.sin();
        rows.push((
            c.normal * c.friction * (std::f64::consts::PI / m as f64).cos() - d,
            0.0,
        ));
    }
    rows
}

/// The largest violation (N) of the pyramid constraints.
fn pyramid_violation(stance: &Stance, forces: &[Vector3<f64>]) -> f64 {
    let mut v = 0.0_f64;
    for (c, f) in stance.contacts.iter().zip(forces) {
        for (a, b) in pyramid_rows(c, &stance.settings) {
            v = v.max((b - a.dot(f)) / a.norm());
        }
    }
    v
}

/// The largest violation (N) of f_min and the exact cones.
#[cfg(feature = "socp")]
fn cone_violation(stance: &Stance, forces: &[Vector3<f64>]) -> f64 {
    let mut v = 0.0_f64;
    for (c, f) in stance.contacts.iter().zip(forces) {
        let normal = c.normal.dot(f);
        let tangential = (f - c.normal * normal).norm();
        v = v
            .max(stance.settings.min_normal_force - normal)
            .max(tangential - c.friction * normal);
    }
    v
}

/// The grasp map as a dense matrix, from its definition.
fn grasp_map(contacts: &[SupportPoint]) -> DMatrix<f64> {
    let mut g = DMatrix::zeros(6, 3 * contacts.len());
    for (j, c) in contacts.iter().enumerate() {
        g.view_mut((0, 3 * j), (3, 3))
            .copy_from(&Matrix3::identity());
        g.view_mut((3, 3 * j), (3, 3))
            .copy_from(&c.position.cross_matrix());
    }
    g
}

/// The sum of `terms` with one rounding: Shewchuk's expansion by two-sums.
fn exact_sum(terms: &[f64]) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for &t in terms {
        let mut x = t;
        let mut kept = Vec::new();
        for &y in &partials {
            let (hi, lo) = if x.abs() < y.abs() { (y, x) } else { (x, y) };
            let sum = hi + lo;
            let error = lo - (sum - hi);
            if error != 0.0 {
                kept.push(error);
            }
            x = sum;
        }
        kept.push(x);
        partials = kept;
    }
    partials.iter().sum()
}

/// Checks the KKT conditions of the pyramid QP at `d`, independently of the
/// solver: the gradient of ||G f - w||^2_W + eps ||f||^2 is a non-negative
/// combination of the active constraints' rows, the forces are feasible,
/// and only active constraints carry multipliers.
fn check_kkt(stance: &Stance, wrench: &Vector6<f64>, d: &Distribution) {
    let s = &stance.settings;
    let k = stance.contacts.len();
    let g = grasp_map(&stance.contacts);
    let f = DVector::from_iterator(3 * k, d.forces().iter().flat_map(|f| f.iter().copied()));
    // G f - w summed without rounding error beyond the last one (the
    // slack is ~1e-10 of the terms, the regularization's gradient ~1e-10 of
    // the slack weight's).
    let slack = DVector::from_fn(6, |r, _| {
        let mut terms: Vec<f64> = vec![-wrench[r]];
        for c in 0..3 * k {
            let p = g[(r, c)] * f[c];
            terms.push(p);
            terms.push(g[(r, c)].mul_add(f[c], -p));
        }
        exact_sum(&terms)
    });
    let mut weighted = slack.clone();
    for r in 0..6 {
        weighted[r] *= if r < 3 {
            s.force_weight
        } else {
            s.moment_weight
        };
    }
    let gradient = 2.0 * g.transpose() * weighted + 2.0 * s.regularization * &f;
    let scale = stance.weight();
    // The gradient's rounding floor: the slack is known to ~1e-14 of the
    // wrench, and weighted by W (the regularization's gradient is ~1e-10 of
    // the slack weight's scale).
    let floor = 1e-13 * s.force_weight.max(s.moment_weight) * wrench.amax();
    let gradient_size = gradient.amax().max(s.regularization * scale);
    let mut largest_lambda = 0.0_f64;
    let mut residual = gradient.clone();
    for (j, c) in stance.contacts.iter().enumerate() {
        let fj = d.forces[j];
        let rows = pyramid_rows(c, s);
        let mut active = Vec::new();
        for (a, b) in &rows {
            let r = (a.dot(&fj) - b) / a.norm();
            assert!(
                r >= -1e-9 * scale,
                "{}: primal infeasible by {r}",
                stance.name
            );
            if r <= 1e-7 * scale {
                active.push(a / a.norm());
            }
        }
        if active.is_empty() {
            continue;
        }
        let a = DMatrix::from_fn(3, active.len(), |i, l| active[l][i]);
        let gj = gradient.rows(3 * j, 3).into_owned();
        let lambda = a
            .clone()
            .svd(true, true)
            .solve(&gj, 1e-12)
            .expect("least squares");
        if lambda.iter().any(|&v| v < -1e-6 * gradient_size) {
            let rs: Vec<f64> = rows
                .iter()
                .map(|(a, b)| (a.dot(&fj) - b) / a.norm())
                .collect();
            eprintln!("contact {j} f {fj:?} residuals {rs:?} lambda {lambda:?} grad {gj:?}");
        }
        for (l, &value) in lambda.iter().enumerate() {
            largest_lambda = largest_lambda.max(value.abs());
            assert!(
                value >= -1e-6 * gradient_size,
                "{}: contact {j}, active row {l}: multiplier {value} < 0",
                stance.name
            );
        }
        let combination = &a * &lambda;
        for r in 0..3 {
            residual[3 * j + r] -= combination[r];
        }
    }
    // Stationarity (inactive constraints have zero multipliers, so the
    // complementarity products are at most the activity tolerance times
    // lambda). For an unrealizable wrench the gradient is W/eps = 1e10
    // times the regularization's, which is then resolved to ~1e-6 of it.
    if residual.amax() > 1e-5 * gradient_size + floor {
        eprintln!(
            "residual {residual:?}\ngradient {gradient:?}\nforces {:?}",
            d.forces()
        );
    }
    assert!(
        residual.amax() <= 1e-5 * gradient_size + floor,
        "{}: stationarity residual {} (gradient {gradient_size}, largest multiplier {largest_lambda})",
        stance.name,
        residual.amax()
    );
}

#[test]
fn the_static_gravity_wrench_is_realized_exactly() {
    for stance in stances() {
        let w = stance.gravity_wrench();
        let mut qp = ActiveSetQp::new(stance.settings);
        let d = qp.distribute(&stance.contacts, &w).unwrap();
        assert!(d.converged);
        let fz: f64 = d.forces().iter().map(|f| f.z).sum();
        assert!(
            (fz - stance.weight()).abs() <= 1e-9 * stance.weight(),
            "{}: sum f_z = {fz}, mg = {}",
            stance.name,
            stance.weight()
        );
        assert!(d.slack.amax() <= 1e-9 * stance.weight(), "{}", stance.name);
        assert!(pyramid_violation(&stance, d.forces()) <= 1e-9 * stance.weight());
        check_kkt(&stance, &w, d);
    }
}

#[test]
fn the_centre_of_pressure_stays_inside_each_sole() {
    // Talos leaning: a moment that shifts the load forward and to one foot.
    let stance = talos();
    let w = Vector6::new(0.0, 0.0, stance.weight(), 60.0, 70.0, 0.0);
    let mut qp = ActiveSetQp::new(stance.settings);
    let d = qp.distribute(&stance.contacts, &w).unwrap();
    assert!(d.slack.amax() <= 1e-8 * stance.weight(), "{:?}", d.slack);
    for sole in 0..2 {
        let corners = &stance.contacts[4 * sole..4 * sole + 4];
        let forces = &d.forces()[4 * sole..4 * sole + 4];
        let fz: f64 = forces.iter().map(|f| f.z).sum();
        let cop: Vector3<f64> = corners
            .iter()
            .zip(forces)
            .map(|(c, f)| c.position * f.z)
            .sum::<Vector3<f64>>()
            / fz;
        let centre_y = if sole == 0 { 0.1 } else { -0.1 };
        assert!(cop.x.abs() <= 0.1 + 1e-12 && (cop.y - centre_y).abs() <= 0.05 + 1e-12);
    }
    check_kkt(&stance, &w, d);
}

#[test]
fn an_infeasible_wrench_leaves_a_slack_and_keeps_the_constraints() {
    for stance in stances() {
        let mg = stance.weight();
        // A horizontal force above mu m g.
        let push = Vector6::new(1.2 * stance.mu * mg, 0.0, mg, 0.0, 0.0, 0.0);
        // A roll moment twice what the support polygon can take.
        let reach = stance
            .contacts
            .iter()
            .map(|c| c.position.y.abs())
            .fold(0.0, f64::max);
        let tip = Vector6::new(0.0, 0.0, mg, 2.0 * reach * mg, 0.0, 0.0);
        for w in [push, tip] {
            let mut qp = ActiveSetQp::new(stance.settings);
            let d = qp.distribute(&stance.contacts, &w).unwrap();
            assert!(d.converged);
            assert!(
                d.slack.norm() >= 0.05 * mg,
                "{}: {:?}",
                stance.name,
                d.slack
            );
            assert!(pyramid_violation(&stance, d.forces()) <= 1e-9 * mg);
            assert!(d.max_violation <= 1e-9 * mg);
            check_kkt(&stance, &w, d);
        }
    }
}

#[test]
fn the_kkt_conditions_hold_on_varied_wrenches() {
    for facets in [PyramidFacets::Four, PyramidFacets::Eight] {
        for mut stance in stances() {
            stance.settings.facets = facets;
            let mg = stance.weight();
            let mut qp = ActiveSetQp::new(stance.settings);
            for i in 0..40 {
                let t = i as f64 * 0.37;
                let w = Vector6::new(
                    0.7 * stance.mu * mg * t.sin(),
                    0.5 * stance.mu * mg * (1.3 * t).cos(),
                    mg * (1.0 + 0.3 * (0.7 * t).sin()),
                    0.15 * mg * (0.9 * t).sin(),
                    0.2 * mg * (1.1 * t).cos(),
                    0.05 * mg * t.cos(),
                );
                let d = qp.distribute(&stance.contacts, &w).unwrap();
                assert!(d.converged, "{} {facets:?} wrench {i}", stance.name);
                check_kkt(&stance, &w, d);
            }
        }
    }
}

/// A stance swaying by up to 4 cm (1 ms steps) under a wrench `wrench(t)`:
/// the warm-started and a cold-started solver's results, step by step.
fn sway(
    stance: &Stance,
    wrench: impl Fn(f64) -> Vector6<f64>,
    mut compare: impl FnMut(usize, &Distribution, &Distribution),
) {
    let mut warm = ActiveSetQp::new(stance.settings);
    let mut cold = ActiveSetQp::new(stance.settings);
    for step in 0..500 {
        let t = step as f64 * 1e-3;
        let sway = Vector3::new(0.03 * (3.0 * t).sin(), 0.04 * (2.0 * t).cos(), 0.0);
        let contacts: Vec<SupportPoint> = stance
            .contacts
            .iter()
            .map(|c| SupportPoint {
                position: c.position - sway,
                ..*c
            })
            .collect();
        let w = wrench(t);
        let dw = warm.distribute(&contacts, &w).unwrap().clone();
        cold.reset();
        let dc = cold.distribute(&contacts, &w).unwrap();
        assert!(dw.converged && dc.converged);
        compare(step, &dw, dc);
    }
}

#[test]
fn a_warm_start_gives_the_cold_start_answer() {
    for stance in stances() {
        let mg = stance.weight();
        let (mut warm_iterations, mut cold_iterations) = (0, 0);
        // A realizable wrench: the unique optimum.
        let realizable = |t: f64| {
            let push = Vector3::new(0.4 * (5.0 * t).sin(), 0.3, 0.0) * (stance.mu * mg);
            ground_push(&stance, push)
                + Vector6::new(0.0, 0.0, 0.0, 0.0, 0.02 * mg * (4.0 * t).sin(), 0.0)
        };
        sway(&stance, realizable, |step, warm, cold| {
            warm_iterations += warm.iterations;
            cold_iterations += cold.iterations;
            assert!(warm.slack.norm() <= 1e-8 * mg);
            for (a, b) in warm.forces().iter().zip(cold.forces()) {
                assert!(
                    (a - b).amax() <= 1e-9 * mg,
                    "{} step {step}: warm {a:?} cold {b:?}",
                    stance.name
                );
            }
        });
        assert!(
            warm_iterations <= cold_iterations,
            "{}: warm {warm_iterations} iterations, cold {cold_iterations}",
            stance.name
        );
        // An unrealizable one (beyond friction, and tipping Talos): the same slack
        // and objective; the split among the forces of least slack is set by
        // the regularization, 1e-10 of the slack's weight, and resolved
        // only to that.
        let unrealizable = |t: f64| {
            Vector6::new(
                0.4 * stance.mu * mg * (5.0 * t).sin(),
                1.1 * stance.mu * mg,
                mg,
                0.0,
                0.0,
                0.0,
            )
        };
        sway(&stance, unrealizable, |step, warm, cold| {
            assert!(warm.slack.norm() >= 1e-3 * mg, "{}", stance.name);
            assert!(
                (warm.slack - cold.slack).amax() <= 1e-6 * mg
                    && (warm.objective - cold.objective).abs() <= 1e-9 * cold.objective,
                "{} step {step}: warm {:?} {}, cold {:?} {}",
                stance.name,
                warm.slack,
                warm.objective,
                cold.slack,
                cold.objective
            );
        });
    }
}

#[test]
fn bad_input_is_refused() {
    let stance = solo();
    let mut qp = ActiveSetQp::new(stance.settings);
    let w = stance.gravity_wrench();
    let nine = vec![stance.contacts[0]; 9];
    assert_eq!(
        qp.distribute(&nine, &w).unwrap_err(),
        DistributionError::ContactCount { got: 9, max: 8 }
    );
    let mut bent = stance.contacts.clone();
    bent[2].normal = Vector3::new(0.0, 0.0, 2.0);
    assert!(matches!(
        qp.distribute(&bent, &w),
        Err(DistributionError::Contact { index: 2, .. })
    ));
    let nan = Vector6::new(f64::NAN, 0.0, 0.0, 0.0, 0.0, 0.0);
    assert_eq!(
        qp.distribute(&stance.contacts, &nan).unwrap_err(),
        DistributionError::Wrench
    );
}

/// The wrench of a horizontal force `horizontal` applied at the ground
/// below the CoM plus the weight: what a stance can hold when its friction
/// allows, without tipping.
fn ground_push(stance: &Stance, horizontal: Vector3<f64>) -> Vector6<f64> {
    let height = -stance.contacts[0].position.z;
    let moment = Vector3::new(0.0, 0.0, -height).cross(&horizontal);
    Vector6::new(
        horizontal.x,
        horizontal.y,
        stance.weight(),
        moment.x,
        moment.y,
        moment.z,
    )
}

#[cfg(feature = "socp")]
mod socp {
    use super::*;

    #[test]
    fn the_socp_realizes_gravity_and_keeps_its_cones() {
        for stance in stances() {
            let mg = stance.weight();
            let mut socp = ConeSocp::new(stance.settings);
            let d = socp
                .distribute(&stance.contacts, &stance.gravity_wrench())
                .unwrap();
            assert!(d.converged);
            let fz: f64 = d.forces().iter().map(|f| f.z).sum();
            assert!(
                (fz - mg).abs() <= 1e-9 * mg,
                "{}: {fz} vs {mg}",
                stance.name
            );
            let v = cone_violation(&stance, d.forces());
            assert!(v <= 1e-9 * mg, "{}: violation {v}", stance.name);
            let reach = stance
                .contacts
                .iter()
                .map(|c| c.position.y.abs())
                .fold(0.0, f64::max);
            for w in [
                Vector6::new(1.2 * stance.mu * mg, 0.0, mg, 0.0, 0.0, 0.0),
                Vector6::new(0.0, 0.0, mg, 2.0 * reach * mg, 0.0, 0.0),
            ] {
                let d = socp.distribute(&stance.contacts, &w).unwrap();
                assert!(
                    d.slack.norm() >= 0.05 * mg,
                    "{}: {:?}",
                    stance.name,
                    d.slack
                );
                let v = cone_violation(&stance, d.forces());
                assert!(v <= 1e-8 * mg, "{}: violation {v}", stance.name);
            }
        }
    }

    #[test]
    fn the_socp_and_the_qp_agree_where_the_pyramid_is_inactive() {
        for stance in stances() {
            let mg = stance.weight();
            let mut qp = ActiveSetQp::new(stance.settings);
            let mut socp = ConeSocp::new(stance.settings);
            for w in [
                stance.gravity_wrench(),
                ground_push(&stance, Vector3::new(0.2, -0.1, 0.0) * stance.mu * mg)
                    + Vector6::new(0.0, 0.0, 0.0, 0.02 * mg, -0.03 * mg, 0.01 * mg),
            ] {
                let a = qp.distribute(&stance.contacts, &w).unwrap().clone();
                let b = socp.distribute(&stance.contacts, &w).unwrap();
                assert!(a.slack.norm() <= 1e-8 * mg && b.slack.norm() <= 1e-8 * mg);
                // The pyramid is inactive at the QP's solution.
                for (c, f) in stance.contacts.iter().zip(a.forces()) {
                    for (row, _) in &pyramid_rows(c, &stance.settings)[1..] {
                        assert!(row.dot(f) > 1e-3 * mg, "{}: a facet is active", stance.name);
                    }
                }
                for (fa, fb) in a.forces().iter().zip(b.forces()) {
                    assert!(
                        (fa - fb).amax() <= 1e-6 * mg,
                        "{}: qp {fa:?} socp {fb:?}",
                        stance.name
                    );
                }
            }
        }
    }

    #[test]
    fn the_cone_does_at_least_as_well_as_the_pyramid_where_the_pyramid_binds() {
        for stance in stances() {
            let mg = stance.weight();
            let mut qp = ActiveSetQp::new(stance.settings);
            let mut socp = ConeSocp::new(stance.settings);
            // 0.95 mu m g along the diagonal: inside the cone, outside the
            // inscribed octagon (0.924 mu) and square (0.707 mu).
            let h = 0.95 * stance.mu * mg / 2f64.sqrt();
            let w = ground_push(&stance, Vector3::new(h, h, 0.0));
            let a = qp.distribute(&stance.contacts, &w).unwrap().clone();
            let b = socp.distribute(&stance.contacts, &w).unwrap();
            assert!(
                a.slack.norm() >= 1e-3 * mg,
                "{}: {:?}",
                stance.name,
                a.slack
            );
            assert!(
                b.slack.norm() <= 1e-8 * mg,
                "{}: {:?}",
                stance.name,
                b.slack
            );
            assert!(b.objective < a.objective, "{}", stance.name);
            // And never worse anywhere (to the interior point's tolerance).
            for i in 0..20 {
                let t = i as f64 * 0.5;
                let push = Vector3::new(t.sin(), t.cos(), 0.0) * (0.9 * stance.mu * mg);
                let w = ground_push(&stance, push)
                    + Vector6::new(0.0, 0.0, 0.0, 0.05 * mg * t.sin(), 0.0, 0.0);
                let a = qp.distribute(&stance.contacts, &w).unwrap().objective;
                let b = socp.distribute(&stance.contacts, &w).unwrap().objective;
                assert!(b <= a * (1.0 + 1e-6) + 1e-9, "{}: {b} > {a}", stance.name);
            }
        }
    }

    #[test]
    fn a_kept_socp_solver_gives_the_new_solvers_answer() {
        let stance = talos();
        let mg = stance.weight();
        let mut kept = ConeSocp::new(stance.settings);
        let mut fresh = ConeSocp::new(stance.settings);
        for i in 0..10 {
            let push = Vector3::new(0.05 * i as f64 * mg, 0.0, 0.0);
            let w = ground_push(&stance, push);
            let a = kept.distribute(&stance.contacts, &w).unwrap().clone();
            fresh.reset();
            let b = fresh.distribute(&stance.contacts, &w).unwrap();
            for (fa, fb) in a.forces().iter().zip(b.forces()) {
                assert!((fa - fb).amax() <= 1e-6 * mg, "{fa:?} {fb:?}");
            }
        }
    }
}

/// Solo-12 standing still at a nominal pose (knees bent) with its targets at
/// that pose: the balance law holds it in static equilibrium.
#[test]
fn solo12_standing_is_in_static_equilibrium() {
    use passivity_dynamics::algorithms::{generalized_gravity, ContactPoint as Point, Workspace};
    use passivity_dynamics::model::{Model, RootJoint};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf"
    );
    let model = Model::from_urdf_file(path, RootJoint::Free).unwrap();
    let mut q = model.neutral_configuration();
    for (leg, sign) in [(0, 1.0), (1, 1.0), (2, -1.0), (3, -1.0)] {
        q[7 + 3 * leg + 1] = 0.8 * sign;
        q[7 + 3 * leg + 2] = -1.6 * sign;
    }
    let supports = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
        .iter()
        .map(|name| Support {
            point: Point {
                frame: model.frame_by_name(name).unwrap(),
                offset: Vector3::new(0.0, 0.0, -0.0175),
            },
            normal: Vector3::z(),
            friction: 0.6,
        })
        .collect();
    let mut ws = Workspace::new(&model);
    let com = passivity_dynamics::algorithms::center_of_mass(&model, &mut ws, &q);
    let gains = BalanceGains {
        com_stiffness: Vector3::repeat(200.0),
        com_damping: Vector3::repeat(20.0),
        rotation_stiffness: Vector3::repeat(50.0),
        rotation_damping: Vector3::repeat(5.0),
        posture_stiffness: 10.0,
        posture_damping: 1.0,
    };
    let target = BalanceTarget {
        com,
        rotation: Matrix3::identity(),
        posture: q[7..].to_vec(),
    };
    let mut law = CompliantBalance::new(
        &model,
        supports,
        gains,
        target,
        DistributionSettings {
            min_normal_force: 0.5,
            ..DistributionSettings::default()
        },
    )
    .unwrap();
    let v = vec![0.0; model.nv];
    law.compute(&model, &q, &v).unwrap();
    let mg = passivity_dynamics::algorithms::total_mass(&model) * 9.81;
    let fz: f64 = law.forces.iter().map(|f| f.z).sum();
    assert!((fz - mg).abs() <= 1e-6 * mg, "sum f_z {fz}, m g {mg}");
    assert!(law.clamped.is_empty(), "clamped {:?}", law.clamped);
    // RNEA(q, 0, 0) = tau + J_c^T f, every row (the base's from the forces).
    let gravity = generalized_gravity(&model, &mut ws, &q).clone();
    let mut contacts = passivity_dynamics::algorithms::ContactWorkspace::new(
        &model,
        &law.supports().iter().map(|s| s.point).collect::<Vec<_>>(),
    );
    passivity_dynamics::algorithms::forward_kinematics(&model, &mut ws, &q);
    let jc = passivity_dynamics::algorithms::contact_jacobian(&model, &mut ws, &mut contacts);
    let f = DVector::from_iterator(12, law.forces.iter().flat_map(|f| f.iter().copied()));
    let realized = DVector::from_column_slice(&law.tau) + jc.transpose() * f;
    let error = (&gravity - &realized).amax();
    assert!(
        error <= 1e-6 * gravity.amax(),
        "RNEA - tau - J^T f = {error}, g {}",
        gravity.amax()
    );
    assert!(law.storage.slack_power == 0.0 && law.storage.kinetic == 0.0);
    assert!(law.storage.springs.abs() <= 1e-20);
}

#[test]
fn a_zero_minimum_normal_force_unloads_a_foot() {
    // f_min = 0 and a roll moment that lifts one side: the unloaded feet sit
    // at the pyramid's apex, where all its facets meet (a degenerate vertex).
    for mut stance in stances() {
        stance.settings.min_normal_force = 0.0;
        let mg = stance.weight();
        let reach = stance
            .contacts
            .iter()
            .map(|c| c.position.y.abs())
            .fold(0.0, f64::max);
        let mut qp = ActiveSetQp::new(stance.settings);
        for scale in [0.5, 0.99, 1.0, 1.5] {
            let w = Vector6::new(0.0, 0.0, mg, scale * reach * mg, 0.0, 0.0);
            let d = qp.distribute(&stance.contacts, &w).unwrap();
            assert!(d.converged, "{} {scale}", stance.name);
            assert!(pyramid_violation(&stance, d.forces()) <= 1e-9 * mg);
            let unloaded = d.forces().iter().filter(|f| f.norm() <= 1e-9 * mg).count();
            if scale >= 1.0 {
                assert!(
                    unloaded >= stance.contacts.len() / 2,
                    "{} {scale}",
                    stance.name
                );
            } else {
                assert!(d.slack.norm() <= 1e-8 * mg, "{} {scale}", stance.name);
            }
        }
    }
}
