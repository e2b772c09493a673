//! Input files are read with a size limit: only regular files (never a
//! device, pipe or folder), at most a documented number of bytes per kind,
//! and XML nested no deeper than [`MAX_XML_DEPTH`] before any recursive
//! parser sees it.

pub(crate) mod xml_scan;

pub use xml_scan::{check_xml_depth, count_top_level, unclosed_element, MAX_XML_DEPTH};

use std::io::Read;
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;

/// What an input file holds; each kind has its own size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A robot description (URDF): 64 MiB, a hundred times the largest
    /// real robot description.
    Urdf,
    /// A scenario file (TOML): 1 MiB.
    Scenario,
    /// States to evaluate (reference-data JSON): 256 MiB.
    EvalStates,
    /// A mesh referenced by a URDF (STL, COLLADA, OBJ and its materials): 256 MiB.
    Mesh,
    /// A table of measured costs (`cost.csv` of `bench --scaling`): 16 MiB,
    /// a thousand times the largest the command writes.
    CostTable,
}

impl InputKind {
    /// The largest file accepted, in bytes.
    pub const fn max_bytes(self) -> u64 {
        match self {
            InputKind::Urdf => 64 * MIB,
            InputKind::Scenario => MIB,
            InputKind::EvalStates => 256 * MIB,
            InputKind::Mesh => 256 * MIB,
            InputKind::CostTable => 16 * MIB,
        }
    }

    fn what(self) -> &'static str {
        match self {
            InputKind::Urdf => "a robot description",
            InputKind::Scenario => "a scenario",
            InputKind::EvalStates => "an eval input",
            InputKind::Mesh => "a mesh",
            InputKind::CostTable => "a cost table",
        }
    }
}

/// Why an input file was not read; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read, or its text is not UTF-8.
    #[error("{file}: cannot read file: {error}")]
    Io {
        /// The file.
        file: PathBuf,
        /// The operating system's (or the UTF-8 decoder's) error.
        error: std::io::Error,
    },
    /// The path is a folder, device or pipe.
    #[error("{file}: not a regular file (a folder, device or pipe cannot be read as {what})")]
    NotRegularFile {
        /// The path.
        file: PathBuf,
        /// What the file was to be read as.
        what: &'static str,
    },
    /// The file is larger than its kind's [`InputKind::max_bytes`].
    #[error("{file}: {size} bytes or more, larger than the {limit} bytes allowed for {what}")]
    TooLarge {
        /// The file.
        file: PathBuf,
        /// What the file was read as ("a robot description", ...).
        what: &'static str,
        /// Its size in bytes (or the bytes read before stopping).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// XML elements nested deeper than [`MAX_XML_DEPTH`].
    #[error("{file}: line {line}: XML elements nested deeper than {limit} levels; refused before parsing")]
    TooDeep {
        /// The file.
        file: PathBuf,
        /// The line where the limit is passed.
        line: usize,
        /// The depth limit.
        limit: usize,
    },
}

/// `path` opened for reading, refused when it is not a regular file or is
/// larger than `kind`'s limit; reading stops one byte past the limit, so a
/// file that grows while it is read cannot hold more than the limit unseen.
///
/// # Errors
/// [`InputError::Io`] when `path` cannot be inspected or opened,
/// [`InputError::NotRegularFile`] when it is not a regular file,
/// [`InputError::TooLarge`] when it is larger than `kind`'s limit.
pub fn open(path: &Path, kind: InputKind) -> Result<std::io::Take<std::fs::File>, InputError> {
    let io = |error| InputError::Io {
        file: path.to_path_buf(),
        error,
    };
    let not_regular = || InputError::NotRegularFile {
        file: path.to_path_buf(),
        what: kind.what(),
    };
    // Checked before opening: opening a pipe for reading blocks.
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(not_regular());
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    if meta.len() > kind.max_bytes() {
        return Err(too_large(path, kind, meta.len()));
    }
    Ok(file.take(kind.max_bytes() + 1))
}

fn too_large(path: &Path, kind: InputKind, size: u64) -> InputError {
    InputError::TooLarge {
        file: path.to_path_buf(),
        what: kind.what(),
        size,
        limit: kind.max_bytes(),
    }
}

/// The bytes of `path`, with the checks of [`open`]. Memory stays bounded
/// by the limit.
///
/// # Errors
/// As [`open`]; also [`InputError::Io`] when reading fails and
/// [`InputError::TooLarge`] when the file grew past the limit while read.
pub fn read_bytes(path: &Path, kind: InputKind) -> Result<Vec<u8>, InputError> {
    let mut file = open(path, kind)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|error| InputError::Io {
            file: path.to_path_buf(),
            error,
        })?;
    if bytes.len() as u64 > kind.max_bytes() {
        return Err(too_large(path, kind, bytes.len() as u64));
    }
    Ok(bytes)
}

/// The text of `path` (UTF-8), with the checks of [`read_bytes`].
///
/// # Errors
/// As [`read_bytes`]; also [`InputError::Io`] (kind `InvalidData`) when the
/// bytes are not UTF-8.
pub fn read_text(path: &Path, kind: InputKind) -> Result<String, InputError> {
    String::from_utf8(read_bytes(path, kind)?).map_err(|e| InputError::Io {
        file: path.to_path_buf(),
        error: std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
    })
}
