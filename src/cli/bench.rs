//! `passivity-lab bench`: microseconds per call of the dynamics algorithms
//! over random states, measured like ../shared/bench/pin_bench.cpp (64
//! states, warm-up, best of 5 repetitions) for side-by-side ratios.

use super::{load_model, LoadArgs};
use passivity_lab::algorithms::{
    aba, aba_dense, check_dynamics_size, christoffel_symbols, coriolis_matrix,
    coriolis_matrix_and_derivatives, crba, operational_space_inverse_inertia,
    operational_space_inverse_inertia_dense, rnea, BodyFactorization, OperationalSpaceWorkspace,
    Workspace,
};
use passivity_lab::factorization::{Beta, Factorization};
use passivity_lab::model::{Joint, Model};
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Robot description.
    #[arg(long, required_unless_present = "scenario")]
    model: Option<PathBuf>,
    /// Time the integration steps of each variant of this scenario
    /// instead (stepping only, best of --repeats runs).
    #[arg(long, conflicts_with_all = ["only", "armature"])]
    scenario: Option<PathBuf>,
    /// Runs per variant with --scenario (the best counts).
    #[arg(long, default_value_t = 5)]
    repeats: usize,
    #[command(flatten)]
    load: LoadArgs,
    /// Print JSON instead of lines "algorithm microseconds".
    #[arg(long)]
    json: bool,
    /// Calls per repetition for the O(N) algorithms (christoffel uses fewer).
    #[arg(long, default_value_t = 20000)]
    iterations: usize,
    /// End frames for lambda_inv_*: the link frames of the first N leaf bodies.
    #[arg(long, default_value_t = 4)]
    end_frames: usize,
    /// Time only these algorithms (e.g. for a profiler); default all.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Give every speed this joint armature (kg m^2 or kg), to time its terms.
    #[arg(long)]
    armature: Option<f64>,
}

const ALGORITHMS: [&str; 12] = [
    "rnea",
    "crba",
    "aba",
    "aba_dense",
    "coriolis_matrix",
    "coriolis_all",
    "christoffel",
    "coriolis_classic",
    "coriolis_alternate",
    "coriolis_torsion",
    "lambda_inv_efpa",
    "lambda_inv_dense",
];

const STATES: usize = 64;

/// A random configuration: joints uniform in [-3, 3], a random unit quaternion.
fn random_configuration(model: &Model, rng: &mut impl Rng) -> Vec<f64> {
    let mut q: Vec<f64> = (0..model.nq).map(|_| rng.random_range(-3.0..3.0)).collect();
    for b in &model.bodies {
        if let Joint::Free = b.joint {
            let quat = &mut q[b.q_index + 3..b.q_index + 7];
            let n = quat.iter().map(|x| x * x).sum::<f64>().sqrt();
            quat.iter_mut().for_each(|x| *x /= n);
        }
    }
    q
}

