//! The linear BVH built by kernels (`LbvhBuilder`, `DeviceMesh::build_on_device`):
//! the tree is valid for the stackless traversal, queries through it give the
//! brute-force answers, bad input is a clear error, and the CUDA build is the CPU
//! build bit for bit; on the CPU and, when present, a GPU.

use weft::geom::bvh_refit::mesh_refit;
use weft::geom::lbvh_kernels::{
    lbvh_bounds, lbvh_chain_len, lbvh_chain_place, lbvh_digit_counts, lbvh_hierarchy, lbvh_morton,
    lbvh_nodes, lbvh_reset, lbvh_scatter,
};
use weft::geom::winding_build::winding_climb;
use weft::geom::{
    BvhNode, DeviceMesh, LbvhBuilder, closest_point_triangle, mesh_query_aabb,
    mesh_query_aabb_next, mesh_query_point_face, mesh_query_ray_face, point_triangle_distance_sq,
    ray_triangle,
};
use weft::prelude::*;
use weft_geom::{Mesh, brute_force};
use weft_testkit::devices::devices;
use weft_testkit::random_f32s;

/// The first face the ray meets and its distance, through the BVH (`face`, `t`)
/// and over every face (`brute`, `brute_t`: the same triangle test and tie rule,
/// the smallest index among equal distances); -1 and 0 for none.
#[weft::kernel]
fn cast(
    mesh: &DeviceMesh,
    origins: &Array<Vec3>,
    dirs: &Array<Vec3>,
    face: &mut Array<i32>,
    t: &mut Array<f32>,
    brute: &mut Array<i32>,
    brute_t: &mut Array<f32>,
) {
    let i = tid();
    let (o, d) = (origins[i], dirs[i]);
    let f = mesh_query_ray_face(mesh, o, d, 100.0);
    face[i] = f;
    t[i] = 0.0;
    if f >= 0 {
        let a = mesh.points[mesh.faces[3 * f] as i32];
        let b = mesh.points[mesh.faces[3 * f + 1] as i32];
        let c = mesh.points[mesh.faces[3 * f + 2] as i32];
        let (_hit, s, _u, _v) = ray_triangle(o, d, a, b, c);
        t[i] = s;
    }
    let mut best = -1;
    let mut best_t = 100.0;
    for g in 0..mesh.faces.len() / 3 {
        let a = mesh.points[mesh.faces[3 * g] as i32];
        let b = mesh.points[mesh.faces[3 * g + 1] as i32];
        let c = mesh.points[mesh.faces[3 * g + 2] as i32];
        let (hit, s, _u, _v) = ray_triangle(o, d, a, b, c);
        if hit && (s < best_t || (s == best_t && best < 0)) {
            best_t = s;
            best = g;
        }
    }
    brute[i] = best;
    brute_t[i] = 0.0;
    if best >= 0 {
        brute_t[i] = best_t;
    }
}

/// The closest face within `max_dist` and its distance, through the BVH and over
/// every face (as [`cast`]).
#[weft::kernel]
fn nearest(
    mesh: &DeviceMesh,
    p: &Array<Vec3>,
    max_dist: f32,
    face: &mut Array<i32>,
    dist: &mut Array<f32>,
    brute: &mut Array<i32>,
    brute_dist: &mut Array<f32>,
) {
    let i = tid();
    let x = p[i];
    let f = mesh_query_point_face(mesh, x, max_dist);
    face[i] = f;
    dist[i] = 0.0;
    if f >= 0 {
        let a = mesh.points[mesh.faces[3 * f] as i32];
        let b = mesh.points[mesh.faces[3 * f + 1] as i32];
        let c = mesh.points[mesh.faces[3 * f + 2] as i32];
        let (q, _w) = closest_point_triangle(x, a, b, c);
        dist[i] = length(q - x);
    }
    let mut best = -1;
    let mut best_d2 = max_dist * max_dist;
    for g in 0..mesh.faces.len() / 3 {
        let a = mesh.points[mesh.faces[3 * g] as i32];
        let b = mesh.points[mesh.faces[3 * g + 1] as i32];
        let c = mesh.points[mesh.faces[3 * g + 2] as i32];
        let d2 = point_triangle_distance_sq(x, a, b, c);
        if d2 < best_d2 || (d2 == best_d2 && best < 0) {
            best_d2 = d2;
            best = g;
        }
    }
    brute[i] = best;
    brute_dist[i] = 0.0;
    if best >= 0 {
        brute_dist[i] = sqrt(best_d2);
    }
}

