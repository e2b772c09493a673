//! `passivity-lab eval`: this project's values for the states of a file in
//! the reference-data format.

use super::{load_model, RootArg};
use anyhow::Context;
use passivity_lab::eval::evaluate;
use passivity_lab::factorization::{Beta, Factorization};
use passivity_lab::io::{regular_file_target, same_file, write_atomically};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Robot description.
    #[arg(long)]
    urdf: PathBuf,
    /// How the root link is attached.
    #[arg(long, value_enum, default_value_t = RootArg::Fixed)]
    root: RootArg,
    /// Input states (reference-data format: joint_names, samples with q, v, a, v_r, a_r, frames).
    #[arg(long)]
    input: PathBuf,
    /// Output file (same structure, this project's values).
    #[arg(long)]
    output: PathBuf,
    /// Coriolis factorization for coriolis_matrix, coriolis_force,
    /// christoffel_first_kind and tau_slotine_li: christoffel (C*), classic,
    /// alternate, or torsion (C* + beta on every index triple i < j < k).
    #[arg(long, default_value = "christoffel")]
    factorization: String,
    /// Torsion strength beta, with --factorization torsion.
    #[arg(long, allow_hyphen_values = true)]
    beta: Option<f64>,
}

/// The factorization the arguments name, for an nv-DoF model.
fn factorization(args: &Args, nv: usize) -> anyhow::Result<Factorization> {
    match (args.factorization.as_str(), args.beta) {
        ("torsion", Some(beta)) if beta.is_finite() => Ok(Factorization::torsion_on_all_triples(
            nv,
            Beta::constant(beta),
        )?),
        ("torsion", Some(beta)) => anyhow::bail!("--beta must be a finite number, not {beta}"),
        ("torsion", None) => {
            anyhow::bail!("--factorization torsion needs --beta (the torsion strength)")
        }
        (name, None) => Ok(Factorization::from_name(name)?),
        (name, Some(_)) => {
            anyhow::bail!("--beta only applies to --factorization torsion, not '{name}'")
        }
    }
}

/// Refuses an output that would replace an input, or something other
/// than a regular file, before any work is done.
fn check_output(args: &Args) -> anyhow::Result<()> {
    let out = &args.output;
    for (flag, input) in [("--input", &args.input), ("--urdf", &args.urdf)] {
        anyhow::ensure!(
            !same_file(out, input),
            "{}: --output is the same file as {flag} {}: it would be overwritten; choose another output file",
            out.display(),
            input.display()
        );
    }
    regular_file_target(out).with_context(|| format!("{}: --output", out.display()))?;
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    check_output(&args)?;
    let mut model = load_model(&args.urdf, args.root)?;
    let factorization = factorization(&args, model.nv)?;
    let text = std::fs::read_to_string(&args.input)
        .with_context(|| format!("{}: cannot read", args.input.display()))?;
    let input: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not valid JSON", args.input.display()))?;
    let output = evaluate(&mut model, &input, &factorization)
        .with_context(|| format!("{}", args.input.display()))?;
    let bytes = serde_json::to_vec_pretty(&output)?;
    write_atomically(&args.output, &bytes)
        .with_context(|| format!("{}: cannot write", args.output.display()))?;
    let n = output["samples"].as_array().map_or(0, Vec::len);
    eprintln!(
        "wrote {} ({n} samples, nv = {})",
        args.output.display(),
        model.nv
    );
    Ok(())
}
