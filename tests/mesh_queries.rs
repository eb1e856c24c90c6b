//! Geometry queries inside kernels (`weft::geom`) against the host BVH queries of
//! `weft-geom` and brute force, on random rays; their PTX exists.

use weft::geom::{
    ClosestPoints, DeviceHashGrid, DeviceMesh, closest_point_triangle, hash_grid_query,
    hash_grid_query_next, mesh_query_aabb, mesh_query_aabb_next, mesh_query_point_face,
    mesh_query_ray_face, ray_triangle,
};
use weft::prelude::*;
use weft_geom::MeshBvh;
use weft_testkit::random_f32s;

#[weft::kernel]
fn cast(
    mesh: &DeviceMesh,
    origins: &Array<Vec3>,
    dirs: &Array<Vec3>,
    face: &mut Array<i32>,
    t: &mut Array<f32>,
) {
    let i = tid();
    let o = origins[i];
    let d = dirs[i];
    let f = mesh_query_ray_face(mesh, o, d, 100.0);
    face[i] = f;
    let mut s = -1.0;
    if f >= 0 {
        let a = mesh.points[mesh.faces[3 * f] as i32];
        let b = mesh.points[mesh.faces[3 * f + 1] as i32];
        let c = mesh.points[mesh.faces[3 * f + 2] as i32];
        let (_hit, th, _u, _v) = ray_triangle(o, d, a, b, c);
        s = th;
    }
    t[i] = s;
}

#[weft::kernel]
fn nearest(
    mesh: &DeviceMesh,
    p: &Array<Vec3>,
    max_dist: f32,
    face: &mut Array<i32>,
    q: &mut Array<Vec3>,
) {
    let i = tid();
    let x = p[i];
    let f = mesh_query_point_face(mesh, x, max_dist);
    face[i] = f;
    let mut c = Vec3::splat(f32::INFINITY);
    if f >= 0 {
        let a = mesh.points[mesh.faces[3 * f] as i32];
        let b = mesh.points[mesh.faces[3 * f + 1] as i32];
        let cc = mesh.points[mesh.faces[3 * f + 2] as i32];
        let (point, _w) = closest_point_triangle(x, a, b, cc);
        c = point;
    }
    q[i] = c;
}

/// Up to `CAP` faces per box, in `faces[i * CAP ..]`, and how many there were.
const CAP: i32 = 256;

#[weft::kernel]
fn in_box(
    mesh: &DeviceMesh,
    lo: &Array<Vec3>,
    hi: &Array<Vec3>,
    faces: &mut Array<i32>,
    count: &mut Array<i32>,
) {
    let i = tid();
    let (a, b) = (lo[i], hi[i]);
    let mut k = 0;
    let mut q = mesh_query_aabb(mesh, a, b);
    while q.face >= 0 {
        if k < 256 {
            faces[i * 256 + k] = q.face;
        }
        k += 1;
        q = mesh_query_aabb_next(mesh, q, a, b);
    }
    count[i] = k;
}

/// Up to `CAP` neighbours per point, and how many there were.
#[weft::kernel]
fn neighbours(
    grid: &DeviceHashGrid,
    x: &Array<Vec3>,
    r: f32,
    out: &mut Array<i32>,
    count: &mut Array<i32>,
) {
    let i = tid();
    let p = x[i];
    let mut k = 0;
    let mut q = hash_grid_query(grid, p, r);
    while q.index >= 0 {
        if k < 256 {
            out[i * 256 + k] = q.index;
        }
        k += 1;
        q = hash_grid_query_next(grid, q, p, r);
    }
    count[i] = k;
}

fn rays(n: usize, seed: u64, extent: f32) -> (Vec<Vec3>, Vec<Vec3>) {
    let r = random_f32s(6 * n, seed, -1.0, 1.0);
    let o = (0..n)
        .map(|i| Vec3::new(r[6 * i], r[6 * i + 1], r[6 * i + 2]) * extent * 1.5)
        .collect();
    // Towards a random point inside the bounds: most rays hit.
    let d = (0..n)
        .map(|i| {
            let target = Vec3::new(r[6 * i + 3], r[6 * i + 4], r[6 * i + 5]) * extent * 0.5;
            target - Vec3::new(r[6 * i], r[6 * i + 1], r[6 * i + 2]) * extent * 1.5
        })
        .collect();
    (o, d)
}

