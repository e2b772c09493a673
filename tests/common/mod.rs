//! Helpers shared by the integration tests.
#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;

/// Path inside the repository.
pub fn repo_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// All numbers of a (nested) JSON array, in order.
pub fn flatten(v: &Value) -> Vec<f64> {
    match v {
        Value::Number(n) => vec![n.as_f64().unwrap()],
        Value::Array(a) => a.iter().flat_map(flatten).collect(),
        other => panic!("not numeric: {other}"),
    }
}

/// Largest absolute difference between two equally shaped JSON arrays,
/// relative to max(1, largest reference magnitude).
pub fn relative_error(ours: &Value, reference: &Value) -> f64 {
    let (a, b) = (flatten(ours), flatten(reference));
    assert_eq!(a.len(), b.len(), "shape mismatch");
    let scale = b.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max) / scale
}
