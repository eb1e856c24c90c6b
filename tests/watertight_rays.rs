//! The kernel ray query is watertight: rays aimed exactly at the vertices and
//! edge midpoints of closed meshes, from outside, all hit, at the true first hit,
//! with the host `MeshBvh::ray`'s answer; a grazing ray's hit point is exact to a
//! few ulps; a miss carries no face. On the CPU and, when present, a GPU.

use weft::geom::{DeviceMesh, mesh_eval_position, mesh_query_ray};
use weft::prelude::*;
use weft_geom::{Mesh, MeshBvh, generate};
use weft_testkit::devices::devices;

/// `mesh_query_ray` per ray: face (-1 for none, `-2 - face` for a miss that
/// carries one), `(t, u, v)`, the hit point `o + t d`, and the point at the
/// barycentrics.
#[weft::kernel]
fn first_hits(
    mesh: &DeviceMesh,
    o: &Array<Vec3>,
    d: &Array<Vec3>,
    face: &mut Array<i32>,
    tuv: &mut Array<Vec3>,
    along: &mut Array<Vec3>,
    at_uv: &mut Array<Vec3>,
) {
    let i = tid();
    let hit = mesh_query_ray(mesh, o[i], d[i], 1.0e6);
    face[i] = hit.face;
    if !hit.hit {
        face[i] = -2 - hit.face;
    }
    tuv[i] = Vec3::new(hit.t, hit.u, hit.v);
    along[i] = o[i] + hit.t * d[i];
    at_uv[i] = Vec3::ZERO;
    if hit.hit {
        at_uv[i] = mesh_eval_position(mesh, hit.face, hit.u, hit.v);
    }
}

/// What [`first_hits`] writes, read back.
struct Hits {
    face: Vec<i32>,
    tuv: Vec<Vec3>,
    along: Vec<Vec3>,
    at_uv: Vec<Vec3>,
}

fn run(dm: &DeviceMesh, rays: &[(Vec3, Vec3)]) -> Hits {
    let (dev, n) = (dm.points.device(), rays.len());
    let o: Vec<Vec3> = rays.iter().map(|r| r.0).collect();
    let d: Vec<Vec3> = rays.iter().map(|r| r.1).collect();
    let (o, d) = (Array::from_slice(dev, &o), Array::from_slice(dev, &d));
    let mut face = Array::zeros(dev, [n]);
    let mut tuv = Array::zeros(dev, [n]);
    let mut along = Array::zeros(dev, [n]);
    let mut at_uv = Array::zeros(dev, [n]);
    first_hits::launch(n, dm, &o, &d, &mut face, &mut tuv, &mut along, &mut at_uv).unwrap();
    Hits {
        face: face.to_vec(),
        tuv: tuv.to_vec(),
        along: along.to_vec(),
        at_uv: at_uv.to_vec(),
    }
}

/// Closed meshes, convex and not.
fn closed_meshes() -> Vec<(&'static str, Mesh)> {
    vec![
        ("icosphere", generate::icosphere(1.0, 2)),
        ("torus", generate::torus(1.0, 0.35, 24, 12)),
        ("box", generate::cuboid(Vec3::new(0.7, 0.4, 0.9))),
        (
            "displaced sphere",
            generate::displaced_sphere(1.0, 2, 0.05, 3),
        ),
    ]
}

/// Every vertex and every edge midpoint of `mesh`, each with its outward
/// direction (the normalized sum of the adjacent faces' area normals).
fn targets(mesh: &Mesh) -> Vec<(Vec3, Vec3)> {
    let mut normal = vec![Vec3::ZERO; mesh.num_points()];
    for (f, tri) in mesh.indices().iter().enumerate() {
        let [a, b, c] = mesh.triangle(f);
        let n = (b - a).cross(c - a);
        for &k in tri {
            normal[k as usize] += n;
        }
    }
    let mut out: Vec<(Vec3, Vec3)> = mesh
        .points()
        .iter()
        .zip(&normal)
        .map(|(p, n)| (*p, n.normalize()))
        .collect();
    let mut edges = std::collections::BTreeSet::new();
    for tri in mesh.indices() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            edges.insert((a.min(b), a.max(b)));
        }
    }
    for (a, b) in edges {
        let (pa, pb) = (mesh.points()[a as usize], mesh.points()[b as usize]);
        let n = (normal[a as usize] + normal[b as usize]).normalize();
        out.push(((pa + pb) * 0.5, n));
    }
    out
}

/// Rays aimed exactly at each target (`o + 1 · d` is the target as computed in
/// `f32`) from outside along its outward direction, straight and tilted a little
/// towards the axes, at distances 0.05 and 0.3.
fn aimed_rays(targets: &[(Vec3, Vec3)]) -> Vec<(Vec3, Vec3)> {
    let tilts = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X];
    let mut rays = Vec::new();
    for &(p, n) in targets {
        for tilt in tilts {
            for dist in [0.05, 0.3] {
                let out = (n + 0.15 * tilt).normalize() * dist;
                let o = p + out;
                rays.push((o, p - o));
            }
        }
    }
    rays
}

