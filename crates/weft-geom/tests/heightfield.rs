//! Height fields: exact on planes, consistent with rays cast at their mesh, and bad
//! input refused.

mod common;

use common::Rng;
use glam::{Vec2, Vec3};
use weft_geom::{GeomError, HeightField, MeshBvh};

fn sampled(nx: usize, ny: usize, spacing: Vec2, f: impl Fn(f32, f32) -> f32) -> HeightField {
    let (cx, cy) = ((nx - 1) as f32 / 2.0, (ny - 1) as f32 / 2.0);
    let heights = (0..ny)
        .flat_map(|j| (0..nx).map(move |i| (i, j)))
        .map(|(i, j)| f((i as f32 - cx) * spacing.x, (j as f32 - cy) * spacing.y))
        .collect();
    HeightField::new(nx, ny, spacing, heights).unwrap()
}

#[test]
fn a_tilted_plane_is_reproduced_exactly() {
    let plane = |x: f32, y: f32| 0.3 * x - 0.2 * y + 1.0;
    let hf = sampled(7, 4, Vec2::new(0.5, 0.25), plane);
    let aabb = hf.aabb();
    assert_eq!(aabb.lower.truncate(), Vec2::new(-1.5, -0.375));
    assert_eq!(aabb.upper.truncate(), Vec2::new(1.5, 0.375));
    assert!((aabb.lower.z - plane(-1.5, 0.375)).abs() < 1e-6);
    assert!((aabb.upper.z - plane(1.5, -0.375)).abs() < 1e-6);
    let n = Vec3::new(-0.3, 0.2, 1.0).normalize();
    let mut rng = Rng::new(4);
    for _ in 0..500 {
        let (x, y) = (rng.range(-1.5, 1.5), rng.range(-0.375, 0.375));
        assert!((hf.height_at(x, y).unwrap() - plane(x, y)).abs() < 1e-5);
        assert!((hf.normal_at(x, y).unwrap() - n).length() < 1e-5);
    }
    // The edges are inside; beyond them is not.
    assert!(hf.height_at(1.5, 0.375).is_some());
    for (x, y) in [(1.51, 0.0), (0.0, -0.4), (f32::NAN, 0.0)] {
        assert_eq!(hf.height_at(x, y), None);
        assert_eq!(hf.normal_at(x, y), None);
    }
}

#[test]
fn heights_interpolate_linearly_on_each_triangle() {
    // A saddle: bilinear in each cell, so the diagonal split matters. On the
    // diagonal from (i, j) to (i+1, j+1), the height is the mean of those corners.
    let hf = sampled(3, 3, Vec2::ONE, |x, y| x * y + x);
    let [t0, t1] = hf.cell_triangles(0, 0);
    assert_eq!(t0[0], Vec3::new(-1.0, -1.0, 0.0));
    assert_eq!(t0[2], Vec3::new(0.0, 0.0, 0.0));
    assert_eq!(t1[2], Vec3::new(-1.0, 0.0, -1.0));
    assert_eq!(hf.height_at(-0.5, -0.5), Some(0.0));
    // Below the diagonal, on [p00, p10, p11], all three 0: h = 0 (the bilinear
    // surface through the samples would give -0.0625 here).
    assert_eq!(hf.height_at(-0.25, -0.75), Some(0.0));
    // Above it, on [p00, p11, p01] with p01 = -1: h = 0 + 0.75 (-1) + 0.25 (0 + 1).
    assert!((hf.height_at(-0.75, -0.25).unwrap() + 0.5).abs() < 1e-6);
    // At samples, the samples.
    for (x, y) in [(-1.0, -1.0), (0.0, 1.0), (1.0, 1.0), (1.0, -1.0)] {
        assert_eq!(hf.height_at(x, y), Some(x * y + x));
    }
}

#[test]
fn height_and_normal_agree_with_rays_cast_at_the_mesh() {
    let f = |x: f32, y: f32| (1.3 * x).sin() * (0.7 * y).cos() + 0.1 * x * y;
    let hf = sampled(33, 21, Vec2::new(0.2, 0.3), f);
    let mesh = hf.to_mesh();
    assert_eq!(mesh.num_faces(), 2 * 32 * 20);
    assert_eq!(mesh.aabb(), hf.aabb());
    // Cell (i, j)'s triangles are faces 2 (j (nx − 1) + i) and the next.
    for (i, j) in [(0, 0), (5, 3), (31, 19)] {
        let f0 = 2 * (j * 32 + i);
        assert_eq!(
            hf.cell_triangles(i, j),
            [mesh.triangle(f0), mesh.triangle(f0 + 1)]
        );
    }
    let bvh = MeshBvh::new(mesh);
    let mut rng = Rng::new(8);
    for _ in 0..1000 {
        let (x, y) = (rng.range(-3.2, 3.2), rng.range(-3.0, 3.0));
        let hit = bvh
            .ray(Vec3::new(x, y, 10.0), Vec3::NEG_Z, f32::INFINITY)
            .unwrap();
        let h = hf.height_at(x, y).unwrap();
        assert!(
            (10.0 - hit.t - h).abs() < 1e-4,
            "at ({x}, {y}): {h} vs {}",
            10.0 - hit.t
        );
        let n = hf.normal_at(x, y).unwrap();
        assert!(n.z > 0.0 && (n - hit.normal.normalize()).length() < 1e-3);
    }
}

#[test]
fn bad_input_names_its_problem() {
    let err = |nx, ny, s, h: Vec<f32>| HeightField::new(nx, ny, s, h).unwrap_err();
    let e = err(1, 3, Vec2::ONE, vec![0.0; 3]);
    assert!(
        matches!(e, GeomError::InvalidParameter { name: "nx", .. }),
        "{e}"
    );
    let e = err(3, 0, Vec2::ONE, vec![]);
    assert!(
        matches!(e, GeomError::InvalidParameter { name: "ny", .. }),
        "{e}"
    );
    let e = err(3, 3, Vec2::ONE, vec![0.0; 8]);
    assert!(
        matches!(
            e,
            GeomError::LengthMismatch {
                got: 8,
                expected: 9,
                ..
            }
        ),
        "{e}"
    );
    let e = err(3, 3, Vec2::new(1.0, 0.0), vec![0.0; 9]);
    assert!(
        matches!(
            e,
            GeomError::InvalidParameter {
                name: "spacing",
                ..
            }
        ),
        "{e}"
    );
    let mut h = vec![0.0; 9];
    h[5] = f32::INFINITY;
    let e = err(3, 3, Vec2::ONE, h);
    assert!(e.to_string().contains("i = 2, j = 1"), "{e}");
    let e = err(1 << 20, 1 << 20, Vec2::ONE, vec![]);
    assert!(matches!(e, GeomError::TooLarge { .. }), "{e}");
}
