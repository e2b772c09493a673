//! passivity-lab: rigid-body dynamics, Coriolis factorizations and
//! passivity-based control of robots loaded from URDF.
//!
//! Layers (dependencies point down): `app` (feature `gui`) -> `scenario`
//! -> `sim` (-> `geometry`, `analysis`) -> `control` -> `factorization` -> `algorithms` -> `model` ->
//! `spatial`.

pub mod algorithms;
pub mod analysis;
#[cfg(feature = "gui")]
pub mod app;
pub mod control;
pub mod eval;
pub mod factorization;
pub mod figures;
pub mod geometry;
pub mod input;
pub mod io;
pub mod model;
pub mod scenario;
pub mod sim;
pub mod spatial;
