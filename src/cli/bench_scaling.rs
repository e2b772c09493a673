//! `passivity-lab bench --scaling --out DIR`: how the cost grows. Times
//! RNEA, CRBA, ABA, C*, all Christoffel symbols and EFPA with 1 to 4 end
//! frames on generated serial chains and binary trees (`bench_models`) of
//! growing size, with a fixed and a free root, and writes the URDFs
//! (DIR/models), DIR/cost.csv and the log-log plot DIR/cost.png (.svg).
//! Calls per repetition adapt to the model (--budget seconds each), so
//! the largest models need few.

use super::bench::{check_names, link_frame, Bench, Calls};
use super::bench_models::{urdf, Topology};
use super::interrupt::{self, Interrupted};
use super::terminal::{noteln, out, outln};
use super::{load_model, LoadArgs, RootArg};
use anyhow::Context;
use passivity_lab::figures::cost_curves::draw_cost_curves;
use passivity_lab::figures::cost_table::{slope_table, to_csv, CostRow};
use passivity_lab::model::Model;
use passivity_lab::plot::figure::write_figure;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ScalingArgs {
    /// Time the algorithms on generated serial chains and binary trees of
    /// growing size (fixed and free root); writes models/*.urdf, cost.csv
    /// and cost.png/.svg into --out.
    #[arg(long, requires = "out", conflicts_with_all = ["model", "iterations"])]
    pub scaling: bool,
    /// Folder for --scaling (created if missing).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Joints of the generated models with --scaling, comma-separated
    /// (1 to 512 each).
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_SIZES)]
    pub sizes: Vec<usize>,
    /// Seconds one repetition of one algorithm lasts with --scaling (at
    /// most 10).
    #[arg(long, default_value_t = DEFAULT_BUDGET)]
    pub budget: f64,
}

/// `--sizes` and `--budget` when not given.
const DEFAULT_SIZES: &str = "8,16,32,64,128,256";
const DEFAULT_BUDGET: f64 = 0.01;

impl ScalingArgs {
    /// Refuses `--out`, `--sizes` and `--budget` other than their defaults
    /// without `--scaling` (they were ignored).
    pub fn refuse_without_scaling(&self) -> anyhow::Result<()> {
        let default_sizes: Vec<usize> = DEFAULT_SIZES
            .split(',')
            .filter_map(|n| n.parse().ok())
            .collect();
        anyhow::ensure!(
            self.out.is_none() && self.sizes == default_sizes && self.budget == DEFAULT_BUDGET,
            "--out, --sizes and --budget apply to --scaling only"
        );
        Ok(())
    }
}

/// Largest `--sizes` entry: above the dynamics' usual limit
/// ([`crate::algorithms::MAX_DYNAMICS_DOF`]) for the generated models, but
/// small enough that one workspace's nv^3 Christoffel symbols fit in memory.
const MAX_SCALING_JOINTS: usize = 512;

/// What `--scaling` times: the bench's names, EFPA as efpa_M (M end frames).
pub const SCALING: [&str; 9] = [
    "rnea",
    "crba",
    "aba",
    "coriolis_matrix",
    "christoffel",
    "efpa_1",
    "efpa_2",
    "efpa_3",
    "efpa_4",
];

/// Bodies on the longest path from the root to a leaf.
fn depth(model: &Model) -> usize {
    let mut d = vec![0; model.nbodies()];
    for (i, b) in model.bodies.iter().enumerate() {
        d[i] = 1 + b.parent.map_or(0, |p| d[p]);
    }
    d.into_iter().max().unwrap_or(0)
}

/// `m` end frames: the link frames of the leaves, then of the other
/// bodies from the last one back (a chain has one leaf).
fn end_frames(model: &Model, m: usize) -> Vec<usize> {
    let is_leaf = |i: usize| !model.bodies.iter().any(|b| b.parent == Some(i));
    let n = model.nbodies();
    let leaves = (0..n).filter(|&i| is_leaf(i));
    let others = (0..n).rev().filter(|&i| !is_leaf(i));
    leaves
        .chain(others)
        .filter_map(|i| link_frame(model, i))
        .take(m)
        .collect()
}