/// Asserts that the BVH found what the loop over every face found: the same face,
/// or (where two faces are within rounding of each other, which the BVH's box
/// tests may order otherwise) the same distance to 1e-6; returns the hits.
fn assert_same_answers(what: &str, face: &[i32], v: &[f32], brute: &[i32], bv: &[f32]) -> usize {
    let mut other_face = 0;
    for i in 0..face.len() {
        assert_eq!(
            face[i] < 0,
            brute[i] < 0,
            "{what} {i}: {} vs {}",
            face[i],
            brute[i]
        );
        if face[i] != brute[i] {
            other_face += 1;
            assert!(
                (v[i] - bv[i]).abs() <= 1e-6 * bv[i].abs().max(1.0),
                "{what} {i}: face {} at {} vs brute force {} at {}",
                face[i],
                v[i],
                brute[i],
                bv[i]
            );
        }
    }
    assert!(
        other_face * 100 <= face.len(),
        "{what}: {other_face} other faces"
    );
    face.iter().filter(|&&f| f >= 0).count()
}

/// Up to `CAP` faces per box, in `faces[i * CAP ..]`, and how many there were.
const CAP: usize = 512;

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
        if k < 512 {
            faces[i * 512 + k] = q.face;
        }
        k += 1;
        q = mesh_query_aabb_next(mesh, q, a, b);
    }
    count[i] = k;
}

