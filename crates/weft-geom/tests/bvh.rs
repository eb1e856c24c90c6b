//! BVH structure: the documented layout invariants hold, refit equals recomputed
//! bounds, and the generic queries equal brute force.

mod common;

use common::{Rng, RngExt, random_soup};
use glam::Vec3;
use weft_geom::bvh::{LEAF_BIT, MAX_DEPTH, NO_PARENT};
use weft_geom::{Aabb, BuildOptions, Bvh, MeshBvh, RayBoxTest, generate};

/// Checks every documented invariant of the layout; returns each node's primitive
/// range (contiguous run of `prim_indices`).
fn check_layout(bvh: &Bvh, prim_aabbs: &[Aabb], max_leaf: usize) -> Vec<std::ops::Range<usize>> {
    let nodes = bvh.nodes();
    let n = nodes.len();
    assert_eq!(bvh.parents().len(), n);
    assert_eq!(bvh.parents()[0], NO_PARENT);
    let mut perm = bvh.prim_indices().to_vec();
    perm.sort_unstable();
    assert!(
        perm.iter().enumerate().all(|(i, &p)| p as usize == i),
        "not a permutation"
    );

    // Walk in pre-order; subtree of i must be [i, end).
    fn walk(
        bvh: &Bvh,
        i: usize,
        depth: usize,
        ranges: &mut Vec<std::ops::Range<usize>>,
        max_leaf: usize,
        max_depth: &mut usize,
    ) -> usize {
        let node = bvh.nodes()[i];
        *max_depth = (*max_depth).max(depth + 1);
        if node.is_leaf() {
            let r = node.prim_range();
            assert!(
                !r.is_empty() && r.len() <= max_leaf,
                "leaf size {}",
                r.len()
            );
            ranges[i] = r;
            return i + 1;
        }
        let (l, r) = node.children();
        assert_eq!(l as usize, i + 1, "left child follows parent");
        assert_eq!(bvh.parents()[l as usize] as usize, i);
        assert_eq!(bvh.parents()[r as usize] as usize, i);
        let end_left = walk(bvh, l as usize, depth + 1, ranges, max_leaf, max_depth);
        assert_eq!(end_left, r as usize, "right child follows the left subtree");
        let end = walk(bvh, r as usize, depth + 1, ranges, max_leaf, max_depth);
        let (lr, rr) = (ranges[l as usize].clone(), ranges[r as usize].clone());
        assert_eq!(lr.end, rr.start, "children cover adjacent primitive runs");
        ranges[i] = lr.start..rr.end;
        end
    }
    let mut ranges = vec![0..0; n];
    let mut depth = 0;
    assert_eq!(
        walk(bvh, 0, 0, &mut ranges, max_leaf, &mut depth),
        n,
        "every node reachable once"
    );
    assert_eq!(depth, bvh.depth());
    assert!(depth <= MAX_DEPTH);

    // Boxes are exact unions of the primitives below.
    for (i, node) in nodes.iter().enumerate() {
        let want = bvh.prim_indices()[ranges[i].clone()]
            .iter()
            .fold(Aabb::EMPTY, |b, &p| b.union(prim_aabbs[p as usize]));
        assert_eq!(node.aabb(), want, "node {i}");
    }
    ranges
}

/// `max_leaf_size` of the default build options.
const DEFAULT_LEAF: usize = 8;

#[test]
fn default_leaf_size_is_what_these_tests_assume() {
    assert_eq!(BuildOptions::default().max_leaf_size, DEFAULT_LEAF);
}

fn random_boxes(rng: &mut Rng, n: usize) -> Vec<Aabb> {
    (0..n)
        .map(|i| {
            let c = rng.vec3(-10.0, 10.0);
            let e = if i % 11 == 0 {
                Vec3::ZERO
            } else {
                rng.vec3(0.0, 0.5)
            };
            Aabb::new(c - e, c + e)
        })
        .collect()
}

