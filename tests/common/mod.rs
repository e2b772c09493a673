//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The UR5 shipped in assets/, relative to the repository.
pub const UR5: &str = "assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf";

/// Path inside the repository.
pub fn repo_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Runs the built binary in the repository folder and waits for it.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(args)
        .current_dir(repo_path(""))
        .output()
        .expect("binary runs")
}
