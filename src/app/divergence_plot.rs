//! The adaptive estimates' distance from the truth over time: the log-det
//! Bregman divergence sum_i d(P_i || P_hat_i), with d(P || P_hat) =
//! ln det P_hat - ln det P + tr(P_hat^-1 P) - 4 (Lee, Kwon & Park 2018), one line per
//! adaptive variant (natural and Euclidean side by side when the scenario
//! has both), read from the samples' [`crate::sim::ParameterConsistency`].
//! It is defined only while every P_hat is positive definite: where an
//! estimate is not physical the line has a gap (nothing is drawn, no NaN),
//! and the variant's readout counts the integrator steps after which some
//! estimate was not physical and the samples in the gap.

use super::plots::{draw, visible, Curve};
use super::session::Session;
use super::variant_color32;
use bevy_egui::egui;

/// The title of the plot.
pub const TITLE: &str =
    "Σ d(P || P_hat): log-det divergence of the estimates (Lee, Kwon & Park 2018)";

/// Whether any variant records the divergence (an adaptive law).
pub fn has_divergence(session: &Session) -> bool {
    session.variants.iter().any(|v| {
        v.samples
            .last()
            .is_some_and(|s| s.parameter_consistency.is_some())
    })
}

/// The plot, and below it per variant the steps after which an estimate
/// was not physical and the shown samples where the divergence is undefined.
pub fn divergence_plot(ui: &mut egui::Ui, session: &Session, since: f64) {
    let mut curves = Vec::new();
    let mut notes = Vec::new();
    for (i, v) in session.variants.iter().enumerate() {
        let Some(last) = v.samples.last().and_then(|s| s.parameter_consistency) else {
            continue;
        };
        let mut gap = 0;
        let mut segment: Vec<[f64; 2]> = Vec::new();
        for k in visible(v, since) {
            let s = &v.samples[k];
            match s.parameter_consistency.map(|c| c.divergence) {
                Some(d) if d.is_finite() => segment.push([s.t, d]),
                _ => {
                    gap += 1;
                    if !segment.is_empty() {
                        curves.push(curve(&v.name, i, std::mem::take(&mut segment)));
                    }
                }
            }
        }
        if !segment.is_empty() {
            curves.push(curve(&v.name, i, segment));
        }
        notes.push((i, v.name.as_str(), last.non_physical_steps, gap));
    }
    draw(ui, session, since, TITLE, curves, None, false);
    for (i, name, steps, gap) in notes {
        let text = if steps == 0 {
            format!("{name}: every estimate physical at every step")
        } else {
            format!("{name}: not physical after {steps} steps; undefined at {gap} shown samples")
        };
        ui.colored_label(variant_color32(i), text);
    }
}

/// A stretch of variant `i`'s line where the divergence is defined.
fn curve(name: &str, i: usize, points: Vec<[f64; 2]>) -> Curve {
    Curve {
        name: name.to_string(),
        color: variant_color32(i),
        dashed: false,
        points,
    }
}