/// Best time per call over 5 repetitions of `iters` calls, after a warm-up.
fn time_us(iters: usize, mut f: impl FnMut(usize)) -> f64 {
    for i in 0..iters / 10 + 1 {
        f(i);
    }
    (0..5)
        .map(|_| {
            let t0 = Instant::now();
            for i in 0..iters {
                f(i);
            }
            t0.elapsed().as_secs_f64() * 1e6 / iters as f64
        })
        .fold(f64::INFINITY, f64::min)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.iterations >= 50,
        "--iterations must be at least 50 (christoffel runs a fiftieth of them)"
    );
    if let Some(scenario) = &args.scenario {
        return super::bench_scenario::run(scenario, args.repeats, args.json);
    }
    let Some(model_path) = args.model.clone() else {
        anyhow::bail!("--model or --scenario is needed");
    };
    let mut model = load_model(&model_path, args.load)?;
    check_dynamics_size(&model).map_err(|e| anyhow::anyhow!("{}: {e}", model_path.display()))?;
    if let Some(a) = args.armature {
        model
            .set_armature(&vec![a; model.nv])
            .map_err(|e| anyhow::anyhow!("{}: --armature: {e}", model_path.display()))?;
    }
    let mut ws = Workspace::new(&model);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let nv = model.nv;
    let qs: Vec<Vec<f64>> = (0..STATES)
        .map(|_| random_configuration(&model, &mut rng))
        .collect();
    let mut random_vectors = || -> Vec<Vec<f64>> {
        (0..STATES)
            .map(|_| (0..nv).map(|_| rng.random_range(-1.0..1.0)).collect())
            .collect()
    };
    let (vs, as_, taus) = (random_vectors(), random_vectors(), random_vectors());
    let n = args.iterations;
    let cs = BodyFactorization::ChristoffelConsistent;
    let m = &model;
    for name in &args.only {
        anyhow::ensure!(
            ALGORITHMS.contains(&name.as_str()),
            "unknown algorithm '{name}' (known: {})",
            ALGORITHMS.join(", ")
        );
    }
    // End frames: link frames of leaf bodies (bodies without children).
    let leaves: Vec<usize> = (0..model.nbodies())
        .filter(|&i| !model.bodies.iter().any(|b| b.parent == Some(i)))
        .collect();
    let frames: Vec<usize> = leaves
        .iter()
        .filter_map(|&i| {
            model
                .frames
                .iter()
                .position(|f| f.body == Some(i) && f.name == model.bodies[i].name)
        })
        .take(args.end_frames.max(1))
        .collect();
    let mut os = OperationalSpaceWorkspace::new(&model, &frames);
    let torsion = if nv >= 3 {
        Some(Factorization::torsion_on_all_triples(
            nv,
            Beta::constant(-5.0),
        )?)
    } else {
        None
    };
    let mut results = Vec::new();
    for name in ALGORITHMS
        .iter()
        .filter(|a| args.only.is_empty() || args.only.iter().any(|o| o == *a))
    {
        let s = |i: usize| i % STATES;
        let us = match *name {
            "rnea" => time_us(n, |i| {
                black_box(rnea(m, &mut ws, &qs[s(i)], &vs[s(i)], &as_[s(i)]));
            }),
            "crba" => time_us(n, |i| {
                black_box(crba(m, &mut ws, &qs[s(i)]));
            }),
            "aba" => time_us(n, |i| {
                black_box(aba(m, &mut ws, &qs[s(i)], &vs[s(i)], &taus[s(i)]));
            }),
            "aba_dense" => time_us(n, |i| {
                black_box(aba_dense(m, &mut ws, &qs[s(i)], &vs[s(i)], &taus[s(i)]));
            }),
            "coriolis_matrix" => time_us(n, |i| {
                black_box(coriolis_matrix(m, &mut ws, &qs[s(i)], &vs[s(i)], cs));
            }),
            "coriolis_all" => time_us(n, |i| {
                coriolis_matrix_and_derivatives(m, &mut ws, &qs[s(i)], &vs[s(i)], cs);
                black_box(&ws.coriolis);
            }),
            "christoffel" => time_us(n / if nv > 20 { 50 } else { 10 }, |i| {
                black_box(christoffel_symbols(m, &mut ws, &qs[s(i)]));
            }),
            "coriolis_classic" => time_us(n, |i| {
                black_box(coriolis_matrix(
                    m,
                    &mut ws,
                    &qs[s(i)],
                    &vs[s(i)],
                    BodyFactorization::Classic,
                ));
            }),
            "coriolis_alternate" => time_us(n, |i| {
                black_box(coriolis_matrix(
                    m,
                    &mut ws,
                    &qs[s(i)],
                    &vs[s(i)],
                    BodyFactorization::Alternate,
                ));
            }),
            "coriolis_torsion" => match &torsion {
                Some(f) => time_us(n, |i| {
                    black_box(f.coriolis_matrix(m, &mut ws, &qs[s(i)], &vs[s(i)]));
                }),
                None => continue,
            },
            "lambda_inv_efpa" => time_us(n, |i| {
                black_box(operational_space_inverse_inertia(
                    m,
                    &mut ws,
                    &mut os,
                    &qs[s(i)],
                ));
            }),
            _ => time_us(n / 10, |i| {
                black_box(operational_space_inverse_inertia_dense(
                    m,
                    &mut ws,
                    &qs[s(i)],
                    &frames,
                ));
            }),
        };
        results.push((*name, us));
    }
    if args.json {
        let map: serde_json::Map<String, serde_json::Value> = results
            .iter()
            .map(|(k, v)| (k.to_string(), (*v).into()))
            .collect();
        println!(
            "{}",
            serde_json::json!({"model": model_path, "nv": nv, "end_frames": frames.len(), "microseconds": map})
        );
    } else {
        println!(
            "model {} nv {nv} end_frames {}",
            model_path.display(),
            frames.len()
        );
        for (name, us) in &results {
            println!("{name} {us:.3}");
        }
    }
    Ok(())
}
