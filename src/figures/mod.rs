//! Figures that need no run (`passivity-lab figure`), drawn once and
//! written as PNG and SVG by [`crate::scenario::figure::write_figure`].

pub mod connections;
