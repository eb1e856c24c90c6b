//! The broad phase: which pairs of shapes are close enough to test.
//!
//! Shapes on bodies ("moving" shapes) find each other through a hash grid over
//! their centres, rebuilt on the device every step (`DeviceHashGrid::build`: a
//! counting sort that allocates nothing, so a step stays capturable in a CUDA
//! graph); cells are as large as the largest moving shape, so each query visits
//! a few cells. Static shapes (planes, walls, terrain) can be any size, so they
//! are not in the grid: they sit in a BVH built once on the host
//! ([`DeviceBvh`]), which every moving shape queries with its box. Why not one
//! BVH over everything: a BVH over moving shapes needs a rebuild (host, not
//! capturable) or refits that degrade as a pile mixes; a grid over shapes of
//! similar size is built in a few linear passes. Scenes whose moving shapes
//! differ in size by orders of magnitude pay for it in larger cells.
//!
//! Scenes of many small worlds (robots, one per world) skip the grid: the pairs
//! of moving shapes that may ever touch (same world, [`can_collide`]) are listed
//! once when the pipeline is built, and each step tests their boxes, one thread
//! per listed pair ([`listed_pairs`]). A humanoid's 20 shapes make 190 such
//! pairs; 64 humanoids 4 m apart cost a grid query per shape that visits about
//! as many candidates, plus the grid's build. The list is used while it holds
//! at most [`LISTED_PER_SHAPE`] pairs per moving shape (`BroadPhase::Auto`).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, BvhQuery, HashGridQuery, boxes_overlap};
use weft::geom::{
    DeviceBvh, DeviceHashGrid, bvh_query_aabb, bvh_query_aabb_next, hash_grid_query,
    hash_grid_query_next,
};
use weft::prelude::*;

use crate::ShapeSet;

/// Half extents of the world-space box of a shape of `kind` and `size` at
/// rotation `q`, centred on the shape's origin (a plane: huge; convex hulls,
/// meshes and height fields need their tables: [`shape_bounds`]).
#[weft::func]
pub fn shape_half_extents(kind: i32, size: Vec3, q: Quat) -> Vec3 {
    let mut h = Vec3::splat(1.0e7);
    if kind == 4 {
        // A cylinder: its axis' extent plus the rim's, r sqrt(1 - z_k²).
        let z = quat_rotate(q, Vec3::Z);
        let rim = Vec3::new(
            sqrt(max(1.0 - z.x * z.x, 0.0)),
            sqrt(max(1.0 - z.y * z.y, 0.0)),
            sqrt(max(1.0 - z.z * z.z, 0.0)),
        );
        h = abs(z) * size.y + rim * size.x;
    } else if kind == 1 {
        h = Vec3::splat(size.x);
    } else if kind == 2 {
        let m = quat_to_matrix(q);
        h = abs(m.col(0)) * size.x + abs(m.col(1)) * size.y + abs(m.col(2)) * size.z;
    } else if kind == 3 {
        h = abs(quat_rotate(q, Vec3::Z)) * size.y + Vec3::splat(size.x);
    } else if kind != 0 {
        h = Vec3::splat(size.x + size.y + size.z);
    }
    h
}

/// World box `(lower, upper)` of shape `s` at world pose `x`: a convex hull's
/// from its rotated, scaled vertices, a mesh's from its BVH's root box, a
/// height field's from its extent and height range, the other kinds' from
/// [`shape_half_extents`].
#[weft::func]
pub fn shape_bounds(shapes: &ShapeSet, s: i32, x: Transform) -> (Vec3, Vec3) {
    let kind = shapes.kind[s];
    let size = shapes.size[s];
    let h = shape_half_extents(kind, size, x.q);
    let mut lo = x.p - h;
    let mut hi = x.p + h;
    if kind == 6 || kind == 7 {
        // The local box (centre cl, half extents hl), rotated and placed.
        let mut cl = Vec3::ZERO;
        let mut hl = Vec3::ZERO;
        if kind == 6 {
            let root = shapes.tri_nodes[shapes.mesh_info[shapes.source[s]].x];
            cl = (root.lower + root.upper) * 0.5 * size;
            hl = (root.upper - root.lower) * 0.5 * size;
        } else {
            let info = shapes.field_info[shapes.source[s]];
            let range = shapes.field_range[shapes.source[s]];
            cl = Vec3::new(0.0, 0.0, (range.x + range.y) * 0.5);
            hl = Vec3::new(
                0.5 * ((info.y - 1) as f32) * size.x,
                0.5 * ((info.z - 1) as f32) * size.y,
                (range.y - range.x) * 0.5,
            );
        }
        let m = quat_to_matrix(x.q);
        let hw = abs(m.col(0)) * hl.x + abs(m.col(1)) * hl.y + abs(m.col(2)) * hl.z;
        let cw = transform_point(x, cl);
        lo = cw - hw;
        hi = cw + hw;
    } else if kind == 5 {
        let r = shapes.hull_vertices[shapes.source[s]];
        lo = Vec3::splat(1.0e30);
        hi = Vec3::splat(-1.0e30);
        for k in r.x..r.x + r.y {
            let p = transform_point(x, shapes.hull_points[k] * size);
            lo = min(lo, p);
            hi = max(hi, p);
        }
    }
    (lo, hi)
}

