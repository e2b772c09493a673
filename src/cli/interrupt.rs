//! Ctrl-C and SIGTERM: the first asks the running simulation to stop (it
//! writes what it recorded, marked incomplete, and exits non-zero), one
//! more after [`REPEAT_WINDOW`] exits at once. A repeat within the window
//! is the same request delivered twice: GNU `timeout` signals the process
//! and then its group, and a sweep capped that way lost its table.

use super::terminal::noteln;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Set by the first Ctrl-C or SIGTERM; simulations poll it every step.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// Exit code of an interrupted run (128 + SIGINT, as shells report it).
pub const EXIT_CODE: u8 = 130;

/// The run stopped on request; its partial results were written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Interrupted(pub String);

/// How long after the first interrupt a second one is taken for the same.
pub const REPEAT_WINDOW: Duration = Duration::from_secs(1);

/// When the first interrupt came.
static FIRST: OnceLock<Instant> = OnceLock::new();

/// Set once the simulations are over and the results are being written:
/// an interrupt then has nothing to stop.
static WRITING: AtomicBool = AtomicBool::new(false);

/// Says that the simulations are over: a first interrupt from now on is
/// told that the complete results are being written, not that anything
/// stops.
pub fn simulations_over() {
    WRITING.store(true, Ordering::SeqCst);
}

/// Installs the handler (once per process).
pub fn install() -> anyhow::Result<()> {
    ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            if FIRST.get().is_some_and(|t| t.elapsed() >= REPEAT_WINDOW) {
                std::process::exit(EXIT_CODE.into());
            }
            return;
        }
        let _ = FIRST.set(Instant::now());
        if WRITING.load(Ordering::SeqCst) {
            noteln!(
                "\ninterrupted after the simulations ended: the complete results are being written (interrupt again, after a second, to quit at once without them)"
            );
        } else {
            noteln!(
                "\ninterrupted: stopping and writing what was recorded (interrupt again, after a second, to quit at once)"
            );
        }
    })?;
    Ok(())
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
}
