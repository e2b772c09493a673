//! The generated models of `bench --scaling`: serial chains and binary
//! trees of N revolute joints below a base link, laid out like
//! ../shared/bench/models (joint axes cycling y, z, x; links 0.2 m long;
//! random but physical inertias, reproducible from the size).

use rand::{Rng, SeedableRng};
use std::fmt::Write;

/// How the bodies hang together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// Body k's parent is body k - 1 (depth N).
    Serial,
    /// Body k's parent is body k / 2 (depth about log2 N).
    Binary,
}

impl Topology {
    pub fn name(self) -> &'static str {
        match self {
            Topology::Serial => "serial",
            Topology::Binary => "binary",
        }
    }
}

/// An inertial element: mass 0.5-2 kg, centre of mass within the link,
/// principal moments 0.015-0.025 kg m^2 (any two exceed the third).
fn inertial(rng: &mut impl Rng) -> String {
    let mass = rng.random_range(0.5..2.0);
    let (x, y, z) = (
        rng.random_range(-0.05..0.05),
        rng.random_range(-0.05..0.05),
        rng.random_range(0.05..0.15),
    );
    let mut moment = || rng.random_range(0.015..0.025);
    let (ixx, iyy, izz) = (moment(), moment(), moment());
    format!(
        "<inertial><origin xyz=\"{x:.4} {y:.4} {z:.4}\" rpy=\"0 0 0\"/><mass value=\"{mass:.4}\"/>\
         <inertia ixx=\"{ixx:.5}\" ixy=\"0\" ixz=\"0\" iyy=\"{iyy:.5}\" iyz=\"0\" izz=\"{izz:.5}\"/></inertial>"
    )
}

/// The URDF of `topology` with `n` revolute joints j1..jn moving links
/// l1..ln below the link "base"; its robot name is `name`.
pub fn urdf(topology: Topology, n: usize, name: &str) -> String {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1000 + n as u64);
    let visual = "<visual><geometry><cylinder radius=\"0.03\" length=\"0.2\"/></geometry></visual>";
    let mut text = format!("<robot name=\"{name}\">\n");
    let _ = writeln!(
        text,
        "<link name=\"base\">{}{visual}</link>",
        inertial(&mut rng)
    );
    for k in 1..=n {
        let (parent, origin) = match topology {
            Topology::Serial => (
                k - 1,
                format!(
                    "xyz=\"0 0 0.2\" rpy=\"{:.3} 0 0\"",
                    rng.random_range(-0.3..0.3)
                ),
            ),
            Topology::Binary => (
                k / 2,
                format!(
                    "xyz=\"{} 0 0.2\" rpy=\"0 0 0\"",
                    if k % 2 == 0 { "0.1" } else { "-0.1" }
                ),
            ),
        };
        let parent = if parent == 0 {
            "base".to_string()
        } else {
            format!("l{parent}")
        };
        let axis = ["1 0 0", "0 1 0", "0 0 1"][k % 3];
        let _ = writeln!(
            text,
            "<link name=\"l{k}\">{}{visual}</link>",
            inertial(&mut rng)
        );
        let _ = writeln!(
            text,
            "<joint name=\"j{k}\" type=\"revolute\"><parent link=\"{parent}\"/><child link=\"l{k}\"/>\
             <origin {origin}/><axis xyz=\"{axis}\"/>\
             <limit lower=\"-3.14\" upper=\"3.14\" effort=\"100\" velocity=\"10\"/></joint>"
        );
    }
    text + "</robot>\n"
}
