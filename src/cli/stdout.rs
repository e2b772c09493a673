//! Standard output for the commands that print their results: a reader
//! that goes away (`passivity-lab inspect robot.urdf | head -1`) ends the
//! command quietly, where `println!` panics on the broken pipe.

use std::io::Write;

/// Standard output was closed by its reader: the command stops, and exits
/// successfully, as `cat` or `grep` do before `head`.
#[derive(Debug, thiserror::Error)]
#[error("standard output was closed")]
pub struct StdoutClosed;

/// Writes `args` to standard output; a broken pipe becomes [`StdoutClosed`].
pub fn write(args: std::fmt::Arguments) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_fmt(args).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(StdoutClosed.into()),
        other => Ok(other?),
    }
}

/// `print!` that returns [`write`]'s result instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!($($arg)*))
    };
}

/// `println!` that returns [`write`]'s result instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
