//! `passivity-lab figure`: figures that need no run.

use anyhow::Context;
use passivity_lab::figures::connections;
use passivity_lab::scenario::figure::write_figure;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    figure: Which,
}

#[derive(clap::Subcommand)]
enum Which {
    /// Seed 001 Fig. 3: three orthonormal vectors parallel-transported
    /// along geodesics of connections on Euclidean R^3 (the Riemannian one,
    /// metric with torsion, non-metric with straight geodesics, metric and
    /// non-metric with curved ones); writes connections.png and .svg.
    Connections {
        /// Folder to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.figure {
        Which::Connections { out } => {
            if out.exists() && !out.is_dir() {
                anyhow::bail!("--out {}: is not a folder", out.display());
            }
            std::fs::create_dir_all(&out)
                .with_context(|| format!("--out {}: cannot create the folder", out.display()))?;
            let figure = connections::ConnectionsFigure::default();
            let paths = write_figure(&out, "connections", |root| figure.draw(root))
                .with_context(|| format!("--out {}: writing the figure", out.display()))?;
            for p in paths {
                println!("{}", p.display());
            }
            Ok(())
        }
    }
}
