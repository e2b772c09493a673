//! Outputs: each file is written completely or not at all, and a run's
//! output folder holds one run's results, complete or marked incomplete.

mod folder;
mod lock;

pub use folder::{check_output_folder, create_output_folder, FolderError, RunFolder, MANIFEST};
pub use lock::{FolderLock, LockError};

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so a reader never sees a half-written file. An existing
/// `path` must be a regular file (a device, folder or pipe is never
/// replaced); a symbolic link to one is written through.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |f| f.write_all(bytes))
}

/// Like [`write_atomically`], with the content written by `write` as it is
/// produced (buffered); the file appears only when `write` succeeds.
pub fn write_atomically_with<T, E: From<std::io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<T, E>,
) -> Result<T, E> {
    let path = &regular_file_target(path)?;
    let tmp = temporary_name(path)?;
    let result = (|| {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        let value = write(&mut f)?;
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(value)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes every `(path, bytes)` of `files` like [`write_atomically`], as a
/// unit: each goes to a temporary file beside its target first, and the
/// temporary files are renamed into place only when all of them were
/// written; on any failure every temporary file is removed (and, should a
/// later rename fail, the files already renamed), so the targets are all
/// replaced or none is.
pub fn write_atomically_together(files: &[(&Path, &[u8])]) -> std::io::Result<()> {
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(files.len());
    let written = (|| {
        for (path, bytes) in files {
            let target = regular_file_target(path)?;
            let tmp = temporary_name(&target)?;
            staged.push((tmp.clone(), target));
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        for (tmp, _) in &staged {
            let _ = std::fs::remove_file(tmp);
        }
        return Err(e);
    }
    for (i, (tmp, target)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, target) {
            for (tmp, _) in &staged[i..] {
                let _ = std::fs::remove_file(tmp);
            }
            for (_, done) in &staged[..i] {
                let _ = std::fs::remove_file(done);
            }
            return Err(e);
        }
    }
    Ok(())
}

/// The temporary file a write to `path` goes through: hidden, in the same
/// folder (so a rename moves it), named after the file and the process.
fn temporary_name(path: &Path) -> std::io::Result<PathBuf> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("output path has no file name"))?;
    Ok(dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    )))
}

/// The file a write to `path` replaces: `path` itself when nothing is
/// there, the regular file it names (through symbolic links), or an error
/// when it names anything else.
pub fn regular_file_target(path: &Path) -> std::io::Result<PathBuf> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => path.canonicalize(),
        Ok(_) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "exists and is not a regular file (a device, folder or pipe): not replaced",
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(path.to_path_buf()),
        Err(e) => Err(e),
    }
}

/// Whether `a` and `b` name the same existing file (through symbolic
/// links, `.` and `..`, and, on Unix, hard links).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(x), Ok(y)) => {
            use std::os::unix::fs::MetadataExt;
            x.dev() == y.dev() && x.ino() == y.ino()
        }
        #[cfg(not(unix))]
        (Ok(_), Ok(_)) => a.canonicalize().ok() == b.canonicalize().ok(),
        _ => false,
    }
}