/// `n` points uniform in `[lo, hi)³`.
fn cloud(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<Vec3> {
    random_f32s(3 * n, seed, lo, hi)
        .chunks(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect()
}

/// A triangle soup of `faces` small random triangles over `clusters` clusters
/// of three points (uniform in the cube, corners within 0.1 of a centre), with
/// degenerate ones: every 7th repeats a vertex, every 11th has three collinear
/// corners, and the last 20 are one and the same triangle (equal Morton codes).
fn soup(clusters: usize, faces: usize, seed: u64) -> Mesh {
    let centres = cloud(clusters, seed, -1.0, 1.0);
    let offsets = cloud(3 * clusters, seed + 1, -0.1, 0.1);
    let mut p: Vec<Vec3> = (0..3 * clusters)
        .map(|i| centres[i / 3] + offsets[i])
        .collect();
    let r = random_f32s(faces, seed + 2, 0.0, clusters as f32);
    let mut idx: Vec<[u32; 3]> = Vec::with_capacity(faces);
    for (f, x) in r.iter().enumerate() {
        let c = (*x as u32).min(clusters as u32 - 1);
        let mut t = [
            3 * c,
            3 * c + 1 + (f % 2) as u32,
            3 * c + 2 - (f % 2) as u32,
        ];
        if f % 7 == 0 {
            t[2] = t[0];
        }
        if f % 11 == 0 {
            let (a, b) = (p[t[0] as usize], p[t[1] as usize]);
            p[t[2] as usize] = a + (b - a) * 0.25;
        }
        idx.push(t);
    }
    for t in idx.iter_mut().skip(faces.saturating_sub(20)) {
        *t = [0, 1, 2];
    }
    Mesh::new(p, idx).unwrap()
}

/// The mesh's arrays on `device`.
fn upload(device: Device, mesh: &Mesh) -> (Array<Vec3>, Array<u32>) {
    let faces: Vec<u32> = mesh.indices().iter().flatten().copied().collect();
    (
        Array::from_slice(device, mesh.points()),
        Array::from_slice(device, &faces),
    )
}

/// Asserts what the queries rely on: every face in exactly one leaf, every node
/// reached once from the root, left child = parent + 1, parent links, and each
/// box containing its children's boxes (a leaf's: its face's box, exactly).
fn assert_valid(what: &str, dm: &DeviceMesh, mesh: &Mesh) {
    let (nodes, prims, parents) = (dm.nodes.to_vec(), dm.prims.to_vec(), dm.parents.to_vec());
    let n = mesh.num_faces();
    if n == 0 {
        assert_eq!(nodes.len(), 1, "{what}: empty tree");
        assert_eq!(nodes[0].right_or_count, weft_geom::bvh::LEAF_BIT, "{what}");
        assert!(nodes[0].lower.x > nodes[0].upper.x, "{what}: empty box");
        return;
    }
    assert_eq!(nodes.len(), 2 * n - 1, "{what}: node count");
    assert_eq!(parents.len(), nodes.len(), "{what}: parent count");
    assert_eq!(
        parents[0],
        weft_geom::bvh::NO_PARENT,
        "{what}: root's parent"
    );
    let mut seen_face = vec![0u32; n];
    let mut seen_node = vec![0u32; nodes.len()];
    let contains = |outer: &BvhNode, lo: Vec3, hi: Vec3| {
        outer.lower.cmple(lo).all() && outer.upper.cmpge(hi).all()
    };
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        seen_node[i] += 1;
        let node = nodes[i];
        if node.right_or_count & weft_geom::bvh::LEAF_BIT != 0 {
            let first = node.left_or_first as usize;
            let count = (node.right_or_count & !weft_geom::bvh::LEAF_BIT) as usize;
            assert!(count >= 1 && first + count <= n, "{what}: leaf {i}");
            for &f in &prims[first..first + count] {
                seen_face[f as usize] += 1;
                let b = mesh.face_aabb(f as usize);
                assert!(
                    contains(&node, b.lower, b.upper),
                    "{what}: leaf {i} face {f}"
                );
            }
        } else {
            let (l, r) = (node.left_or_first as usize, node.right_or_count as usize);
            assert_eq!(l, i + 1, "{what}: node {i}'s left child");
            assert!(
                r > l && r < nodes.len(),
                "{what}: node {i}'s right child {r}"
            );
            for c in [l, r] {
                assert_eq!(parents[c] as usize, i, "{what}: parent of {c}");
                assert!(
                    contains(&node, nodes[c].lower, nodes[c].upper),
                    "{what}: node {i} does not contain child {c}"
                );
            }
            stack.extend([r, l]);
        }
    }
    assert!(
        seen_node.iter().all(|&c| c == 1),
        "{what}: nodes reached once"
    );
    assert!(seen_face.iter().all(|&c| c == 1), "{what}: faces once");
}

/// Ray, closest-point (unbounded and bounded) and box queries through the device
/// BVH give the brute-force answers: the same face as a loop over every face with
/// the kernel's own tests, the host's brute-force distance, the exact face sets.
fn assert_queries(what: &str, dm: &DeviceMesh, mesh: &Mesh, seed: u64) {
    let d = dm.points.device();
    let n = 1500;
    let (o, dirs) = (cloud(n, seed, -1.6, 1.6), cloud(n, seed + 1, -1.0, 1.0));
    let (oa, da) = (Array::from_slice(d, &o), Array::from_slice(d, &dirs));
    let z = || (Array::zeros(d, [n]), Array::zeros(d, [n]));
    let ((mut face, mut t), (mut bf, mut bt)) = (z(), z());
    cast::launch(n, dm, &oa, &da, &mut face, &mut t, &mut bf, &mut bt).unwrap();
    let hits = assert_same_answers(
        &format!("{what}: ray"),
        &face.to_vec(),
        &t.to_vec(),
        &bf.to_vec(),
        &bt.to_vec(),
    );
    for max_dist in [f32::INFINITY, 0.15] {
        let ((mut face, mut dist), (mut bf, mut bd)) = (z(), z());
        nearest::launch(n, dm, &oa, max_dist, &mut face, &mut dist, &mut bf, &mut bd).unwrap();
        let dist = dist.to_vec();
        let found = assert_same_answers(
            &format!("{what}: point within {max_dist}"),
            &face.to_vec(),
            &dist,
            &bf.to_vec(),
            &bd.to_vec(),
        );
        // And the host's brute force (its own closest-point routine) agrees.
        for (i, x) in o.iter().enumerate() {
            let host = brute_force::closest_point(mesh, *x, max_dist).map(|h| h.distance);
            if let Some(h) = host {
                assert!(
                    (dist[i] - h).abs() <= 1e-5 * h.max(1.0),
                    "{what}: point {i}: distance {} vs host brute force {h}",
                    dist[i]
                );
            }
        }
        if max_dist.is_infinite() && mesh.num_faces() > 0 {
            assert_eq!(found, n, "{what}: unbounded queries find a face");
        }
    }
    let hi: Vec<Vec3> = o
        .iter()
        .enumerate()
        .map(|(i, p)| *p + Vec3::splat(if i % 10 == 0 { 0.0 } else { 0.3 }))
        .collect();
    let ha = Array::from_slice(d, &hi);
    let (mut bf, mut bc) = (Array::zeros(d, [n * CAP]), Array::zeros(d, [n]));
    in_box::launch(n, dm, &oa, &ha, &mut bf, &mut bc).unwrap();
    let (bf, bc) = (bf.to_vec(), bc.to_vec());
    for i in 0..n {
        let k = bc[i] as usize;
        assert!(k <= CAP, "{what}: box {i}: {k} faces");
        let mut got: Vec<u32> = bf[i * CAP..i * CAP + k].iter().map(|&f| f as u32).collect();
        got.sort();
        assert_eq!(
            got,
            brute_force::aabb_query(mesh, o[i], hi[i]),
            "{what}: box {i}"
        );
    }
    println!("{what}: {hits} of {n} rays hit");
}

/// Builds `mesh` on every device, checks the tree and the queries, and that the
/// CUDA build is the CPU build bit for bit.
fn check(what: &str, mesh: &Mesh, seed: u64) {
    let mut first: Option<(Vec<BvhNode>, Vec<u32>, Vec<u32>)> = None;
    for d in devices() {
        let (p, f) = upload(d, mesh);
        let dm = DeviceMesh::build_on_device(&p, &f).unwrap();
        let what = format!("{what} on {d}");
        assert_valid(&what, &dm, mesh);
        assert_queries(&what, &dm, mesh, seed);
        let arrays = (dm.nodes.to_vec(), dm.prims.to_vec(), dm.parents.to_vec());
        match &first {
            None => first = Some(arrays),
            Some(cpu) => assert!(cpu == &arrays, "{what}: differs from the CPU build"),
        }
    }
}

#[test]
fn random_soups_with_degenerate_triangles() {
    // Below, at and above one tile of the sort (64 keys), and many tiles.
    for (i, (clusters, faces)) in [(1, 1), (2, 2), (30, 63), (50, 64), (80, 65), (2000, 5000)]
        .into_iter()
        .enumerate()
    {
        let mesh = soup(clusters, faces, 100 + i as u64);
        check(&format!("soup {clusters}/{faces}"), &mesh, 200 + i as u64);
    }
}

#[test]
fn closed_meshes() {
    check("icosphere", &weft_geom::generate::icosphere(1.0, 4), 300);
    check("torus", &weft_geom::generate::torus(1.0, 0.3, 48, 24), 301);
}

#[test]
fn every_face_at_one_place() {
    // All centroids equal: one Morton code, the order comes from the tie rule.
    let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    let mesh = Mesh::new(p, vec![[0, 1, 2]; 300]).unwrap();
    check("300 copies of a face", &mesh, 302);
}

#[test]
fn an_empty_mesh_has_nothing_to_find() {
    for d in devices() {
        let dm = DeviceMesh::build_on_device(
            &Array::from_slice(d, &[Vec3::ZERO; 4]),
            &Array::<u32>::zeros(d, [0]),
        )
        .unwrap();
        assert_valid("empty", &dm, &Mesh::empty());
        assert_queries(&format!("empty on {d}"), &dm, &Mesh::empty(), 303);
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let d = Device::Cpu;
    let p = Array::from_slice(d, &cloud(10, 400, 0.0, 1.0));
    let e = DeviceMesh::build_on_device(&p, &Array::from_slice(d, &[0u32, 1, 2, 3])).unwrap_err();
    assert!(e.to_string().contains("multiple of 3"), "{e}");
    let bad = Array::from_slice(d, &[0u32, 1, 2, 3, 4, 5, 6, 10, 2]);
    let e = DeviceMesh::build_on_device(&p, &bad).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { .. })
            && e.to_string()
                .contains("face 2 has vertex indices [6, 10, 2]")
            && e.to_string().contains("10 points"),
        "{e}"
    );
    let mut pts = cloud(10, 401, 0.0, 1.0);
    pts[4].y = f32::NAN;
    let ok = Array::from_slice(d, &[0u32, 1, 2, 3, 4, 5]);
    let e = DeviceMesh::build_on_device(&Array::from_slice(d, &pts), &ok).unwrap_err();
    assert!(
        e.to_string()
            .contains("face 1 has a vertex that is not finite"),
        "{e}"
    );
    let elsewhere = Array::<u32>::placeholder(Device::Cuda(0), [3]);
    let e = DeviceMesh::build_on_device(&p, &elsewhere).unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    // The builder still works after an error.
    let mut b = LbvhBuilder::new(d);
    assert!(b.build(&p, &bad).is_err());
    let dm = b.build(&p, &ok).unwrap();
    assert_eq!(dm.nodes.len(), 3);
}

