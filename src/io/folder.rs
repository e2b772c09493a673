//! An output folder that holds one run's results, complete or marked
//! incomplete, and never files of two runs.
//!
//! A run writes into a staging folder beside its target (same parent, so a
//! rename moves it: `.<name>.partial-<pid>`), under the target's lock
//! ([`FolderLock`]). At the end it writes `manifest.json` (every file, and
//! whether the run completed) last, then replaces the target as a whole:
//! the old folder is renamed aside (`.<name>.old-<pid>`), the staging
//! folder renamed into place, the old one deleted. A run that fails or is
//! killed leaves the previous results untouched; the next run into the same
//! folder removes its leftovers.
//!
//! A target is replaced only when it is empty or holds exactly a previous
//! run's results (the files its manifest lists), or, when forced, other
//! files too; never the file-system root, a folder holding the current
//! directory or folders of its own, and with force never the home folder
//! or a folder holding a protected path (the scenario or robot being run).

use super::lock::{FolderLock, LockError};
use super::write_atomically;
use serde_json::json;
use std::path::{Path, PathBuf};

/// The file that marks a folder as one run's results, written last.
pub const MANIFEST: &str = "manifest.json";

/// Why an output folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("{path}: {message}")]
    Refused { path: PathBuf, message: String },
    #[error("{path}: {error}")]
    Lock { path: PathBuf, error: LockError },
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl From<FolderError> for std::io::Error {
    fn from(e: FolderError) -> Self {
        std::io::Error::other(e)
    }
}

/// A run's output folder while the run writes it.
#[derive(Debug)]
pub struct RunFolder {
    /// The folder the results end up in (absolute).
    target: PathBuf,
    /// Where they are written meanwhile.
    staging: PathBuf,
    /// [`RunFolder::resume`]: the files the gathered lines came from, with
    /// how many lines each gave, in the gathered order.
    gathered_from: Vec<(PathBuf, usize)>,
    committed: bool,
    _lock: FolderLock,
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> FolderError + '_ {
    move |error| FolderError::Io {
        path: path.to_path_buf(),
        error,
    }
}

impl RunFolder {
    /// Checks `target`, locks it and creates the staging folder. `force`
    /// replaces a folder holding other files too; `protect` lists paths a
    /// forced replacement must not delete.
    pub fn create(target: &Path, force: bool, protect: &[&Path]) -> Result<RunFolder, FolderError> {
        RunFolder::open(target, force, protect, None)
    }

    /// [`RunFolder::create`] for a run that continues earlier ones into the
    /// same `target`: the complete lines of the file `lines` (one record per
    /// line) in the target and in the staging folders of earlier runs that
    /// were killed are gathered, in that order, into the new staging
    /// folder's `lines`, before those staging folders are removed.
    pub fn resume(
        target: &Path,
        force: bool,
        protect: &[&Path],
        lines: &str,
    ) -> Result<RunFolder, FolderError> {
        RunFolder::open(target, force, protect, Some(lines))
    }

