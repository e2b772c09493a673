//! The frequency content of a run (issue 15 sec. 2): per variant, the power
//! spectrum of the recorded torques and of the contorsion force
//! (C - C*) q_dot_r (see `analysis::power_spectrum` for the window and the
//! scaling), their spectral centroids and the share of power above
//! [`DEFAULT_CUTOFF_HZ`]. Torsion feeds the twisting of the trajectory
//! back into the torque, which raises the centroid (Wensing, Englsberger & Slotine (2023), sec. VII:
//! "oscillations in the control output").

use crate::analysis::{power_spectrum, PowerSpectrum, SpectralSummary, DEFAULT_CUTOFF_HZ};
use crate::scenario::VariantResult;
use serde_json::json;

/// The spectra of one variant's recording.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VariantSpectra {
    /// Sampling rate of the recording, Hz.
    pub sample_rate_hz: f64,
    /// The torques tau (all joints).
    pub torque: PowerSpectrum,
    /// The contorsion force (C - C*) q_dot_r; None for laws without a
    /// joint-space Coriolis term.
    pub torsion: Option<PowerSpectrum>,
}

/// The spectra of `result`'s recorded samples, spaced by its
/// `sample_period`. The last sample, at the run's end (or where it stopped), is left
/// out when it came sooner than a period after the one before: a record
/// period that does not divide the duration made the spectrum assume a
/// wrong sample rate.
pub fn variant_spectra(result: &VariantResult) -> VariantSpectra {
    let s = &result.samples;
    let Some(first) = s.first() else {
        return VariantSpectra::default();
    };
    let period = if s.len() >= 2 {
        result.sample_period
    } else {
        0.0
    };
    let n = s.len();
    let short_last = n >= 3 && ((s[n - 1].t - s[n - 2].t) - period).abs() > 1e-9 * period;
    let n = if short_last { n - 1 } else { n };
    let torque = power_spectrum(n, first.tau.len(), period, |i, c| s[i].tau[c]);
    let channels = first.torsion_force.len();
    let torsion =
        (channels > 0).then(|| power_spectrum(n, channels, period, |i, c| s[i].torsion_force[c]));
    VariantSpectra {
        sample_rate_hz: if period > 0.0 { 1.0 / period } else { 0.0 },
        torque,
        torsion,
    }
}

fn summary_json(s: &SpectralSummary) -> serde_json::Value {
    json!({
        "power": s.power,
        "centroid_hz": s.centroid_hz,
        "share_above_cutoff": s.share_above_cutoff,
    })
}

/// The `spectrum` entry of a variant's summary: window, cutoff, sampling
/// rate, and power, centroid and share above the cutoff of the torques and
/// of the contorsion force (centroid and share null for a signal without
/// fluctuation, such as C*'s zero contorsion force).
pub fn spectrum_summary(spectra: &VariantSpectra) -> serde_json::Value {
    json!({
        "window": "hann",
        "cutoff_hz": DEFAULT_CUTOFF_HZ,
        "sample_rate_hz": spectra.sample_rate_hz,
        "torque": summary_json(&spectra.torque.summary(DEFAULT_CUTOFF_HZ)),
        "torsion_term": spectra.torsion.as_ref().map(|t| summary_json(&t.summary(DEFAULT_CUTOFF_HZ))),
    })
}
