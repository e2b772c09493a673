//! Repeats one evaluation N times, for counting instructions per call
//! under callgrind (issue 33 sec. 4; docs/src/closed-chains.md, Cost):
//! `tree` is the spanning tree's C* with H and dH/dt (Echeandia & Wensing
//! (2021), Algorithm 1), `chain` the closed chain's C_bar* by the spanning
//! tree (K, A, K_dot, A_dot, Algorithm 1 and the transform of Wensing,
//! Englsberger & Slotine (2023), Thm. V.1), `cluster` the same C_bar* and
//! H_bar by the cluster tree (sec. VI-C2: K, each loop's A_k, K_dot, A_dot_k
//! and Algorithm 1 for clusters), `chain-gamma` and `cluster-gamma` the
//! Christoffel symbols Gamma_bar of the two. Instructions per call are the
//! slope between two N:
//!
//! ```text
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!   target/release/examples/closed_chain_cost chain 2000 delta
//! ```
//!
//! Mechanisms: `delta`, `knee`, `fourbar` (assets/robots/closed_chains).

use passivity_dynamics::algorithms::{
    coriolis_matrix_and_derivatives, BodyFactorization, Workspace,
};
use passivity_dynamics::factorization::{ClosedChain, ClusterChain, Factorization};
use passivity_dynamics::model::{LoopClosure, LoopKind, Model, RootJoint};
use passivity_dynamics::spatial::Vec3;
use std::hint::black_box;

/// The mechanism's tree, loops, independent speeds and a configuration
/// near its loops.
fn mechanism(name: &str) -> (Model, Vec<LoopClosure>, Vec<usize>, Vec<f64>) {
    let file = |f: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../assets/robots/closed_chains")
            .join(f);
        Model::from_urdf_file(path, RootJoint::Fixed).expect("a shipped URDF")
    };
    let frame = |m: &Model, f: &str| m.frame_by_name(f).expect("a shipped frame");
    let speed = |m: &Model, j: &str| {
        m.bodies
            .iter()
            .find(|b| b.joint_name == j)
            .expect("a shipped joint")
            .v_index
    };
    if name == "delta" {
        let model = file("delta.urdf");
        let closures = (2..=3)
            .map(|i| LoopClosure {
                name: format!("arm {i}"),
                frame_a: frame(&model, &format!("forearm_{i}_tip")),
                frame_b: frame(&model, "platform"),
                kind: LoopKind::Point,
            })
            .collect();
        let independent = (1..=3)
            .map(|i| speed(&model, &format!("arm_{i}_joint")))
            .collect();
        let q = [0.5, 0.2364, 0.0].repeat(3);
        (model, closures, independent, q)
    } else if name == "fourbar" {
        let model = file("fourbar.urdf");
        let closures = vec![LoopClosure {
            name: "cut".into(),
            frame_a: frame(&model, "coupler_tip"),
            frame_b: frame(&model, "rocker_tip"),
            kind: LoopKind::Planar { axis: Vec3::y() },
        }];
        let independent = vec![speed(&model, "crank_joint")];
        (model, closures, independent, vec![0.3, -1.0, -1.77])
    } else {
        let model = file("fourbar_knee_leg.urdf");
        let closures = vec![LoopClosure {
            name: "knee".into(),
            frame_a: frame(&model, "rod_tip"),
            frame_b: frame(&model, "shank_lever"),
            kind: LoopKind::Planar { axis: Vec3::y() },
        }];
        let mut independent: Vec<usize> = ["slider", "hip_joint", "knee_motor_joint"]
            .iter()
            .map(|j| speed(&model, j))
            .collect();
        independent.sort_unstable();
        (
            model,
            closures,
            independent,
            vec![0.0, 0.4, -0.3, -0.2, 0.0],
        )
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!(
            "usage: closed_chain_cost tree|chain|cluster|chain-gamma|cluster-gamma N delta|knee|fourbar"
        );
        std::process::exit(2);
    }
    let n: usize = args[2].parse().unwrap_or(1000);
    let (model, closures, independent, mut q) = mechanism(&args[3]);
    let mut ws = Workspace::new(&model);
    let (mut chain, _) = ClosedChain::assemble(
        &model,
        &mut ws,
        closures.clone(),
        &mut q,
        Some(&independent),
    )
    .expect("the shipped loops close");
    let mut clusters = args[1].starts_with("cluster").then(|| {
        ClusterChain::new(&model, &mut ws, closures, &q, &independent).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        })
    });
    let mut v = vec![0.0; model.nv];
    let f = Factorization::ChristoffelConsistent;
    for k in 0..n {
        let v_bar = [0.3, -0.7, 0.5].map(|x| x * (1.0 + k as f64 * 1e-6));
        let v_bar = &v_bar[..chain.mobility()];
        if args[1] == "cluster-gamma" {
            let gamma = clusters
                .as_mut()
                .map(|c| c.christoffel_symbols(&model, &mut ws, &q));
            black_box(gamma.map(|g| g.expect("a regular configuration")));
        } else if args[1] == "chain-gamma" {
            let gamma = chain.christoffel_symbols(&model, &mut ws, &q);
            black_box(gamma.expect("a regular configuration"));
        } else if let Some(clusters) = clusters.as_mut() {
            let b = BodyFactorization::ChristoffelConsistent;
            let c = clusters.coriolis_matrix(&model, &mut ws, &q, v_bar, b);
            black_box(c.expect("a regular configuration"));
        } else if args[1] == "tree" {
            chain.full_speeds(v_bar, &mut v);
            coriolis_matrix_and_derivatives(
                &model,
                &mut ws,
                &q,
                &v,
                BodyFactorization::ChristoffelConsistent,
            );
            black_box(&ws.coriolis);
        } else {
            let reduced = chain.reduced_dynamics_at(&model, &mut ws, (&q, v_bar), &mut v, &f);
            black_box(reduced.expect("a regular configuration"));
        }
    }
}