    fn open(
        target: &Path,
        force: bool,
        protect: &[&Path],
        gather: Option<&str>,
    ) -> Result<RunFolder, FolderError> {
        let refuse = |message: String| FolderError::Refused {
            path: target.to_path_buf(),
            message,
        };
        let target = check_output_folder(target)?;
        let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
            return Err(refuse(
                "the file-system root cannot be an output folder".into(),
            ));
        };
        let name = name.to_string_lossy().into_owned();
        if is_mount_point(&target, parent) {
            return Err(refuse(format!(
                "is a mount point: the results are written beside the folder and renamed into place, which a mount point cannot take (the run would be lost at its end); give a folder inside it, such as {}",
                target.join(&name).display()
            )));
        }
        std::fs::create_dir_all(parent).map_err(io_error(parent))?;
        let lock = FolderLock::acquire(&parent.join(format!(".{name}.lock"))).map_err(|error| {
            FolderError::Lock {
                path: target.clone(),
                error,
            }
        })?;
        let gathered = match gather {
            Some(file) => Some((file, gather_lines(parent, &name, &target, file)?)),
            None => None,
        };
        restore_set_aside(parent, &name, &target);
        let foreign = foreign_entries(&target).map_err(io_error(&target))?;
        if !foreign.is_empty() {
            let shown = |names: &[String]| {
                let head: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
                let more = if names.len() > head.len() {
                    ", ..."
                } else {
                    ""
                };
                format!("{}{more}", head.join(", "))
            };
            let folders: Vec<String> = foreign
                .iter()
                .filter(|f| target.join(f).is_dir())
                .cloned()
                .collect();
            if !folders.is_empty() {
                return Err(refuse(format!(
                    "holds folders that are not an earlier run's results ({}): not replaced, even with --force; choose another output folder",
                    shown(&folders)
                )));
            }
            if let Some(p) = protect
                .iter()
                .filter_map(|p| p.canonicalize().ok())
                .find(|p| p.starts_with(&target))
            {
                return Err(refuse(format!(
                    "holds {}, which this run reads: not replaced, even with --force",
                    p.display()
                )));
            }
            let home = std::env::var_os("HOME").and_then(|h| PathBuf::from(h).canonicalize().ok());
            if home.as_deref() == Some(target.as_path()) {
                return Err(refuse(
                    "is the home folder: not replaced, even with --force".into(),
                ));
            }
            if !force {
                return Err(refuse(format!(
                    "holds {} that {} not an earlier run's results ({}); pass --force to replace the folder and everything in it by this run's results",
                    if foreign.len() == 1 { "1 file".to_string() } else { format!("{} files", foreign.len()) },
                    if foreign.len() == 1 { "is" } else { "are" },
                    shown(&foreign)
                )));
            }
        }
        // A folder made read-only says to keep it; the rename through its
        // parent would replace it all the same.
        if !force
            && std::fs::metadata(&target).is_ok_and(|m| m.is_dir() && m.permissions().readonly())
        {
            return Err(refuse(
                "is read-only: not replaced, as its permissions ask (the results are renamed into place through the parent folder, which a folder's own permissions do not stop); make it writable or pass --force".into(),
            ));
        }
        let staging = parent.join(format!(".{name}.partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir(&staging).map_err(io_error(&staging))?;
        let mut gathered_from = Vec::new();
        if let Some((file, (text, sources))) = gathered {
            let path = staging.join(file);
            write_atomically(&path, text.as_bytes()).map_err(io_error(&path))?;
            gathered_from = sources;
        }
        Ok(RunFolder {
            target,
            staging,
            gathered_from,
            committed: false,
            _lock: lock,
        })
    }

    /// [`RunFolder::resume`]: the files that gave gathered lines (the
    /// target's, a killed run's staging folder's), in the gathered order.
    pub fn gathered_files(&self) -> Vec<&Path> {
        (self.gathered_from.iter())
            .filter(|(_, lines)| *lines > 0)
            .map(|(path, _)| path.as_path())
            .collect()
    }

    /// Where 1-based line `line` of the gathered file came from: the file
    /// and its line there (None past the gathered lines).
    pub fn gathered_line(&self, line: usize) -> Option<(&Path, usize)> {
        let mut before = 0;
        for (path, lines) in &self.gathered_from {
            if line <= before + lines {
                return Some((path, line - before));
            }
            before += lines;
        }
        None
    }

    /// Where the run writes its files until [`RunFolder::commit`].
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// The folder the results end up in.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Writes the manifest (every file written, and whether the run
    /// `complete`d) and replaces the target folder by the staging folder.
    /// Returns the files in their final place.
    pub fn commit(mut self, complete: bool) -> Result<Vec<PathBuf>, FolderError> {
        let staging = self.staging.clone();
        let mut files: Vec<String> = std::fs::read_dir(&staging)
            .map_err(io_error(&staging))?
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|f| f != MANIFEST)
            .collect();
        files.sort();
        let manifest = json!({
            "generated_by": format!("passivity-lab {}", env!("CARGO_PKG_VERSION")),
            "complete": complete,
            "files": files,
        });
        let text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
        write_atomically(&staging.join(MANIFEST), text.as_bytes()).map_err(io_error(&staging))?;
        let old = self.staging.with_file_name(format!(
            ".{}.old-{}",
            self.target
                .file_name()
                .unwrap_or_default()
                .to_string_lossy(),
            std::process::id()
        ));
        let had_old = self.target.exists();
        if had_old {
            std::fs::rename(&self.target, &old).map_err(io_error(&self.target))?;
        }
        if let Err(error) = std::fs::rename(&staging, &self.target) {
            if had_old {
                let _ = std::fs::rename(&old, &self.target);
            }
            // The results stay where they were written, and say so.
            self.committed = true;
            return Err(FolderError::Refused {
                path: self.target.clone(),
                message: format!(
                    "the results could not be put in place ({error}); they are kept in {} (move them before the next run into this folder, which removes it)",
                    staging.display()
                ),
            });
        }
        self.committed = true;
        if had_old {
            let _ = std::fs::remove_dir_all(&old);
        }
        if let (Some(parent), Some(name)) = (self.target.parent(), self.target.file_name()) {
            remove_killed_staging(parent, &name.to_string_lossy());
        }
        files.push(MANIFEST.into());
        Ok(files.iter().map(|f| self.target.join(f)).collect())
    }
}

