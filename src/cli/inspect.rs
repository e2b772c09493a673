//! `passivity-lab inspect`: what a URDF turns into, and with `--loop`
//! the closed chain its spanning tree makes (loops, independent joints,
//! mobility, how far the configuration is from closing them); given a
//! scenario (`.toml`), the closed chain of its `[[loop_closures]]`.

use super::terminal::outln;
use super::{load_model, LoadArgs};
use anyhow::{anyhow, bail, Context};
use passivity_lab::algorithms::Workspace;
use passivity_lab::factorization::{ClosedChain, Projection};
use passivity_lab::model::{Joint, LoopClosure, LoopKind, Model};
use passivity_lab::spatial::Vec3;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Robot description, or a scenario file (.toml) with loop closures.
    urdf: PathBuf,
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    chain: LoopArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.urdf.extension().is_some_and(|e| e == "toml") {
        return scenario_chain(&args.urdf);
    }
    let model = load_model(&args.urdf, args.load)?;
    let mass: f64 = model.bodies.iter().map(|b| b.inertia.mass).sum();
    outln!(
        "{}: {} bodies, nq = {}, nv = {}, total mass {mass:.4} kg",
        model.name,
        model.nbodies(),
        model.nq,
        model.nv
    )?;
    outln!(
        "{:>4} {:>6} {:<28} {:<28} {:<10} {:>10}",
        "body",
        "parent",
        "joint",
        "link",
        "type",
        "mass"
    )?;
    for (i, b) in model.bodies.iter().enumerate() {
        let kind = match b.joint {
            Joint::Revolute { .. } => "revolute",
            Joint::Prismatic { .. } => "prismatic",
            Joint::Free => "free",
        };
        let parent = b.parent.map_or("world".to_string(), |p| p.to_string());
        outln!(
            "{i:>4} {parent:>6} {:<28} {:<28} {kind:<10} {:>10.4}",
            b.joint_name,
            b.name,
            b.inertia.mass
        )?;
    }
    if let Some(c) = model.coupling() {
        let (tree_nq, tree_nv) = c.tree_sizes();
        outln!(
            "{} mimic joints (tree nq = {tree_nq}, nv = {tree_nv}; the robot's coordinates are its independent joints):",
            c.relations.len()
        )?;
        for r in &c.relations {
            outln!(
                "  {} = {} * {} + {}",
                r.joint,
                r.multiplier,
                r.primary,
                r.offset
            )?;
        }
    }
    let names: Vec<&str> = model.frames.iter().map(|f| f.name.as_str()).collect();
    outln!("{} frames: {}", names.len(), names.join(", "))?;
    if !args.chain.loops.is_empty() {
        closed_chain(&model, &args.chain)?;
    }
    Ok(())
}

/// The closed chain of a scenario's `[[loop_closures]]`, as its run
/// resolves it (the initial state checked or projected).
fn scenario_chain(path: &std::path::Path) -> anyhow::Result<()> {
    let scenario = super::load_scenario(Some(path), false)?;
    let file = &scenario.file;
    if file.loop_closures.is_empty() {
        bail!(
            "{}: no [[loop_closures]] (give a URDF to inspect a robot)",
            path.display()
        );
    }
    let variants = scenario.variants()?;
    let Some(c) = variants.first().and_then(|v| v.closed_chain.as_ref()) else {
        bail!("{}: the scenario has no variant", path.display());
    };
    outln!("loop closures ({}):", file.loop_closures.len())?;
    for (i, l) in file.loop_closures.iter().enumerate() {
        let axis = l.axis.map_or(String::new(), |a| {
            format!(" about [{}, {}, {}]", a[0], a[1], a[2])
        });
        outln!(
            "  {}: {} = {}, {}{axis}",
            l.name.clone().unwrap_or_else(|| format!("loop{i}")),
            l.frame_a,
            l.frame_b,
            l.kind.name()
        )?;
    }
    outln!("{}", c.partition())?;
    let q: Vec<String> = variants[0]
        .simulation
        .q
        .iter()
        .map(|x| format!("{x:.6}"))
        .collect();
    outln!("initial q on the loops: [{}]", q.join(", "))?;
    Ok(())
}

