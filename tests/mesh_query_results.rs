//! The complete mesh queries (`mesh_query_ray`, `mesh_query_point`,
//! `mesh_query_point_no_sign`) and `mesh_winding_number`: their answers against
//! brute force and the host's exact winding numbers, their gradients against
//! finite differences, and CPU against CUDA bit for bit; on the CPU and, when
//! present, a GPU.

use weft::geom::winding_build::winding_climb;
use weft::geom::{
    DeviceMesh, LbvhBuilder, mesh_eval_position, mesh_eval_velocity, mesh_query_point,
    mesh_query_point_no_sign, mesh_query_ray, mesh_winding_number,
};
use weft::prelude::*;
use weft_geom::{Mesh, brute_force, generate};
use weft_testkit::devices::devices;
use weft_testkit::random_f32s;

/// Everything `mesh_query_ray` returns, per ray.
#[weft::kernel]
fn rays(
    mesh: &DeviceMesh,
    o: &Array<Vec3>,
    d: &Array<Vec3>,
    max_t: f32,
    face: &mut Array<i32>,
    tuv: &mut Array<Vec3>,
    normal: &mut Array<Vec3>,
    sign: &mut Array<f32>,
    evals: &mut Array<Vec3>,
    velocities: &mut Array<Vec3>,
) {
    let i = tid();
    let hit = mesh_query_ray(mesh, o[i], d[i], max_t);
    face[i] = hit.face;
    if !hit.hit {
        face[i] = -2 - hit.face;
    }
    tuv[i] = Vec3::new(hit.t, hit.u, hit.v);
    normal[i] = hit.normal;
    sign[i] = hit.sign;
    evals[i] = Vec3::ZERO;
    velocities[i] = Vec3::ZERO;
    if hit.hit {
        evals[i] = mesh_eval_position(mesh, hit.face, hit.u, hit.v);
        velocities[i] = mesh_eval_velocity(mesh, hit.face, hit.u, hit.v);
    }
}

/// Everything `mesh_query_point` returns, per point, and whether
/// `mesh_query_point_no_sign` returned the same (`same` = 1).
#[weft::kernel]
fn points(
    mesh: &DeviceMesh,
    p: &Array<Vec3>,
    max_dist: f32,
    face: &mut Array<i32>,
    closest: &mut Array<Vec3>,
    uv: &mut Array<Vec2>,
    sign: &mut Array<f32>,
    same: &mut Array<i32>,
) {
    let i = tid();
    let q = mesh_query_point(mesh, p[i], max_dist);
    let q2 = mesh_query_point_no_sign(mesh, p[i], max_dist);
    face[i] = q.face;
    if !q.found {
        face[i] = -2 - q.face;
    }
    closest[i] = q.point;
    uv[i] = Vec2::new(q.u, q.v);
    sign[i] = q.sign;
    same[i] = 0;
    let same_point = q.point.x == q2.point.x && q.point.y == q2.point.y && q.point.z == q2.point.z;
    if q.found == q2.found && q.face == q2.face && same_point && q.u == q2.u && q.v == q2.v {
        same[i] = 1;
    }
    // The unsigned query does not tell inside from outside.
    if q2.sign != 0.0 {
        same[i] = 0;
    }
}

#[weft::kernel]
fn windings(mesh: &DeviceMesh, p: &Array<Vec3>, beta: f32, w: &mut Array<f32>) {
    let i = tid();
    w[i] = mesh_winding_number(mesh, p[i], beta);
}