impl Drop for RunFolder {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Whether the folder `target` (if it exists) is on another file system
/// than `parent`: a mount point, which a rename cannot replace.
fn is_mount_point(target: &Path, parent: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(target), std::fs::metadata(parent)) {
            (Ok(t), Ok(p)) => t.is_dir() && t.dev() != p.dev(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (target, parent);
        false
    }
}

/// The check every command that writes an output folder makes of it
/// (`run`, `sweep`, `sweep merge`, `figure`, `bench --scaling`): refuses
/// the file-system root, anything but a folder, and a folder holding the
/// current directory. Returns the folder made absolute (its existing part
/// canonical, symbolic links resolved).
pub fn check_output_folder(target: &Path) -> Result<PathBuf, FolderError> {
    let refuse = |message: &str| FolderError::Refused {
        path: target.to_path_buf(),
        message: message.into(),
    };
    let absolute = absolute(target).map_err(io_error(target))?;
    if absolute.parent().is_none() || absolute.file_name().is_none() {
        return Err(refuse("the file-system root cannot be an output folder"));
    }
    match std::fs::symlink_metadata(&absolute) {
        Ok(m) if !m.is_dir() => return Err(refuse("exists and is not a folder")),
        _ => {}
    }
    if let Ok(cwd) = std::env::current_dir().and_then(|d| d.canonicalize()) {
        if cwd.starts_with(&absolute) {
            return Err(refuse(
                "holds the current directory: choose a folder of its own for the results",
            ));
        }
    }
    Ok(absolute)
}

/// [`check_output_folder`], then creates the folder if missing: for the
/// commands that write a few files into a folder instead of replacing it
/// as a whole ([`RunFolder`]). Returns the folder, absolute.
pub fn create_output_folder(target: &Path) -> Result<PathBuf, FolderError> {
    let folder = check_output_folder(target)?;
    std::fs::create_dir_all(&folder).map_err(|error| FolderError::Io {
        path: target.to_path_buf(),
        error,
    })?;
    Ok(folder)
}

/// `path` made absolute with its existing part canonical (symbolic links
/// resolved), so that the rename replaces the real folder.
fn absolute(path: &Path) -> std::io::Result<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Ok(p);
    }
    let path = std::path::absolute(path)?;
    let mut existing = path.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut out = existing.canonicalize()?;
    out.extend(rest.iter().rev());
    Ok(out)
}

/// Puts back the set-aside folder of an earlier run into `name` that died
/// between its two renames (its target missing), and removes the others
/// (the caller holds the lock, so no live run owns them).
fn restore_set_aside(parent: &Path, name: &str, target: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let old = format!(".{name}.old-");
    for entry in entries.filter_map(Result::ok) {
        if entry.file_name().to_string_lossy().starts_with(&old) {
            if target.exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            } else {
                let _ = std::fs::rename(entry.path(), target);
            }
        }
    }
}

/// Removes the staging folders of earlier runs into `name` that died: only
/// once this run's results are in place, so that a run that fails before
/// (a `--resume` refused for other arguments) keeps the rows a killed
/// sweep left there.
fn remove_killed_staging(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let partial = format!(".{name}.partial-");
    for entry in entries.filter_map(Result::ok) {
        if entry.file_name().to_string_lossy().starts_with(&partial) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The complete lines (each with its end of line) of `file` in `target`
/// and then in the staging folders of earlier runs into `name` that died.
fn gather_lines(
    parent: &Path,
    name: &str,
    target: &Path,
    file: &str,
) -> Result<(String, Vec<(PathBuf, usize)>), FolderError> {
    let partial = format!(".{name}.partial-");
    let mut folders = vec![target.to_path_buf()];
    let entries = std::fs::read_dir(parent).map_err(io_error(parent))?;
    let mut staged: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(&partial))
        .map(|e| e.path())
        .collect();
    staged.sort();
    folders.extend(staged);
    let (mut out, mut sources) = (String::new(), Vec::new());
    for folder in folders {
        let path = folder.join(file);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let complete = text.rfind('\n').map_or("", |end| &text[..=end]);
                out.push_str(complete);
                sources.push((path, complete.lines().count()));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(FolderError::Io { path, error }),
        }
    }
    Ok((out, sources))
}

/// The entries of `dir` that its manifest does not list (all of them
/// without a readable manifest); none when `dir` does not exist.
fn foreign_entries(dir: &Path) -> std::io::Result<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let listed: Vec<String> = std::fs::read_to_string(dir.join(MANIFEST))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|m| {
            m["files"].as_array().map(|f| {
                f.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .chain([MANIFEST.to_string()])
                    .collect()
            })
        })
        .unwrap_or_default();
    let mut foreign = Vec::new();
    for entry in entries {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if !listed.contains(&name) {
            foreign.push(name);
        }
    }
    foreign.sort();
    Ok(foreign)
}