#[test]
fn kernel_ray_queries_match_the_host_bvh() {
    let meshes = [
        ("icosphere", weft_geom::generate::icosphere(1.0, 4)),
        ("torus", weft_geom::generate::torus(1.0, 0.3, 48, 24)),
    ];
    for (name, mesh) in meshes {
        let dm = DeviceMesh::new(Device::Cpu, &mesh).unwrap();
        let host = MeshBvh::new(mesh.clone());
        let n = 4000;
        let (o, d) = rays(n, 5, 1.3);
        let (oa, da) = (
            Array::from_slice(Device::Cpu, &o),
            Array::from_slice(Device::Cpu, &d),
        );
        let mut face = Array::zeros(Device::Cpu, [n]);
        let mut t = Array::zeros(Device::Cpu, [n]);
        cast::launch(n, &dm, &oa, &da, &mut face, &mut t).unwrap();
        let (face, t) = (face.to_vec(), t.to_vec());
        let (mut hits, mut same_face) = (0, 0);
        for i in 0..n {
            match host.ray(o[i], d[i], 100.0) {
                Some(h) => {
                    hits += 1;
                    assert!(
                        face[i] >= 0,
                        "{name} ray {i}: host hit face {} at t {}, kernel missed",
                        h.face,
                        h.t
                    );
                    let rel = (t[i] - h.t).abs() / h.t.max(1e-3);
                    assert!(rel < 1e-5, "{name} ray {i}: t {} vs host {}", t[i], h.t);
                    same_face += (face[i] as u32 == h.face) as usize;
                }
                // The host's watertight test may reject a grazing hit the kernel's
                // Möller–Trumbore test accepts; such a hit must then be on an edge.
                None => assert!(face[i] < 0 || t[i] >= 0.0, "{name} ray {i}"),
            }
        }
        println!("{name}: {hits} of {n} rays hit; same face as the host for {same_face}");
        assert!(hits > n / 3);
        // Different faces only where two faces meet at the same distance.
        assert!(
            same_face as f64 > 0.999 * hits as f64,
            "{same_face} of {hits}"
        );
    }
}

#[test]
fn kernel_closest_points_match_the_host_bvh() {
    let meshes = [
        ("icosphere", weft_geom::generate::icosphere(1.0, 4)),
        ("torus", weft_geom::generate::torus(1.0, 0.3, 48, 24)),
    ];
    for (name, mesh) in meshes {
        let dm = DeviceMesh::new(Device::Cpu, &mesh).unwrap();
        let host = MeshBvh::new(mesh.clone());
        let n = 4000;
        let r = random_f32s(3 * n, 9, -1.8, 1.8);
        let p: Vec<Vec3> = r.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
        let pa = Array::from_slice(Device::Cpu, &p);
        for max_dist in [f32::INFINITY, 0.2] {
            let mut face = Array::zeros(Device::Cpu, [n]);
            let mut q = Array::zeros(Device::Cpu, [n]);
            nearest::launch(n, &dm, &pa, max_dist, &mut face, &mut q).unwrap();
            let (face, q) = (face.to_vec(), q.to_vec());
            let mut found = 0;
            for i in 0..n {
                match host.closest_point(p[i], max_dist) {
                    Some(h) => {
                        found += 1;
                        assert!(face[i] >= 0, "{name} point {i}: kernel found nothing");
                        let d = (q[i] - p[i]).length();
                        assert!(
                            (d - h.distance).abs() <= 1e-6 * h.distance.max(1.0),
                            "{name} point {i}: distance {d} vs host {}",
                            h.distance
                        );
                    }
                    None => assert_eq!(face[i], -1, "{name} point {i}: beyond {max_dist}"),
                }
            }
            println!("{name}, max distance {max_dist}: {found} of {n} points found");
            assert!(found > n / 10);
        }
    }
}

