//! Inside/outside by winding number on closed meshes, and the fast approximation's
//! error against exact summation.

mod common;

use common::{Rng, RngExt};
use glam::Vec3;
use weft_geom::{MeshBvh, brute_force, generate};

#[test]
fn fast_winding_number_is_close_to_exact() {
    let mut rng = Rng::new(20);
    let (mut worst2, mut worst4, mut sum2, mut n): (f32, f32, f32, f32) = (0.0, 0.0, 0.0, 0.0);
    for mesh in [
        generate::icosphere(1.0, 3),
        generate::torus(1.0, 0.3, 48, 24),
        generate::torus_knot(2, 3, 1.0, 0.15, 128, 12),
        generate::terrain(2.0, 16, 0.5, 9),
    ] {
        let bvh = MeshBvh::new(mesh);
        for _ in 0..150 {
            let p = rng.vec3(-2.0, 2.0);
            let exact = brute_force::winding_number_exact(bvh.mesh(), p);
            let exact_tree = bvh.winding_number_with(p, f32::INFINITY);
            assert!(
                (exact_tree - exact).abs() < 1e-4,
                "β = ∞ is exact: {exact_tree} vs {exact}"
            );
            let e2 = (bvh.winding_number(p) - exact).abs();
            worst2 = worst2.max(e2);
            sum2 += e2;
            n += 1.0;
            worst4 = worst4.max((bvh.winding_number_with(p, 4.0) - exact).abs());
        }
    }
    println!(
        "|fast - exact|: β = 2 mean {:.1e} worst {worst2:.1e}; β = 4 worst {worst4:.1e}",
        sum2 / n
    );
    assert!(
        worst2 < 0.05 && sum2 / n < 3e-3,
        "β = 2: worst {worst2}, mean {}",
        sum2 / n
    );
    assert!(worst4 < 0.01, "β = 4: worst {worst4}");
}

#[test]
fn sign_is_right_inside_and_outside_icosphere() {
    let mut rng = Rng::new(21);
    let s = MeshBvh::new(generate::icosphere(1.0, 3));
    let mut checked = 0;
    for _ in 0..3000 {
        let p = rng.vec3(-1.6, 1.6);
        let r = p.length();
        // The inscribed polyhedron lies between radius 0.99 and 1.
        if (0.97..1.03).contains(&r) {
            continue;
        }
        let q = s.closest_point_signed(p, f32::INFINITY).unwrap();
        assert_eq!(q.inside, r < 1.0, "p = {p}, w = {}", q.winding_number);
        assert!((q.signed_distance() - (r - 1.0)).abs() < 0.02, "{p}");
        checked += 1;
    }
    assert!(checked > 2000);
}

#[test]
fn sign_is_right_inside_and_outside_torus_and_knot_and_box() {
    let mut rng = Rng::new(22);
    let (big, small) = (1.0, 0.3);
    let t = MeshBvh::new(generate::torus(big, small, 64, 32));
    let tube_dist = |p: Vec3| {
        let ring = (p.x * p.x + p.y * p.y).sqrt() - big;
        (ring * ring + p.z * p.z).sqrt()
    };
    for _ in 0..2000 {
        let p = rng.vec3(-1.5, 1.5) * Vec3::new(1.0, 1.0, 0.4);
        let d = tube_dist(p);
        if (d - small).abs() < 0.02 {
            continue;
        }
        let q = t.closest_point_signed(p, f32::INFINITY).unwrap();
        assert_eq!(
            q.inside,
            d < small,
            "torus p = {p}, w = {}",
            q.winding_number
        );
    }
    // Knot: points on the tube's centre curve are inside, points 2·tube away outside.
    let k = MeshBvh::new(generate::torus_knot(2, 3, 1.0, 0.15, 256, 16));
    for i in 0..200 {
        let phi = std::f32::consts::TAU * i as f32 / 200.0;
        let w = 1.0 + 0.5 * (3.0 * phi).cos();
        let c = Vec3::new(
            w * (2.0 * phi).cos(),
            w * (2.0 * phi).sin(),
            0.5 * (3.0 * phi).sin(),
        );
        assert!(
            k.closest_point_signed(c, f32::INFINITY).unwrap().inside,
            "knot centre {i}"
        );
        let out = c * 1.3 + Vec3::Z * 0.5;
        if brute_force::closest_point(k.mesh(), out, 0.05).is_none() {
            assert!(
                !k.closest_point_signed(out, f32::INFINITY).unwrap().inside,
                "knot outside {i}"
            );
        }
    }
    let b = MeshBvh::new(generate::cuboid(Vec3::new(0.5, 1.0, 1.5)));
    for _ in 0..1000 {
        let p = rng.vec3(-2.0, 2.0);
        let inside = p.abs().cmplt(Vec3::new(0.5, 1.0, 1.5)).all();
        let margin = (p.abs() - Vec3::new(0.5, 1.0, 1.5)).abs().min_element();
        if margin < 1e-3 {
            continue;
        }
        assert_eq!(
            b.closest_point_signed(p, f32::INFINITY).unwrap().inside,
            inside,
            "box {p}"
        );
    }
}

#[test]
fn winding_number_follows_refit() {
    let mut s = MeshBvh::new(generate::icosphere(1.0, 2));
    let p = Vec3::new(1.5, 0.0, 0.0);
    assert!(s.winding_number(p).abs() < 0.05);
    for q in s.points_mut() {
        *q *= 2.0;
    }
    s.refit();
    assert!((s.winding_number(p) - 1.0).abs() < 0.05);
    let exact = brute_force::winding_number_exact(s.mesh(), p);
    assert!((s.winding_number_with(p, f32::INFINITY) - exact).abs() < 1e-4);
}
