//! Items of a [`DeviceBvh`] whose boxes overlap a box or meet a ray, one at a
//! time: the stackless walk of [`mesh_query_aabb`](super::mesh_query_aabb) over
//! the user's item boxes.

#[allow(unused_imports)] // named by the generated code
use super::aabb::{climb_out, walk_down};
use super::prelude::*;
#[allow(unused_imports)] // named by the generated code
use super::{BvhNode, DeviceBvh, boxes_overlap};

/// Where a query over a [`DeviceBvh`] stands: `item` is the current item, -1 once
/// there are no more. Start with [`bvh_query_aabb`] or [`bvh_query_ray`], advance
/// with [`bvh_query_aabb_next`] or [`bvh_query_ray_next`] (passing the same box
/// or ray). Each matching item comes once, in the tree's depth-first order (a
/// ray's items are not sorted along the ray: to find the nearest, test them all).
/// The query holds no stack: it climbs parent links, so any tree depth works.
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::{BvhQuery, DeviceBvh, bvh_query_aabb, bvh_query_aabb_next};
///
/// // How many items each particle's neighbourhood box overlaps.
/// #[kernel(crate = ::weft_runtime)]
/// fn count(bvh: &DeviceBvh, centres: &Array<Vec3>, n: &mut Array<i32>) {
///     let i = tid();
///     let lo = centres[i] - Vec3::splat(0.5);
///     let hi = centres[i] + Vec3::splat(0.5);
///     let mut k = 0;
///     let mut q = bvh_query_aabb(bvh, lo, hi);
///     while q.item >= 0 {
///         k += 1;
///         q = bvh_query_aabb_next(bvh, q, lo, hi);
///     }
///     n[i] = k;
/// }
///
/// let lowers: Vec<Vec3> = (0..10).map(|i| Vec3::new(i as f32, 0.0, 0.0)).collect();
/// let uppers: Vec<Vec3> = lowers.iter().map(|l| *l + Vec3::splat(0.5)).collect();
/// let bvh = DeviceBvh::new(Device::Cpu, &lowers, &uppers).unwrap();
/// let c = Array::from_slice(Device::Cpu, &[Vec3::new(3.0, 0.0, 0.0), Vec3::splat(-5.0)]);
/// let mut n = Array::zeros(Device::Cpu, [2]);
/// count::launch(2, &bvh, &c, &mut n).unwrap();
/// assert_eq!(n.to_vec(), vec![2, 0]); // items 2 (touching at x = 2.5) and 3
/// ```
#[structure(crate = ::weft_runtime)]
pub struct BvhQuery {
    /// The current item, or -1 when the query is done.
    pub item: i32,
    /// The BVH node the traversal stands on.
    pub node: i32,
    /// 1 while walking down into `node`, 0 while climbing out of it.
    pub down: i32,
    /// The next slot of the current leaf in `prims`.
    pub slot: i32,
    /// The end of the current leaf's slots.
    pub end: i32,
}

/// A query before its first step.
#[func(crate = ::weft_runtime)]
fn bvh_query_start() -> BvhQuery {
    BvhQuery {
        item: -1,
        node: 0,
        down: 1,
        slot: 0,
        end: 0,
    }
}

/// A finished query (its next step finds nothing at once).
#[func(crate = ::weft_runtime)]
fn bvh_query_done() -> BvhQuery {
    BvhQuery {
        item: -1,
        node: 0,
        down: 0,
        slot: 0,
        end: 0,
    }
}

/// The range of `t` where the ray's coordinate `o + t / inv` lies in `lo..=hi`:
/// `(enter, leave)`, empty when `enter > leave`. An infinite `inv` (a zero
/// direction component) means a ray parallel to the slab: every `t` when `o` lies
/// in it, none otherwise.
#[func(crate = ::weft_runtime)]
fn ray_slab(lo: f32, hi: f32, o: f32, inv: f32) -> (f32, f32) {
    let mut out = (f32::NEG_INFINITY, f32::INFINITY);
    if abs(inv) < f32::INFINITY {
        let t0 = (lo - o) * inv;
        let t1 = (hi - o) * inv;
        out = (min(t0, t1), max(t0, t1));
    } else if !(lo <= o && o <= hi) {
        out = (f32::INFINITY, f32::NEG_INFINITY);
    }
    out
}