#[test]
fn kernel_box_queries_return_the_brute_force_face_sets() {
    let mesh = weft_geom::generate::torus(1.0, 0.3, 48, 24);
    let dm = DeviceMesh::new(Device::Cpu, &mesh).unwrap();
    let host = MeshBvh::new(mesh.clone());
    let n = 2000;
    let r = random_f32s(4 * n, 17, -1.5, 1.5);
    let lo: Vec<Vec3> = (0..n)
        .map(|i| Vec3::new(r[4 * i], r[4 * i + 1], r[4 * i + 2] * 0.3))
        .collect();
    // Sides from 0 to 0.3; every tenth box is degenerate (a point).
    let hi: Vec<Vec3> = (0..n)
        .map(|i| {
            lo[i]
                + Vec3::splat(if i % 10 == 0 {
                    0.0
                } else {
                    (r[4 * i + 3] + 1.5) * 0.1
                })
        })
        .collect();
    let (la, ha) = (
        Array::from_slice(Device::Cpu, &lo),
        Array::from_slice(Device::Cpu, &hi),
    );
    let mut faces = Array::zeros(Device::Cpu, [n * CAP as usize]);
    let mut count = Array::zeros(Device::Cpu, [n]);
    in_box::launch(n, &dm, &la, &ha, &mut faces, &mut count).unwrap();
    let (faces, count) = (faces.to_vec(), count.to_vec());
    let boxes: Vec<weft_geom::Aabb> = (0..mesh.indices().len())
        .map(|f| mesh.face_aabb(f))
        .collect();
    let mut nonempty = 0;
    for i in 0..n {
        let q = weft_geom::Aabb::new(lo[i], hi[i]);
        let mut brute: Vec<i32> = (0..boxes.len())
            .filter(|&f| boxes[f].overlaps(&q))
            .map(|f| f as i32)
            .collect();
        let mut via_host: Vec<i32> = host.aabb_query(lo[i], hi[i]).map(|f| f as i32).collect();
        assert!(count[i] <= CAP, "box {i}: {} faces", count[i]);
        let k = count[i] as usize;
        let mut got = faces[i * CAP as usize..i * CAP as usize + k].to_vec();
        brute.sort();
        via_host.sort();
        got.sort();
        assert_eq!(got, brute, "box {i}");
        assert_eq!(via_host, brute, "box {i} (host)");
        nonempty += (k > 0) as usize;
    }
    println!("{nonempty} of {n} boxes overlap faces");
    assert!(nonempty > n / 10);
}

#[test]
fn kernel_hash_grid_queries_return_the_brute_force_neighbours() {
    let n = 3000;
    let r = random_f32s(3 * n, 19, -1.0, 1.0);
    let pts: Vec<Vec3> = r.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
    let xa = Array::from_slice(Device::Cpu, &pts);
    // Radius below, at and above the cell size; a grid small enough to wrap.
    for (cell, dim, radius) in [
        (0.1, [16, 16, 16], 0.08),
        (0.1, [8, 8, 8], 0.1),
        (0.05, [4, 5, 6], 0.12),
    ] {
        let host = weft_geom::HashGrid::with_points(&pts, cell, dim).unwrap();
        let grid = DeviceHashGrid::new(Device::Cpu, &host).unwrap();
        let mut out = Array::zeros(Device::Cpu, [n * CAP as usize]);
        let mut count = Array::zeros(Device::Cpu, [n]);
        neighbours::launch(n, &grid, &xa, radius, &mut out, &mut count).unwrap();
        let (out, count) = (out.to_vec(), count.to_vec());
        let mut total = 0;
        for i in 0..n {
            let mut brute: Vec<i32> = (0..n)
                .filter(|&j| (pts[j] - pts[i]).length_squared() <= radius * radius)
                .map(|j| j as i32)
                .collect();
            assert!(count[i] <= CAP);
            let k = count[i] as usize;
            let mut got = out[i * CAP as usize..i * CAP as usize + k].to_vec();
            let mut via_host: Vec<i32> = host.query(pts[i], radius).map(|j| j as i32).collect();
            brute.sort();
            got.sort();
            via_host.sort();
            assert_eq!(
                got, brute,
                "cell {cell} dim {dim:?} radius {radius}: point {i}"
            );
            assert_eq!(via_host, brute);
            total += k;
        }
        println!(
            "cell {cell}, dims {dim:?}, radius {radius}: {:.1} neighbours per point",
            total as f64 / n as f64
        );
    }
}

