//! Which runs of a sweep one process runs: all, the K-th of N shards (for
//! job arrays: run `i` belongs to shard `i % N + 1`, so every shard gets
//! runs of every point), or a list of runs (to rerun one row).

use super::grid::SweepSpecError;

/// The runs of a plan a table is meant to hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    All,
    /// Shard `k` of `n`, 1-based: the runs `i` with `i % n == k - 1`.
    Shard {
        k: usize,
        n: usize,
    },
    /// These runs (indices into the plan's runs).
    Runs(Vec<usize>),
}

impl Selection {
    /// Parses `K/N` (1 <= K <= N).
    pub fn shard(text: &str) -> Result<Selection, SweepSpecError> {
        let error = |message: &str| SweepSpecError {
            argument: "--shard".into(),
            spec: text.into(),
            message: message.into(),
        };
        let (k, n) = text
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)))
            .ok_or_else(|| error("expected K/N, two whole numbers, e.g. 3/8"))?;
        match (k, n) {
            (_, 0) => Err(error("N must be at least 1")),
            (0, _) => Err(error("K counts from 1")),
            (k, n) if k > n => Err(error("K must be at most N")),
            (k, n) => Ok(Selection::Shard { k, n }),
        }
    }

    /// Checks the selection against a plan of `total` runs.
    pub fn check(&self, total: usize) -> Result<(), SweepSpecError> {
        match self {
            Selection::Runs(runs) => match runs.iter().find(|&&i| i >= total) {
                Some(i) => Err(SweepSpecError {
                    argument: "--run-index".into(),
                    spec: i.to_string(),
                    message: format!(
                        "out of range: the sweep has {total} runs (0 to {})",
                        total.saturating_sub(1)
                    ),
                }),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Whether run `run` is selected (for runs of the plan: as
    /// [`Self::indices`], which also drops indices beyond the plan).
    pub fn contains(&self, run: usize) -> bool {
        match self {
            Selection::All => true,
            Selection::Shard { k, n } => run % n == k - 1,
            Selection::Runs(runs) => runs.contains(&run),
        }
    }

    /// The selected runs of a plan of `total` runs, in increasing order.
    pub fn indices(&self, total: usize) -> Vec<usize> {
        match self {
            Selection::All => (0..total).collect(),
            Selection::Shard { k, n } => (k - 1..total).step_by(*n).collect(),
            Selection::Runs(runs) => {
                let mut runs: Vec<usize> = runs.iter().copied().filter(|&i| i < total).collect();
                runs.sort_unstable();
                runs.dedup();
                runs
            }
        }
    }

    /// `all`, `shard K/N` or `runs I,J,...` (as in `sweep.json`).
    pub fn describe(&self) -> String {
        match self {
            Selection::All => "all".into(),
            Selection::Shard { k, n } => format!("shard {k}/{n}"),
            Selection::Runs(runs) => format!(
                "runs {}",
                runs.iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }

    /// Reads [`Selection::describe`]'s text back.
    pub fn parse(text: &str) -> Option<Selection> {
        if text == "all" {
            return Some(Selection::All);
        }
        if let Some(shard) = text.strip_prefix("shard ") {
            return Selection::shard(shard).ok();
        }
        let runs = text.strip_prefix("runs ")?;
        runs.split(',')
            .filter(|r| !r.is_empty())
            .map(|r| r.parse().ok())
            .collect::<Option<_>>()
            .map(Selection::Runs)
    }
}
