//! The documented flat layouts are enough for a kernel: traversals written against the
//! raw arrays only (fixed stacks, leaf bit, parents, cell ranges) give the host answers.

mod common;

use common::{Rng, RngExt};
use glam::Vec3;
use weft_geom::bvh::{BvhNode, LEAF_BIT, MAX_DEPTH, NO_PARENT};
use weft_geom::query::WatertightRay;
use weft_geom::{Aabb, HashGrid, MeshBvh, RayBoxTest, generate};

/// Closest hit the way a kernel would write it: raw arrays, a `[u32; MAX_DEPTH]` stack.
fn kernel_ray(
    nodes: &[BvhNode],
    prims: &[u32],
    points: &[Vec3],
    tris: &[[u32; 3]],
    o: Vec3,
    d: Vec3,
) -> Option<(u32, f32)> {
    let ray = WatertightRay::new(o, d)?;
    let boxes = RayBoxTest::new(o, d);
    let mut stack = [0u32; MAX_DEPTH];
    let mut len = 1;
    let mut best: Option<(u32, f32)> = None;
    while len > 0 {
        len -= 1;
        let n = nodes[stack[len] as usize];
        if boxes
            .hit(&Aabb::new(n.lower, n.upper), f32::INFINITY)
            .is_none()
        {
            continue;
        }
        if n.right_or_count & LEAF_BIT != 0 {
            let first = n.left_or_first as usize;
            for &f in &prims[first..first + (n.right_or_count & !LEAF_BIT) as usize] {
                let [a, b, c] = tris[f as usize].map(|i| points[i as usize]);
                if let Some(h) = ray.intersect(a, b, c, f32::INFINITY)
                    && best.is_none_or(|(bf, bt)| h.t < bt || (h.t == bt && f < bf))
                {
                    best = Some((f, h.t));
                }
            }
        } else {
            stack[len] = n.right_or_count;
            stack[len + 1] = n.left_or_first;
            len += 2;
        }
    }
    best
}

#[test]
fn raw_array_ray_traversal_matches_host() {
    let mut rng = Rng::new(40);
    let bvh = MeshBvh::new(generate::torus_knot(2, 3, 1.0, 0.15, 128, 12));
    let (nodes, prims) = (bvh.bvh().nodes(), bvh.bvh().prim_indices());
    let (points, tris) = (bvh.mesh().points(), bvh.mesh().indices());
    for _ in 0..500 {
        let o = rng.vec3(-2.0, 2.0);
        let d = rng.dir();
        let host = bvh.ray(o, d, f32::INFINITY).map(|h| (h.face, h.t));
        assert_eq!(kernel_ray(nodes, prims, points, tris, o, d), host);
    }
}

#[test]
fn bottom_up_refit_with_parents_and_counters_matches_host() {
    let mut rng = Rng::new(41);
    let mut bvh = MeshBvh::new(generate::icosphere(1.0, 3));
    for p in bvh.points_mut() {
        *p += rng.vec3(-0.2, 0.2);
    }
    let mesh = bvh.mesh().clone();
    let mut nodes = bvh.bvh().nodes().to_vec();
    let (parents, prims) = (bvh.bvh().parents(), bvh.bvh().prim_indices());
    // GPU scheme: one thread per leaf (any order), counter per node, second arrival
    // computes the parent and continues upward.
    let mut leaves: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].is_leaf()).collect();
    leaves.reverse();
    let mut visits = vec![0u8; nodes.len()];
    for leaf in leaves {
        let b = nodes[leaf].prim_range().fold(Aabb::EMPTY, |b, k| {
            b.union(mesh.face_aabb(prims[k] as usize))
        });
        nodes[leaf].set_aabb(b);
        let mut i = parents[leaf];
        while i != NO_PARENT {
            visits[i as usize] += 1;
            if visits[i as usize] < 2 {
                break;
            }
            let (l, r) = nodes[i as usize].children();
            let b = nodes[l as usize].aabb().union(nodes[r as usize].aabb());
            nodes[i as usize].set_aabb(b);
            i = parents[i as usize];
        }
    }
    bvh.refit();
    assert_eq!(nodes, bvh.bvh().nodes());
}

#[test]
fn twenty_seven_cell_kernel_query_matches_host() {
    let mut rng = Rng::new(42);
    let points: Vec<Vec3> = (0..5000).map(|_| rng.vec3(-3.0, 3.0)).collect();
    let h = 0.2;
    let grid = HashGrid::with_points(&points, h, [16, 16, 16]).unwrap();
    for _ in 0..300 {
        let p = rng.vec3(-3.5, 3.5);
        let r = rng.range(0.0, h);
        let c = grid.cell_coords(p);
        let mut got = Vec::new();
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let cell = grid.hash_cell([c[0] + dx, c[1] + dy, c[2] + dz]) as usize;
                    for k in grid.cell_start()[cell]..grid.cell_end()[cell] {
                        let q = grid.sorted_points()[k as usize];
                        if (q - p).length_squared() <= r * r {
                            got.push(grid.sorted_index()[k as usize]);
                        }
                    }
                }
            }
        }
        got.sort_unstable();
        let mut host: Vec<u32> = grid.query(p, r).collect();
        host.sort_unstable();
        assert_eq!(got, host);
    }
}
