//! Generated meshes: counts, closedness, orientation, size and determinism.

use std::collections::HashMap;

use glam::Vec3;
use weft_geom::{Mesh, generate};

/// Every directed edge appears once and its reverse once: closed, consistently
/// oriented 2-manifold.
fn assert_closed(name: &str, m: &Mesh) {
    let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
    for &[a, b, c] in m.indices() {
        for e in [(a, b), (b, c), (c, a)] {
            *edges.entry(e).or_default() += 1;
        }
    }
    for (&(a, b), &n) in &edges {
        assert_eq!(n, 1, "{name}: edge {a}-{b} used {n} times in one direction");
        assert_eq!(
            edges.get(&(b, a)),
            Some(&1),
            "{name}: edge {a}-{b} has no twin"
        );
    }
    assert!(m.degenerate_faces().is_empty(), "{name}: degenerate faces");
}

/// Length of the documented (2, 3) knot curve with R = 1, r = 0.5.
fn knot_length() -> f64 {
    let c = |phi: f64| {
        let w = 1.0 + 0.5 * (3.0 * phi).cos();
        glam::DVec3::new(
            w * (2.0 * phi).cos(),
            w * (2.0 * phi).sin(),
            0.5 * (3.0 * phi).sin(),
        )
    };
    let n = 100_000;
    (0..n)
        .map(|i| {
            let (a, b) = (i as f64 / n as f64, (i + 1) as f64 / n as f64);
            (c(b * std::f64::consts::TAU) - c(a * std::f64::consts::TAU)).length()
        })
        .sum()
}

#[test]
fn closed_shapes_are_watertight_and_face_outward() {
    let pi = std::f64::consts::PI;
    let cases = [
        (
            "icosphere",
            generate::icosphere(2.0, 4),
            4.0 / 3.0 * pi * 8.0,
            0.01,
        ),
        (
            "torus",
            generate::torus(1.0, 0.25, 96, 48),
            2.0 * pi * pi * 0.0625,
            0.01,
        ),
        (
            "box",
            generate::cuboid(Vec3::new(1.0, 2.0, 3.0)),
            48.0,
            1e-9,
        ),
        // Tube volume = cross-section (a 24-gon of radius 0.1) × length of the centre curve.
        (
            "knot",
            generate::torus_knot(2, 3, 1.0, 0.1, 512, 24),
            12.0 * (pi / 12.0).sin() * 0.01 * knot_length(),
            0.002,
        ),
    ];
    for (name, m, volume, tol) in cases {
        assert_closed(name, &m);
        let v = m.signed_volume();
        assert!(
            (v - volume).abs() < tol * volume,
            "{name}: volume {v}, expected ≈ {volume}"
        );
    }
}

#[test]
fn counts_follow_the_documented_formulas() {
    for s in 0..5 {
        let m = generate::icosphere(1.0, s);
        assert_eq!(m.num_faces(), 20 * 4usize.pow(s));
        assert_eq!(m.num_points(), 10 * 4usize.pow(s) + 2);
    }
    assert_eq!(generate::torus(1.0, 0.2, 7, 5).num_faces(), 70);
    assert_eq!(generate::plane(1.0, 1.0, 3, 4).num_points(), 20);
    assert_eq!(generate::terrain(1.0, 10, 0.1, 0).num_faces(), 200);
    assert_eq!(generate::torus_knot(2, 3, 1.0, 0.1, 10, 4).num_faces(), 80);
}

#[test]
fn open_surfaces_face_up_and_terrain_is_deterministic() {
    let p = generate::plane(3.0, 2.0, 6, 4);
    assert!((0..p.num_faces()).all(|f| p.face_normal(f) == Vec3::Z));
    assert!((p.area() - 6.0).abs() < 1e-5);
    let t = generate::terrain(8.0, 32, 1.5, 42);
    assert!((0..t.num_faces()).all(|f| t.face_normal(f).z > 0.0));
    assert_eq!(t, generate::terrain(8.0, 32, 1.5, 42));
    assert_ne!(t, generate::terrain(8.0, 32, 1.5, 43));
    let (lo, hi) = (t.aabb().lower.z, t.aabb().upper.z);
    assert!(lo > -1.5 && hi < 1.5 && hi - lo > 0.3, "heights {lo}..{hi}");
}

#[test]
fn sphere_points_lie_on_the_sphere() {
    let m = generate::icosphere(3.0, 3);
    assert!(m.points().iter().all(|p| (p.length() - 3.0).abs() < 1e-5));
}

#[test]
fn displaced_sphere_is_closed_bumpy_and_deterministic() {
    for s in 0..5 {
        let m = generate::bench_sphere(s);
        assert_eq!(m.num_faces(), 20 * 4usize.pow(s));
        assert_eq!(m.num_points(), 10 * 4usize.pow(s) + 2);
    }
    let m = generate::bench_sphere(4);
    assert_closed("bench_sphere", &m);
    assert!(m.signed_volume() > 0.0, "faces point outward");
    assert_eq!(m, generate::bench_sphere(4));
    assert_ne!(m, generate::displaced_sphere(1.0, 4, 0.3, 2));
    // Radial displacement within ±amplitude, and really not a sphere.
    let radii: Vec<f32> = m.points().iter().map(|p| p.length()).collect();
    let (lo, hi) = radii
        .iter()
        .fold((f32::MAX, 0.0f32), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    assert!(lo > 0.7 && hi < 1.3, "radii {lo}..{hi}");
    assert!(hi - lo > 0.15, "too smooth: radii {lo}..{hi}");
    // Amplitude 0 is the icosphere.
    let flat = generate::displaced_sphere(2.0, 2, 0.0, 9);
    assert_eq!(flat.indices(), generate::icosphere(2.0, 2).indices());
    assert!(
        flat.points()
            .iter()
            .all(|p| (p.length() - 2.0).abs() < 1e-5)
    );
}
