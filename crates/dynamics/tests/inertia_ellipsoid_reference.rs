//! The equivalent inertia ellipsoid against Pinocchio 4.1's solid shapes
//! (tests/fixtures/reference/inertia_ellipsoid, written by its generate.py;
//! read here without Pinocchio): for 8 uniform solid ellipsoids
//! (`Inertia::FromEllipsoid`) and 8 boxes (`Inertia::FromBox`), each placed
//! in its body frame by a random rigid motion, the ellipsoid recovered from
//! the 10 parameters has the shape's mass, centre and axes (for a box,
//! sqrt(5/12) times its sides, the ellipsoid with its second moments).

use passivity_dynamics::spatial::{inertia_ellipsoid, Mat3, Vec3};

mod json;
use json::Json;

/// Largest error accepted, relative to the largest semi-axis squared (the
/// shape matrix) or to 1 m (the centre): the parameters went through
/// Pinocchio's placement and a 3x3 symmetric eigen-decomposition here.
const TOLERANCE: f64 = 1e-12;

#[test]
fn ellipsoids_of_pinocchio_s_solid_shapes() {
    let path = format!(
        "{}/../../tests/fixtures/reference/inertia_ellipsoid/inertia_ellipsoid.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let file =
        Json::parse(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")));
    assert!(file["pinocchio"].str().starts_with("4."));
    let list = file["samples"].array();
    assert_eq!(list.len(), 16);
    for (k, s) in list.iter().enumerate() {
        let theta = s["theta"].numbers();
        let rows = s["rotation"].matrix();
        let rotation = Mat3::from_fn(|r, c| rows[r][c]);
        let center = Vec3::from_column_slice(&s["center"].numbers());
        let axes = Vec3::from_column_slice(&s["semi_axes"].numbers());
        let want =
            rotation * Mat3::from_diagonal(&axes.component_mul(&axes)) * rotation.transpose();
        let e = inertia_ellipsoid(&theta)
            .unwrap_or_else(|| panic!("sample {k} ({}): no ellipsoid", s["kind"].str()));
        let scale = axes.amax().powi(2);
        assert!(
            (e.shape() - want).amax() <= TOLERANCE * scale,
            "sample {k} ({}): shape {} vs {want}",
            s["kind"].str(),
            e.shape()
        );
        assert!(
            (e.center - center).amax() <= TOLERANCE,
            "sample {k}: centre"
        );
        assert!((e.mass - s["mass"].number()).abs() <= TOLERANCE * e.mass);
    }
}
