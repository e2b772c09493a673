//! The cluster-tree method's per-call path allocates nothing: H_bar and
//! C_bar (K and A_k, K_dot and A_dot_k, Algorithm 1 for clusters) for each
//! body-level factorization and the Christoffel symbols, on the four-bar
//! knee leg, counted by a global allocator of this test binary (per
//! thread: tests run in parallel).

use passivity_dynamics::algorithms::{BodyFactorization, Workspace};
use passivity_dynamics::factorization::{ClosedChain, ClusterChain};
use passivity_dynamics::model::{LoopClosure, LoopKind, Model, RootJoint};
use passivity_dynamics::spatial::Vec3;
use passivity_dynamics::testing::{allocations, CountingAllocator};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn a_cluster_tree_evaluation_allocates_nothing() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/robots/closed_chains/fourbar_knee_leg.urdf"
    );
    let model = Model::from_urdf_file(path, RootJoint::Fixed).unwrap();
    let mut ws = Workspace::new(&model);
    let closures = vec![LoopClosure {
        name: "knee linkage".into(),
        frame_a: model.frame_by_name("rod_tip").unwrap(),
        frame_b: model.frame_by_name("shank_lever").unwrap(),
        kind: LoopKind::Planar { axis: Vec3::y() },
    }];
    // slider, hip_joint, knee_motor_joint.
    let independent = [0, 1, 3];
    let mut q = vec![0.0, 0.4, -0.3, -0.2, 0.0];
    ClosedChain::assemble(
        &model,
        &mut ws,
        closures.clone(),
        &mut q,
        Some(&independent),
    )
    .unwrap();
    let mut chain = ClusterChain::new(&model, &mut ws, closures, &q, &independent).unwrap();
    let v_bar = [0.3, -0.7, 0.5];
    for b in [
        BodyFactorization::ChristoffelConsistent,
        BodyFactorization::Classic,
        BodyFactorization::Alternate,
    ] {
        let n = allocations(|| {
            let (h_bar, c_bar) = chain
                .coriolis_matrix(&model, &mut ws, &q, &v_bar, b)
                .unwrap();
            assert!(h_bar[(0, 0)] > 0.0 && c_bar.amax() > 0.0);
            let gamma = chain.christoffel_symbols(&model, &mut ws, &q).unwrap();
            assert!(gamma.iter().any(|g| g.amax() > 0.0));
        });
        assert_eq!(n, 0, "{b:?}: {n} allocations per call");
    }
}
