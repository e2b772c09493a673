//! `passivity-lab figure`: figures that need no run.

use super::terminal::{out, outln};
use anyhow::Context;
use passivity_lab::figures::connections;
use passivity_lab::figures::cost_curves::draw_cost_curves;
use passivity_lab::figures::cost_table::{from_csv, slope_table};
use passivity_lab::input::{read_text, InputKind};
use passivity_lab::io::{check_output_folder, create_output_folder};
use passivity_lab::plot::figure::write_figure;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    figure: Which,
}

#[derive(clap::Subcommand)]
enum Which {
    /// Wensing, Englsberger & Slotine (2023), Fig. 3: three orthonormal vectors parallel-transported
    /// along geodesics of connections on Euclidean R^3 (the Riemannian one,
    /// metric with torsion, non-metric with straight geodesics, metric and
    /// non-metric with curved ones); writes connections.png and .svg.
    Connections {
        /// Folder to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// The cost curves of `bench --scaling` redrawn from a cost.csv (for
    /// example with Pinocchio's times filled in by
    /// benches/cost_curves.py); writes cost.png and .svg and prints the
    /// table of fitted slopes.
    CostCurves {
        /// The table (header as `bench --scaling` writes it).
        #[arg(long)]
        csv: PathBuf,
        /// Folder to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
}

/// Checks the output folder `out` as every command that writes one does
/// (`io::check_output_folder`: never the file-system root or a folder
/// holding the current directory) and creates it if missing.
fn create_folder(out: &Path) -> anyhow::Result<PathBuf> {
    create_output_folder(out).map_err(|e| anyhow::anyhow!("--out {e}"))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.figure {
        Which::Connections { out } => {
            let folder = create_folder(&out)?;
            let figure = connections::ConnectionsFigure::default();
            let paths = write_figure(&folder, "connections", |root| figure.draw(root))
                .with_context(|| format!("--out {}: writing the figure", out.display()))?;
            print_paths(&paths)?;
            Ok(())
        }
        Which::CostCurves { csv, out } => {
            // The folder is checked before any work.
            check_output_folder(&out).map_err(|e| anyhow::anyhow!("--out {e}"))?;
            let text =
                read_text(&csv, InputKind::CostTable).map_err(|e| anyhow::anyhow!("--csv {e}"))?;
            let rows = from_csv(&text, &csv)?;
            anyhow::ensure!(!rows.is_empty(), "--csv {}: no rows", csv.display());
            let folder = create_folder(&out)?;
            let paths = write_figure(&folder, "cost", |root| draw_cost_curves(root, &rows))
                .with_context(|| format!("--out {}: writing the figure", out.display()))?;
            out!("{}", slope_table(&rows))?;
            print_paths(&paths)?;
            Ok(())
        }
    }
}

fn print_paths(paths: &[PathBuf]) -> anyhow::Result<()> {
    for p in paths {
        outln!("{}", p.display())?;
    }
    Ok(())
}