#[test]
fn rays_at_vertices_and_edges_of_closed_meshes_never_miss() {
    for (name, mesh) in closed_meshes() {
        let host = MeshBvh::new(mesh.clone());
        let rays = aimed_rays(&targets(&mesh));
        for dev in devices() {
            let dm = DeviceMesh::new(dev, &mesh).unwrap();
            let hits = run(&dm, &rays);
            let mut misses = Vec::new();
            for (i, &(o, d)) in rays.iter().enumerate() {
                let what = format!("{name} on {dev}, ray {i} from {o} along {d}");
                let target = o + d;
                let expected = host.ray(o, d, 1.0e6);
                let Some(h) = expected else {
                    panic!("{what}: the host missed too (the test's rays are wrong)");
                };
                assert!(
                    (h.t - 1.0).abs() <= 1e-5,
                    "{what}: the host's first hit is at t = {} (the target is not visible)",
                    h.t
                );
                let f = hits.face[i];
                if f < 0 {
                    misses.push(i);
                    continue;
                }
                let [t, u, v] = hits.tuv[i].to_array();
                assert!((t - 1.0).abs() <= 1e-5, "{what}: t = {t}");
                assert!(
                    (hits.along[i] - target).length() <= 2e-6,
                    "{what}: o + t d = {} against {target}",
                    hits.along[i]
                );
                assert!(
                    (hits.at_uv[i] - target).length() <= 4e-6,
                    "{what}: the point at (u, v) = ({u}, {v}) is {} against {target}",
                    hits.at_uv[i]
                );
                assert!(
                    u >= 0.0 && v >= 0.0 && u + v <= 1.0 + 1e-6,
                    "{what}: barycentrics ({u}, {v})"
                );
                // The same distance as the host's (same test, same operations).
                assert!(
                    (t - h.t).abs() <= 2e-7,
                    "{what}: t = {t} against the host's {}",
                    h.t
                );
            }
            assert!(
                misses.is_empty(),
                "{name} on {dev}: {} of {} aimed rays missed, e.g. {:?}",
                misses.len(),
                rays.len(),
                &misses[..misses.len().min(8)]
            );
        }
    }
}

#[test]
fn grazing_rays_hit_where_the_exact_rays_do() {
    // A 4 × 4 square in z = 0 (two triangles), rays at |cos| = 0.1 to its normal
    // from 1.5 away.
    let mesh = generate::plane(4.0, 4.0, 1, 1);
    let mut rays = Vec::new();
    let mut exact = Vec::new();
    let cos: f64 = 0.1;
    let sin = (1.0 - cos * cos).sqrt();
    for k in 0..256 {
        let phi = k as f64 * 0.37;
        let target = glam::DVec3::new(1.9 * (0.7 * phi).cos(), 1.9 * (1.3 * phi).sin(), 0.0);
        let dir = glam::DVec3::new(sin * phi.cos(), sin * phi.sin(), -cos);
        let o = (target - 1.5 * dir).as_vec3();
        let d = dir.as_vec3();
        // The exact hit of the f32 ray with z = 0, in f64.
        let (of, df) = (o.as_dvec3(), d.as_dvec3());
        exact.push(of - df * (of.z / df.z));
        rays.push((o, d));
    }
    let host = MeshBvh::new(mesh.clone());
    for dev in devices() {
        let dm = DeviceMesh::new(dev, &mesh).unwrap();
        let hits = run(&dm, &rays);
        let (mut worst_along, mut worst_uv) = (0.0f64, 0.0f64);
        for (i, &(o, d)) in rays.iter().enumerate() {
            let what = format!("{dev}, grazing ray {i}");
            assert!(hits.face[i] >= 0, "{what}: missed");
            let e = exact[i];
            worst_along = worst_along.max((hits.along[i].as_dvec3() - e).length());
            worst_uv = worst_uv.max((hits.at_uv[i].as_dvec3() - e).length());
            let h = host.ray(o, d, 1.0e6).unwrap();
            assert!(
                (hits.tuv[i].x - h.t).abs() <= 2e-7 * h.t,
                "{what}: t {} against the host's {}",
                hits.tuv[i].x,
                h.t
            );
        }
        println!("{dev}: worst o + t d {worst_along:e}, worst point at (u, v) {worst_uv:e}");
        assert!(worst_along <= 2e-6, "{dev}: o + t d is {worst_along} off");
        assert!(
            worst_uv <= 2e-6,
            "{dev}: the point at (u, v) is {worst_uv} off"
        );
    }
}

#[test]
fn a_miss_carries_no_face() {
    let mesh = generate::icosphere(1.0, 2);
    // Past the sphere, alongside it, pointing away, and a zero direction.
    let rays = [
        (Vec3::new(0.0, 1.5, 5.0), -Vec3::Z),
        (Vec3::new(0.0, 0.0, 5.0), Vec3::X),
        (Vec3::new(0.0, 0.0, 5.0), Vec3::Z),
        (Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO),
    ];
    for dev in devices() {
        let dm = DeviceMesh::new(dev, &mesh).unwrap();
        let hits = run(&dm, &rays);
        for (i, f) in hits.face.iter().enumerate() {
            assert_eq!(*f, -1, "{dev}, ray {i}: a miss with face {f}");
            assert_eq!(hits.tuv[i], Vec3::ZERO, "{dev}, ray {i}");
        }
    }
}
