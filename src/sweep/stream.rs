//! A sweep's row stream, `rows.jsonl` in its output folder: one JSON
//! object per line, each the row of a run that ended (as in `sweep.json`'s
//! `runs`, with the plan's hash), appended as the run ends. A sweep that is
//! killed leaves the rows of its ended runs; `sweep --resume` reads them
//! back and runs only the others.

use super::table::SweepRow;
use crate::io::write_atomically;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The stream's file name in a sweep's output folder.
pub const ROW_STREAM: &str = "rows.jsonl";

/// Why a row stream cannot be written or read; names the file (and line).
#[derive(Debug, thiserror::Error)]
pub enum RowStreamError {
    #[error("{file}: {error}")]
    Io {
        file: PathBuf,
        error: std::io::Error,
    },
    #[error("{file}, line {line}: {message}")]
    Line {
        file: PathBuf,
        line: usize,
        message: String,
    },
}

/// The row stream a sweep appends to.
#[derive(Debug)]
pub struct RowStream {
    file: File,
    path: PathBuf,
    plan_hash: String,
}

/// The line of `row` of the plan `plan_hash`, with its end of line.
fn line(row: &SweepRow, plan_hash: &str) -> String {
    let mut json = row.to_json();
    json["plan_hash"] = plan_hash.into();
    format!("{json}\n")
}

impl RowStream {
    /// Writes `rows` (of the plan `plan_hash`) as the stream at `path`,
    /// replacing it atomically, and opens it to append the rows to come.
    pub fn start(
        path: &Path,
        plan_hash: &str,
        rows: &[SweepRow],
    ) -> Result<RowStream, RowStreamError> {
        let io = |error| RowStreamError::Io {
            file: path.to_path_buf(),
            error,
        };
        let text: String = rows.iter().map(|r| line(r, plan_hash)).collect();
        write_atomically(path, text.as_bytes()).map_err(io)?;
        let file = File::options().append(true).open(path).map_err(io)?;
        Ok(RowStream {
            file,
            path: path.to_path_buf(),
            plan_hash: plan_hash.to_string(),
        })
    }

    /// Appends `row` as one line, in one write (on the disk once the call
    /// returns, whatever becomes of the process).
    pub fn append(&self, row: &SweepRow) -> Result<(), RowStreamError> {
        (&self.file)
            .write_all(line(row, &self.plan_hash).as_bytes())
            .map_err(|error| RowStreamError::Io {
                file: self.path.clone(),
                error,
            })
    }
}

/// Reads the rows of the stream at `path` (none when it does not exist),
/// every one of the plan `plan_hash`. A last line without its end of line
/// (cut by a kill during its write) is left out; any other line that is
/// not a row of this plan is refused, naming the line.
pub fn read_rows(path: &Path, plan_hash: &str) -> Result<Vec<SweepRow>, RowStreamError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(RowStreamError::Io {
                file: path.to_path_buf(),
                error,
            })
        }
    };
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    let mut rows = Vec::new();
    for (n, text) in complete.lines().enumerate() {
        let bad = |message: String| RowStreamError::Line {
            file: path.to_path_buf(),
            line: n + 1,
            message,
        };
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        match json["plan_hash"].as_str() {
            Some(hash) if hash == plan_hash => {}
            Some(hash) => {
                return Err(bad(format!(
                    "a row of the plan {hash}, not of this sweep's plan {plan_hash}: another sweep's rows"
                )))
            }
            None => return Err(bad("a row without its 'plan_hash'".into())),
        }
        rows.push(SweepRow::from_json(&json).map_err(bad)?);
    }
    Ok(rows)
}
