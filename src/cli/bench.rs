//! `passivity-lab bench`: microseconds per call of the dynamics algorithms
//! over random states, measured like ../shared/bench/pin_bench.cpp (64
//! states, warm-up, best of 5 repetitions) for side-by-side ratios.

use super::terminal::{noteln, outln};
use super::{load_model, LoadArgs};
use passivity_lab::algorithms::{
    aba, aba_dense, check_dynamics_size, christoffel_symbols, coriolis_matrix,
    coriolis_matrix_and_derivatives, crba, crba_upper, operational_space_inverse_inertia,
    operational_space_inverse_inertia_dense, rnea, slotine_li_regressor_transpose,
    slotine_li_torque, slotine_li_torque_and_regressor_transpose, BodyFactorization,
    OperationalSpaceWorkspace, Workspace,
};
use passivity_lab::factorization::{Beta, ClusterChain, Factorization};
use passivity_lab::model::Model;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Robot description.
    #[arg(long, required_unless_present_any = ["scenario", "scaling"])]
    model: Option<PathBuf>,
    /// Time the integration steps of each variant of this scenario
    /// instead (stepping only, best of --repeats runs).
    #[arg(long, conflicts_with_all = ["model", "only", "armature", "scaling"])]
    scenario: Option<PathBuf>,
    /// With --scenario: also time the steps with recording at the record
    /// period, and the algorithms one step calls, and print the overhead.
    #[arg(long, requires = "scenario")]
    breakdown: bool,
    /// Runs per variant with --scenario (the best counts).
    #[arg(long, default_value_t = DEFAULT_REPEATS)]
    repeats: usize,
    /// With --scenario: time it even beyond the ceiling of 1e8 integration
    /// steps (all repeats counted), as `run --allow-long`.
    #[arg(long, requires = "scenario")]
    allow_long: bool,
    #[command(flatten)]
    scaling_args: super::bench_scaling::ScalingArgs,
    #[command(flatten)]
    load: LoadArgs,
    /// Print JSON instead of lines "algorithm microseconds".
    #[arg(long)]
    json: bool,
    /// Calls per repetition for the O(N) algorithms (christoffel uses fewer).
    #[arg(long, default_value_t = 20000)]
    iterations: usize,
    /// End frames for lambda_inv_*: the link frames of the first N leaf
    /// bodies (at least 1; all the model has when it has fewer).
    #[arg(long, default_value_t = 4)]
    end_frames: usize,
    /// Time only these algorithms (e.g. for a profiler); default all.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Give every speed this joint armature (kg m^2 or kg), to time its terms.
    #[arg(long)]
    armature: Option<f64>,
    /// With --loop: also time the closed chain's C_bar and Gamma_bar
    /// (closed_chain_c_bar, closed_chain_christoffel; by the cluster tree
    /// cluster_chain_c_bar, cluster_chain_christoffel) at --q projected
    /// onto the loops, with random independent speeds.
    #[command(flatten)]
    chain: super::inspect::LoopArgs,
}

/// Every algorithm `bench --model` can time, in the order it prints them.
/// "crba" is H's upper triangle (`crba_upper`), what Pinocchio's `crba`
/// fills; "crba_full" the whole symmetric H (`crba`).
pub const ALGORITHMS: [&str; 16] = [
    "rnea",
    "crba",
    "crba_full",
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
    "slotine_li_torque",
    "regressor_transpose",
    "slotine_li_torque_and_regressor",
];

const STATES: usize = 64;

/// What `--iterations` is divided by for algorithm `name` on `nv` speeds:
/// the costly ones run fewer calls, as pin_bench does (reported in the
/// JSON, for `benches/instructions_per_call.py`).
pub fn iterations_divisor(name: &str, nv: usize) -> usize {
    match name {
        "christoffel" if nv > 20 => 50,
        "christoffel" | "lambda_inv_dense" => 10,
        _ => 1,
    }
}

/// How many calls a repetition makes.
#[derive(Clone, Copy, Debug)]
pub enum Calls {
    /// This many (divided for the costly algorithms, as pin_bench does).
    Fixed(usize),
    /// As many as fill about this many seconds (at least 3).
    Budget(f64),
}

