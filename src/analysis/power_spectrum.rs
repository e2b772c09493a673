//! One-sided power spectral density of a sampled vector signal (torques,
//! the contorsion force), summed over its channels, and two numbers that
//! say where its power lies: the spectral centroid and the share above a
//! cutoff.
//!
//! Method: each channel has its mean removed (the static part, e.g.
//! gravity, says nothing about oscillation), is multiplied by a Hann window
//! w_n = 1/2 (1 - cos(2 pi n / (N - 1))) (the signals are not periodic in
//! the record; the window keeps the leakage of the start-up transient out
//! of the higher bins) and transformed with rustfft. With fs the sampling
//! rate, P_k = c_k |X_k|^2 / (fs sum_n w_n^2), c_k = 2 except at 0 and
//! Nyquist (c = 1), at f_k = k fs / N, k = 0 ..= N/2: units of signal^2 / Hz,
//! and sum_k P_k fs / N is the windowed mean square.
//!
//! Centroid f_c = sum_k f_k P_k / sum_k P_k; share above the cutoff
//! f_0 = sum_{f_k > f_0} P_k / sum_k P_k.

use rustfft::{num_complex::Complex, FftPlanner};

/// The cutoff of the share of power "above the cutoff", Hz: above the
/// bandwidth of the shipped references (the point-mass experiment's
/// q_d = t + sin t has 1 / (2 pi) = 0.16 Hz; the arms' references stay below
/// 1 Hz) and below the twisting torsion adds (beta |v| / m / (2 pi): ~1.6 Hz
/// for beta = -5 and |v| ~ 2 on the point mass).
pub const DEFAULT_CUTOFF_HZ: f64 = 1.0;

/// A one-sided power spectral density.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PowerSpectrum {
    /// f_k, Hz (0 to the Nyquist frequency).
    pub frequencies: Vec<f64>,
    /// P_k, signal^2 / Hz, summed over channels.
    pub density: Vec<f64>,
}

/// Where a spectrum's power lies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpectralSummary {
    /// Total power sum_k P_k fs / N (signal^2; the windowed mean square of
    /// the fluctuation about the mean).
    pub power: f64,
    /// sum f P / sum P, Hz (None when the signal is constant or not finite).
    pub centroid_hz: Option<f64>,
    /// The share of power above `cutoff_hz` (None as above).
    pub share_above_cutoff: Option<f64>,
    pub cutoff_hz: f64,
}

/// The spectrum of `samples` instants of a `channels`-channel signal
/// sampled every `period` seconds, `value(i, c)` being channel c at
/// instant i. Empty with fewer than 2 samples or a period that is not
/// positive and finite.
pub fn power_spectrum(
    samples: usize,
    channels: usize,
    period: f64,
    value: impl Fn(usize, usize) -> f64,
) -> PowerSpectrum {
    if samples < 2 || !(period > 0.0 && period.is_finite()) {
        return PowerSpectrum::default();
    }
    let n = samples;
    let fs = 1.0 / period;
    let window: Vec<f64> = (0..n)
        .map(|i| 0.5 * (1.0 - (2.0 * std::f64::consts::PI * i as f64 / (n - 1) as f64).cos()))
        .collect();
    let scale = 1.0 / (fs * window.iter().map(|w| w * w).sum::<f64>());
    let fft = FftPlanner::new().plan_fft_forward(n);
    let bins = n / 2 + 1;
    let mut density = vec![0.0; bins];
    let mut buffer = vec![Complex::new(0.0, 0.0); n];
    for c in 0..channels {
        let mean = (0..n).map(|i| value(i, c)).sum::<f64>() / n as f64;
        for (i, (b, w)) in buffer.iter_mut().zip(&window).enumerate() {
            *b = Complex::new((value(i, c) - mean) * w, 0.0);
        }
        fft.process(&mut buffer);
        for (k, d) in density.iter_mut().enumerate() {
            let one_sided = if k == 0 || 2 * k == n { 1.0 } else { 2.0 };
            *d += one_sided * scale * buffer[k].norm_sqr();
        }
    }
    PowerSpectrum {
        frequencies: (0..bins).map(|k| k as f64 * fs / n as f64).collect(),
        density,
    }
}

impl PowerSpectrum {
    /// The spectrum's power, centroid and share above `cutoff_hz`.
    pub fn summary(&self, cutoff_hz: f64) -> SpectralSummary {
        let df = match self.frequencies.as_slice() {
            [_, f1, ..] => *f1,
            _ => 0.0,
        };
        let total: f64 = self.density.iter().sum();
        let defined = total > 0.0 && total.is_finite();
        let weighted: f64 = self
            .frequencies
            .iter()
            .zip(&self.density)
            .map(|(f, p)| f * p)
            .sum();
        let above: f64 = self
            .frequencies
            .iter()
            .zip(&self.density)
            .filter(|(f, _)| **f > cutoff_hz)
            .map(|(_, p)| p)
            .sum();
        SpectralSummary {
            power: total * df,
            centroid_hz: defined.then(|| weighted / total),
            share_above_cutoff: defined.then(|| above / total),
            cutoff_hz,
        }
    }
}