/// Whether the ray `o + t d`, `0 <= t <= t_max` (`inv` = 1 / d componentwise,
/// `o` finite), meets the closed box `lo..hi` (touching counts): the test of
/// [`bvh_query_ray`], public so that kernels can repeat it. Unlike
/// [`ray_box`](super::ray_box), a zero direction component is tested exactly (the
/// ray meets the box iff its origin lies within the box's extent on that axis),
/// with no `0 · ∞` NaN; so a box that contains another passes whenever the other
/// does, and the BVH finds exactly the items this test accepts.
#[func(crate = ::weft_runtime)]
pub fn bvh_ray_box(lo: Vec3, hi: Vec3, o: Vec3, inv: Vec3, t_max: f32) -> bool {
    let (nx, fx) = ray_slab(lo.x, hi.x, o.x, inv.x);
    let (ny, fy) = ray_slab(lo.y, hi.y, o.y, inv.y);
    let (nz, fz) = ray_slab(lo.z, hi.z, o.z, inv.z);
    max(max(nx, ny), max(nz, 0.0)) <= min(min(fx, fy), min(fz, t_max))
}

/// Whether a ray query has anything to look for: a finite origin and direction
/// and a `max_t` that is not NaN nor negative.
#[func(crate = ::weft_runtime)]
fn ray_query_valid(o: Vec3, d: Vec3, max_t: f32) -> bool {
    let inf = f32::INFINITY;
    abs(o.x) < inf
        && abs(o.y) < inf
        && abs(o.z) < inf
        && abs(d.x) < inf
        && abs(d.y) < inf
        && abs(d.z) < inf
        && max_t >= 0.0
}

/// The test of the query's kind: the ray `a + t / b` (`b` the inverse direction),
/// `0 <= t <= t_max`, against `lo..hi` when `ray`, else box `a..b`.
#[func(crate = ::weft_runtime)]
fn bvh_query_hit(lo: Vec3, hi: Vec3, ray: bool, a: Vec3, b: Vec3, t_max: f32) -> bool {
    let mut hit = false;
    if ray {
        hit = bvh_ray_box(lo, hi, a, b, t_max);
    } else {
        hit = boxes_overlap(lo, hi, a, b);
    }
    hit
}

/// The query's next item (see [`bvh_query_hit`] for `ray`, `a`, `b`, `t_max`):
/// the walk of `mesh_query_aabb_next` over item boxes.
#[func(crate = ::weft_runtime)]
fn bvh_query_step(
    bvh: &DeviceBvh,
    q: BvhQuery,
    ray: bool,
    a: Vec3,
    b: Vec3,
    t_max: f32,
) -> BvhQuery {
    let leaf_bit = 1u32 << 31;
    let mut node = q.node;
    let mut down = q.down;
    let mut slot = q.slot;
    let mut end = q.end;
    let mut item = -1;
    loop {
        if slot < end {
            let k = bvh.prims[slot] as i32;
            slot += 1;
            if bvh_query_hit(bvh.lowers[k], bvh.uppers[k], ray, a, b, t_max) {
                item = k;
                break;
            }
        } else if down == 1 {
            let n = bvh.nodes[node];
            let hit = bvh_query_hit(n.lower, n.upper, ray, a, b, t_max);
            (node, down, slot, end) = walk_down(n, node, hit);
        } else {
            if node == 0 {
                break;
            }
            (node, down) = climb_out(bvh.nodes, bvh.parents, node);
        }
    }
    BvhQuery {
        item,
        node,
        down,
        slot,
        end,
    }
}

