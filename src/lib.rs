//! passivity-lab: the lab around the dynamics core: scenario files run
//! headless (outputs, figures, sweeps, lessons), the `passivity-lab`
//! command line and, with the `gui` feature, the Bevy desktop app.
//!
//! The library crates it builds on are re-exported under their layer names,
//! so `passivity_lab::algorithms::rnea` is `passivity_dynamics::algorithms::rnea`:
//! - [`spatial`], [`model`], [`algorithms`], [`factorization`],
//!   [`analysis`] (with the power spectra of recorded runs added here) and
//!   [`input`] come from [`passivity_dynamics`];
//! - [`control`] is [`passivity_control`];
//! - [`sim`] and [`geometry`] come from [`passivity_sim`].
//!
//! Layers (dependencies point down): `app` (feature `gui`) -> `scenario`
//! -> `sim` -> `control` -> `factorization` -> `algorithms` -> `model` ->
//! `spatial`.

pub use passivity_control as control;
pub use passivity_dynamics::{algorithms, factorization, input, model, spatial};
pub use passivity_sim as sim;
pub use passivity_sim::geometry;

pub mod analysis;
#[cfg(feature = "gui")]
pub mod app;
pub mod eval;
pub mod figures;
pub mod io;
pub mod plot;
pub mod scenario;
pub mod sweep;
