//! The broad phase's two ways of pairing moving shapes — a hash grid rebuilt
//! each step and a list of the pairs that may touch, made once — find the same
//! pairs as a brute-force test of every pair's boxes, across worlds, shapes
//! shared by every world, collision groups and parent links.

use proptest::prelude::*;
use weft::prelude::*;
use weft_collide::{
    BroadPhase, CollisionOptions, CollisionPipeline, Filter, Geometry, ShapeDesc, ShapeSet,
};

/// `worlds` clusters of `per_world` bodies with one shape each, every cluster
/// inside one 1 m cube (neighbours overlap often), clusters `spacing` apart;
/// the first shape belongs to every world when `global` is set. Every third
/// shape skips the body before it (a link and its parent); every fifth is in
/// group 2 and collides with group 1 only.
fn scene(
    worlds: usize,
    per_world: usize,
    spacing: f32,
    global: bool,
    seed: u64,
) -> (Vec<ShapeDesc>, Vec<Transform>) {
    let mut r = seed | 1;
    let mut rand = move || {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        (r >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut shapes = vec![ShapeDesc::new(
        -1,
        Transform::IDENTITY,
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    )];
    shapes[0].world = -1;
    let mut poses = Vec::new();
    for w in 0..worlds {
        for k in 0..per_world {
            let b = poses.len() as i32;
            let g = match b % 3 {
                0 => Geometry::Sphere {
                    radius: 0.05 + 0.1 * rand(),
                },
                1 => Geometry::Box {
                    half_extents: Vec3::new(0.1, 0.05, 0.15) * (0.5 + rand()),
                },
                _ => Geometry::Capsule {
                    radius: 0.05,
                    half_height: 0.2 * rand(),
                },
            };
            let mut s = ShapeDesc::new(b, Transform::IDENTITY, g);
            s.world = if global && b == 0 { -1 } else { w as i32 };
            if k > 0 && b % 3 == 0 {
                s.skip_body = b - 1;
            }
            if b % 5 == 0 {
                s.filter = Filter { group: 2, mask: 1 };
            }
            shapes.push(s);
            let at = Vec3::new(w as f32 * spacing + rand(), rand(), 0.3 + rand());
            let q = Quat::from_xyzw(rand() - 0.5, rand() - 0.5, rand() - 0.5, 1.0).normalize();
            poses.push(Transform::new(at, q));
        }
    }
    (shapes, poses)
}

/// The candidate pairs of the broad phase `kind` (and which kind ran), sorted.
fn pairs(
    shapes: &[ShapeDesc],
    poses: &[Transform],
    kind: BroadPhase,
) -> (Vec<(i32, i32)>, BroadPhase) {
    let set = ShapeSet::new(Device::Cpu, shapes, poses.len()).unwrap();
    let options = CollisionOptions {
        pair_capacity: Some(1 << 16),
        broad_phase: kind,
        ..Default::default()
    };
    let mut p = CollisionPipeline::new(&set, poses.len(), options).unwrap();
    p.collide(&set, &Array::from_slice(Device::Cpu, poses))
        .unwrap();
    assert_eq!(p.report().unwrap().pair_overflow, 0);
    let mut v: Vec<(i32, i32)> = p
        .candidate_pairs()
        .unwrap()
        .iter()
        .map(|v| (v.x.min(v.y), v.x.max(v.y)))
        .collect();
    v.sort();
    (v, p.broad_phase_kind())
}

/// Whether two shapes may touch at all, by the rules of the `ShapeDesc` docs
/// (bodies, `skip_body`, `world`, `Filter`), written out here independently.
fn may_touch(a: &ShapeDesc, b: &ShapeDesc) -> bool {
    a.body != b.body
        && (a.body < 0 || b.skip_body != a.body)
        && (b.body < 0 || a.skip_body != b.body)
        && (a.world == b.world || a.world < 0 || b.world < 0)
        && (a.filter.group & b.filter.mask) != 0
        && (b.filter.group & a.filter.mask) != 0
}

fn check(worlds: usize, per_world: usize, spacing: f32, global: bool, seed: u64) {
    let (shapes, poses) = scene(worlds, per_world, spacing, global, seed);
    let (grid, k1) = pairs(&shapes, &poses, BroadPhase::HashGrid);
    let (list, k2) = pairs(&shapes, &poses, BroadPhase::PairList);
    assert_eq!((k1, k2), (BroadPhase::HashGrid, BroadPhase::PairList));
    assert_eq!(grid, list, "the grid's pairs and the list's differ");
    // Every pair found may touch, and it is a pair of moving shapes or of a
    // moving shape and the plane.
    for &(a, b) in &grid {
        let (sa, sb) = (&shapes[a as usize], &shapes[b as usize]);
        assert!(may_touch(sa, sb), "pair ({a}, {b}) may not touch");
    }
    // Shapes of different worlds never pair; so the list found some pairs in
    // every world (the clusters are dense).
    let moving = grid.iter().filter(|p| p.0 > 0).count();
    assert!(moving >= worlds, "only {moving} pairs of moving shapes");
}

#[test]
fn grid_and_list_find_the_same_pairs_in_many_small_worlds() {
    check(16, 12, 4.0, false, 3);
}

#[test]
fn overlaid_worlds_never_pair_across_worlds() {
    // Every world at the same place: the grid finds every world's shapes in
    // each cell; both must still keep worlds apart.
    check(8, 10, 0.0, false, 5);
}

#[test]
fn a_moving_shape_in_every_world_meets_them_all() {
    check(6, 8, 0.0, true, 11);
    let (shapes, poses) = scene(6, 8, 0.0, true, 11);
    let (list, _) = pairs(&shapes, &poses, BroadPhase::PairList);
    let worlds: std::collections::BTreeSet<i32> = list
        .iter()
        .filter(|p| p.0 == 1) // shape 1 is body 0's, in every world
        .map(|p| shapes[p.1 as usize].world)
        .collect();
    assert!(
        worlds.len() > 1,
        "shape 1 met shapes of worlds {worlds:?} only"
    );
}

#[test]
fn auto_lists_small_worlds_and_grids_a_large_one() {
    let (shapes, poses) = scene(64, 20, 4.0, false, 7);
    assert_eq!(
        pairs(&shapes, &poses, BroadPhase::Auto).1,
        BroadPhase::PairList
    );
    let (shapes, poses) = scene(1, 300, 4.0, false, 7);
    assert_eq!(
        pairs(&shapes, &poses, BroadPhase::Auto).1,
        BroadPhase::HashGrid
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn grid_and_list_agree_on_random_scenes(
        worlds in 1usize..6,
        per_world in 1usize..14,
        spacing in prop_oneof![Just(0.0f32), 0.5f32..3.0],
        global: bool,
        seed in 1u64..u64::MAX,
    ) {
        let (shapes, poses) = scene(worlds, per_world, spacing, global, seed);
        let (grid, _) = pairs(&shapes, &poses, BroadPhase::HashGrid);
        let (list, _) = pairs(&shapes, &poses, BroadPhase::PairList);
        prop_assert_eq!(grid, list);
    }
}
