//! The app's spectrum plot (issue 15 sec. 2): per variant, the power
//! spectrum of the recorded torques or of the contorsion force
//! (C - C*) q_dot_r over the run so far (Hann window, the headless
//! summary's `analysis::power_spectrum`), on a log scale, with the spectral
//! centroid and the share of power above the cutoff. Torsion raises the
//! centroid (Wensing, Englsberger & Slotine (2023), sec. VII).

use super::session::Session;
use super::{color32, variant_color32};
use crate::analysis::{power_spectrum, PowerSpectrum, DEFAULT_CUTOFF_HZ};
use crate::plot::palette::REFERENCE_ON_DARK;
use crate::plot::quantities as q;
use bevy_egui::egui;
use egui_plot::{Line, LineStyle, Plot, PlotPoints, VLine};

/// Which signal the spectra are of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpectrumSignal {
    #[default]
    Torque,
    Contorsion,
}

/// The spectra last computed, recomputed when the run has grown by 2 %.
#[derive(Default)]
pub struct SpectrumCache {
    pub signal: SpectrumSignal,
    key: Option<(u64, SpectrumSignal, usize)>,
    spectra: Vec<PowerSpectrum>,
}

impl SpectrumCache {
    fn update(&mut self, session: &Session) {
        let samples: usize = session.variants.iter().map(|v| v.samples.len()).sum();
        let fresh = self.key.is_some_and(|(generation, signal, count)| {
            generation == session.generation
                && signal == self.signal
                && samples >= count
                && samples < count + count / 50 + 1
        });
        if fresh {
            return;
        }
        self.key = Some((session.generation, self.signal, samples));
        let signal = self.signal;
        self.spectra = session
            .variants
            .iter()
            .map(|v| {
                let s = &v.samples;
                let (Some(first), Some(last)) = (s.first(), s.last()) else {
                    return PowerSpectrum::default();
                };
                let period = (last.t - first.t) / (s.len().max(2) - 1) as f64;
                let (quantity, channels) = match signal {
                    SpectrumSignal::Torque => (q::TORQUE, first.tau.len()),
                    SpectrumSignal::Contorsion => (q::CONTORSION_FORCE, first.torsion_force.len()),
                };
                power_spectrum(s.len(), channels, period, |i, c| quantity.value(s, i, c))
            })
            .collect();
    }
}

/// The collapsible spectrum plot of the right panel.
pub fn spectra_section(ui: &mut egui::Ui, session: &Session, cache: &mut SpectrumCache) {
    egui::CollapsingHeader::new("Spectra: torque and contorsion force")
        .default_open(false)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.radio_value(&mut cache.signal, SpectrumSignal::Torque, "torques τ");
                ui.radio_value(
                    &mut cache.signal,
                    SpectrumSignal::Contorsion,
                    q::CONTORSION_FORCE.heading,
                );
            });
            cache.update(session);
            for (i, (v, s)) in session.variants.iter().zip(&cache.spectra).enumerate() {
                let summary = s.summary(DEFAULT_CUTOFF_HZ);
                let text = match (summary.centroid_hz, summary.share_above_cutoff) {
                    (Some(c), Some(share)) => format!(
                        "{}: centroid {c:.3} Hz, {:.1} % of the power above {DEFAULT_CUTOFF_HZ} Hz",
                        v.name,
                        100.0 * share
                    ),
                    _ => format!("{}: no fluctuation", v.name),
                };
                ui.colored_label(variant_color32(i), text);
            }
            Plot::new("spectra")
                .height(160.0)
                .legend(super::plots::legend())
                .x_axis_label("frequency (Hz)")
                .y_axis_label("log10 power density")
                .show(ui, |p| {
                    for (i, (v, s)) in session.variants.iter().zip(&cache.spectra).enumerate() {
                        let points: Vec<[f64; 2]> = s
                            .frequencies
                            .iter()
                            .zip(&s.density)
                            .skip(1)
                            .filter(|(_, d)| **d > 0.0)
                            .map(|(f, d)| [*f, d.log10()])
                            .collect();
                        p.line(
                            Line::new(v.name.as_str(), PlotPoints::from(points))
                                .color(variant_color32(i)),
                        );
                    }
                    p.vline(
                        VLine::new("cutoff", DEFAULT_CUTOFF_HZ)
                            .color(color32(REFERENCE_ON_DARK))
                            .style(LineStyle::dashed_loose()),
                    );
                });
        });
}