#[test]
fn layout_invariants_on_random_boxes_and_meshes() {
    let mut rng = Rng::new(1);
    for n in [1, 2, 3, 5, 17, 100, 3000, 12_000] {
        let boxes = random_boxes(&mut rng, n);
        check_layout(&Bvh::build(&boxes), &boxes, DEFAULT_LEAF);
    }
    let mesh = generate::torus(1.0, 0.3, 64, 32);
    check_layout(
        &Bvh::from_mesh(&mesh),
        &weft_geom::bvh::face_aabbs(&mesh),
        DEFAULT_LEAF,
    );
    for opts in [
        BuildOptions {
            bins: 2,
            max_leaf_size: 1,
            traversal_cost: 1.0,
        },
        BuildOptions {
            bins: 32,
            max_leaf_size: 8,
            traversal_cost: 0.5,
        },
    ] {
        let boxes = random_boxes(&mut rng, 2000);
        check_layout(
            &Bvh::build_with(&boxes, &opts).unwrap(),
            &boxes,
            opts.max_leaf_size,
        );
    }
}

#[test]
fn node_encoding_is_documented_bits() {
    let boxes = random_boxes(&mut Rng::new(2), 50);
    let bvh = Bvh::build(&boxes);
    let bytes: &[u8] = bytemuck::cast_slice(bvh.nodes());
    for (i, node) in bvh.nodes().iter().enumerate() {
        let raw = &bytes[32 * i..32 * i + 32];
        let word = |k: usize| u32::from_le_bytes(raw[4 * k..4 * k + 4].try_into().unwrap());
        assert_eq!(f32::from_bits(word(0)), node.lower.x);
        assert_eq!(f32::from_bits(word(6)), node.upper.z);
        assert_eq!(word(3), node.left_or_first);
        assert_eq!(word(7) & LEAF_BIT != 0, node.is_leaf());
    }
}

#[test]
fn degenerate_inputs_build_shallow_valid_trees() {
    // All boxes identical: no SAH plane separates them; median splits keep depth low.
    let same = vec![Aabb::new(Vec3::ZERO, Vec3::ONE); 10_000];
    let bvh = Bvh::build(&same);
    check_layout(&bvh, &same, DEFAULT_LEAF);
    assert!(bvh.depth() <= 14, "depth {}", bvh.depth());
    // Points on a line, and a geometric sequence (badly balanced for SAH).
    let line: Vec<Aabb> = (0..5000)
        .map(|i| Aabb::from_point(Vec3::X * i as f32))
        .collect();
    check_layout(&Bvh::build(&line), &line, DEFAULT_LEAF);
    let geo: Vec<Aabb> = (0..120)
        .map(|i| Aabb::from_point(Vec3::X * 1.5f32.powi(i)))
        .collect();
    let bvh = Bvh::build(&geo);
    check_layout(&bvh, &geo, DEFAULT_LEAF);
    // Non-finite boxes do not panic.
    let mut bad = random_boxes(&mut Rng::new(3), 100);
    bad[7] = Aabb::new(Vec3::NAN, Vec3::NAN);
    bad[9] = Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY);
    let bvh = Bvh::build(&bad);
    assert_eq!(bvh.num_prims(), 100);
}

#[test]
fn empty_bvh_is_one_empty_leaf() {
    let bvh = Bvh::build(&[]);
    assert_eq!(bvh.nodes().len(), 1);
    assert!(bvh.nodes()[0].is_leaf() && bvh.nodes()[0].prim_range().is_empty());
    assert!(bvh.is_empty());
    assert_eq!(
        bvh.aabb_candidates(Aabb::new(Vec3::splat(-1e30), Vec3::splat(1e30)))
            .count(),
        0
    );
    assert_eq!(
        bvh.ray_candidates(Vec3::ZERO, Vec3::X, f32::INFINITY)
            .count(),
        0
    );
    assert_eq!(
        bvh.cast_ray(Vec3::ZERO, Vec3::X, f32::INFINITY, |_, _| Some(0.0)),
        None
    );
    assert_eq!(bvh.nearest(Vec3::ZERO, f32::INFINITY, |_| 0.0), None);
    let mut bvh = bvh;
    bvh.refit(|_| unreachable!());
}

#[test]
fn invalid_options_are_errors() {
    for opts in [
        BuildOptions {
            bins: 1,
            ..Default::default()
        },
        BuildOptions {
            bins: 33,
            ..Default::default()
        },
        BuildOptions {
            max_leaf_size: 0,
            ..Default::default()
        },
        BuildOptions {
            traversal_cost: f32::NAN,
            ..Default::default()
        },
    ] {
        let e = Bvh::build_with(&[], &opts).unwrap_err();
        assert!(e.to_string().starts_with("invalid parameter"), "{e}");
    }
}