/// The first item of `bvh` whose box overlaps `lower..upper` (touching counts;
/// see [`BvhQuery`]). A NaN corner overlaps nothing.
#[func(crate = ::weft_runtime)]
pub fn bvh_query_aabb(bvh: &DeviceBvh, lower: Vec3, upper: Vec3) -> BvhQuery {
    bvh_query_aabb_next(bvh, bvh_query_start(), lower, upper)
}

/// The box query's next item (`item` -1 when there is none); pass the same box.
#[func(crate = ::weft_runtime)]
pub fn bvh_query_aabb_next(bvh: &DeviceBvh, q: BvhQuery, lower: Vec3, upper: Vec3) -> BvhQuery {
    bvh_query_step(bvh, q, false, lower, upper, 0.0)
}

/// The first item of `bvh` whose box the ray `origin + t dir`, `0 <= t <= max_t`,
/// meets (the test of [`bvh_ray_box`]; see [`BvhQuery`] for the order). `max_t`
/// may be infinite; a zero `dir` asks for the boxes that contain `origin`. A
/// non-finite origin or direction, or a NaN or negative `max_t`, finds nothing.
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::{BvhQuery, DeviceBvh, bvh_query_ray, bvh_query_ray_next};
///
/// // The nearest distance along each ray to an item's box centre, among the
/// // items whose boxes the ray meets (-1 for none).
/// #[kernel(crate = ::weft_runtime)]
/// fn first_centre(bvh: &DeviceBvh, origins: &Array<Vec3>, dir: Vec3, t: &mut Array<f32>) {
///     let i = tid();
///     let o = origins[i];
///     let mut best = -1.0;
///     let mut q = bvh_query_ray(bvh, o, dir, f32::INFINITY);
///     while q.item >= 0 {
///         let c = (bvh.lowers[q.item] + bvh.uppers[q.item]) * 0.5;
///         let s = dot(c - o, dir);
///         if best < 0.0 || s < best {
///             best = s;
///         }
///         q = bvh_query_ray_next(bvh, q, o, dir, f32::INFINITY);
///     }
///     t[i] = best;
/// }
///
/// let lowers: Vec<Vec3> = (0..10).map(|i| Vec3::new(0.0, 0.0, i as f32)).collect();
/// let uppers: Vec<Vec3> = lowers.iter().map(|l| *l + Vec3::ONE).collect();
/// let bvh = DeviceBvh::new(Device::Cpu, &lowers, &uppers).unwrap();
/// let o = Array::from_slice(Device::Cpu, &[Vec3::new(0.5, 0.5, 20.0), Vec3::new(5.0, 0.5, 20.0)]);
/// let mut t = Array::zeros(Device::Cpu, [2]);
/// first_centre::launch(2, &bvh, &o, Vec3::NEG_Z, &mut t).unwrap();
/// assert_eq!(t.to_vec(), vec![10.5, -1.0]);
/// ```
#[func(crate = ::weft_runtime)]
pub fn bvh_query_ray(bvh: &DeviceBvh, origin: Vec3, dir: Vec3, max_t: f32) -> BvhQuery {
    bvh_query_ray_next(bvh, bvh_query_start(), origin, dir, max_t)
}

/// The ray query's next item (`item` -1 when there is none); pass the same ray.
#[func(crate = ::weft_runtime)]
pub fn bvh_query_ray_next(
    bvh: &DeviceBvh,
    q: BvhQuery,
    origin: Vec3,
    dir: Vec3,
    max_t: f32,
) -> BvhQuery {
    let mut out = bvh_query_done();
    if ray_query_valid(origin, dir, max_t) {
        let inv = Vec3::new(1.0 / dir.x, 1.0 / dir.y, 1.0 / dir.z);
        out = bvh_query_step(bvh, q, true, origin, inv, max_t);
    }
    out
}
