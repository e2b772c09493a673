//! The Lyapunov plot: each variant's storage V against time, on a linear
//! or a log scale or divided by its own V(0), and for adaptive variants
//! the parameter storage 1/2 a~^T Gamma^-1 a~ (part of V) as a dashed curve
//! of its own, so that one large V (an adaptive law's parameter term) does
//! not flatten the others. Once a push or a drag has supplied energy
//! through a variant's passive port, its passivity bound V(0) + supply
//! (the storage can exceed it only by the mismatch and the distribution's
//! slack) is drawn dashed beside its V.

use super::plots::{draw, variant_curves, Curve};
use super::session::{LiveVariant, Session};
use super::variant_color32;
use crate::plot::quantities::{self as q, log10};
use bevy_egui::egui;

/// How the plot scales V.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LyapunovScale {
    #[default]
    Linear,
    /// log10 V (floored at 1e-14).
    Log,
    /// V / V(0), each variant by its own first recorded value.
    Normalised,
}

impl LyapunovScale {
    /// The plotted value of `x` (V or its parameter part) of variant `v`.
    pub fn apply(self, v: &LiveVariant, x: f64) -> f64 {
        match self {
            LyapunovScale::Linear => x,
            LyapunovScale::Log => log10(x),
            LyapunovScale::Normalised => {
                let v0 = v.samples.first().map_or(f64::NAN, |s| s.lyapunov.value);
                if v0 > 0.0 {
                    x / v0
                } else {
                    f64::NAN
                }
            }
        }
    }

    fn title(self) -> String {
        match self {
            LyapunovScale::Linear => q::LYAPUNOV.heading.to_string(),
            LyapunovScale::Log => format!("{}, log scale", q::LYAPUNOV.heading),
            LyapunovScale::Normalised => {
                format!("{}, each divided by its V(0)", q::LYAPUNOV.heading)
            }
        }
    }
}

/// The scale picker and the plot.
pub fn lyapunov_plot(ui: &mut egui::Ui, session: &Session, since: f64, scale: &mut LyapunovScale) {
    ui.horizontal(|ui| {
        ui.radio_value(scale, LyapunovScale::Linear, "linear");
        ui.radio_value(scale, LyapunovScale::Log, "log");
        ui.radio_value(scale, LyapunovScale::Normalised, "V / V(0)")
            .on_hover_text("each variant divided by its own value at t = 0");
    });
    let scale = *scale;
    let mut curves = variant_curves(session, since, |v, k| {
        scale.apply(v, v.samples[k].lyapunov.value)
    });
    curves.extend(parameter_storage(session, since, scale));
    let bounds = supply_bound(session, since, scale);
    let title = if bounds.is_empty() {
        scale.title()
    } else {
        format!("{}; dashed: V(0) + supply", scale.title())
    };
    curves.extend(bounds);
    draw(
        ui,
        session,
        since,
        &title,
        curves,
        None,
        scale == LyapunovScale::Log,
    );
}

/// The parameter storage of each adaptive variant, dashed in its colour.
fn parameter_storage(session: &Session, since: f64, scale: LyapunovScale) -> Vec<Curve> {
    session
        .variants
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.sim.parameters.is_empty())
        .map(|(i, v)| Curve {
            name: format!("{}: parameter part", v.name),
            color: variant_color32(i),
            dashed: true,
            points: super::plots::visible(v, since)
                .map(|k| {
                    let s = &v.samples[k];
                    [s.t, scale.apply(v, s.lyapunov.parameter)]
                })
                .filter(|p| p[1].is_finite())
                .collect(),
        })
        .collect()
}

/// V(0) + the energy supplied so far, dashed in the variant's colour, for
/// each variant that has been supplied energy (pushes, drags); under the
/// variant's name, so the legend keeps one entry per variant.
fn supply_bound(session: &Session, since: f64, scale: LyapunovScale) -> Vec<Curve> {
    let supplied = |v: &LiveVariant| {
        v.samples
            .last()
            .and_then(|s| s.energy)
            .is_some_and(|e| e.supply.abs() > 0.0)
    };
    session
        .variants
        .iter()
        .enumerate()
        .filter(|(_, v)| supplied(v))
        .map(|(i, v)| {
            let v0 = v.samples[0].lyapunov.value;
            Curve {
                name: v.name.clone(),
                color: variant_color32(i),
                dashed: true,
                points: super::plots::visible(v, since)
                    .filter_map(|k| {
                        let s = &v.samples[k];
                        Some([s.t, scale.apply(v, v0 + s.energy?.supply)])
                    })
                    .filter(|p| p[1].is_finite())
                    .collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ScenarioSource;
    use crate::scenario::Scenario;

    #[test]
    fn scales_are_linear_log_and_relative() {
        // The embedded default session (the point mass, started with a
        // sideways velocity: V(0) > 0).
        let scenario = Scenario::embedded_default().unwrap();
        let session = Session::new(ScenarioSource::EmbeddedDefault, scenario).unwrap();
        let v = &session.variants[0];
        let v0 = v.samples[0].lyapunov.value;
        assert!(v0 > 0.0);
        assert_eq!(LyapunovScale::Linear.apply(v, 0.25), 0.25);
        assert!((LyapunovScale::Log.apply(v, 1e-3) + 3.0).abs() < 1e-12);
        // Zero is floored at 1e-14.
        assert!((LyapunovScale::Log.apply(v, 0.0) + 14.0).abs() < 1e-12);
        assert_eq!(LyapunovScale::Normalised.apply(v, v0), 1.0);
        assert_eq!(LyapunovScale::Normalised.apply(v, 0.5 * v0), 0.5);
    }
}