#[test]
fn a_rebuild_follows_moved_points() {
    let mesh = weft_geom::generate::torus(1.0, 0.3, 32, 16);
    for d in devices() {
        let (p, f) = upload(d, &mesh);
        let mut b = LbvhBuilder::new(d);
        let mut dm = b.build(&p, &f).unwrap();
        let nodes_before = dm.nodes.device_ptr();
        // Twist and stretch the torus, then rebuild in place.
        let moved: Vec<Vec3> = mesh
            .points()
            .iter()
            .map(|q| Vec3::new(q.x * 1.5 + q.z, q.y - 0.5 * q.x, q.z * 3.0))
            .collect();
        dm.points.copy_from_slice(&moved).unwrap();
        b.rebuild(&mut dm).unwrap();
        assert_eq!(
            dm.nodes.device_ptr(),
            nodes_before,
            "{d}: a rebuild reallocated"
        );
        let moved_mesh = Mesh::new(moved, mesh.indices().to_vec()).unwrap();
        assert_valid(&format!("rebuilt on {d}"), &dm, &moved_mesh);
        assert_queries(&format!("rebuilt on {d}"), &dm, &moved_mesh, 500);
        // A mesh built on the host (SAH, several faces per leaf) rebuilt as an LBVH.
        let mut host_built = DeviceMesh::new(d, &moved_mesh).unwrap();
        b.rebuild(&mut host_built).unwrap();
        assert!(
            host_built.nodes.to_vec() == dm.nodes.to_vec(),
            "{d}: same tree"
        );
    }
}

