//! Analysis of factorizations and of recorded runs: the core's parallel
//! transport, contorsion force and Euclidean connections
//! ([`passivity_dynamics::analysis`]), and power spectra of recorded
//! signals.

mod power_spectrum;

pub use passivity_dynamics::analysis::*;
pub use power_spectrum::{power_spectrum, PowerSpectrum, SpectralSummary, DEFAULT_CUTOFF_HZ};
