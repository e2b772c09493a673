//! An exclusive lock on an output folder, so two runs never write into the
//! same folder at once.
//!
//! The lock is an advisory `flock` on a small file beside the folder
//! (`.<name>.lock` in its parent: the folder itself is replaced as a whole,
//! so it cannot hold its own lock). The operating system releases the lock
//! when its process dies, however it dies, so a lock file left behind by a
//! killed run is never stale: the next run simply takes it. The file holds
//! the owner's process id for the message a second run gets.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Why a lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another run (process {holder}) is writing to this folder; wait for it to end or choose another output folder")]
    Busy { holder: String },
    #[error("cannot lock: {0}")]
    Io(#[from] std::io::Error),
}

/// A held lock; released (and its file removed) when dropped.
#[derive(Debug)]
pub struct FolderLock {
    path: PathBuf,
    file: File,
}

impl FolderLock {
    /// Takes the lock file `path` without waiting.
    pub fn acquire(path: &Path) -> Result<FolderLock, LockError> {
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    let mut holder = String::new();
                    let _ = file.read_to_string(&mut holder);
                    let holder = holder.trim();
                    return Err(LockError::Busy {
                        holder: if holder.is_empty() { "unknown" } else { holder }.to_string(),
                    });
                }
                Err(TryLockError::Error(e)) => return Err(e.into()),
            }
            // The holder we waited for may have removed the file it locked
            // while we opened it: the lock is ours only if it is the file
            // the path names now.
            if is_same_file(&file, path) {
                file.set_len(0)?;
                file.rewind()?;
                write!(file, "{}", std::process::id())?;
                return Ok(FolderLock {
                    path: path.to_path_buf(),
                    file,
                });
            }
        }
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Removed while still locked (see `acquire`); unlocked on close.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

#[cfg(unix)]
fn is_same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn is_same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}