#[test]
fn a_refit_follows_moved_points_as_the_host_refit_does() {
    let mesh = weft_geom::generate::torus(1.0, 0.3, 32, 16);
    let moved: Vec<Vec3> = mesh
        .points()
        .iter()
        .map(|q| Vec3::new(q.x * 1.3 + 0.2 * q.z, q.y * 0.7, q.z + 0.3 * q.x * q.x))
        .collect();
    let moved_mesh = Mesh::new(moved.clone(), mesh.indices().to_vec()).unwrap();
    let mut host = weft_geom::Bvh::from_mesh(&mesh);
    host.refit_mesh(&moved_mesh);
    let host_nodes: Vec<BvhNode> = host.nodes().iter().map(BvhNode::from).collect();
    let faces: Vec<u32> = mesh.indices().iter().flatten().copied().collect();
    let host_tris = weft::geom::leaf_triangles(&moved, &faces, host.prim_indices());
    for d in devices() {
        // A host-built tree (several faces per leaf, winding data) refitted on the
        // device: the host's boxes bit for bit, the new corners, fresh winding data.
        let mut dm = DeviceMesh::new(d, &mesh).unwrap();
        let nodes_before = dm.nodes.device_ptr();
        dm.points.copy_from_slice(&moved).unwrap();
        let mut b = LbvhBuilder::new(d);
        for _ in 0..2 {
            b.refit(&mut dm).unwrap();
            assert!(
                dm.nodes.to_vec() == host_nodes,
                "{d}: the host refit's boxes"
            );
            assert!(dm.tris.to_vec() == host_tris, "{d}: leaf corners");
        }
        assert_eq!(
            dm.nodes.device_ptr(),
            nodes_before,
            "{d}: a refit reallocated"
        );
        assert_queries(&format!("refitted on {d}"), &dm, &moved_mesh, 700);
        let fresh = DeviceMesh::with_bvh(d, &moved_mesh, &host).unwrap();
        for (i, (w, h)) in dm
            .winding
            .to_vec()
            .iter()
            .zip(fresh.winding.to_vec())
            .enumerate()
        {
            let tol = 1e-4 * h.radius.max(h.area).max(1.0);
            assert!(
                (w.center - h.center).abs().max_element() <= tol
                    && (w.radius - h.radius).abs() <= tol
                    && (w.area - h.area).abs() <= tol
                    && (w.area_normal - h.area_normal).abs().max_element() <= tol,
                "{d}: winding data of node {i}: {w:?} against {h:?}"
            );
        }
        // A device-built tree, refitted like the rebuilt one would not be: still
        // valid, and its queries still right.
        let (p, f) = upload(d, &mesh);
        let mut dm = b.build(&p, &f).unwrap();
        dm.points.copy_from_slice(&moved).unwrap();
        b.refit(&mut dm).unwrap();
        assert!(dm.winding.is_empty(), "{d}: no winding data asked for");
        assert_queries(&format!("LBVH refitted on {d}"), &dm, &moved_mesh, 800);
        // Arrays that do not fit together.
        dm.prims = Array::zeros(d, [3]);
        let e = b.refit(&mut dm).unwrap_err().to_string();
        assert!(e.contains("do not fit a tree"), "{d}: {e}");
    }
}