/// `SPEC` of `--loop` as a closure of `model`.
fn parse_loop(model: &Model, spec: &str) -> anyhow::Result<LoopClosure> {
    let parts: Vec<&str> = spec.split(':').collect();
    let usage = || format!("--loop '{spec}': expected NAME:FRAME_A:FRAME_B:KIND[:AX,AY,AZ]");
    if parts.len() < 4 {
        bail!(usage());
    }
    let frame = |name: &str| {
        model
            .frame_by_name(name)
            .ok_or_else(|| anyhow!("--loop '{spec}': the model has no frame '{name}'"))
    };
    let axis = || -> anyhow::Result<Vec3> {
        let text = parts
            .get(4)
            .ok_or_else(|| anyhow!("{}: kind {} needs an axis", usage(), parts[3]))?;
        let v = text
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<Result<Vec<_>, _>>()
            .with_context(usage)?;
        let axis = match v[..] {
            [x, y, z] => Vec3::new(x, y, z),
            _ => bail!("{}: the axis has three components", usage()),
        };
        if !axis.iter().all(|x| x.is_finite()) || axis.norm() < 1e-9 {
            bail!("--loop '{spec}': the axis must be finite and non-zero");
        }
        Ok(axis)
    };
    let kind = match parts[3] {
        "point" if parts.len() == 4 => LoopKind::Point,
        "planar" if parts.len() == 5 => LoopKind::Planar { axis: axis()? },
        "revolute" if parts.len() == 5 => LoopKind::Revolute { axis: axis()? },
        _ => bail!("{}: KIND is point, planar:AXIS or revolute:AXIS", usage()),
    };
    Ok(LoopClosure {
        name: parts[0].to_string(),
        frame_a: frame(parts[1])?,
        frame_b: frame(parts[2])?,
        kind,
    })
}

/// The loops, independent joints and configuration of `--loop`,
/// `--independent` and `--q` (shared with `bench`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LoopArgs {
    /// A loop closure of the URDF's spanning tree, NAME:FRAME_A:FRAME_B:KIND
    /// with KIND point, or planar:AX,AY,AZ or revolute:AX,AY,AZ (the cut
    /// joint's axis in frame A's axes); repeatable.
    #[arg(long = "loop", value_name = "SPEC")]
    pub loops: Vec<String>,
    /// The independent (actuated) joints of the closed chain, by name
    /// (default: chosen by column-pivoted QR of the loop Jacobian).
    #[arg(long, value_delimiter = ',', value_name = "JOINT,...")]
    pub independent: Vec<String>,
    /// The configuration the loops are checked and projected at (nq
    /// values; default: the neutral configuration).
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "Q,..."
    )]
    pub q: Vec<f64>,
}

/// The closed chain `args` declare on `model`, built at their configuration
/// projected onto the loops (returned with the projection).
pub fn assemble_chain(
    model: &Model,
    ws: &mut Workspace,
    args: &LoopArgs,
) -> anyhow::Result<(ClosedChain, Projection, Vec<f64>)> {
    let closures = args
        .loops
        .iter()
        .map(|spec| parse_loop(model, spec))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut q = if args.q.is_empty() {
        model.neutral_configuration()
    } else if args.q.len() == model.nq {
        args.q.clone()
    } else {
        bail!(
            "--q has {} values, the model has nq = {}",
            args.q.len(),
            model.nq
        );
    };
    let independent = args
        .independent
        .iter()
        .map(|name| {
            model
                .bodies
                .iter()
                .find(|b| &b.joint_name == name)
                .map(|b| b.v_index)
                .ok_or_else(|| anyhow!("--independent: the model has no joint '{name}'"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (chain, projection) = ClosedChain::assemble(
        model,
        ws,
        closures,
        &mut q,
        (!independent.is_empty()).then_some(&independent[..]),
    )
    .context("closed chain")?;
    Ok((chain, projection, q))
}

/// The closed chain's loops, independent joints and mobility at `--q`
/// projected onto the loops.
fn closed_chain(model: &Model, args: &LoopArgs) -> anyhow::Result<()> {
    let mut ws = Workspace::new(model);
    let (chain, projection, q) = assemble_chain(model, &mut ws, args)?;
    let chosen = if args.independent.is_empty() {
        "chosen by column-pivoted QR"
    } else {
        "given"
    };
    outln!("loop closures ({}):", chain.closures().len())?;
    for c in chain.closures() {
        let axis = match c.kind {
            LoopKind::Point => String::new(),
            LoopKind::Planar { axis } | LoopKind::Revolute { axis } => {
                format!(" about [{}, {}, {}]", axis.x, axis.y, axis.z)
            }
        };
        outln!(
            "  {}: {} = {}, {}{axis} ({} rows)",
            c.name,
            model.frames[c.frame_a].name,
            model.frames[c.frame_b].name,
            c.kind.name(),
            c.kind.rows()
        )?;
    }
    let joint = |s: &usize| model.bodies[model.dof_body[*s]].joint_name.clone();
    outln!(
        "mobility {} ({} speeds, {} loop rows); independent joints ({chosen}): {}; dependent: {}",
        chain.mobility(),
        model.nv,
        model.nv - chain.mobility(),
        chain
            .independent_speeds()
            .iter()
            .map(joint)
            .collect::<Vec<_>>()
            .join(", "),
        chain
            .dependent_speeds()
            .iter()
            .map(joint)
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    let values: Vec<String> = q.iter().map(|x| format!("{x:.6}")).collect();
    outln!(
        "projected onto the loops in {} Newton steps (|phi| = {:.1e}): q = [{}]",
        projection.iterations,
        projection.residual,
        values.join(", ")
    )?;
    Ok(())
}