impl Calls {
    /// The fixed count divided by `div`, or the budget unchanged.
    fn fewer(self, div: usize) -> Calls {
        match self {
            Calls::Fixed(n) => Calls::Fixed(n / div),
            budget => budget,
        }
    }
}

/// A random configuration: joints uniform in [-3, 3], a random unit quaternion.
fn random_configuration(model: &Model, rng: &mut impl Rng) -> Vec<f64> {
    let mut q: Vec<f64> = (0..model.nq).map(|_| rng.random_range(-3.0..3.0)).collect();
    model.normalize_configuration(&mut q);
    q
}

/// How many repetitions [`time_us`] times, after its warm-up.
const REPETITIONS: usize = 5;

/// The warm-up calls before `iters` calls are timed: a tenth, and one.
fn warm_up_calls(iters: usize) -> usize {
    iters / 10 + 1
}

/// Every call [`time_us`] makes for a fixed count of `iters` (reported in
/// the JSON, for `benches/instructions_per_call.py`).
pub fn calls_made(iters: usize) -> usize {
    let iters = iters.max(1);
    warm_up_calls(iters) + REPETITIONS * iters
}

/// Best time per call (us) over 5 repetitions, after a warm-up of a tenth.
pub fn time_us(calls: Calls, mut f: impl FnMut(usize)) -> f64 {
    let iters = match calls {
        Calls::Fixed(n) => n.max(1),
        Calls::Budget(seconds) => {
            // Calibrate on at least 2 ms of calls.
            let (t0, mut n) = (Instant::now(), 0);
            while n < 1 || t0.elapsed().as_secs_f64() < 2e-3 {
                f(n);
                n += 1;
            }
            let per_call = t0.elapsed().as_secs_f64() / n as f64;
            ((seconds / per_call) as usize).clamp(3, 1_000_000)
        }
    };
    for i in 0..warm_up_calls(iters) {
        f(i);
    }
    (0..REPETITIONS)
        .map(|_| {
            let t0 = Instant::now();
            for i in 0..iters {
                f(i);
            }
            t0.elapsed().as_secs_f64() * 1e6 / iters as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// The link frames of the model's leaf bodies (bodies without children),
/// at most `n` (at least one).
pub fn leaf_frames(model: &Model, n: usize) -> Vec<usize> {
    (0..model.nbodies())
        .filter(|&i| !model.bodies.iter().any(|b| b.parent == Some(i)))
        .filter_map(|i| link_frame(model, i))
        .take(n)
        .collect()
}

/// The link frame of body `i` (named after it), if any.
pub fn link_frame(model: &Model, i: usize) -> Option<usize> {
    model
        .frames
        .iter()
        .position(|f| f.body == Some(i) && f.name == model.bodies[i].name)
}

/// A model, its workspaces and 64 random states, ready to time algorithms.
pub struct Bench {
    model: Model,
    ws: Workspace,
    qs: Vec<Vec<f64>>,
    vs: Vec<Vec<f64>>,
    accelerations: Vec<Vec<f64>>,
    taus: Vec<Vec<f64>>,
    frames: Vec<usize>,
    os: OperationalSpaceWorkspace,
    torsion: Option<Factorization>,
    parameter_rate: Vec<f64>,
}

impl Bench {
    /// Random states (random seed 7) for `model`, with end frames `frames` for
    /// the lambda_inv_* algorithms.
    pub fn new(model: Model, frames: Vec<usize>) -> anyhow::Result<Bench> {
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
        let (vs, accelerations, taus) = (random_vectors(), random_vectors(), random_vectors());
        let torsion = if nv >= 3 {
            Some(Factorization::torsion_on_all_triples(
                nv,
                Beta::constant(-5.0),
            )?)
        } else {
            None
        };
        Ok(Bench {
            ws: Workspace::new(&model),
            os: OperationalSpaceWorkspace::new(&model, &frames),
            parameter_rate: vec![0.0; 10 * model.nbodies()],
            model,
            qs,
            vs,
            accelerations,
            taus,
            frames,
            torsion,
        })
    }

    /// The model being timed.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The end frames of lambda_inv_*.
    pub fn frames(&self) -> &[usize] {
        &self.frames
    }

    /// Changes the end frames of lambda_inv_*.
    pub fn set_frames(&mut self, frames: Vec<usize>) {
        self.os = OperationalSpaceWorkspace::new(&self.model, &frames);
        self.frames = frames;
    }

    /// Microseconds per call of algorithm `name` (one of [`ALGORITHMS`]),
    /// or None when it does not apply (torsion on fewer than 3 speeds).
    pub fn time(&mut self, name: &str, calls: Calls) -> Option<f64> {
        let Bench {
            model: m,
            ws,
            qs,
            vs,
            accelerations: as_,
            taus,
            frames,
            os,
            torsion,
            parameter_rate,
        } = self;
        let cs = BodyFactorization::ChristoffelConsistent;
        let s = |i: usize| i % STATES;
        let calls = calls.fewer(iterations_divisor(name, m.nv));
        Some(match name {
            "rnea" => time_us(calls, |i| {
                black_box(rnea(m, ws, &qs[s(i)], &vs[s(i)], &as_[s(i)]));
            }),
            "crba" => time_us(calls, |i| {
                black_box(crba_upper(m, ws, &qs[s(i)]));
            }),
            "crba_full" => time_us(calls, |i| {
                black_box(crba(m, ws, &qs[s(i)]));
            }),
            "aba" => time_us(calls, |i| {
                black_box(aba(m, ws, &qs[s(i)], &vs[s(i)], &taus[s(i)]));
            }),
            "aba_dense" => time_us(calls, |i| {
                black_box(aba_dense(m, ws, &qs[s(i)], &vs[s(i)], &taus[s(i)]));
            }),
            "coriolis_matrix" => time_us(calls, |i| {
                black_box(coriolis_matrix(m, ws, &qs[s(i)], &vs[s(i)], cs));
            }),
            "coriolis_all" => time_us(calls, |i| {
                coriolis_matrix_and_derivatives(m, ws, &qs[s(i)], &vs[s(i)], cs);
                black_box(&ws.coriolis);
            }),
            "christoffel" => time_us(calls, |i| {
                black_box(christoffel_symbols(m, ws, &qs[s(i)]));
            }),
            "coriolis_classic" => time_us(calls, |i| {
                let b = BodyFactorization::Classic;
                black_box(coriolis_matrix(m, ws, &qs[s(i)], &vs[s(i)], b));
            }),
            "coriolis_alternate" => time_us(calls, |i| {
                let b = BodyFactorization::Alternate;
                black_box(coriolis_matrix(m, ws, &qs[s(i)], &vs[s(i)], b));
            }),
            "coriolis_torsion" => {
                let f = torsion.as_ref()?;
                time_us(calls, |i| {
                    black_box(f.coriolis_matrix(m, ws, &qs[s(i)], &vs[s(i)]));
                })
            }
            "lambda_inv_efpa" => time_us(calls, |i| {
                black_box(operational_space_inverse_inertia(m, ws, os, &qs[s(i)]));
            }),
            "lambda_inv_dense" => time_us(calls, |i| {
                black_box(operational_space_inverse_inertia_dense(
                    m,
                    ws,
                    &qs[s(i)],
                    frames,
                ));
            }),
            // H a_r + C* v_r + g with v_r, a_r from the speed and
            // acceleration samples (the Slotine-Li torque without K_D s).
            "slotine_li_torque" => time_us(calls, |i| {
                let (q, v, v_r, a_r) = (&qs[s(i)], &vs[s(i)], &taus[s(i)], &as_[s(i)]);
                black_box(slotine_li_torque(m, ws, q, v, v_r, a_r, cs));
            }),
            // Y(q, v, v_r, a_r)^T s, the adaptation law's product.
            "regressor_transpose" => time_us(calls, |i| {
                let (q, v, v_r, a_r) = (&qs[s(i)], &vs[s(i)], &taus[s(i)], &as_[s(i)]);
                let sv = &vs[s(i + 1)];
                slotine_li_regressor_transpose(m, ws, q, v, v_r, a_r, sv, cs, parameter_rate);
                black_box(&parameter_rate);
            }),
            // Both from one forward pass, as the adaptive controller calls them.
            "slotine_li_torque_and_regressor" => time_us(calls, |i| {
                let (q, v, v_r, a_r) = (&qs[s(i)], &vs[s(i)], &taus[s(i)], &as_[s(i)]);
                let sv = &vs[s(i + 1)];
                black_box(slotine_li_torque_and_regressor_transpose(
                    m,
                    ws,
                    q,
                    v,
                    v_r,
                    a_r,
                    sv,
                    cs,
                    parameter_rate,
                ));
            }),
            _ => return None,
        })
    }
}

/// Microseconds per call of the closed chain's C_bar* (K, K_dot, A, A_dot,
/// Algorithm 1 and the transform: `update_with_independent_speeds`,
/// `reduced_dynamics`) and of its Christoffel symbols, at the chain's
/// assembled configuration with 64 random independent speeds (random seed 7);
/// then the same two by the cluster tree (`ClusterChain`: H_bar and C_bar*
/// by Algorithm 1 for clusters, Gamma_bar by Algorithm 2 for clusters).
fn time_closed_chain(
    model: &Model,
    args: &super::inspect::LoopArgs,
    calls: Calls,
) -> anyhow::Result<Vec<(&'static str, f64)>> {
    let mut ws = Workspace::new(model);
    let (mut chain, _, q) = super::inspect::assemble_chain(model, &mut ws, args)?;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let v_bars: Vec<Vec<f64>> = (0..STATES)
        .map(|_| {
            (0..chain.mobility())
                .map(|_| rng.random_range(-1.0..1.0))
                .collect()
        })
        .collect();
    let mut v = vec![0.0; model.nv];
    let f = Factorization::ChristoffelConsistent;
    let mut failed = None;
    let c_bar = time_us(calls, |i| {
        let v_bar = &v_bars[i % STATES];
        if let Err(e) = chain
            .reduced_dynamics_at(model, &mut ws, (&q, v_bar), &mut v, &f)
            .map(black_box)
        {
            failed = Some(e);
        }
    });
    let christoffel = time_us(calls.fewer(10), |_| {
        if let Err(e) = chain.christoffel_symbols(model, &mut ws, &q).map(black_box) {
            failed = Some(e);
        }
    });
    if let Some(e) = failed {
        anyhow::bail!("closed chain: {e}");
    }
    let closures = chain.closures().to_vec();
    let mut clusters = ClusterChain::new(model, &mut ws, closures, &q, chain.independent_speeds())
        .map_err(|e| anyhow::anyhow!("cluster tree: {e}"))?;
    let b = BodyFactorization::ChristoffelConsistent;
    let mut failed = None;
    let cluster_c_bar = time_us(calls, |i| {
        match clusters.coriolis_matrix(model, &mut ws, &q, &v_bars[i % STATES], b) {
            Ok(hc) => {
                black_box(hc);
            }
            Err(e) => failed = Some(e),
        }
    });
    let cluster_christoffel = time_us(calls.fewer(10), |_| {
        if let Err(e) = clusters
            .christoffel_symbols(model, &mut ws, &q)
            .map(black_box)
        {
            failed = Some(e);
        }
    });
    if let Some(e) = failed {
        anyhow::bail!("cluster tree: {e}");
    }
    Ok(vec![
        ("closed_chain_c_bar", c_bar),
        ("closed_chain_christoffel", christoffel),
        ("cluster_chain_c_bar", cluster_c_bar),
        ("cluster_chain_christoffel", cluster_christoffel),
    ])
}

/// Checks that every name of `only` is one of `known`.
pub fn check_names(only: &[String], known: &[&str]) -> anyhow::Result<()> {
    for name in only {
        anyhow::ensure!(
            known.contains(&name.as_str()),
            "unknown algorithm '{name}' (known: {})",
            known.join(", ")
        );
    }
    Ok(())
}

/// The most calls per repetition `--iterations` may ask for: about a
/// minute of the slowest O(N) algorithm on the largest model (5 repetitions).
const MAX_ITERATIONS: usize = 100_000_000;

/// Runs per variant of `bench --scenario` (the best counts).
const DEFAULT_REPEATS: usize = 5;

pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        (50..=MAX_ITERATIONS).contains(&args.iterations),
        "--iterations must be from 50 (christoffel runs a fiftieth of them) to {MAX_ITERATIONS:e}"
    );
    // clap's `requires` is met by a flag's default: check here that the
    // options of one form are not given to another (they were ignored).
    anyhow::ensure!(
        args.scenario.is_some() || args.repeats == DEFAULT_REPEATS,
        "--repeats applies to --scenario only"
    );
    if !args.scaling_args.scaling {
        args.scaling_args.refuse_without_scaling()?;
    }
    if let Some(scenario) = &args.scenario {
        let (repeats, json, breakdown) = (args.repeats, args.json, args.breakdown);
        return super::bench_scenario::run(scenario, repeats, json, breakdown, args.allow_long);
    }
    if args.scaling_args.scaling {
        return super::bench_scaling::run(&args.scaling_args, &args.only);
    }
    let Some(model_path) = args.model.clone() else {
        anyhow::bail!("--model, --scenario or --scaling is needed");
    };
    let mut model = load_model(&model_path, args.load)?;
    check_dynamics_size(&model).map_err(|e| anyhow::anyhow!("{}: {e}", model_path.display()))?;
    if let Some(a) = args.armature {
        model
            .set_armature(&vec![a; model.nv])
            .map_err(|e| anyhow::anyhow!("{}: --armature: {e}", model_path.display()))?;
    }
    check_names(&args.only, &ALGORITHMS)?;
    anyhow::ensure!(args.end_frames >= 1, "--end-frames must be at least 1");
    let frames = leaf_frames(&model, args.end_frames);
    if frames.len() < args.end_frames {
        noteln!(
            "--end-frames {}: lambda_inv_* times the {} end frame(s) {} has (its leaf bodies with a link frame)",
            args.end_frames,
            frames.len(),
            model_path.display()
        );
    }
    let mut bench = Bench::new(model, frames)?;
    let mut results = Vec::new();
    for name in ALGORITHMS
        .iter()
        .filter(|a| args.only.is_empty() || args.only.iter().any(|o| o == *a))
    {
        if let Some(us) = bench.time(name, Calls::Fixed(args.iterations)) {
            results.push((*name, us));
        }
    }
    if !args.chain.loops.is_empty() {
        results.extend(time_closed_chain(
            bench.model(),
            &args.chain,
            Calls::Fixed(args.iterations),
        )?);
    }
    let (nv, end_frames) = (bench.model().nv, bench.frames().len());
    if args.json {
        let map: serde_json::Map<String, serde_json::Value> = results
            .iter()
            .map(|(k, v)| (k.to_string(), (*v).into()))
            .collect();
        let per_algorithm = |value: &dyn Fn(usize) -> usize| {
            results
                .iter()
                .filter(|(k, _)| ALGORITHMS.contains(k))
                .map(|(k, _)| (k.to_string(), value(iterations_divisor(k, nv)).into()))
                .collect::<serde_json::Map<String, serde_json::Value>>()
        };
        let divisors = per_algorithm(&|divisor| divisor);
        let calls = per_algorithm(&|divisor| calls_made(args.iterations / divisor));
        outln!(
            "{}",
            serde_json::json!({
                "model": model_path,
                "nv": nv,
                "end_frames": end_frames,
                "microseconds": map,
                "iterations_divisor": divisors,
                "calls": calls,
            })
        )?;
    } else {
        outln!(
            "model {} nv {nv} end_frames {end_frames}",
            model_path.display()
        )?;
        for (name, us) in &results {
            outln!("{name} {us:.3}")?;
        }
    }
    Ok(())
}
