//! Ray, closest-point and box queries on random and generated meshes equal the
//! brute-force answers.

mod common;

use common::{Rng, RngExt, random_grid, random_soup};
use glam::Vec3;
use weft_geom::{Mesh, MeshBvh, brute_force, generate};

fn meshes() -> Vec<(&'static str, Mesh)> {
    let mut rng = Rng::new(10);
    vec![
        ("soup", random_soup(&mut rng, 1500)),
        ("grid", random_grid(&mut rng, 24)),
        ("icosphere", generate::icosphere(1.0, 3)),
        ("torus", generate::torus(0.8, 0.3, 40, 20)),
        ("knot", generate::torus_knot(2, 3, 1.0, 0.15, 96, 12)),
        ("box", generate::cuboid(Vec3::new(0.5, 0.7, 0.9))),
        ("terrain", generate::terrain(2.0, 24, 0.4, 3)),
        ("bumpy sphere", generate::bench_sphere(3)),
    ]
}

#[test]
fn rays_match_brute_force() {
    let mut rng = Rng::new(11);
    let mut hits = 0;
    for (name, mesh) in meshes() {
        let bvh = MeshBvh::new(mesh);
        for i in 0..500 {
            let origin = rng.vec3(-2.0, 2.0);
            // Half the rays aim at a vertex (through shared edges and corners).
            let dir = if i % 2 == 0 {
                let pts = bvh.mesh().points();
                (pts[rng.below(pts.len())] - origin) * rng.range(0.5, 2.0)
            } else {
                rng.dir()
            };
            let max_t = if i % 5 == 0 {
                rng.range(0.0, 2.0)
            } else {
                f32::INFINITY
            };
            let got = bvh.ray(origin, dir, max_t);
            let want = brute_force::ray(bvh.mesh(), origin, dir, max_t);
            match (got, want) {
                (Some(g), Some(w)) => {
                    hits += 1;
                    assert_eq!(
                        g.face, w.face,
                        "{name}: ray {i} {g:?} {w:?} o={origin:?} d={dir:?}"
                    );
                    assert!(
                        (g.t - w.t).abs() <= 1e-5 * w.t.max(1e-3),
                        "{name}: {} vs {}",
                        g.t,
                        w.t
                    );
                    assert_eq!(g, w, "{name}: ray {i}");
                    assert!(g.u >= 0.0 && g.v >= 0.0 && g.u + g.v <= 1.0 + 1e-6);
                    let p = origin + dir * g.t;
                    let [a, b, c] = bvh.mesh().triangle(g.face as usize);
                    let q = a * g.u + b * g.v + c * (1.0 - g.u - g.v);
                    assert!(
                        (p - q).length() < 1e-4 * (1.0 + p.length()),
                        "{name}: {p} vs {q}"
                    );
                    assert_eq!(g.sign > 0.0, dir.dot(g.normal) < 0.0, "{name}: sign");
                }
                (g, w) => assert_eq!(g, w, "{name}: ray {i}"),
            }
            assert_eq!(bvh.ray_any(origin, dir, max_t), want.is_some());
        }
    }
    assert!(hits > 1000, "too few hits to mean anything: {hits}");
}

#[test]
fn closest_points_match_brute_force() {
    let mut rng = Rng::new(12);
    for (name, mesh) in meshes() {
        let bvh = MeshBvh::new(mesh);
        for i in 0..400 {
            let p = if i % 4 == 0 {
                // On or near a vertex / the surface.
                let pts = bvh.mesh().points();
                pts[rng.below(pts.len())] + rng.vec3(-1e-3, 1e-3) * (i % 8) as f32
            } else {
                rng.vec3(-2.5, 2.5)
            };
            let max_dist = if i % 3 == 0 {
                rng.range(0.0, 0.5)
            } else {
                f32::INFINITY
            };
            let got = bvh.closest_point(p, max_dist);
            let want = brute_force::closest_point(bvh.mesh(), p, max_dist);
            match (got, want) {
                (Some(g), Some(w)) => {
                    assert!(
                        (g.distance - w.distance).abs() <= 1e-6 * (1.0 + w.distance),
                        "{name}"
                    );
                    if g.face != w.face {
                        // Only a tie may pick another face.
                        let other = brute_force::closest_point(bvh.mesh(), p, g.distance).unwrap();
                        assert!(
                            (other.distance - g.distance).abs() < 1e-6,
                            "{name}: face differs"
                        );
                    }
                    assert_eq!(g, w, "{name}: point {i} (ties break to the smaller face)");
                    assert!((g.point - p).length() - g.distance < 1e-5);
                    assert!(g.distance <= max_dist);
                }
                (g, w) => assert_eq!(g, w, "{name}: point {i}"),
            }
        }
    }
}

