//! The active-set wrench distribution allocates nothing per solve after
//! construction: cold and warm, realizable and unrealizable wrenches, four
//! and eight facets, on a four-foot and a two-sole stance; counted by a
//! global allocator of this test binary (per thread: tests run in parallel).

use nalgebra::{Matrix3, Vector3, Vector6};
use passivity_control::balance::{
    sole_corners, ActiveSetQp, DistributionSettings, PyramidFacets, SupportPoint, WrenchDistributor,
};
use passivity_dynamics::testing::{allocation_count, CountingAllocator};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn a_distribution_allocates_nothing() {
    let mu = 0.6;
    let feet: Vec<SupportPoint> = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
        .iter()
        .map(|&(sx, sy)| SupportPoint {
            position: Vector3::new(sx * 0.19, sy * 0.14, -0.24),
            normal: Vector3::z(),
            friction: mu,
        })
        .collect();
    let mut soles = Vec::new();
    for y in [0.1, -0.1] {
        soles.extend(sole_corners(
            Vector3::new(0.0, y, -0.87),
            &Matrix3::identity(),
            0.2,
            0.1,
            mu,
        ));
    }
    for (contacts, mg) in [(feet, 2.5 * 9.81), (soles, 93.0 * 9.81)] {
        for facets in [PyramidFacets::Four, PyramidFacets::Eight] {
            let mut qp = ActiveSetQp::new(DistributionSettings {
                min_normal_force: 1.0,
                facets,
                ..DistributionSettings::default()
            });
            let wrenches = [
                Vector6::new(0.0, 0.0, mg, 0.0, 0.0, 0.0),
                Vector6::new(0.2 * mg, -0.1 * mg, mg, 0.01 * mg, 0.02 * mg, 0.0),
                Vector6::new(1.2 * mu * mg, 0.0, mg, 0.3 * mg, 0.0, 0.1 * mg),
            ];
            let before = allocation_count();
            let mut total = 0.0;
            for (i, w) in wrenches.iter().cycle().take(30).enumerate() {
                if i % 7 == 0 {
                    qp.reset();
                }
                total += qp.distribute(&contacts, w).unwrap().objective;
            }
            let allocations = allocation_count() - before;
            assert!(total.is_finite());
            assert_eq!(allocations, 0, "{} contacts, {facets:?}", contacts.len());
        }
    }
}

#[test]
fn a_balance_law_step_allocates_nothing() {
    use passivity_control::balance::{BalanceGains, BalanceTarget, CompliantBalance, Support};
    use passivity_dynamics::algorithms::{center_of_mass, ContactPoint, Workspace};
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
            point: ContactPoint {
                frame: model.frame_by_name(name).unwrap(),
                offset: Vector3::new(0.0, 0.0, -0.0175),
            },
            normal: Vector3::z(),
            friction: 0.6,
        })
        .collect();
    let com = center_of_mass(&model, &mut Workspace::new(&model), &q);
    let mut law = CompliantBalance::new(
        &model,
        supports,
        BalanceGains {
            com_stiffness: Vector3::repeat(200.0),
            com_damping: Vector3::repeat(20.0),
            rotation_stiffness: Vector3::repeat(50.0),
            rotation_damping: Vector3::repeat(5.0),
            posture_stiffness: 10.0,
            posture_damping: 1.0,
        },
        BalanceTarget {
            com: com + Vector3::new(0.01, -0.005, 0.0),
            rotation: Matrix3::identity(),
            posture: q[7..].to_vec(),
        },
        DistributionSettings::default(),
    )
    .unwrap();
    let v: Vec<f64> = (0..model.nv).map(|k| 0.05 * (k as f64).sin()).collect();
    law.compute(&model, &q, &v).unwrap();
    let before = allocation_count();
    for _ in 0..10 {
        law.compute(&model, &q, &v).unwrap();
    }
    assert_eq!(allocation_count() - before, 0);
}
