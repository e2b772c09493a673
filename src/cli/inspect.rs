//! `passivity-lab inspect`: what a URDF turns into.

use super::{load_model, LoadArgs};
use passivity_lab::model::Joint;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Robot description.
    urdf: PathBuf,
    #[command(flatten)]
    load: LoadArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let model = load_model(&args.urdf, args.load)?;
    let mass: f64 = model.bodies.iter().map(|b| b.inertia.mass).sum();
    println!(
        "{}: {} bodies, nq = {}, nv = {}, total mass {mass:.4} kg",
        model.name,
        model.nbodies(),
        model.nq,
        model.nv
    );
    println!(
        "{:>4} {:>6} {:<28} {:<28} {:<10} {:>10}",
        "body", "parent", "joint", "link", "type", "mass"
    );
    for (i, b) in model.bodies.iter().enumerate() {
        let kind = match b.joint {
            Joint::Revolute { .. } => "revolute",
            Joint::Prismatic { .. } => "prismatic",
            Joint::Free => "free",
        };
        let parent = b.parent.map_or("world".to_string(), |p| p.to_string());
        println!(
            "{i:>4} {parent:>6} {:<28} {:<28} {kind:<10} {:>10.4}",
            b.joint_name, b.name, b.inertia.mass
        );
    }
    if let Some(c) = model.coupling() {
        let (tree_nq, tree_nv) = c.tree_sizes();
        println!(
            "{} mimic joints (tree nq = {tree_nq}, nv = {tree_nv}; the robot's coordinates are its independent joints):",
            c.relations.len()
        );
        for r in &c.relations {
            println!(
                "  {} = {} * {} + {}",
                r.joint, r.multiplier, r.primary, r.offset
            );
        }
    }
    let names: Vec<&str> = model.frames.iter().map(|f| f.name.as_str()).collect();
    println!("{} frames: {}", names.len(), names.join(", "));
    Ok(())
}
