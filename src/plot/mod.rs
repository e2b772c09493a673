//! Plotting, for the figures and the app alike: one palette
//! ([`palette`]) and one table of the plotted quantities ([`quantities`]),
//! drawn by two back ends — plotters here (PNG and SVG figures written by
//! [`figure::write_figure`]: a run's figures, its torque spectra, a
//! sweep's figure, and the panels [`crate::figures`] draws with) and
//! egui_plot in the app (`app::plots`, `app::spectrum_plot`).

pub mod figure;
pub mod palette;
pub(crate) mod panels;
pub mod quantities;
mod run_figures;
mod spectrum;
mod sweep;

pub use run_figures::write_plots;
pub use spectrum::write_torque_spectrum;
pub use sweep::write_sweep_plot;
