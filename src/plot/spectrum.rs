//! `torque_spectrum.png` (and `.svg`): per variant, the power spectral
//! density of the torques (top) and of the contorsion force
//! (C - C*) q_dot_r (bottom), on a logarithmic scale, with the cutoff of
//! the summary's share of power above it.

use super::figure::{px, write_figure, Area, DrawResult};
use super::palette::REFERENCE;
use super::panels::colour;
use super::quantities::CONTORSION_FORCE;
use crate::analysis::{PowerSpectrum, DEFAULT_CUTOFF_HZ};
use crate::scenario::VariantSpectra;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Densities below this fraction of the largest are drawn at it.
const FLOOR: f64 = 1e-10;

/// The frequency below which 99.9 % of every spectrum's power lies, with
/// some room, at least twice the cutoff.
fn shown_band(spectra: &[&PowerSpectrum]) -> f64 {
    let mut band = 2.0 * DEFAULT_CUTOFF_HZ;
    for s in spectra {
        let total: f64 = s.density.iter().sum();
        let mut sum = 0.0;
        for (f, p) in s.frequencies.iter().zip(&s.density) {
            sum += p;
            if sum >= 0.999 * total {
                band = band.max(1.5 * f);
                break;
            }
        }
    }
    let nyquist = spectra
        .iter()
        .filter_map(|s| s.frequencies.last())
        .fold(0.0f64, |a, b| a.max(*b));
    if nyquist > 0.0 {
        band.min(nyquist)
    } else {
        band
    }
}

fn panel(area: &Area, title: &str, lines: &[(&str, usize, &PowerSpectrum)]) -> DrawResult {
    let spectra: Vec<&PowerSpectrum> = lines.iter().map(|l| l.2).collect();
    let band = shown_band(&spectra);
    let top = spectra
        .iter()
        .flat_map(|s| s.density.iter())
        .copied()
        .filter(|p| p.is_finite())
        .fold(0.0f64, f64::max);
    let (low, high) = if top > 0.0 {
        (top * FLOOR, top * 2.0)
    } else {
        (1e-12, 1.0)
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", px(20)))
        .margin(px(10))
        .x_label_area_size(px(35))
        .y_label_area_size(px(70))
        .build_cartesian_2d(0.0..band, (low..high).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("f [Hz]")
        .y_desc("PSD [unit^2/Hz]")
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .label_style(("sans-serif", px(14)))
        .draw()?;
    for &(label, i, s) in lines {
        let c = colour(i);
        let points = s
            .frequencies
            .iter()
            .zip(&s.density)
            .filter(|(f, p)| **f <= band && p.is_finite())
            .map(|(f, p)| (*f, p.max(low)));
        chart
            .draw_series(LineSeries::new(
                points,
                ShapeStyle::from(&c).stroke_width(2),
            ))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + px(18) as i32, y)], c));
    }
    chart.draw_series(DashedLineSeries::new(
        [(DEFAULT_CUTOFF_HZ, low), (DEFAULT_CUTOFF_HZ, high)],
        px(6),
        px(4),
        ShapeStyle::from(&RGBColor::from(REFERENCE)).stroke_width(1),
    ))?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", px(14)))
        .draw()?;
    Ok(())
}

/// Torque spectra above, contorsion-force spectra below.
fn draw(root: &Area, variants: &[(String, VariantSpectra)]) -> DrawResult {
    let halves = root.split_evenly((2, 1));
    let torque: Vec<(&str, usize, &PowerSpectrum)> = variants
        .iter()
        .enumerate()
        .map(|(i, (name, s))| (name.as_str(), i, &s.torque))
        .collect();
    panel(
        &halves[0],
        &format!("torque spectrum (Hann window; dashed: the {DEFAULT_CUTOFF_HZ} Hz cutoff)"),
        &torque,
    )?;
    let torsion: Vec<(&str, usize, &PowerSpectrum)> = variants
        .iter()
        .enumerate()
        .filter_map(|(i, (name, s))| s.torsion.as_ref().map(|t| (name.as_str(), i, t)))
        .filter(|(_, _, t)| t.density.iter().any(|p| *p > 0.0))
        .collect();
    let title = format!("{} (zero for C*)", CONTORSION_FORCE.title);
    panel(&halves[1], &title, &torsion)
}

/// Writes `torque_spectrum.png` and `.svg` into `dir`.
pub fn write_torque_spectrum(
    dir: &Path,
    variants: &[(String, VariantSpectra)],
) -> std::io::Result<[PathBuf; 2]> {
    write_figure(dir, "torque_spectrum", |root| draw(root, variants))
}
