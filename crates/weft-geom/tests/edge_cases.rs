//! Queries on awkward input answer without NaN or panic.

use glam::Vec3;
use weft_geom::{Mesh, MeshBvh, brute_force, generate};

fn finite_hit(h: &weft_geom::RayHit) -> bool {
    h.t.is_finite() && h.u.is_finite() && h.v.is_finite() && h.normal.is_finite()
}

#[test]
fn rays_through_every_vertex_and_edge_of_closed_meshes_never_slip_through() {
    for mesh in [
        generate::icosphere(1.0, 2),
        generate::cuboid(Vec3::ONE),
        generate::torus(1.0, 0.4, 24, 12),
    ] {
        let bvh = MeshBvh::new(mesh);
        let m = bvh.mesh();
        // From the centre of each face's inside, aim at its corners and edge midpoints.
        for f in 0..m.num_faces() {
            let [a, b, c] = m.triangle(f);
            let inside = (a + b + c) / 3.0 - m.face_normal(f) * 0.05;
            for target in [a, b, c, (a + b) * 0.5, (b + c) * 0.5, (c + a) * 0.5] {
                let hit = bvh.ray(inside, target - inside, f32::INFINITY);
                let hit =
                    hit.unwrap_or_else(|| panic!("ray from {inside} to {target} slipped through"));
                assert!(
                    finite_hit(&hit) && hit.t > 0.0 && hit.t <= 1.0 + 1e-5,
                    "{hit:?}"
                );
                assert_eq!(hit.sign, -1.0, "hit from inside is a back-face hit");
            }
        }
    }
}

#[test]
fn ray_along_an_edge() {
    // In the plane of a flat grid, along a grid line: coplanar with every triangle.
    let plane = MeshBvh::new(generate::plane(2.0, 2.0, 4, 4));
    assert_eq!(
        plane.ray(Vec3::new(-3.0, 0.0, 0.0), Vec3::X, f32::INFINITY),
        None
    );
    assert_eq!(
        plane.ray(
            Vec3::new(-3.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            f32::INFINITY
        ),
        None
    );
    // Grazing a box along one of its edges.
    let cube = MeshBvh::new(generate::cuboid(Vec3::ONE));
    for dir in [Vec3::X, Vec3::new(1.0, 1e-7, 0.0)] {
        let got = cube.ray(Vec3::new(-3.0, 1.0, 1.0), dir, f32::INFINITY);
        assert_eq!(
            got,
            brute_force::ray(cube.mesh(), Vec3::new(-3.0, 1.0, 1.0), dir, f32::INFINITY)
        );
        if let Some(h) = got {
            assert!(finite_hit(&h));
        }
    }
}

#[test]
fn zero_or_non_finite_ray_is_none() {
    let s = MeshBvh::new(generate::icosphere(1.0, 1));
    assert_eq!(s.ray(Vec3::ZERO, Vec3::ZERO, f32::INFINITY), None);
    assert_eq!(s.ray(Vec3::NAN, Vec3::X, f32::INFINITY), None);
    assert_eq!(
        s.ray(
            Vec3::ZERO,
            Vec3::new(f32::INFINITY, 0.0, 0.0),
            f32::INFINITY
        ),
        None
    );
    assert_eq!(s.ray(Vec3::ZERO, Vec3::X, -1.0), None);
    assert_eq!(s.ray(Vec3::ZERO, Vec3::X, f32::NAN), None);
    assert!(!s.ray_any(Vec3::ZERO, Vec3::ZERO, f32::INFINITY));
    // Tiny and huge directions still work; t scales with 1/|dir|.
    let h = s.ray(Vec3::ZERO, Vec3::X * 1e-20, f32::INFINITY).unwrap();
    assert!(finite_hit(&h) && (h.t * 1e-20 - 1.0).abs() < 0.1);
}

#[test]
fn point_on_a_vertex_and_on_the_surface() {
    let s = MeshBvh::new(generate::icosphere(1.0, 2));
    for (i, &p) in s.mesh().points().iter().enumerate() {
        let q = s.closest_point(p, f32::INFINITY).unwrap();
        assert_eq!(q.distance, 0.0, "vertex {i}");
        assert_eq!(q.point, p);
        let signed = s.closest_point_signed(p, f32::INFINITY).unwrap();
        assert!(signed.winding_number.is_finite());
    }
    assert_eq!(
        s.closest_point(Vec3::ZERO, 0.5),
        None,
        "max_dist excludes everything"
    );
    assert_eq!(s.closest_point(Vec3::NAN, f32::INFINITY), None);
    assert_eq!(s.closest_point(Vec3::ZERO, -1.0), None);
}

#[test]
fn degenerate_triangles_are_handled() {
    let points = vec![
        Vec3::ZERO,
        Vec3::X,
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::Y,
        Vec3::new(0.0, 0.0, 1.0),
    ];
    // Collinear, repeated corner, all-same and one proper triangle.
    let mesh = Mesh::new(points, vec![[0, 1, 2], [0, 0, 3], [4, 4, 4], [0, 1, 3]]).unwrap();
    let bvh = MeshBvh::new(mesh);
    for p in [
        Vec3::new(1.5, 0.5, 0.5),
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(3.0, 0.0, 0.0),
        Vec3::new(0.5, -1.0, 0.0),
    ] {
        let q = bvh.closest_point(p, f32::INFINITY).unwrap();
        assert!(q.point.is_finite() && q.u.is_finite() && q.v.is_finite());
        assert_eq!(
            Some(q),
            brute_force::closest_point(bvh.mesh(), p, f32::INFINITY)
        );
        assert!(bvh.winding_number(p).is_finite());
    }
    // A ray down the collinear "triangle" hits only the proper one.
    let h = bvh
        .ray(Vec3::new(0.25, 0.25, 1.0), -Vec3::Z, f32::INFINITY)
        .unwrap();
    assert_eq!(h.face, 3);
    assert_eq!(
        bvh.ray(Vec3::new(1.5, 0.0, 1.0), -Vec3::Z, f32::INFINITY),
        None
    );
    assert_eq!(
        bvh.aabb_query(Vec3::splat(-0.1), Vec3::splat(0.1)).count(),
        3
    );
}

#[test]
fn empty_mesh_answers_nothing() {
    let e = MeshBvh::new(Mesh::empty());
    assert_eq!(e.ray(Vec3::ZERO, Vec3::X, f32::INFINITY), None);
    assert_eq!(e.closest_point(Vec3::ZERO, f32::INFINITY), None);
    assert_eq!(e.closest_point_signed(Vec3::ZERO, f32::INFINITY), None);
    assert_eq!(e.aabb_query(Vec3::splat(-1.0), Vec3::ONE).count(), 0);
    assert_eq!(e.winding_number(Vec3::ZERO), 0.0);
    let mut e = e;
    e.refit();
    e.set_points(&[]).unwrap();
}
