//! Analysis on top of the factorizations (issue 15): parallel transport
//! with a factorization's connection, the contorsion force a torsion
//! variant adds, power spectra of recorded signals, and the example
//! connections of Wensing, Englsberger & Slotine (2023), Fig. 3 on Euclidean R^3. The app and the
//! headless figures are thin views on these.

mod contorsion_force;
mod euclidean_connections;
mod parallel_transport;
mod power_spectrum;

pub use contorsion_force::ContorsionForce;
pub use euclidean_connections::{EuclideanConnection, Station};
pub use parallel_transport::{frame_angle, Connection, ParallelTransport};
pub use power_spectrum::{power_spectrum, PowerSpectrum, SpectralSummary, DEFAULT_CUTOFF_HZ};
