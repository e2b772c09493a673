//! Subcommands of the `passivity-lab` binary.

mod bench;
mod bench_models;
mod bench_scaling;
mod bench_scenario;
mod eval;
mod figure;
mod gui;
mod inspect;
pub mod interrupt;
mod run;
mod selfcheck;
mod sweep;
mod sweep_merge;
pub mod terminal;

use clap::{Parser, Subcommand, ValueEnum};
use passivity_lab::algorithms::{check_dynamics_size, crba, Workspace};
use passivity_lab::io::RunFolder;
use passivity_lab::model::{Model, RootJoint, UrdfOptions};
use passivity_lab::scenario::Scenario;
use std::path::Path;
use terminal::noteln;

#[derive(Parser)]
#[command(
    name = "passivity-lab",
    version,
    about = "Passivity-based robot control lab: rigid-body dynamics, Coriolis factorizations, controllers"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario headless (the embedded point-mass torsion experiment
    /// if none is given).
    Run(run::Args),
    /// Open the desktop app (the default command when built with the `gui`
    /// feature and a display is available).
    Gui(gui::Args),
    /// Run a family of a scenario (a grid of keys' values, random samples) in
    /// parallel, a shard of it, or merge the shards' tables.
    Sweep(sweep::Args),
    /// Check the dynamics core against the embedded Pinocchio reference data.
    Selfcheck,
    /// Compute dynamics quantities for the states of a reference-format JSON file.
    Eval(eval::Args),
    /// Time the dynamics algorithms on a URDF (microseconds per call).
    Bench(bench::Args),
    /// Print the bodies, joints, frames and mass of a URDF model (or a
    /// scenario's closed chain).
    Inspect(inspect::Args),
    /// Draw a figure that needs no run (PNG and SVG).
    Figure(figure::Args),
}

/// How the URDF root link is attached to the world.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum RootArg {
    /// Welded to the world.
    #[default]
    Fixed,
    /// 6-DoF free joint named root_joint (unit quaternion, body-frame twist).
    Free,
}

impl From<RootArg> for RootJoint {
    fn from(r: RootArg) -> Self {
        match r {
            RootArg::Fixed => RootJoint::Fixed,
            RootArg::Free => RootJoint::Free,
        }
    }
}

/// How `inspect`, `eval` and `bench` load their URDF.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct LoadArgs {
    /// How the root link is attached.
    #[arg(long, value_enum, default_value_t = RootArg::Fixed)]
    root: RootArg,
    /// Refuse a body whose inertia is not physical, instead of replacing a
    /// negligible error by the nearest physical inertia with a warning.
    #[arg(long)]
    strict: bool,
    /// Honour the URDF's <mimic> tags (coupled joints, geared rotors): the
    /// robot's coordinates are its independent joints. `eval` also turns
    /// this on when its input file says "mimic": true.
    #[arg(long)]
    mimic: bool,
}

/// Loads a URDF with a message naming the file on failure, and reports on
/// stderr what the loader changed and a joint-space inertia that is
/// singular (`inspect`, `bench` and `eval` all load through here).
pub fn load_model(path: &Path, load: LoadArgs) -> anyhow::Result<Model> {
    let options = UrdfOptions {
        root: load.root.into(),
        strict: load.strict,
        mimic: load.mimic,
    };
    let model = Model::from_urdf_file(path, options)?;
    report_warnings(&model.warnings);
    if let Some(joints) = joints_without_inertia(&model) {
        let which = if joints.is_empty() {
            String::new()
        } else {
            format!(
                ": nothing beyond {} has mass or inertia to move",
                joints.join(", ")
            )
        };
        noteln!(
            "warning: the joint-space inertia is singular at the neutral configuration{which}; a scenario refuses this robot, and forward dynamics (ABA) divides by it"
        );
    }
    Ok(model)
}

/// When the joint-space inertia H is singular at the neutral configuration
/// (a massless moving leaf: the loader takes it, a scenario refuses it),
/// the joints whose diagonal entry of H is zero to rounding; None when H is
/// positive definite, or the model too large for the dynamics.
fn joints_without_inertia(model: &Model) -> Option<Vec<String>> {
    check_dynamics_size(model).ok()?;
    let mut ws = Workspace::new(model);
    let h = crba(model, &mut ws, &model.neutral_configuration()).clone();
    if h.clone().cholesky().is_some() {
        return None;
    }
    let scale = h.diagonal().amax();
    Some(
        (0..model.nv)
            .filter(|&k| h[(k, k)] <= 1e-12 * scale)
            .map(|k| model.bodies[model.speed_body(k)].joint_name.clone())
            .collect(),
    )
}

/// Loads a scenario (the embedded default when `path` is `None`), its robot
/// strictly if `strict` (as `robot.strict = true`), and reports what the
/// loader changed on stderr.
pub fn load_scenario(path: Option<&Path>, strict: bool) -> anyhow::Result<Scenario> {
    let mut scenario = match path {
        Some(p) => Scenario::load(p)?,
        None => Scenario::embedded_default()?,
    };
    if strict {
        scenario = scenario.with_strict_robot()?;
    }
    report_warnings(scenario.warnings());
    Ok(scenario)
}

/// Prints warnings (what the loader changed in the robot description,
/// scenario values that do nothing), one `warning:` line each, on stderr.
pub fn report_warnings(warnings: &[impl std::fmt::Display]) {
    for w in warnings {
        noteln!("warning: {w}");
    }
}

/// Locks and prepares the output folder `out` of a run of `scenario`
/// (see `io::RunFolder`); a forced replacement never deletes the scenario
/// or its URDF.
pub fn output_folder(scenario: &Scenario, out: &Path, force: bool) -> anyhow::Result<RunFolder> {
    output_folder_resuming(scenario, out, force, None)
}

/// [`output_folder`]; with `lines`, a run that continues earlier ones
/// into `out` (see `io::RunFolder::resume`): the complete lines of that
/// file in `out` and in the leftovers of killed runs into it start the
/// new one.
pub fn output_folder_resuming(
    scenario: &Scenario,
    out: &Path,
    force: bool,
    lines: Option<&str>,
) -> anyhow::Result<RunFolder> {
    let urdf = scenario.urdf_path();
    let protect: Vec<&Path> = [Some(scenario.path.as_path()), urdf.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    Ok(match lines {
        Some(lines) => RunFolder::resume(out, force, &protect, lines)?,
        None => RunFolder::create(out, force, &protect)?,
    })
}

/// Parses the command line and runs the chosen subcommand.
pub fn run() -> anyhow::Result<()> {
    let command = Cli::parse().command.unwrap_or_else(|| {
        if cfg!(feature = "gui") && gui::display_available() {
            Command::Gui(gui::Args::default())
        } else {
            if cfg!(feature = "gui") {
                noteln!("no display found: running the default scenario headless (see `passivity-lab gui --help`)");
            }
            Command::Run(run::Args::default())
        }
    });
    match command {
        Command::Run(a) => run::run(a),
        Command::Gui(a) => gui::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Selfcheck => selfcheck::run(),
        Command::Eval(a) => eval::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Figure(a) => figure::run(a),
    }
}