#[test]
fn closest_point_batches_match_one_query_per_thread() {
    // The batch sorts its points along a Morton curve; each answer must still be
    // the per-thread query's, whatever cell the point falls in: points far
    // outside the mesh's box, on it, NaN, and limits that are 0, negative or NaN.
    let meshes = [
        ("icosphere", weft_geom::generate::icosphere(1.0, 4)),
        ("torus", weft_geom::generate::torus(1.0, 0.3, 48, 24)),
        ("icosahedron", weft_geom::generate::icosphere(1.0, 0)),
        ("empty", weft_geom::Mesh::empty()),
    ];
    let n = 5000;
    let r = random_f32s(3 * n, 21, -3.0, 3.0);
    let mut p: Vec<Vec3> = r.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
    p[7] = Vec3::new(f32::NAN, 0.0, 0.0);
    p[8] = Vec3::new(1.0e30, -1.0e30, 0.0);
    p[9] = Vec3::X;
    for dev in weft_testkit::devices::devices() {
        let pa = Array::from_slice(dev, &p);
        let mut batch = ClosestPoints::new(dev).unwrap();
        for (name, mesh) in &meshes {
            let dm = DeviceMesh::new(dev, mesh).unwrap();
            for max_dist in [f32::INFINITY, 0.2, 0.0, -1.0, f32::NAN] {
                let (mut want, mut q) = (Array::zeros(dev, [n]), Array::zeros(dev, [n]));
                nearest::launch(n, &dm, &pa, max_dist, &mut want, &mut q).unwrap();
                // Budgets small enough that most queries are split across 32
                // subtrees, and none; regrouped after 1 or a few nodes, and not.
                for (budget, regroup) in [
                    (1, i32::MAX),
                    (8, 2),
                    (64, 1),
                    (64, 4),
                    (i32::MAX, 3),
                    (i32::MAX, i32::MAX),
                ] {
                    batch.set_budget(budget);
                    batch.set_regroup_budget(regroup);
                    let mut got = Array::from_vec(dev, vec![-7; n]);
                    batch.faces(&dm, &pa, max_dist, &mut got).unwrap();
                    assert_eq!(
                        got.to_vec(),
                        want.to_vec(),
                        "{dev}, {name}, max_dist {max_dist}, budget {budget}, regroup {regroup}"
                    );
                    let queued = batch.last_regroup_count().unwrap();
                    if regroup >= budget || !max_dist.is_finite() {
                        assert_eq!(queued, 0);
                    } else if *name != "empty" && max_dist > 0.0 {
                        // Within 0.2, the searches near the surface take more
                        // than a node or two.
                        assert!(queued > n / 200, "{dev}, {name}: {queued} regrouped");
                    }
                    let split = batch.last_split_count().unwrap();
                    if *name != "empty" && budget == 1 {
                        // Unbounded, every search takes more than one node; within
                        // 0.2, those near the surface.
                        let least = if max_dist > 1.0 { n / 2 } else { n / 50 };
                        if max_dist > 0.0 {
                            assert!(split > least, "{dev}, {name}, {max_dist}: {split} split");
                        }
                    }
                    if budget == i32::MAX {
                        assert_eq!(split, 0);
                    }
                }
            }
        }
        // A smaller batch after a larger one reuses the buffers.
        let dm = DeviceMesh::new(dev, &meshes[1].1).unwrap();
        let few = Array::from_slice(dev, &p[..3]);
        let (mut want, mut q) = (Array::zeros(dev, [3]), Array::zeros(dev, [3]));
        nearest::launch(3, &dm, &few, 0.5, &mut want, &mut q).unwrap();
        let mut got = Array::zeros(dev, [3]);
        batch.faces(&dm, &few, 0.5, &mut got).unwrap();
        assert_eq!(got.to_vec(), want.to_vec(), "{dev}: 3 points");
        let empty = Array::<Vec3>::zeros(dev, [0]);
        batch
            .faces(&dm, &empty, 0.5, &mut Array::zeros(dev, [0]))
            .unwrap();
    }
}

