//! Figures that need no run (`passivity-lab figure`, `bench --scaling`),
//! drawn once and written as PNG and SVG by
//! [`crate::plot::figure::write_figure`], with the
//! plotting module's palette.

pub mod connections;
pub mod cost_curves;
pub mod cost_table;
