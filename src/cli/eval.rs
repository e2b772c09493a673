//! `passivity-lab eval`: this project's values for the states of a file in
//! the reference-data format.

use super::terminal::noteln;
use super::{load_model, LoadArgs};
use anyhow::Context;
use passivity_lab::eval::{evaluate_stream, mimic_requested, EvalError};
use passivity_lab::factorization::{Beta, Factorization};
use passivity_lab::input::{open, InputKind};
use passivity_lab::io::{regular_file_target, same_file, write_atomically_with};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Robot description.
    #[arg(long)]
    urdf: PathBuf,
    #[command(flatten)]
    load: LoadArgs,
    /// Input states (reference-data format: joint_names, samples with q, v, a, v_r, a_r, frames).
    #[arg(long)]
    input: PathBuf,
    /// Output file (same structure, this project's values).
    #[arg(long)]
    output: PathBuf,
    /// Coriolis factorization for coriolis_matrix, coriolis_force,
    /// christoffel_first_kind and tau_slotine_li: christoffel (C*), classic,
    /// alternate, or torsion (C* + beta on every index triple i < j < k).
    #[arg(long, value_enum, default_value_t = FactorizationName::Christoffel)]
    factorization: FactorizationName,
    /// Torsion strength beta, with --factorization torsion.
    #[arg(long, allow_hyphen_values = true)]
    beta: Option<f64>,
}

/// The factorizations `eval` takes by name (clap names an unknown one and
/// suggests the nearest).
#[derive(Clone, Copy, Debug, PartialEq, clap::ValueEnum)]
enum FactorizationName {
    Christoffel,
    Classic,
    Alternate,
    Torsion,
}

/// The factorization the arguments name, for an nv-DoF model.
fn factorization(args: &Args, nv: usize) -> anyhow::Result<Factorization> {
    use FactorizationName::*;
    match (args.factorization, args.beta) {
        (Torsion, Some(beta)) if beta.is_finite() => Ok(Factorization::torsion_on_all_triples(
            nv,
            Beta::constant(beta),
        )?),
        (Torsion, Some(beta)) => anyhow::bail!("--beta must be a finite number, not {beta}"),
        (Torsion, None) => {
            anyhow::bail!("--factorization torsion needs --beta (the torsion strength)")
        }
        (Christoffel, None) => Ok(Factorization::ChristoffelConsistent),
        (Classic, None) => Ok(Factorization::Classic),
        (Alternate, None) => Ok(Factorization::Alternate),
        (name, Some(_)) => {
            let name = clap::ValueEnum::to_possible_value(&name).map(|v| v.get_name().to_string());
            anyhow::bail!(
                "--beta only applies to --factorization torsion, not '{}'",
                name.unwrap_or_default()
            )
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
    let mut load = args.load;
    load.mimic |= mimic_requested(open(&args.input, InputKind::EvalStates)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.input.display()))?;
    let mut model = load_model(&args.urdf, load)?;
    let factorization = factorization(&args, model.nv)?;
    let input = open(&args.input, InputKind::EvalStates)?;
    let n = write_atomically_with(&args.output, |out| {
        evaluate_stream(&mut model, input, out, &factorization)
    })
    .map_err(|e| {
        // Name the file the problem is in.
        let file = match e {
            EvalError::Write(_) => &args.output,
            _ => &args.input,
        };
        anyhow::anyhow!("{}: {e}", file.display())
    })?;
    noteln!(
        "wrote {} ({n} samples, nv = {})",
        args.output.display(),
        model.nv
    );
    Ok(())
}
