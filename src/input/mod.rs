//! Input files are checked before parsing: XML nested no deeper than
//! [`MAX_XML_DEPTH`] before any recursive parser sees it.

mod xml_depth;

pub use xml_depth::{check_xml_depth, MAX_XML_DEPTH};

use std::path::PathBuf;

/// Why an input file was refused; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{file}: line {line}: XML elements nested deeper than {limit} levels; refused before parsing")]
    TooDeep {
        file: PathBuf,
        line: usize,
        limit: usize,
    },
}
