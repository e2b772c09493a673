//! The terminal of the commands: standard output for their results and
//! standard error for what they tell the user. A reader that goes away
//! (`passivity-lab inspect robot.urdf | head -1`) ends a command quietly,
//! where `println!` panics on the broken pipe; a closed standard error
//! (`run ... 2>&1 | head -1`) silences the messages, not the run, which
//! still writes its results (`eprintln!` panicked, losing them).

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

/// Writes `args` to standard error, if anyone reads it: a message nobody
/// can see is no reason to stop.
pub fn tell(args: std::fmt::Arguments) {
    let mut err = std::io::stderr().lock();
    // Ignored: the only reader of standard error is gone.
    let _ = err.write_fmt(args).and_then(|()| err.flush());
}

/// `print!` that returns [`write`]'s result instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::terminal::write(format_args!($($arg)*))
    };
}

/// `println!` that returns [`write`]'s result instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::terminal::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that does not panic: see [`tell`].
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::cli::terminal::tell(format_args!($($arg)*))
    };
}

/// `eprintln!` that does not panic: see [`tell`].
macro_rules! noteln {
    ($($arg:tt)*) => {
        $crate::cli::terminal::tell(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {note, noteln, out, outln};