fn vec3s(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<Vec3> {
    random_f32s(3 * n, seed, lo, hi)
        .chunks(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect()
}

/// What `rays` writes, read back: face (-1 none), `(t, u, v)`, normal, sign,
/// `mesh_eval_position` and `mesh_eval_velocity` there.
type RayResults = (
    Vec<i32>,
    Vec<Vec3>,
    Vec<Vec3>,
    Vec<f32>,
    Vec<Vec3>,
    Vec<Vec3>,
);

/// Runs [`rays`] on the mesh's device.
fn run_rays(dm: &DeviceMesh, o: &[Vec3], d: &[Vec3], max_t: f32) -> RayResults {
    let (dev, n) = (dm.points.device(), o.len());
    let (oa, da) = (Array::from_slice(dev, o), Array::from_slice(dev, d));
    let mut face = Array::zeros(dev, [n]);
    let mut tuv = Array::zeros(dev, [n]);
    let mut normal = Array::zeros(dev, [n]);
    let mut sign = Array::zeros(dev, [n]);
    let mut evals = Array::zeros(dev, [n]);
    let mut velocities = Array::zeros(dev, [n]);
    rays::launch(
        n,
        dm,
        &oa,
        &da,
        max_t,
        &mut face,
        &mut tuv,
        &mut normal,
        &mut sign,
        &mut evals,
        &mut velocities,
    )
    .unwrap();
    (
        face.to_vec(),
        tuv.to_vec(),
        normal.to_vec(),
        sign.to_vec(),
        evals.to_vec(),
        velocities.to_vec(),
    )
}

/// What `points` writes, read back: face (-1 none), closest point, `(u, v)`,
/// sign, whether the no-sign variant agreed (1).
type PointResults = (Vec<i32>, Vec<Vec3>, Vec<Vec2>, Vec<f32>, Vec<i32>);

/// Runs [`points`] on the mesh's device.
fn run_points(dm: &DeviceMesh, p: &[Vec3], max_dist: f32) -> PointResults {
    let (dev, n) = (dm.points.device(), p.len());
    let pa = Array::from_slice(dev, p);
    let mut face = Array::zeros(dev, [n]);
    let mut closest = Array::zeros(dev, [n]);
    let mut uv = Array::zeros(dev, [n]);
    let mut sign = Array::zeros(dev, [n]);
    let mut same = Array::zeros(dev, [n]);
    points::launch(
        n,
        dm,
        &pa,
        max_dist,
        &mut face,
        &mut closest,
        &mut uv,
        &mut sign,
        &mut same,
    )
    .unwrap();
    (
        face.to_vec(),
        closest.to_vec(),
        uv.to_vec(),
        sign.to_vec(),
        same.to_vec(),
    )
}

/// The closed test meshes.
fn closed_meshes() -> Vec<(&'static str, Mesh)> {
    vec![
        ("icosphere", generate::icosphere(1.0, 3)),
        ("torus", generate::torus(1.0, 0.25, 48, 24)),
        ("box", generate::cuboid(Vec3::splat(0.5))),
    ]
}

#[test]
fn ray_queries_match_brute_force() {
    let n = 1500;
    let o = vec3s(n, 1, -2.0, 2.0);
    let d = vec3s(n, 2, -1.0, 1.0);
    for (name, mesh) in closed_meshes() {
        // A linear velocity field, which interpolation reproduces.
        let vel: Vec<Vec3> = mesh.points().iter().map(|p| 2.0 * *p + Vec3::X).collect();
        let mesh = mesh.with_velocities(vel).unwrap();
        for dev in devices() {
            let dm = DeviceMesh::new(dev, &mesh).unwrap();
            let (face, tuv, normal, sign, evals, velocities) = run_rays(&dm, &o, &d, 10.0);
            let mut hits = 0;
            for i in 0..n {
                let what = format!("{name} on {dev}, ray {i}");
                let Some(b) = brute_force::ray(&mesh, o[i], d[i], 10.0) else {
                    assert_eq!(face[i], -1, "{what}: a hit where brute force has none");
                    assert_eq!(
                        (tuv[i], normal[i], sign[i]),
                        (Vec3::ZERO, Vec3::ZERO, 0.0),
                        "{what}"
                    );
                    continue;
                };
                hits += 1;
                assert!(
                    face[i] >= 0,
                    "{what}: no hit (got {}), brute force face {}",
                    face[i],
                    b.face
                );
                let t = tuv[i].x;
                assert!(
                    (t - b.t).abs() <= 1e-5 * b.t.max(1.0),
                    "{what}: t {t} against {}",
                    b.t
                );
                let [a, bb, c] = mesh.triangle(face[i] as usize);
                let (u, v) = (tuv[i].y, tuv[i].z);
                let hit = u * a + v * bb + (1.0 - u - v) * c;
                assert!(
                    (hit - (o[i] + t * d[i])).length() < 1e-4,
                    "{what}: barycentrics"
                );
                if face[i] as u32 == b.face {
                    // The host's convention and test (the same operations).
                    assert!(
                        (u - b.u).abs() < 1e-6 && (v - b.v).abs() < 1e-6,
                        "{what}: (u, v) ({u}, {v}) against the host's ({}, {})",
                        b.u,
                        b.v
                    );
                }
                assert!(
                    (evals[i] - hit).length() < 1e-5,
                    "{what}: mesh_eval_position {} against {hit}",
                    evals[i]
                );
                let vel = 2.0 * hit + Vec3::X;
                assert!(
                    (velocities[i] - vel).length() < 1e-4,
                    "{what}: mesh_eval_velocity {} against {vel}",
                    velocities[i]
                );
                let nrm = (bb - a).cross(c - a).normalize();
                assert!(
                    (normal[i] - nrm).length() < 1e-5,
                    "{what}: normal {} against {nrm}",
                    normal[i]
                );
                let front = d[i].dot(nrm) < 0.0;
                assert_eq!(sign[i], if front { 1.0 } else { -1.0 }, "{what}: sign");
            }
            assert!(hits > n / 25, "{name}: only {hits} hits");
        }
    }
}

#[test]
fn a_mesh_without_velocities_is_static() {
    let mesh = generate::icosphere(1.0, 2);
    let o = vec3s(200, 7, -0.5, 0.5);
    let d = vec3s(200, 8, -1.0, 1.0);
    for dev in devices() {
        let dm = DeviceMesh::new(dev, &mesh).unwrap();
        assert_eq!(dm.velocities.len(), 0);
        let (face, _tuv, _n, _s, evals, velocities) = run_rays(&dm, &o, &d, 10.0);
        assert!(face.iter().all(|&f| f >= 0), "{dev}: rays from inside hit");
        assert!(
            evals.iter().all(|p| (p.length() - 1.0).abs() < 0.05),
            "{dev}"
        );
        assert!(velocities.iter().all(|v| *v == Vec3::ZERO), "{dev}");
    }
}

#[test]
fn point_queries_match_brute_force_and_exact_winding_numbers() {
    let n = 1000;
    let p = vec3s(n, 3, -1.6, 1.6);
    for (name, mesh) in closed_meshes() {
        let inside: Vec<bool> = p
            .iter()
            .map(|&x| weft_geom::query::winding::winding_number_exact(&mesh, x) > 0.5)
            .collect();
        for dev in devices() {
            let dm = DeviceMesh::new(dev, &mesh).unwrap();
            for max_dist in [f32::INFINITY, 0.2] {
                let (face, closest, uv, sign, same) = run_points(&dm, &p, max_dist);
                assert!(
                    same.iter().all(|&s| s == 1),
                    "{name} on {dev}: the no-sign variant differs"
                );
                let mut found = 0;
                for i in 0..n {
                    let what = format!("{name} on {dev}, point {i}, max_dist {max_dist}");
                    let b = brute_force::closest_point(&mesh, p[i], f32::INFINITY).unwrap();
                    if b.distance > max_dist * (1.0 + 1e-5) {
                        assert_eq!(
                            face[i], -1,
                            "{what}: found beyond max_dist ({})",
                            b.distance
                        );
                        assert_eq!(sign[i], 0.0, "{what}");
                        continue;
                    }
                    if b.distance > max_dist * (1.0 - 1e-5) {
                        continue; // on the limit: either answer
                    }
                    found += 1;
                    assert!(
                        face[i] >= 0,
                        "{what}: not found, brute force at {}",
                        b.distance
                    );
                    let dist = (closest[i] - p[i]).length();
                    assert!(
                        (dist - b.distance).abs() <= 1e-5 * b.distance.max(1.0),
                        "{what}: {dist} against {}",
                        b.distance
                    );
                    let [a, bb, c] = mesh.triangle(face[i] as usize);
                    let q = uv[i].x * a + uv[i].y * bb + (1.0 - uv[i].x - uv[i].y) * c;
                    assert!(
                        (q - closest[i]).length() < 1e-5,
                        "{what}: barycentrics give {q}, closest {}",
                        closest[i]
                    );
                    if b.distance > 1e-3 {
                        assert_eq!(sign[i], if inside[i] { -1.0 } else { 1.0 }, "{what}: sign");
                    }
                }
                assert!(found > n / 25, "{name}: only {found} found");
            }
        }
    }
}

#[test]
fn winding_numbers_match_the_host_and_work_without_winding_data() {
    let n = 400;
    let p = vec3s(n, 4, -1.6, 1.6);
    let mesh = generate::torus(1.0, 0.25, 24, 12);
    let host = weft_geom::MeshBvh::new(mesh.clone());
    let exact: Vec<f32> = p
        .iter()
        .map(|&x| weft_geom::query::winding::winding_number_exact(&mesh, x))
        .collect();
    for dev in devices() {
        let pa = Array::from_slice(dev, &p);
        let dm = DeviceMesh::new(dev, &mesh).unwrap();
        let mut w = Array::zeros(dev, [n]);
        windings::launch(n, &dm, &pa, 2.0, &mut w).unwrap();
        for (i, w) in w.to_vec().into_iter().enumerate() {
            let h = host.winding_number(p[i]);
            assert!(
                (w - h).abs() < 1e-4,
                "{dev}, point {i}: {w} against the host's {h}"
            );
        }
        // Built on the device: winding data from the device's kernel (another
        // tree, so other approximations), and without it every face summed.
        let built = DeviceMesh::build_on_device(&dm.points, &dm.faces).unwrap();
        assert_eq!(built.winding.len(), built.nodes.len());
        let mut w = Array::zeros(dev, [n]);
        windings::launch(n, &built, &pa, 2.0, &mut w).unwrap();
        for (i, w) in w.to_vec().into_iter().enumerate() {
            assert!(
                (w - exact[i]).abs() < 0.05,
                "{dev}, device-built, point {i}: {w} against {}",
                exact[i]
            );
        }
        let mut plain = LbvhBuilder::new(dev);
        let built = plain.build(&dm.points, &dm.faces).unwrap();
        assert_eq!(built.winding.len(), 0);
        for beta in [2.0, f32::INFINITY] {
            let mut w = Array::zeros(dev, [n]);
            windings::launch(n, &built, &pa, beta, &mut w).unwrap();
            for (i, w) in w.to_vec().into_iter().enumerate() {
                assert!(
                    (w - exact[i]).abs() < 1e-4,
                    "{dev}, no winding data, point {i}: {w} against {}",
                    exact[i]
                );
            }
        }
        // A point that is not finite, and an empty mesh: 0.
        let bad = Array::from_slice(
            dev,
            &[Vec3::new(f32::NAN, 0.0, 0.0), Vec3::splat(f32::INFINITY)],
        );
        let mut w = Array::zeros(dev, [2]);
        windings::launch(2, &dm, &bad, 2.0, &mut w).unwrap();
        assert_eq!(w.to_vec(), [0.0, 0.0], "{dev}");
        let empty =
            DeviceMesh::build_on_device(&Array::zeros(dev, [0]), &Array::zeros(dev, [0])).unwrap();
        windings::launch(2, &empty, &pa, 2.0, &mut w).unwrap();
        assert_eq!(w.to_vec(), [0.0, 0.0], "{dev}");
    }
}

#[test]
fn rebuilds_compute_winding_data_or_drop_it() {
    let mesh = generate::icosphere(1.0, 2);
    let p0 = [Vec3::ZERO, Vec3::splat(2.0), Vec3::new(0.3, -0.2, 0.5)];
    for dev in devices() {
        let p = Array::from_slice(dev, &p0);
        let mut dm = DeviceMesh::new(dev, &mesh).unwrap();
        assert_eq!(dm.winding.len(), dm.nodes.len());
        let mut builder = LbvhBuilder::new(dev);
        builder.rebuild(&mut dm).unwrap();
        assert_eq!(dm.winding.len(), 0, "{dev}: the host tree's data is stale");
        builder.set_winding(true);
        builder.rebuild(&mut dm).unwrap();
        assert_eq!(dm.winding.len(), dm.nodes.len(), "{dev}");
        for _ in 0..2 {
            let mut w = Array::zeros(dev, [3]);
            windings::launch(3, &dm, &p, 2.0, &mut w).unwrap();
            let w = w.to_vec();
            // (The linear BVH's far-field approximation at β = 2 is coarser than
            // the SAH tree's: 1.05 at the centre.)
            assert!(
                (w[0] - 1.0).abs() < 0.1 && w[1].abs() < 0.1 && (w[2] - 1.0).abs() < 0.1,
                "{dev}: {w:?}"
            );
            builder.rebuild(&mut dm).unwrap(); // again: counters reset
        }
    }
}

#[test]
fn the_winding_kernel_computes_the_hosts_data() {
    for (name, mesh) in closed_meshes() {
        for dev in devices() {
            let dm = DeviceMesh::new(dev, &mesh).unwrap();
            let nodes = dm.nodes.len();
            let mut visits = Array::zeros(dev, [nodes]);
            let mut out = Array::zeros(dev, [nodes]);
            winding_climb::launch(
                nodes,
                &dm.nodes,
                &dm.parents,
                &dm.tris,
                &mut visits,
                &mut out,
            )
            .unwrap();
            let scale = dm.winding.to_vec()[0].radius;
            for (i, (g, h)) in out.to_vec().iter().zip(dm.winding.to_vec()).enumerate() {
                let what = format!("{name} on {dev}, node {i}");
                let close = |a: f32, b: f32, s: f32| (a - b).abs() <= 1e-4 * s.max(b.abs());
                let close3 = |a: Vec3, b: Vec3, s: f32| {
                    (a - b).abs().max_element() <= 1e-4 * s.max(b.abs().max_element())
                };
                assert!(
                    close3(g.center, h.center, scale),
                    "{what}: centre {} against {}",
                    g.center,
                    h.center
                );
                assert!(
                    close(g.radius, h.radius, scale),
                    "{what}: radius {} against {}",
                    g.radius,
                    h.radius
                );
                assert!(
                    close(g.area, h.area, h.area),
                    "{what}: area {} against {}",
                    g.area,
                    h.area
                );
                assert!(
                    close3(g.area_normal, h.area_normal, h.area),
                    "{what}: vector area {} against {}",
                    g.area_normal,
                    h.area_normal
                );
                let m = h.area * h.radius;
                for c in 0..3 {
                    assert!(
                        close3(g.moment.col(c), h.moment.col(c), m),
                        "{what}: moment {} against {}",
                        g.moment,
                        h.moment
                    );
                }
            }
        }
    }
}

/// Sum of the hit distances, barycentrics and points, and of the closest points'
/// coordinates weighted by (1, 2, 3), through the complete queries.
#[weft::kernel]
fn query_loss(
    mesh: &DeviceMesh,
    o: &Array<Vec3>,
    d: &Array<Vec3>,
    p: &Array<Vec3>,
    loss: &mut Array<f32>,
) {
    let i = tid();
    let hit = mesh_query_ray(mesh, o[i], d[i], 100.0);
    if hit.hit {
        let p = mesh_eval_position(mesh, hit.face, hit.u, hit.v);
        atomic_add(
            &mut loss[0],
            hit.t + 0.5 * hit.u - 0.25 * hit.v + dot(p, Vec3::new(0.3, -0.2, 0.1)),
        );
    }
    // (The closest point's barycentrics jump where the closest face changes.)
    let q = mesh_query_point(mesh, p[i], 100.0);
    if q.found {
        atomic_add(
            &mut loss[0],
            q.sign * dot(q.point, Vec3::new(1.0, 2.0, 3.0)),
        );
    }
}

#[test]
fn gradients_of_the_complete_queries_match_finite_differences() {
    let mesh = generate::icosphere(1.0, 3);
    // Rays towards the centre and points off the surface: away from edges, where
    // the answers are smooth.
    let o0 = [
        Vec3::new(3.0, 0.2, 0.1),
        Vec3::new(0.1, -2.5, 0.3),
        Vec3::new(0.2, 0.3, 4.0),
    ];
    let d0 = [
        Vec3::new(-1.0, 0.05, 0.0),
        Vec3::new(0.0, 1.0, 0.1),
        Vec3::new(-0.1, 0.0, -1.0),
    ];
    let p0 = [
        Vec3::new(1.3, 0.2, 0.1),
        Vec3::new(-0.2, 1.6, 0.3),
        Vec3::new(0.1, -0.3, 0.5),
    ];
    for dev in devices() {
        let dm = DeviceMesh::new(dev, &mesh).unwrap();
        let mut o = Array::from_slice(dev, &o0);
        let mut d = Array::from_slice(dev, &d0);
        let mut p = Array::from_slice(dev, &p0);
        let report = gradcheck(&mut [&mut o, &mut d, &mut p], None, |x, loss| {
            loss.fill(0.0);
            query_loss::launch(3, &dm, x[0], x[1], x[2], loss)
        })
        .unwrap();
        println!("{dev}: {report}");
        assert!(report.max_rel < 2e-2, "{dev}: {report}");
        // The mesh is a constant of these queries: no gradient reaches its points.
        let mut dm = dm;
        dm.points = dm.points.requires_grad();
        let o = Array::from_slice(dev, &o0).requires_grad();
        let mut loss = Array::zeros(dev, [1]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| query_loss::launch(3, &dm, &o, &d, &p, &mut loss))
            .unwrap();
        tape.backward(&mut loss).unwrap();
        assert!(
            dm.points
                .grad_to_vec()
                .unwrap()
                .iter()
                .all(|g| *g == Vec3::ZERO),
            "{dev}"
        );
        assert!(
            o.grad_to_vec().unwrap().iter().all(|g| g.length() > 0.0),
            "{dev}"
        );
    }
}

#[test]
fn cpu_and_cuda_agree_bit_for_bit() {
    let Some(gpu) = weft_testkit::devices::cuda() else {
        return;
    };
    let n = 2000;
    let o = vec3s(n, 5, -2.0, 2.0);
    let d = vec3s(n, 6, -1.0, 1.0);
    let mesh = generate::torus_knot(2, 3, 1.0, 0.15, 192, 16);
    let run = |dev: Device| {
        let dm = DeviceMesh::new(dev, &mesh).unwrap();
        let rays = run_rays(&dm, &o, &d, 10.0);
        let points = run_points(&dm, &o, 0.5);
        let oa = Array::from_slice(dev, &o);
        let mut w = Array::zeros(dev, [n]);
        windings::launch(n, &dm, &oa, 2.0, &mut w).unwrap();
        (rays, points, w.to_vec())
    };
    let (c, g) = (run(Device::Cpu), run(gpu));
    assert_eq!(c.0.0, g.0.0, "ray faces");
    assert_eq!(c.0.1, g.0.1, "ray t, u, v");
    assert_eq!(c.0.2, g.0.2, "ray normals");
    assert_eq!(c.0.3, g.0.3, "ray signs");
    assert_eq!(c.1.0, g.1.0, "closest faces");
    assert_eq!(c.1.1, g.1.1, "closest points");
    assert_eq!(c.1.2, g.1.2, "closest barycentrics");
    assert_eq!(c.1.3, g.1.3, "inside signs");
    assert_eq!(c.2, g.2, "winding numbers");
}

#[test]
fn edge_cases_give_answers_without_nan() {
    // A triangle, a collinear one and one with a repeated corner.
    let points = vec![
        Vec3::ZERO,
        Vec3::X,
        Vec3::Y,
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(3.0, 0.0, 0.0),
    ];
    let mesh = Mesh::new(points, vec![[0, 1, 2], [1, 3, 4], [0, 0, 1]]).unwrap();
    // Rays along an edge, at a corner, through the collinear triangle's line, and
    // perpendicular through the face; points on a corner, on the collinear
    // triangle, above the face and far away.
    let o = [
        Vec3::new(-1.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(5.0, 0.0, 0.0),
        Vec3::new(0.2, 0.2, 1.0),
    ];
    let d = [Vec3::X, Vec3::NEG_Z, Vec3::NEG_X, Vec3::NEG_Z];
    let p = [
        Vec3::ZERO,
        Vec3::new(2.5, 0.0, 0.0),
        Vec3::new(0.2, 0.2, 1.0),
        Vec3::splat(1.0e6),
    ];
    for dev in devices() {
        let empty =
            DeviceMesh::build_on_device(&Array::zeros(dev, [0]), &Array::zeros(dev, [0])).unwrap();
        let (face, tuv, normal, sign, evals, velocities) = run_rays(&empty, &o, &d, 10.0);
        assert!(
            face.iter().all(|&f| f == -1),
            "{dev}: empty mesh, rays {face:?}"
        );
        assert!(
            tuv.iter()
                .chain(&normal)
                .chain(&evals)
                .chain(&velocities)
                .all(|v| *v == Vec3::ZERO)
        );
        assert!(sign.iter().all(|&s| s == 0.0));
        let (face, closest, _uv, sign, _same) = run_points(&empty, &p, f32::INFINITY);
        assert!(
            face.iter().all(|&f| f == -1),
            "{dev}: empty mesh, points {face:?}"
        );
        assert!(closest.iter().all(|v| *v == Vec3::ZERO) && sign.iter().all(|&s| s == 0.0));

        let dm = DeviceMesh::new(dev, &mesh).unwrap();
        let (face, tuv, normal, sign, evals, _v) = run_rays(&dm, &o, &d, 10.0);
        for i in 0..o.len() {
            let finite = tuv[i].is_finite() && normal[i].is_finite() && evals[i].is_finite();
            assert!(
                finite && sign[i].is_finite(),
                "{dev}: ray {i}: {:?}",
                (face[i], tuv[i], normal[i])
            );
        }
        assert!(face[1] >= 0 && face[3] == 0, "{dev}: {face:?}");
        assert!((tuv[3].x - 1.0).abs() < 1e-6, "{dev}: {:?}", tuv[3]);
        let (face, closest, uv, sign, same) = run_points(&dm, &p, f32::INFINITY);
        assert!(same.iter().all(|&s| s == 1));
        for i in 0..p.len() {
            assert!(face[i] >= 0, "{dev}: point {i}");
            let finite = closest[i].is_finite() && uv[i].is_finite() && sign[i].is_finite();
            assert!(
                finite,
                "{dev}: point {i}: {:?}",
                (face[i], closest[i], uv[i], sign[i])
            );
        }
        assert_eq!(closest[0], Vec3::ZERO, "{dev}: a point on a corner");
        assert!(
            (closest[1] - p[1]).length() < 1e-6,
            "{dev}: a point on the collinear triangle"
        );
        assert!(
            (closest[2] - Vec3::new(0.2, 0.2, 0.0)).length() < 1e-6,
            "{dev}"
        );
    }
}

#[test]
fn query_kernels_have_ptx() {
    // Forward and adjoint of the kernels here (ptxas-checked with WEFT_PTXAS).
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(rays, points, windings, query_loss),
        &[],
    );
}
