//! Subcommands of the `passivity-lab` binary.

mod bench;
mod eval;
mod gui;
mod inspect;
pub mod interrupt;
mod run;
mod selfcheck;
mod sweep;

use clap::{Parser, Subcommand, ValueEnum};
use passivity_lab::io::RunFolder;
use passivity_lab::model::{Model, RootJoint, UrdfOptions};
use passivity_lab::scenario::Scenario;
use std::path::Path;

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
    /// Run a family of a scenario (one key over several values) in parallel.
    Sweep(sweep::Args),
    /// Check the dynamics core against the embedded Pinocchio reference data.
    Selfcheck,
    /// Compute dynamics quantities for the states of a reference-format JSON file.
    Eval(eval::Args),
    /// Time the dynamics algorithms on a URDF (microseconds per call).
    Bench(bench::Args),
    /// Print the bodies, joints, frames and mass of a URDF model.
    Inspect(inspect::Args),
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

/// Loads a URDF with a message naming the file on failure.
/// Its `<mimic>` tags are honoured when `mimic` is set.
pub fn load_model(path: &Path, root: RootArg, mimic: bool) -> anyhow::Result<Model> {
    let options = UrdfOptions {
        root: root.into(),
        mimic,
    };
    Ok(Model::from_urdf_file_with(path, options)?)
}

/// Locks and prepares the output folder `out` of a run of `scenario`
/// (see `io::RunFolder`); a forced replacement never deletes the scenario
/// or its URDF.
pub fn output_folder(scenario: &Scenario, out: &Path, force: bool) -> anyhow::Result<RunFolder> {
    let urdf = scenario.urdf_path();
    let protect: Vec<&Path> = [Some(scenario.path.as_path()), urdf.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    Ok(RunFolder::create(out, force, &protect)?)
}

/// Parses the command line and runs the chosen subcommand.
pub fn run() -> anyhow::Result<()> {
    let command = Cli::parse().command.unwrap_or_else(|| {
        if cfg!(feature = "gui") && gui::display_available() {
            Command::Gui(gui::Args::default())
        } else {
            if cfg!(feature = "gui") {
                eprintln!("no display found: running the default scenario headless (see `passivity-lab gui --help`)");
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
    }
}