/// Whether shapes `a` and `b` may touch: different bodies, neither one's body
/// the other's `skip_body` (a link and its parent link), the same world (or
/// one in every world), and each one's group in the other's mask.
#[weft::func]
pub fn can_collide(shapes: &ShapeSet, a: i32, b: i32) -> bool {
    let wa = shapes.world[a];
    let wb = shapes.world[b];
    let ba = shapes.body[a];
    let bb = shapes.body[b];
    ba != bb
        && (ba < 0 || shapes.skip_body[b] != ba)
        && (bb < 0 || shapes.skip_body[a] != bb)
        && (wa == wb || wa < 0 || wb < 0)
        && (shapes.group[a] & shapes.mask[b]) != 0
        && (shapes.group[b] & shapes.mask[a]) != 0
}

/// Appends the pair `(a, b)`; past the capacity it is only counted.
#[weft::func]
pub fn push_pair(pairs: &mut Array<IVec2>, count: &mut Array<i32>, a: i32, b: i32) {
    let slot = atomic_add(&mut count[0], 1);
    if slot < pairs.len() as i32 {
        pairs[slot] = IVec2::new(a, b);
    }
}

/// Centre and world box of each moving shape `moving[i]`, from its body's
/// pose, grown by `margin` and swept by how far the shape can move in `dt`:
/// the box is stretched along its body's displacement `v·dt` (one-sided, so
/// shapes falling side by side at one speed do not become candidates of each
/// other) and grown all round by the rotation's reach `|ω| r dt`; the two
/// together reach at most `cap` (scaled down alike). `spec[s]` keeps the displacement
/// (xyz) and the rotation's reach (w) by shape index, so the narrow phase
/// reports the contacts the step may reach from the pair's *relative* motion
/// ([`pair_reach`]).
#[weft::kernel]
pub fn moving_bounds(
    shapes: &ShapeSet,
    body_q: &Array<Transform>,
    body_qd: &Array<SpatialVector>,
    moving: &Array<i32>,
    margin: f32,
    dt: f32,
    cap: f32,
    centres: &mut Array<Vec3>,
    lowers: &mut Array<Vec3>,
    uppers: &mut Array<Vec3>,
    spec: &mut Array<Vec4>,
) {
    let i = tid();
    let s = moving[i];
    let b = shapes.body[s];
    let x = body_q[b] * shapes.transform[s];
    let (lo, hi) = shape_bounds(shapes, s, x);
    let v = body_qd[b];
    let mut d = v.top * dt;
    let mut turn = length(v.bottom) * shapes.radius[s] * dt;
    let total = length(d) + turn;
    if total > cap {
        d = d * (cap / total);
        turn = turn * (cap / total);
    }
    let grow = Vec3::splat(margin + turn);
    centres[i] = x.p;
    lowers[i] = min(lo, lo + d) - grow;
    uppers[i] = max(hi, hi + d) + grow;
    spec[s] = Vec4::new(d.x, d.y, d.z, turn);
}

/// How far shapes `a` and `b` (speculative motions `spec[a]`, `spec[b]` from
/// [`moving_bounds`]; zero for static shapes) can close in on each other
/// during the step: the length of their relative displacement plus both
/// rotations' reach.
#[weft::func]
pub fn pair_reach(spec: &Array<Vec4>, a: i32, b: i32) -> f32 {
    let sa = spec[a];
    let sb = spec[b];
    let d = Vec3::new(sa.x - sb.x, sa.y - sb.y, sa.z - sb.z);
    length(d) + sa.w + sb.w
}

/// Pairs of moving shapes whose boxes overlap: moving shape `i` looks for the
/// later ones (`j > i`) within `reach` (the farthest another box reaches
/// from its centre, plus this shape's margin) plus its own radius and
/// speculative reach (`spec[s]`: displacement and rotation) in the grid.
#[weft::kernel]
pub fn moving_pairs(
    shapes: &ShapeSet,
    moving: &Array<i32>,
    grid: &DeviceHashGrid,
    centres: &Array<Vec3>,
    lowers: &Array<Vec3>,
    uppers: &Array<Vec3>,
    spec: &Array<Vec4>,
    reach: f32,
    pairs: &mut Array<IVec2>,
    count: &mut Array<i32>,
) {
    let i = tid();
    let s = moving[i];
    let p = centres[i];
    let lo = lowers[i];
    let hi = uppers[i];
    let sp = spec[s];
    let r = shapes.radius[s] + length(Vec3::new(sp.x, sp.y, sp.z)) + sp.w + reach;
    let mut q = hash_grid_query(grid, p, r);
    while q.index >= 0 {
        let j = q.index;
        if j > i {
            let s2 = moving[j];
            if boxes_overlap(lo, hi, lowers[j], uppers[j]) && can_collide(shapes, s, s2) {
                push_pair(pairs, count, s, s2);
            }
        }
        q = hash_grid_query_next(grid, q, p, r);
    }
}

