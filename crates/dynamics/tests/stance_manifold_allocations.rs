//! The stance manifold's per-step path allocates nothing: `update` (J_c,
//! J_c_dot, A, A_dot) and `reduced_dynamics` (H_bar, C_bar) on Solo-12
//! standing on four point feet, for C* and beta torsion, counted by a global
//! allocator of this test binary (per thread: tests run in parallel).

use passivity_dynamics::algorithms::Workspace;
use passivity_dynamics::factorization::{Beta, Factorization, StanceContact, StanceManifold};
use passivity_dynamics::model::{Model, RootJoint};
use passivity_dynamics::spatial::Vec3;
use passivity_dynamics::testing::{allocations, CountingAllocator};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn a_stance_step_allocates_nothing() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf"
    );
    let model = Model::from_urdf_file(path, RootJoint::Free).unwrap();
    let mut ws = Workspace::new(&model);
    let contacts = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
        .iter()
        .map(|name| StanceContact::Point {
            frame: model.frame_by_name(name).unwrap(),
            offset: Vec3::new(0.0, 0.0, -0.01),
        })
        .collect();
    let mut q = model.neutral_configuration();
    q[7..].copy_from_slice(&[
        0.1, 0.8, -1.6, -0.1, 0.7, -1.5, 0.2, -0.8, 1.6, -0.1, -0.9, 1.7,
    ]);
    let legs: Vec<usize> = (6..18).collect();
    let mut stance = StanceManifold::new(&model, &mut ws, contacts, &q, &legs).unwrap();
    let v: Vec<f64> = (0..model.nv).map(|k| (0.9 * k as f64).sin()).collect();
    let torsion = Factorization::torsion_on_all_triples(model.nv, Beta::constant(0.5)).unwrap();
    let mut v_bar = vec![0.0; 6];
    for f in [Factorization::ChristoffelConsistent, torsion] {
        let n = allocations(|| {
            stance.update(&model, &mut ws, &q, &v).unwrap();
            stance.reduced_speeds(&v, &mut v_bar);
            let (h_bar, c_bar) = stance.reduced_dynamics(&model, &mut ws, &q, &v, &f);
            assert!(h_bar[(0, 0)] > 0.0 && c_bar.amax() > 0.0);
        });
        assert_eq!(n, 0, "{}: {n} allocations per step", f.name());
    }
}