#[test]
fn a_device_mesh_takes_only_a_bvh_over_its_faces() {
    let small = weft_geom::generate::icosphere(1.0, 1);
    let big = weft_geom::generate::icosphere(1.0, 2);
    let Err(e) = DeviceMesh::with_bvh(Device::Cpu, &big, &weft_geom::Bvh::from_mesh(&small)) else {
        panic!("a BVH of another mesh was taken");
    };
    assert!(
        e.to_string()
            .contains("the BVH holds 80 primitives, the mesh 320 faces"),
        "{e}"
    );
}

#[test]
fn closest_point_batches_reject_bad_shapes() {
    let dm = DeviceMesh::new(Device::Cpu, &weft_geom::generate::icosphere(1.0, 1)).unwrap();
    let pa = Array::from_slice(Device::Cpu, &[Vec3::ZERO; 4]);
    let mut batch = ClosestPoints::new(Device::Cpu).unwrap();
    let e = batch
        .faces(&dm, &pa, 1.0, &mut Array::zeros(Device::Cpu, [3]))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("faces holds 3 elements for 4 points"),
        "{e}"
    );
}

#[test]
fn kernel_queries_have_ptx() {
    // Forward and adjoint of every kernel here (ptxas-checked with WEFT_PTXAS).
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
            cast,
            nearest,
            in_box,
            neighbours,
            distance_loss,
            hit_loss,
            weft::geom::point_batch::order_count,
            weft::geom::point_batch::order_scatter,
            weft::geom::point_batch::closest_first_pass,
            weft::geom::point_batch::closest_split_pass,
            weft::geom::point_batch::closest_finish,
        ),
        // The batch passes write only integers: their adjoints are empty, and
        // build.
        &[],
    );
}

#[test]
fn kernel_queries_on_cuda_match_the_cpu() {
    let Some(dev) = weft_testkit::devices::cuda() else {
        return;
    };
    let mesh = weft_geom::generate::torus(1.0, 0.3, 96, 48);
    let n = 20_000;
    let (o, d) = rays(n, 12, 1.3);
    let r = random_f32s(3 * n, 13, -1.8, 1.8);
    let p: Vec<Vec3> = r.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
    let run = |dev: Device| {
        let dm = DeviceMesh::new(dev, &mesh).unwrap();
        let (oa, da) = (Array::from_slice(dev, &o), Array::from_slice(dev, &d));
        let (mut face, mut t) = (Array::zeros(dev, [n]), Array::zeros(dev, [n]));
        cast::launch(n, &dm, &oa, &da, &mut face, &mut t).unwrap();
        let pa = Array::from_slice(dev, &p);
        let (mut pf, mut q) = (Array::zeros(dev, [n]), Array::zeros(dev, [n]));
        nearest::launch(n, &dm, &pa, 0.3, &mut pf, &mut q).unwrap();
        let hi: Vec<Vec3> = p.iter().map(|x| *x + Vec3::splat(0.05)).collect();
        let ha = Array::from_slice(dev, &hi);
        let mut bf = Array::zeros(dev, [n * CAP as usize]);
        let mut bc = Array::zeros(dev, [n]);
        in_box::launch(n, &dm, &pa, &ha, &mut bf, &mut bc).unwrap();
        let host = weft_geom::HashGrid::with_points(&p, 0.1, [32, 32, 32]).unwrap();
        let grid = DeviceHashGrid::new(dev, &host).unwrap();
        let mut nb = Array::zeros(dev, [n * CAP as usize]);
        let mut nc = Array::zeros(dev, [n]);
        neighbours::launch(n, &grid, &pa, 0.1, &mut nb, &mut nc).unwrap();
        (
            (face.to_vec(), t.to_vec(), pf.to_vec(), q.to_vec()),
            (bf.to_vec(), bc.to_vec(), nb.to_vec(), nc.to_vec()),
        )
    };
    let (c, g) = (run(Device::Cpu), run(dev));
    // The same IEEE operations in the same order (no fused multiply-adds): equal.
    let ((c0, c1, c2, c3), (c4, c5, c6, c7)) = c;
    let ((g0, g1, g2, g3), (g4, g5, g6, g7)) = g;
    assert_eq!(c0, g0, "ray faces");
    assert_eq!(c1, g1, "ray distances");
    assert_eq!(c2, g2, "closest faces");
    assert_eq!(c3, g3, "closest points");
    assert_eq!(c5, g5, "faces per box");
    assert_eq!(c4, g4, "faces in boxes (same traversal order)");
    assert_eq!(c7, g7, "neighbours per point");
    assert_eq!(c6, g6, "neighbours (same order)");
}

