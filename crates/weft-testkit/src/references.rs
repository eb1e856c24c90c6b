//! The committed reference data (`tests/data/references/*.json`, written by
//! `scripts/references/`; conventions in `docs/notes/references.md`) and the
//! comparisons the tests make with it.

use serde_json::Value;

/// The repository's root directory.
pub fn repo_root() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
}

/// The reference file `tests/data/references/{name}.json`; panics naming the
/// file when it is missing or not JSON.
pub fn reference(name: &str) -> Value {
    let path = format!("{}/tests/data/references/{name}.json", repo_root());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A JSON array of numbers.
pub fn vector(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// A JSON array of arrays of numbers, row-major.
pub fn matrix(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().expect("an array").iter().map(vector).collect()
}

/// Entries of a row-major nested matrix, flat.
pub fn flat(m: &[Vec<f64>]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

/// Entries of an `f32` slice as `f64`.
pub fn to_f64(a: &[f32]) -> Vec<f64> {
    a.iter().map(|&x| x as f64).collect()
}

/// `max |a − b| / max |b|` over the entries (0 when both are zero).
///
/// ```
/// use weft_testkit::references::rel_max;
/// assert!((rel_max(&[1.0, 2.1], &[1.0, 2.0]) - 0.05).abs() < 1e-12);
/// assert_eq!(rel_max(&[0.0], &[0.0]), 0.0);
/// ```
pub fn rel_max(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "rel_max: lengths differ");
    let scale = b.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let err = a
        .iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    if err == 0.0 { 0.0 } else { err / scale }
}