#[test]
fn box_queries_match_brute_force() {
    let mut rng = Rng::new(13);
    for (name, mesh) in meshes() {
        let bvh = MeshBvh::new(mesh);
        for _ in 0..300 {
            let c = rng.vec3(-2.0, 2.0);
            let e = rng.vec3(0.0, 0.4) * rng.f32();
            let mut got: Vec<u32> = bvh.aabb_query(c - e, c + e).collect();
            got.sort_unstable();
            let len = got.len();
            got.dedup();
            assert_eq!(got.len(), len, "{name}: duplicates");
            assert_eq!(
                got,
                brute_force::aabb_query(bvh.mesh(), c - e, c + e),
                "{name}"
            );
        }
        // Inverted box: nothing.
        assert_eq!(bvh.aabb_query(Vec3::ONE, Vec3::ZERO).count(), 0);
    }
}

/// Rays with zero direction components (the slab test's special case) and origins on
/// vertex coordinates, so they run exactly in box faces and along edges.
#[test]
fn axis_parallel_rays_match_brute_force() {
    let mut rng = Rng::new(14);
    let dirs = [
        Vec3::X,
        -Vec3::X,
        Vec3::Y,
        -Vec3::Y,
        Vec3::Z,
        -Vec3::Z,
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(0.0, -1.0, 1.0),
        Vec3::new(1.0, 0.0, -2.0),
        Vec3::new(1.0, 1e-30, 0.5),
    ];
    let mut hits = 0;
    for (name, mesh) in meshes() {
        let bvh = MeshBvh::new(mesh);
        let pts = bvh.mesh().points();
        for i in 0..200 {
            let dir = dirs[i % dirs.len()];
            let v = pts[rng.below(pts.len())];
            // Origin on a vertex's coordinates along the zero axes, backed off along dir.
            let origin = if i % 3 == 0 {
                v - dir * 3.0
            } else {
                rng.vec3(-2.0, 2.0)
            };
            let got = bvh.ray(origin, dir, f32::INFINITY);
            let want = brute_force::ray(bvh.mesh(), origin, dir, f32::INFINITY);
            assert_eq!(got, want, "{name}: ray {i} o={origin:?} d={dir:?}");
            hits += got.is_some() as usize;
        }
    }
    assert!(hits > 300, "too few hits to mean anything: {hits}");
}

/// After the points move, the leaf-ordered triangles and boxes follow them.
#[test]
fn queries_after_refit_match_brute_force() {
    let mut rng = Rng::new(15);
    let mut bvh = MeshBvh::new(generate::bench_sphere(3));
    let moved: Vec<Vec3> = bvh
        .mesh()
        .points()
        .iter()
        .map(|&p| p * Vec3::new(1.5, 0.7, 1.0) + Vec3::new(0.3, 0.0, -0.2))
        .collect();
    bvh.set_points(&moved).unwrap();
    for (slot, &f) in bvh.bvh().prim_indices().iter().enumerate() {
        assert_eq!(bvh.leaf_triangles()[slot], bvh.mesh().triangle(f as usize));
    }
    for i in 0..300 {
        let origin = rng.vec3(-2.0, 2.0);
        let dir = rng.dir();
        let got = bvh.ray(origin, dir, f32::INFINITY);
        assert_eq!(
            got,
            brute_force::ray(bvh.mesh(), origin, dir, f32::INFINITY),
            "ray {i}"
        );
        let max_dist = if i % 2 == 0 { 0.3 } else { f32::INFINITY };
        assert_eq!(
            bvh.closest_point(origin, max_dist),
            brute_force::closest_point(bvh.mesh(), origin, max_dist),
            "point {i}"
        );
    }
}

/// Host-only query data derived from the triangles (the 4-wide tree's boxes, the leaf
/// cylinders built on the first closest-point query) is refreshed by a refit: queries
/// made before and after moving the points both match brute force.
#[test]
fn host_query_data_follows_refit() {
    let mut rng = Rng::new(16);
    let mut bvh = MeshBvh::new(generate::bench_sphere(3));
    for round in 0..3 {
        for i in 0..150 {
            let p = rng.vec3(-2.0, 2.0);
            let max_dist = if i % 2 == 0 { 0.3 } else { f32::INFINITY };
            assert_eq!(
                bvh.closest_point(p, max_dist),
                brute_force::closest_point(bvh.mesh(), p, max_dist),
                "round {round}, point {i}"
            );
            let dir = rng.dir();
            assert_eq!(
                bvh.ray(p, dir, f32::INFINITY),
                brute_force::ray(bvh.mesh(), p, dir, f32::INFINITY),
                "round {round}, ray {i}"
            );
        }
        // Shear and shift: every leaf's patch turns and moves.
        for q in bvh.points_mut() {
            *q = Vec3::new(q.x + 0.4 * q.z, q.y * 0.6, q.z - 0.3 * q.x) + Vec3::new(0.2, -0.1, 0.3);
        }
        bvh.refit();
    }
}