#[test]
fn refit_equals_bounds_recomputed_on_the_same_topology() {
    let mut rng = Rng::new(4);
    let mesh = generate::icosphere(1.0, 4);
    let mut moved = mesh.clone();
    for p in moved.points_mut() {
        *p = *p * rng.range(0.5, 2.0) + rng.vec3(-0.3, 0.3);
    }
    let built = Bvh::from_mesh(&mesh);
    let mut refit = built.clone();
    refit.refit_mesh(&moved);
    // Same topology, boxes equal to the unions over each node's faces (what a build
    // computes for its nodes).
    let ranges = check_layout(&refit, &weft_geom::bvh::face_aabbs(&moved), DEFAULT_LEAF);
    assert_eq!(ranges.len(), built.nodes().len());
    assert_eq!(refit.prim_indices(), built.prim_indices());
    assert_eq!(refit.parents(), built.parents());
    // Moving back restores the original build bit for bit.
    refit.refit_mesh(&mesh);
    assert_eq!(refit, built);
}

#[test]
fn refit_of_a_large_tree_runs_in_parallel_and_matches() {
    let mut rng = Rng::new(5);
    let mut boxes = random_boxes(&mut rng, 20_000);
    let mut bvh = Bvh::build(&boxes);
    for b in &mut boxes {
        let d = rng.vec3(-1.0, 1.0);
        *b = Aabb::new(b.lower + d, b.upper + d);
    }
    bvh.refit_from(&boxes);
    check_layout(&bvh, &boxes, DEFAULT_LEAF);
}

#[test]
fn generic_queries_equal_brute_force() {
    let mut rng = Rng::new(6);
    let boxes = random_boxes(&mut rng, 3000);
    let bvh = Bvh::build(&boxes);
    for _ in 0..500 {
        let c = rng.vec3(-11.0, 11.0);
        let e = rng.vec3(0.0, 2.0);
        let q = Aabb::new(c - e, c + e);
        let mut got: Vec<u32> = bvh.aabb_query(q, &boxes).collect();
        got.sort_unstable();
        let want: Vec<u32> = (0..boxes.len() as u32)
            .filter(|&i| boxes[i as usize].overlaps(&q))
            .collect();
        assert_eq!(got, want);
        assert!(bvh.aabb_candidates(q).count() >= want.len());
    }
    for _ in 0..500 {
        let o = rng.vec3(-15.0, 15.0);
        let d = rng.dir() * rng.range(0.1, 3.0);
        let max_t = if rng.f32() < 0.5 {
            f32::INFINITY
        } else {
            rng.range(0.0, 10.0)
        };
        let test = RayBoxTest::new(o, d);
        let entry = |p: u32| test.hit(&boxes[p as usize], max_t);
        let mut cands: Vec<u32> = bvh.ray_candidates(o, d, max_t).collect();
        cands.sort_unstable();
        let hit: Vec<u32> = (0..boxes.len() as u32)
            .filter(|&p| entry(p).is_some())
            .collect();
        assert!(
            hit.iter().all(|p| cands.binary_search(p).is_ok()),
            "candidates miss a hit box"
        );
        let want = hit
            .iter()
            .map(|&p| (p, entry(p).unwrap()))
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        assert_eq!(bvh.cast_ray(o, d, max_t, |p, _| entry(p)), want);
    }
    for _ in 0..500 {
        let p = rng.vec3(-15.0, 15.0);
        let max_dist = if rng.f32() < 0.5 {
            f32::INFINITY
        } else {
            rng.range(0.0, 3.0)
        };
        let d2 = |i: u32| boxes[i as usize].distance_squared(p);
        let want = (0..boxes.len() as u32)
            .map(|i| (i, d2(i)))
            .filter(|&(_, d)| d <= max_dist * max_dist)
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        assert_eq!(bvh.nearest(p, max_dist, d2), want);
    }
}

#[test]
fn mesh_bvh_of_random_soup_is_valid_after_refit() {
    let mut rng = Rng::new(7);
    let mut m = MeshBvh::new(random_soup(&mut rng, 2000));
    let shifted: Vec<Vec3> = m.mesh().points().iter().map(|&p| p + Vec3::X).collect();
    m.set_points(&shifted).unwrap();
    check_layout(m.bvh(), &weft_geom::bvh::face_aabbs(m.mesh()), DEFAULT_LEAF);
    assert!(m.set_points(&shifted[1..]).is_err());
    let mut bad = shifted.clone();
    bad[3] = Vec3::NAN;
    assert!(
        m.set_points(&bad)
            .unwrap_err()
            .to_string()
            .contains("vertex 3")
    );
}