/// Sum of distances from the points to the mesh.
#[weft::kernel]
fn distance_loss(mesh: &DeviceMesh, p: &Array<Vec3>, loss: &mut Array<f32>) {
    let i = tid();
    let x = p[i];
    let f = mesh_query_point_face(mesh, x, f32::INFINITY);
    if f >= 0 {
        let a = mesh.points[mesh.faces[3 * f] as i32];
        let b = mesh.points[mesh.faces[3 * f + 1] as i32];
        let c = mesh.points[mesh.faces[3 * f + 2] as i32];
        let (q, _w) = closest_point_triangle(x, a, b, c);
        atomic_add(&mut loss[0], length(q - x));
    }
}

/// Sum of the ray hit distances.
#[weft::kernel]
fn hit_loss(mesh: &DeviceMesh, o: &Array<Vec3>, d: &Array<Vec3>, loss: &mut Array<f32>) {
    let i = tid();
    let f = mesh_query_ray_face(mesh, o[i], d[i], 100.0);
    if f >= 0 {
        let a = mesh.points[mesh.faces[3 * f] as i32];
        let b = mesh.points[mesh.faces[3 * f + 1] as i32];
        let c = mesh.points[mesh.faces[3 * f + 2] as i32];
        let (_hit, t, _u, _v) = ray_triangle(o[i], d[i], a, b, c);
        atomic_add(&mut loss[0], t);
    }
}

#[test]
fn closest_point_and_hit_distance_gradients_match_finite_differences() {
    let mesh = DeviceMesh::new(Device::Cpu, &weft_geom::generate::icosphere(1.0, 3)).unwrap();
    // Points off the surface, inside and outside, and rays towards the centre:
    // away from edges, where the answer is smooth.
    let p: Vec<Vec3> = vec![
        Vec3::new(1.3, 0.2, 0.1),
        Vec3::new(-0.2, 1.6, 0.3),
        Vec3::new(0.1, -0.3, 0.5),
        Vec3::new(0.7, 0.7, -0.9),
    ];
    let mut pa = Array::from_slice(Device::Cpu, &p);
    let report = gradcheck(&mut [&mut pa], None, |x, loss| {
        loss.fill(0.0);
        distance_loss::launch(4, &mesh, x[0], loss)
    })
    .unwrap();
    println!("closest point: {report}");
    assert!(report.max_rel < 2e-2, "{report}");
    // The gradient of a distance is the unit vector from the closest point.
    let x = Array::from_slice(Device::Cpu, &p).requires_grad();
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| distance_loss::launch(4, &mesh, &x, &mut loss))
        .unwrap();
    tape.backward(&mut loss).unwrap();
    for v in x.grad_to_vec().unwrap() {
        assert!((v.length() - 1.0).abs() < 1e-5, "{v}");
    }
    let mut o = Array::from_slice(
        Device::Cpu,
        &[
            Vec3::new(3.0, 0.2, 0.1),
            Vec3::new(0.1, -2.5, 0.3),
            Vec3::new(0.2, 0.3, 4.0),
        ],
    );
    let mut d = Array::from_slice(
        Device::Cpu,
        &[
            Vec3::new(-1.0, 0.05, 0.0),
            Vec3::new(0.0, 1.0, 0.1),
            Vec3::new(-0.1, 0.0, -1.0),
        ],
    );
    let report = gradcheck(&mut [&mut o, &mut d], None, |x, loss| {
        loss.fill(0.0);
        hit_loss::launch(3, &mesh, x[0], x[1], loss)
    })
    .unwrap();
    println!("ray hit distance: {report}");
    assert!(report.max_rel < 2e-2, "{report}");
}

