//! Analysis on top of the factorizations: parallel transport with a
//! factorization's connection, the contorsion force a torsion variant adds,
//! and the example connections on Euclidean R^3 of Wensing, Englsberger &
//! Slotine (2023), Fig. 3. The app and the headless figures are thin views
//! on these.

mod contorsion_force;
mod euclidean_connections;
mod parallel_transport;

pub use contorsion_force::ContorsionForce;
pub use euclidean_connections::{EuclideanConnection, Station};
pub use parallel_transport::{frame_angle, Connection, ParallelTransport};
