//! Convex hulls: known shapes, the defining properties on random clouds, degenerate
//! input refused with the error that names it.

mod common;

use std::collections::HashMap;

use common::{Rng, RngExt};
use glam::Vec3;
use proptest::prelude::*;
use weft_geom::{ConvexHull, GeomError};

fn box_corners(h: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            let s = |bit: u32| if i & (1 << bit) != 0 { 1.0 } else { -1.0 };
            Vec3::new(s(0), s(1), s(2)) * h
        })
        .collect()
}

/// Checks every structural and geometric property of a hull of `points`.
fn check_hull(hull: &ConvexHull, points: &[Vec3]) {
    let eps = hull.tolerance() * 4.0 + 1e-6;
    let (v, t, f) = (hull.vertices(), hull.triangles(), hull.faces());
    // Closed 2-manifold: every directed edge once, its reverse once.
    let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
    for tri in t {
        for k in 0..3 {
            *directed.entry((tri[k], tri[(k + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &n) in &directed {
        assert_eq!(n, 1, "edge {a}-{b} used {n} times in one direction");
        assert_eq!(directed.get(&(b, a)), Some(&1), "edge {a}-{b} has no twin");
    }
    let edges = directed.len() / 2;
    assert_eq!(
        v.len() as i64 - edges as i64 + t.len() as i64,
        2,
        "Euler (triangles)"
    );
    assert_eq!(
        v.len() as i64 - hull.edges().len() as i64 + f.len() as i64,
        2,
        "Euler (polygon faces)"
    );
    // Every input point inside every face plane; every vertex an input point.
    for face in f {
        assert!((face.normal.length() - 1.0).abs() < 1e-5);
        for p in points {
            let d = face.normal.dot(*p) - face.offset;
            assert!(d <= eps, "point {p} is {d} outside face {face:?}");
        }
        // The polygon's vertices lie on its plane, and it is convex and turns
        // counter-clockwise about the outward normal.
        let n = face.vertices.len();
        for k in 0..n {
            let [a, b, c] = [k, (k + 1) % n, (k + 2) % n].map(|i| v[face.vertices[i] as usize]);
            assert!((face.normal.dot(a) - face.offset).abs() <= eps);
            let turn = (b - a).cross(c - b).dot(face.normal) / (b - a).length();
            assert!(turn > -eps, "face {face:?} is not convex/CCW at corner {k}");
        }
    }
    for p in v {
        assert!(points.contains(p), "hull vertex {p} is not an input point");
    }
    // Outward orientation: every triangle lies in a face and turns the same way as
    // its outward normal, and the enclosed volume is positive. (Outward faces: every
    // point is inside every face plane, checked above.)
    let centroid = v.iter().copied().sum::<Vec3>() / v.len() as f32;
    let mut volume = 0.0;
    for tri in t {
        let face = f
            .iter()
            .find(|face| tri.iter().all(|i| face.vertices.contains(i)))
            .unwrap_or_else(|| panic!("triangle {tri:?} lies in no face"));
        let [a, b, c] = tri.map(|i| v[i as usize]);
        assert!(
            (b - a).cross(c - a).dot(face.normal) > 0.0,
            "{tri:?} faces in"
        );
        volume += (a - centroid).dot((b - centroid).cross(c - centroid)) as f64 / 6.0;
    }
    assert!(volume > 0.0);
    // The support point is the furthest input point along a direction.
    for dir in [Vec3::X, Vec3::new(0.3, -1.0, 0.7), Vec3::NEG_Z] {
        let best = points.iter().map(|p| p.dot(dir)).fold(f32::MIN, f32::max);
        assert!((hull.support(dir).dot(dir) - best).abs() <= eps * dir.length());
    }
    assert_eq!(hull.to_mesh().num_faces(), t.len());
}

#[test]
fn box_corners_with_interior_edge_and_face_points_give_the_box() {
    let h = Vec3::new(1.0, 2.0, 0.5);
    let mut points = box_corners(h);
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        points.push(rng.vec3(-1.0, 1.0) * h); // inside
    }
    // On faces and on edges, and duplicates of corners.
    points.push(Vec3::new(1.0, 0.3, 0.1));
    points.push(Vec3::new(0.2, 2.0, 0.5));
    points.push(Vec3::new(-1.0, 0.0, 0.5));
    points.extend(box_corners(h));
    let hull = ConvexHull::new(&points).unwrap();
    check_hull(&hull, &points);
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.triangles().len(), 12);
    assert_eq!(hull.faces().len(), 6);
    assert_eq!(hull.edges().len(), 12);
    let mut normals: Vec<[i32; 3]> = hull
        .faces()
        .iter()
        .map(|f| {
            assert_eq!(f.vertices.len(), 4);
            assert!((f.offset - f.normal.abs().dot(h)).abs() < 1e-6);
            f.normal.round().as_ivec3().to_array()
        })
        .collect();
    normals.sort();
    assert_eq!(
        normals,
        [
            [-1, 0, 0],
            [0, -1, 0],
            [0, 0, -1],
            [0, 0, 1],
            [0, 1, 0],
            [1, 0, 0]
        ]
    );
}

#[test]
fn random_clouds_give_convex_closed_outward_hulls() {
    let mut rng = Rng::new(1);
    for n in [4, 5, 10, 100, 1000, 5000] {
        let points: Vec<Vec3> = (0..n).map(|_| rng.vec3(-2.0, 3.0)).collect();
        let hull = ConvexHull::new(&points).unwrap();
        check_hull(&hull, &points);
    }
}

#[test]
fn points_on_a_sphere_are_all_hull_vertices() {
    let mut rng = Rng::new(3);
    let points: Vec<Vec3> = (0..2000)
        .map(|_| rng.dir() * 1.5 + Vec3::new(10.0, -4.0, 2.0))
        .collect();
    let hull = ConvexHull::new(&points).unwrap();
    check_hull(&hull, &points);
    // Every point on a sphere is a corner (a few nearly coplanar quadruples may
    // merge into quadrilateral faces, so count triangles, not faces).
    assert_eq!(hull.vertices().len(), points.len());
    assert_eq!(hull.triangles().len(), 2 * points.len() - 4);
}

#[test]
fn cylinder_hull_merges_its_caps_into_polygons() {
    let k = 24;
    let mut points = Vec::new();
    for i in 0..k {
        let a = i as f32 / k as f32 * std::f32::consts::TAU;
        for z in [-1.0, 0.0, 1.0] {
            points.push(Vec3::new(a.cos(), a.sin(), z));
        }
    }
    let hull = ConvexHull::new(&points).unwrap();
    check_hull(&hull, &points);
    assert_eq!(hull.vertices().len(), 2 * k);
    // Two k-gon caps and k quads round the side.
    assert_eq!(hull.faces().len(), k + 2);
    let caps = hull
        .faces()
        .iter()
        .filter(|f| f.vertices.len() == k)
        .count();
    assert_eq!(caps, 2);
}

#[test]
fn degenerate_input_names_its_problem() {
    let err = |points: &[Vec3]| ConvexHull::new(points).unwrap_err();
    assert!(matches!(err(&[]), GeomError::NoPoints { .. }));
    assert!(matches!(
        err(&[Vec3::ZERO, Vec3::X, Vec3::Y]),
        GeomError::TooFewPoints { count: 3, .. }
    ));
    let mut with_nan = box_corners(Vec3::ONE);
    with_nan[5].y = f32::NAN;
    let e = err(&with_nan);
    assert!(matches!(e, GeomError::NonFinite { vertex: 5, .. }), "{e:?}");
    assert!(e.to_string().contains("point 5"), "{e}");
    let degenerate = |points: &[Vec3]| match err(points) {
        GeomError::DegenerateHull { degeneracy, .. } => degeneracy,
        other => panic!("expected DegenerateHull, got {other:?}"),
    };
    assert_eq!(degenerate(&[Vec3::ONE; 10]), "coincident");
    let line: Vec<Vec3> = (0..10)
        .map(|i| Vec3::new(1.0, 2.0, 3.0) * i as f32)
        .collect();
    assert_eq!(degenerate(&line), "collinear");
    let mut rng = Rng::new(5);
    let (u, w) = (Vec3::new(1.0, 2.0, 0.5), Vec3::new(-0.3, 0.1, 2.0));
    let plane: Vec<Vec3> = (0..50)
        .map(|_| u * rng.range(-1.0, 1.0) + w * rng.range(-1.0, 1.0) + Vec3::splat(100.0))
        .collect();
    assert_eq!(degenerate(&plane), "coplanar");
    // A tiny thickness relative to the extent is still flat; a real one is not.
    let mut slab = plane.clone();
    slab.push(Vec3::splat(100.0) + u.cross(w).normalize() * 1e-7);
    assert_eq!(degenerate(&slab), "coplanar");
    slab.push(Vec3::splat(100.0) + u.cross(w).normalize() * 0.1);
    check_hull(&ConvexHull::new(&slab).unwrap(), &slab);
}

fn cloud() -> impl Strategy<Value = Vec<Vec3>> {
    // A coarse lattice: many duplicate, collinear and coplanar points.
    let coord = (-4i32..=4).prop_map(|i| i as f32 * 0.25);
    let lattice =
        prop::collection::vec((coord.clone(), coord.clone(), coord), 0..60).prop_map(|v| {
            v.into_iter()
                .map(|(x, y, z)| Vec3::new(x, y, z))
                .collect::<Vec<_>>()
        });
    let free = prop::collection::vec(
        (-1e3f32..1e3, -1e3f32..1e3, -1e-2f32..1e-2).prop_map(|(x, y, z)| Vec3::new(x, y, z)),
        0..60,
    );
    (lattice, free, 0usize..3).prop_map(|(mut a, b, mode)| {
        match mode {
            0 => a.extend(b),
            1 => return b,
            _ => {}
        }
        a
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_cloud_gives_a_valid_hull_or_an_error(points in cloud()) {
        match ConvexHull::new(&points) {
            Ok(hull) => check_hull(&hull, &points),
            Err(e) => prop_assert!(matches!(
                e,
                GeomError::NoPoints { .. }
                    | GeomError::TooFewPoints { .. }
                    | GeomError::DegenerateHull { .. }
            ), "{e}"),
        }
    }
}

#[test]
fn a_rotated_box_with_points_on_its_faces_keeps_six_quads() {
    let q = glam::Quat::from_euler(glam::EulerRot::XYZ, 0.5, -1.2, 2.2);
    let t = Vec3::new(3.0, -7.0, 11.0);
    let h = Vec3::new(0.2, 0.7, 0.4);
    let mut rng = Rng::new(12);
    let mut local = box_corners(h);
    for _ in 0..300 {
        // A random point on a random face (rounded to f32 after rotating).
        let mut p = rng.vec3(-1.0, 1.0);
        let axis = rng.below(3);
        p[axis] = if rng.f32() < 0.5 { -1.0 } else { 1.0 };
        local.push(p * h);
    }
    let points: Vec<Vec3> = local.iter().map(|&p| q * p + t).collect();
    let hull = ConvexHull::new(&points).unwrap();
    check_hull(&hull, &points);
    assert_eq!((hull.vertices().len(), hull.faces().len()), (8, 6));
    assert!(hull.faces().iter().all(|f| f.vertices.len() == 4));
}
