//! Outputs: each file is written completely or not at all, and a run's
//! output folder holds one run's results, complete or marked incomplete.

mod folder;
mod lock;

pub use folder::{FolderError, RunFolder, MANIFEST};
pub use lock::{FolderLock, LockError};

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so a reader never sees a half-written file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("output path has no file name"))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
