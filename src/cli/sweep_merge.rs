//! `passivity-lab sweep merge DIR... --out DIR`: checks each shard's table
//! against the spec and scenario it keeps, joins the tables of one sweep's
//! shards into one table that states which runs are missing (and is then
//! marked incomplete, with a non-zero exit).

use super::terminal::noteln;
use anyhow::Context;
use passivity_lab::io::{RunFolder, MANIFEST};
use passivity_lab::sweep::{
    check_plan, merge_tables, metric_names, table_from_json, DEFAULT_METRICS,
};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The shards' output folders (or their sweep.json files).
    #[arg(required = true)]
    tables: Vec<PathBuf>,
    /// Folder of the joined table.
    #[arg(long)]
    out: PathBuf,
    /// Summary metrics to plot and add to sweep.csv, as for `sweep`.
    #[arg(long, value_delimiter = ',')]
    metric: Vec<String>,
    /// Replace the output folder even when it holds other files.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let absolute = |p: &PathBuf| std::path::absolute(p).unwrap_or_else(|_| p.clone());
    let out = absolute(&args.out);
    let mut tables = Vec::with_capacity(args.tables.len());
    for given in &args.tables {
        let file = if given.is_dir() {
            given.join("sweep.json")
        } else {
            given.clone()
        };
        let folder = absolute(&file.parent().map(PathBuf::from).unwrap_or_default());
        anyhow::ensure!(
            folder != out,
            "--out {}: is one of the tables to merge; choose another folder",
            args.out.display()
        );
        check_manifest(given, &file)?;
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("{}: cannot read the shard's table", file.display()))?;
        let json: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("{}: not JSON", file.display()))?;
        let table = table_from_json(&json, &file)?;
        for note in check_plan(&file, &table)? {
            noteln!("note: {note}");
        }
        tables.push((file.clone(), table));
    }
    let table = merge_tables(tables)?;
    let metrics: Vec<String> = if args.metric.is_empty() {
        DEFAULT_METRICS.iter().map(|m| m.to_string()).collect()
    } else {
        args.metric.clone()
    };
    if let Some(row) = table.rows.first() {
        let known = metric_names(&row.summary);
        let unknown: Vec<&String> = metrics.iter().filter(|m| !known.contains(m)).collect();
        anyhow::ensure!(
            unknown.is_empty(),
            "--metric: {unknown:?} not among the runs' summary metrics: {}",
            known.join(", ")
        );
    }
    let folder = RunFolder::create(&args.out, args.force, &[])?;
    table
        .write(folder.path(), &metrics)
        .with_context(|| format!("{}: cannot write", args.out.display()))?;
    let complete = table.complete();
    folder.commit(complete)?;
    noteln!(
        "merged {} tables: {} of {} runs finished (plan {}); wrote {}",
        args.tables.len(),
        table.finished(),
        table.runs_total,
        table.plan_hash,
        args.out.join("sweep.csv").display()
    );
    let missing = table.missing();
    anyhow::ensure!(
        missing.is_empty(),
        "incomplete: {} of {} runs missing (runs {}{}); sweep.json says \"complete\": false and lists them in \"runs_missing\"",
        missing.len(),
        table.runs_total,
        missing
            .iter()
            .take(20)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        if missing.len() > 20 { ", ..." } else { "" }
    );
    Ok(())
}

/// Refuses a table whose folder is not a sweep's output folder: one with a
/// `manifest.json` (written last, so a folder without it is not a
/// finished output) that lists the table. Errors name what was `given`: the
/// folder, or the table and its folder.
fn check_manifest(given: &Path, table: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(
        given.exists(),
        "{}: no such file or folder; not merged",
        given.display()
    );
    let folder = table
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let what = if given.is_dir() {
        folder.display().to_string()
    } else {
        format!("{}: its folder {}", table.display(), folder.display())
    };
    let manifest = folder.join(MANIFEST);
    let text = std::fs::read_to_string(&manifest).map_err(|_| {
        anyhow::anyhow!(
            "{what}: no {MANIFEST}: not the output folder of a sweep (or one whose writing did not finish); not merged"
        )
    })?;
    let name = table
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let listed = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|m| {
            m["files"]
                .as_array()
                .map(|f| f.iter().any(|x| x.as_str() == Some(name.as_str())))
        });
    match listed {
        Some(true) => Ok(()),
        Some(false) => anyhow::bail!(
            "{what}: its {MANIFEST} does not list {name}: not this sweep's table; not merged"
        ),
        None => {
            anyhow::bail!("{what}: {MANIFEST} is not a manifest (no list of files); not merged")
        }
    }
}