#[test]
fn a_rebuild_replays_in_a_cuda_graph() {
    let Some(d) = weft_testkit::devices::cuda() else {
        return;
    };
    let Device::Cuda(ordinal) = d else {
        unreachable!()
    };
    let mesh = weft_geom::generate::icosphere(1.0, 3);
    let (p, f) = upload(d, &mesh);
    let mut b = LbvhBuilder::new(d);
    let mut dm = b.build(&p, &f).unwrap();
    let step = weft::cuda::Graph::capture(ordinal, || b.rebuild(&mut dm)).unwrap();
    let squashed: Vec<Vec3> = mesh
        .points()
        .iter()
        .map(|q| *q * Vec3::new(2.0, 1.0, 0.25))
        .collect();
    dm.points.copy_from_slice(&squashed).unwrap();
    step.launch().unwrap();
    let moved = Mesh::new(squashed, mesh.indices().to_vec()).unwrap();
    assert_valid("graph replay", &dm, &moved);
    assert_queries("graph replay", &dm, &moved, 600);
}

#[test]
fn build_kernels_have_ptx() {
    // Forward and adjoint of every build kernel and of the query kernels here
    // (ptxas-checked with WEFT_PTXAS).
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
            lbvh_reset,
            lbvh_bounds,
            lbvh_morton,
            lbvh_digit_counts,
            lbvh_scatter,
            lbvh_hierarchy,
            lbvh_chain_len,
            lbvh_chain_place,
            lbvh_nodes,
            mesh_refit,
            winding_climb,
            cast,
            nearest,
            in_box
        ),
        &[],
    );
}
