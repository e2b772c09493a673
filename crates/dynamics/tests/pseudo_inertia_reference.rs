//! Pseudo-inertia and log-Cholesky conversions against Pinocchio 4.1's
//! `PseudoInertia` and `LogCholeskyParameters`
//! (tests/fixtures/reference/pseudo_inertia, written by its generate.py; read
//! here without Pinocchio): theta -> P, P -> theta, log-Cholesky -> P and
//! P -> log-Cholesky on 20 random physically consistent bodies.

use passivity_dynamics::spatial::{
    log_cholesky_of_pseudo_inertia, parameters_of_pseudo_inertia, pseudo_inertia,
    pseudo_inertia_min_eigenvalue, pseudo_inertia_of_log_cholesky, Mat4,
};

mod json;
use json::Json;

/// Largest error accepted, relative to the larger of 1 and the reference's
/// largest entry: the maps are a few flops (the log-Cholesky inverse a 4x4
/// Cholesky factorization), so rounding is all that separates them.
const TOLERANCE: f64 = 1e-12;

fn samples() -> Json {
    let path = format!(
        "{}/../../tests/fixtures/reference/pseudo_inertia/pseudo_inertia.json",
        env!("CARGO_MANIFEST_DIR")
    );
    Json::parse(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
}

fn assert_close(what: &str, k: usize, ours: &[f64], reference: &[f64]) {
    assert_eq!(ours.len(), reference.len(), "{what}, sample {k}: length");
    let scale = reference.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    let err = ours
        .iter()
        .zip(reference)
        .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(
        err <= TOLERANCE * scale,
        "{what}, sample {k}: error {err:.3e} (ours {ours:?}, Pinocchio {reference:?})"
    );
}

#[test]
fn conversions_match_pinocchio() {
    let file = samples();
    let version = file["pinocchio"].str();
    assert!(
        version.starts_with("4."),
        "the fixture says Pinocchio {version}, not 4.x"
    );
    let list = file["samples"].array();
    assert_eq!(list.len(), 20);
    for (k, s) in list.iter().enumerate() {
        let theta = s["theta"].numbers();
        let rows = s["pseudo_inertia"].matrix();
        let reference = Mat4::from_fn(|r, c| rows[r][c]);
        let log_cholesky = s["log_cholesky"].numbers();

        let p = pseudo_inertia(&theta);
        assert_close("theta -> P", k, p.as_slice(), reference.as_slice());
        assert_close(
            "P -> theta",
            k,
            &parameters_of_pseudo_inertia(&reference),
            &theta,
        );
        let from_lc = pseudo_inertia_of_log_cholesky(&log_cholesky);
        assert_close(
            "log-Cholesky -> P",
            k,
            from_lc.as_slice(),
            reference.as_slice(),
        );
        let lc = log_cholesky_of_pseudo_inertia(&reference)
            .unwrap_or_else(|| panic!("sample {k}: Pinocchio's P is not positive definite here"));
        assert_close("P -> log-Cholesky", k, &lc, &log_cholesky);
        assert!(pseudo_inertia_min_eigenvalue(&reference) > 0.0);
    }
}
