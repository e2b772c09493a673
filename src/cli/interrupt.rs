//! Ctrl-C and SIGTERM: the first asks the running simulation to stop (it
//! writes what it recorded, marked incomplete, and exits non-zero), the
//! second exits at once.

use super::terminal::noteln;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first Ctrl-C or SIGTERM; simulations poll it every step.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// Exit code of an interrupted run (128 + SIGINT, as shells report it).
pub const EXIT_CODE: u8 = 130;

/// The run stopped on request; its partial results were written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Interrupted(pub String);

/// Installs the handler (once per process).
pub fn install() -> anyhow::Result<()> {
    ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(EXIT_CODE.into());
        }
        noteln!(
            "\ninterrupted: stopping and writing what was recorded (interrupt again to quit at once)"
        );
    })?;
    Ok(())
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
}