/// The most listed pairs per moving shape for which `BroadPhase::Auto` lists
/// pairs instead of building a grid each step: the per-world all-pairs test
/// costs a few ns per pair, a grid query tens per candidate plus the build.
pub const LISTED_PER_SHAPE: usize = 32;

/// Pairs of moving shapes from a fixed list of candidates whose boxes overlap:
/// `listed[k]` holds indices `(i, j)`, `i < j`, into `moving` (and the box
/// arrays) of two shapes that may touch at all ([`can_collide`], checked when
/// the list was made).
#[weft::kernel]
pub fn listed_pairs(
    moving: &Array<i32>,
    listed: &Array<IVec2>,
    lowers: &Array<Vec3>,
    uppers: &Array<Vec3>,
    pairs: &mut Array<IVec2>,
    count: &mut Array<i32>,
) {
    let ij = listed[tid()];
    if boxes_overlap(lowers[ij.x], uppers[ij.x], lowers[ij.y], uppers[ij.y]) {
        push_pair(pairs, count, moving[ij.x], moving[ij.y]);
    }
}

/// Pairs `(i, j)`, `i < j`, of indices into `moving` whose shapes may ever
/// touch: the host's mirror of [`can_collide`] over the moving shapes of each
/// world (a shape in every world, world < 0, meets all). `None` when more
/// than `limit` pairs would have to be tested (before the filter).
pub(crate) fn list_moving_pairs(
    shapes: &ShapeSet,
    moving: &[i32],
    limit: usize,
) -> crate::error::Result<Option<Vec<IVec2>>> {
    let world = shapes.world.try_to_vec()?;
    let body = shapes.body.try_to_vec()?;
    let skip = shapes.skip_body.try_to_vec()?;
    let group = shapes.group.try_to_vec()?;
    let mask = shapes.mask.try_to_vec()?;
    // Moving shapes by world; those of every world apart.
    let mut by_world: std::collections::BTreeMap<i32, Vec<usize>> = Default::default();
    let mut global = Vec::new();
    for (i, &s) in moving.iter().enumerate() {
        let w = world[s as usize];
        if w < 0 {
            global.push(i);
        } else {
            by_world.entry(w).or_default().push(i);
        }
    }
    let n = moving.len();
    let g = global.len();
    let tests = by_world
        .values()
        .map(|v| v.len() * v.len().saturating_sub(1) / 2)
        .sum::<usize>()
        + g * (n - g)
        + g * g.saturating_sub(1) / 2;
    if tests > limit {
        return Ok(None);
    }
    let may_touch = |i: usize, j: usize| {
        let (a, b) = (moving[i] as usize, moving[j] as usize);
        body[a] != body[b]
            && (body[a] < 0 || skip[b] != body[a])
            && (body[b] < 0 || skip[a] != body[b])
            && (group[a] & mask[b]) != 0
            && (group[b] & mask[a]) != 0
    };
    let mut out = Vec::new();
    let mut push = |i: usize, j: usize| {
        let (i, j) = (i.min(j), i.max(j));
        if may_touch(i, j) {
            out.push(IVec2::new(i as i32, j as i32));
        }
    };
    for members in by_world.values() {
        for (k, &i) in members.iter().enumerate() {
            for &j in &members[k + 1..] {
                push(i, j);
            }
        }
    }
    for (k, &i) in global.iter().enumerate() {
        for j in 0..n {
            // Each pair of two global shapes once.
            if world[moving[j] as usize] >= 0 || global[..k].contains(&j) {
                push(i, j);
            }
        }
    }
    out.sort_by_key(|p| (p.x, p.y));
    out.dedup();
    Ok(Some(out))
}

/// Pairs of a moving shape and a static one whose boxes overlap, through the
/// BVH over the static shapes' boxes (item `k` is shape `fixed[k]`).
#[weft::kernel]
pub fn static_pairs(
    shapes: &ShapeSet,
    moving: &Array<i32>,
    lowers: &Array<Vec3>,
    uppers: &Array<Vec3>,
    statics: &DeviceBvh,
    fixed: &Array<i32>,
    pairs: &mut Array<IVec2>,
    count: &mut Array<i32>,
) {
    let i = tid();
    let s = moving[i];
    let lo = lowers[i];
    let hi = uppers[i];
    let mut q = bvh_query_aabb(statics, lo, hi);
    while q.item >= 0 {
        let s2 = fixed[q.item];
        if can_collide(shapes, s, s2) {
            push_pair(pairs, count, s2, s);
        }
        q = bvh_query_aabb_next(statics, q, lo, hi);
    }
}