/// Appends a caterpillar subtree of `levels` inner nodes to `nodes`/`parents`:
/// each inner node's left child is the rest of the chain and its right child a
/// leaf holding face `level`; the chain ends in a leaf holding face `levels`.
/// Every box is `bounds`, so a query that meets one meets all of them.
fn caterpillar(
    nodes: &mut Vec<weft::geom::BvhNode>,
    parents: &mut Vec<u32>,
    parent: u32,
    level: u32,
    levels: u32,
    bounds: (Vec3, Vec3),
) {
    let leaf = |slot: u32| weft::geom::BvhNode {
        lower: bounds.0,
        left_or_first: slot,
        upper: bounds.1,
        right_or_count: (1 << 31) | 1,
    };
    let me = nodes.len() as u32;
    parents.push(parent);
    if level == levels {
        nodes.push(leaf(level));
        return;
    }
    nodes.push(leaf(0)); // replaced below, once the right child's index is known
    caterpillar(nodes, parents, me, level + 1, levels, bounds);
    let right = nodes.len() as u32;
    nodes.push(leaf(level));
    parents.push(me);
    nodes[me as usize] = weft::geom::BvhNode {
        lower: bounds.0,
        left_or_first: me + 1,
        upper: bounds.1,
        right_or_count: right,
    };
}

#[test]
fn searches_deeper_than_their_stack_still_find_the_dropped_subtrees() {
    // 40 copies of one triangle in a 40-level chain: every ray or point meets
    // all of them at one distance, and the answer (the smallest index, face 0)
    // hangs off the root: the first entry the 32-slot stacks (rays and closest
    // points) drop.
    let levels = 40;
    assert!(levels > weft::geom::TRAVERSAL_STACK_SLOTS as u32);
    let corners = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let bounds = (Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0));
    let (mut nodes, mut parents) = (Vec::new(), Vec::new());
    caterpillar(&mut nodes, &mut parents, u32::MAX, 0, levels, bounds);
    let faces: Vec<u32> = (0..=levels).flat_map(|_| [0, 1, 2]).collect();
    let prims: Vec<u32> = (0..=levels).collect();
    let origins = [Vec3::new(0.2, 0.3, 2.0), Vec3::new(0.1, 0.1, -1.5)];
    let dirs = [Vec3::NEG_Z, Vec3::Z];
    for dev in weft_testkit::devices::devices() {
        let mesh = DeviceMesh {
            points: Array::from_slice(dev, &corners),
            velocities: Array::zeros(dev, [0]),
            faces: Array::from_slice(dev, &faces),
            nodes: Array::from_slice(dev, &nodes),
            prims: Array::from_slice(dev, &prims),
            parents: Array::from_slice(dev, &parents),
            tris: Array::from_slice(dev, &weft::geom::leaf_triangles(&corners, &faces, &prims)),
            winding: Array::zeros(dev, [0]),
        };
        let (oa, da) = (
            Array::from_slice(dev, &origins),
            Array::from_slice(dev, &dirs),
        );
        let (mut face, mut t) = (Array::zeros(dev, [2]), Array::zeros(dev, [2]));
        cast::launch(2, &mesh, &oa, &da, &mut face, &mut t).unwrap();
        assert_eq!(face.to_vec(), [0, 0], "{dev}: ray faces");
        // Within an ulp (the watertight test's rounding).
        let t = t.to_vec();
        assert!(
            (t[0] - 2.0).abs() <= 2.0 * f32::EPSILON && (t[1] - 1.5).abs() <= 2.0 * f32::EPSILON,
            "{dev}: ray distances {t:?}"
        );
        for max_dist in [f32::INFINITY, 2.0] {
            let (mut face, mut q) = (Array::zeros(dev, [2]), Array::zeros(dev, [2]));
            nearest::launch(2, &mesh, &oa, max_dist, &mut face, &mut q).unwrap();
            assert_eq!(
                face.to_vec(),
                [0, 0],
                "{dev}: closest faces within {max_dist}"
            );
            // Split at once: leaves above the split depth, every lane's subtree a
            // chain deeper than the stack.
            let mut batch = ClosestPoints::new(dev).unwrap();
            batch.set_budget(1);
            let mut face = Array::zeros(dev, [2]);
            batch.faces(&mesh, &oa, max_dist, &mut face).unwrap();
            assert_eq!(face.to_vec(), [0, 0], "{dev}: batch within {max_dist}");
            assert_eq!(batch.last_split_count().unwrap(), 2);
        }
    }
}
