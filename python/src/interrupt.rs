//! Ctrl-C during a long call: the work runs on its own thread with the GIL
//! released while this thread waits for it, checking Python's signals every
//! 100 ms. On `KeyboardInterrupt` the work is told to stop (runs end after
//! their current step, as `passivity-lab run` does on Ctrl-C), its partial
//! result is attached to the exception as `partial`, and the exception is
//! raised: nothing recorded is lost, and nothing partial is returned as if
//! complete.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How often the waiting thread looks for a signal.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Runs `work(stop)` with the GIL released and Ctrl-C honoured; `partial`
/// turns the result of interrupted work into the Python object attached to
/// the `KeyboardInterrupt` as `partial`.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool) -> T + Send,
    partial: impl FnOnce(Python<'_>, T) -> PyResult<Py<PyAny>>,
) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    let (done, finished) = mpsc::channel();
    let (result, interrupt) = std::thread::scope(|scope| {
        let stop = &stop;
        scope.spawn(move || {
            // The receiver outlives the scope's threads: sending cannot fail.
            let _ = done.send(work(stop));
        });
        let (mut interrupt, mut finished) = (None, finished);
        loop {
            // The receiver is moved in and out: it may cross threads, not be shared.
            let received;
            (received, finished) =
                py.detach(move || (finished.recv_timeout(SIGNAL_POLL), finished));
            match received {
                Ok(result) => return (Some(result), interrupt),
                Err(mpsc::RecvTimeoutError::Disconnected) => return (None, interrupt),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if interrupt.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    interrupt = Some(e);
                }
            }
        }
    });
    let Some(result) = result else {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "the run's thread ended without a result (a bug of passivity-lab: please report it)",
        ));
    };
    match interrupt {
        None => Ok(result),
        Some(e) => {
            e.value(py).setattr("partial", partial(py, result)?)?;
            Err(e)
        }
    }
}