/// Writes the URDF of one generated model and returns its path.
fn write_model(dir: &Path, topology: Topology, n: usize) -> anyhow::Result<PathBuf> {
    let name = format!("{}{n}", topology.name());
    let path = dir.join(format!("{name}.urdf"));
    std::fs::write(&path, urdf(topology, n, &name))
        .with_context(|| format!("{}: cannot write the model", path.display()))?;
    Ok(path)
}

pub fn run(args: &ScalingArgs, only: &[String]) -> anyhow::Result<()> {
    let Some(out) = &args.out else {
        anyhow::bail!("--scaling needs --out DIR");
    };
    check_names(only, &SCALING)?;
    anyhow::ensure!(
        args.budget > 0.0 && args.budget <= 10.0,
        "--budget {}: must be in (0, 10] seconds",
        args.budget
    );
    if let Some(n) = args
        .sizes
        .iter()
        .find(|n| **n == 0 || **n > MAX_SCALING_JOINTS)
    {
        anyhow::bail!(
            "--sizes: {n} joints, must be 1 to {MAX_SCALING_JOINTS} (the workspace holds \
             8 nv^3 bytes of Christoffel symbols: 1.1 GB at 512 joints, 8.7 GB at 1024)"
        );
    }
    let models = out.join("models");
    passivity_lab::io::create_output_folder(out).map_err(|e| anyhow::anyhow!("--out {e}"))?;
    std::fs::create_dir_all(&models)
        .with_context(|| format!("--out {}: cannot create the folder", out.display()))?;
    let names: Vec<&str> = SCALING
        .iter()
        .copied()
        .filter(|a| only.is_empty() || only.iter().any(|o| o == a))
        .collect();
    interrupt::install()?;
    noteln!(
        "timing {} algorithms on {} models ({} sizes, serial chains and binary trees, fixed and free root) into {}, a line each as it goes; Ctrl-C keeps what was measured",
        names.len(),
        4 * args.sizes.len(),
        args.sizes.len(),
        out.display()
    );
    let mut rows = Vec::new();
    'sizes: for topology in [Topology::Serial, Topology::Binary] {
        for &n in &args.sizes {
            let path = write_model(&models, topology, n)?;
            for root in [RootArg::Fixed, RootArg::Free] {
                let load = LoadArgs {
                    root,
                    ..LoadArgs::default()
                };
                let model = load_model(&path, load)?;
                let (bodies, nv, depth) = (model.nbodies(), model.nv, depth(&model));
                let mut bench = Bench::new(model, Vec::new())?;
                let root_name = if matches!(root, RootArg::Free) {
                    "free"
                } else {
                    "fixed"
                };
                for &name in &names {
                    // A Ctrl-C keeps the rows measured so far (a timing
                    // lasts at most a few --budget).
                    if interrupt::requested() {
                        break 'sizes;
                    }
                    let us = match name.strip_prefix("efpa_") {
                        Some(m) => {
                            let frames = end_frames(bench.model(), m.parse()?);
                            bench.set_frames(frames);
                            bench.time("lambda_inv_efpa", Calls::Budget(args.budget))
                        }
                        None => bench.time(name, Calls::Budget(args.budget)),
                    };
                    let Some(us) = us else { continue };
                    outln!(
                        "{}{n} {root_name} bodies {bodies} nv {nv} depth {depth} {name} {us:.3}",
                        topology.name()
                    )?;
                    rows.push(CostRow {
                        model: format!("{}{n}", topology.name()),
                        topology: topology.name().into(),
                        root: root_name.into(),
                        bodies,
                        nv,
                        depth,
                        algorithm: name.into(),
                        us_per_call: us,
                        pinocchio_us: None,
                    });
                }
            }
        }
    }
    let csv = out.join("cost.csv");
    std::fs::write(&csv, to_csv(&rows))
        .with_context(|| format!("{}: cannot write the table", csv.display()))?;
    outln!("{}", csv.display())?;
    let paths = write_figure(out, "cost", |root| draw_cost_curves(root, &rows))
        .with_context(|| format!("--out {}: writing the figure", out.display()))?;
    for p in paths {
        outln!("{}", p.display())?;
    }
    out!("{}", slope_table(&rows))?;
    if interrupt::requested() {
        return Err(Interrupted(format!(
            "interrupted: wrote the {} timings measured before it to {}",
            rows.len(),
            csv.display()
        ))
        .into());
    }
    Ok(())
}