/// Query points for the batch tests: clusters of near neighbours (so each query's
/// starting bound comes from a close one), points on vertices, exact duplicates,
/// uniform points, and non-finite ones.
fn batch_points(rng: &mut Rng, mesh: &weft_geom::Mesh, n: usize) -> Vec<Vec3> {
    let pts = mesh.points();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        match out.len() % 10 {
            0..=3 => {
                let c = rng.vec3(-2.0, 2.0);
                let spread = [1e-4, 1e-2, 0.2][rng.below(3)];
                out.extend((0..8).map(|_| c + rng.vec3(-spread, spread)));
            }
            4 => out.push(pts[rng.below(pts.len())]),
            5 => {
                let v = pts[rng.below(pts.len())];
                out.extend([v, v + rng.vec3(-1e-3, 1e-3), v]);
            }
            6 if !out.is_empty() => out.push(out[rng.below(out.len())]),
            7 if out.len() % 70 == 7 => out.push([Vec3::NAN, Vec3::INFINITY][rng.below(2)]),
            _ => out.push(rng.vec3(-2.5, 2.5)),
        }
    }
    out.truncate(n);
    out
}

/// The batch closest-point queries (sorted along a Morton curve, each starting from the
/// previous answer's distance) give exactly the brute-force answers, in the caller's
/// order, bounded and unbounded, signed and unsigned.
#[test]
fn batch_closest_points_match_brute_force() {
    let mut rng = Rng::new(17);
    for (name, mesh) in meshes() {
        let bvh = MeshBvh::new(mesh);
        let points = batch_points(&mut rng, bvh.mesh(), 1200);
        for max_dist in [0.0, 0.05, 0.4, f32::INFINITY] {
            let got = bvh.closest_points(&points, max_dist);
            assert_eq!(got.len(), points.len());
            for (i, (&p, g)) in points.iter().zip(&got).enumerate() {
                let want = brute_force::closest_point(bvh.mesh(), p, max_dist);
                assert_eq!(*g, want, "{name}: point {i} {p}, max_dist {max_dist}");
            }
            let signed = bvh.closest_points_signed(&points, max_dist);
            for (i, (&p, s)) in points.iter().zip(&signed).enumerate() {
                assert_eq!(*s, bvh.closest_point_signed(p, max_dist), "{name}: {i}");
            }
        }
    }
    let empty = MeshBvh::new(weft_geom::Mesh::empty());
    assert_eq!(empty.closest_points(&[Vec3::ZERO], 1.0), vec![None]);
    assert!(empty.closest_points(&[], 1.0).is_empty());
}

/// Rays for the packet tests: bundles from one eye through nearby directions (a camera's
/// pixel blocks), bundles aimed at vertices (shared edges and corners), axis-parallel,
/// zero and non-finite directions, and scattered rays.
fn batch_rays(rng: &mut Rng, mesh: &weft_geom::Mesh, n: usize) -> Vec<(Vec3, Vec3)> {
    let pts = mesh.points();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        match out.len() % 9 {
            0..=3 => {
                let eye = rng.vec3(-3.0, 3.0);
                let towards = rng.vec3(-0.5, 0.5) - eye;
                let spread = [1e-4, 1e-2, 0.2][rng.below(3)];
                out.extend((0..16).map(|_| (eye, towards + rng.vec3(-spread, spread))));
            }
            4 => {
                let eye = rng.vec3(-2.0, 2.0);
                out.extend((0..5).map(|_| (eye, pts[rng.below(pts.len())] - eye)));
            }
            5 => {
                let axis = [Vec3::X, -Vec3::Y, Vec3::Z][rng.below(3)];
                out.push((rng.vec3(-2.0, 2.0), axis));
            }
            6 if out.len() % 45 == 6 => {
                let bad = [Vec3::ZERO, Vec3::NAN, Vec3::INFINITY][rng.below(3)];
                out.push((rng.vec3(-2.0, 2.0), bad));
            }
            _ => out.push((rng.vec3(-2.0, 2.0), rng.dir())),
        }
    }
    out.truncate(n);
    out
}

/// The packet ray queries (`rays_into`, `rays`) give exactly the brute-force answers,
/// with and without a limit on `t`.
#[test]
fn batch_rays_match_brute_force() {
    let mut rng = Rng::new(19);
    let mut hits = 0;
    for (name, mesh) in meshes() {
        let bvh = MeshBvh::new(mesh);
        let rays = batch_rays(&mut rng, bvh.mesh(), 1500);
        for max_t in [0.0, 0.7, f32::INFINITY] {
            let got = bvh.rays(&rays, max_t);
            assert_eq!(got.len(), rays.len());
            let mut serial = vec![None; rays.len()];
            bvh.rays_into(&rays, max_t, &mut serial);
            assert_eq!(got, serial, "{name}");
            for (i, (&(o, d), g)) in rays.iter().zip(&got).enumerate() {
                let want = brute_force::ray(bvh.mesh(), o, d, max_t);
                assert_eq!(*g, want, "{name}: ray {i} o={o} d={d}, max_t {max_t}");
                hits += g.is_some() as usize;
            }
        }
    }
    assert!(hits > 3000, "too few hits to mean anything: {hits}");
    let empty = MeshBvh::new(weft_geom::Mesh::empty());
    assert_eq!(empty.rays(&[(Vec3::ZERO, Vec3::X)], 1.0), vec![None]);
    assert!(empty.rays(&[], 1.0).is_empty());
}
