//! The kernel that computes a [`DeviceMesh`]'s winding data
//! ([`DeviceMesh::winding`]) on its device, for trees built there
//! ([`LbvhBuilder::set_winding`](crate::device::LbvhBuilder::set_winding)).
//!
//! The same data as the host's `weft_geom::query::winding_nodes` (within
//! rounding: sums are formed in another order): per leaf, the area-weighted
//! centre of its faces, the radius of the ball around it holding their corners,
//! their vector area, total area and first moment; per inner node, its children's
//! combined, the moments shifted to the new centre. Bottom-up as `lbvh_nodes`: a
//! thread per node that is a leaf computes it and climbs; at each parent an atomic
//! visit counter lets the second child's thread through, with fences on both sides
//! of the count (see `lbvh_kernels`).

use super::prelude::*;
#[allow(unused_imports)] // named by the generated code
use super::ray::tri_corner;
#[allow(unused_imports)] // named by the generated code
use super::{BvhNode, DeviceMesh, WindingNode};

/// The corners of the triangle in slot `k` of `tris` (a [`DeviceMesh::tris`]),
/// its vector area (half the cross product) and centroid.
#[func(crate = ::weft_runtime)]
fn slot_triangle(tris: &Array<Vec4>, k: i32) -> (Vec3, Vec3, Vec3, Vec3, Vec3) {
    let a = tri_corner(tris[3 * k]);
    let b = tri_corner(tris[3 * k + 1]);
    let c = tri_corner(tris[3 * k + 2]);
    (a, b, c, 0.5 * cross(b - a, c - a), (a + b + c) / 3.0)
}

/// The winding data of the leaf whose triangles are in slots `first..first +
/// count` of `tris` (a [`DeviceMesh::tris`]).
#[func(crate = ::weft_runtime)]
pub fn leaf_winding(tris: &Array<Vec4>, first: i32, count: i32) -> WindingNode {
    let mut area = 0.0;
    let mut area_normal = Vec3::ZERO;
    let mut weighted = Vec3::ZERO;
    let mut mean = Vec3::ZERO;
    let mut k = first;
    while k < first + count {
        let (_a, _b, _c, n, centroid) = slot_triangle(tris, k);
        let fa = length(n);
        area += fa;
        area_normal += n;
        weighted += centroid * fa;
        mean += centroid;
        k += 1;
    }
    let mut center = mean / max(count as f32, 1.0);
    if area > 0.0 {
        center = weighted / area;
    }
    let mut moment = outer(Vec3::ZERO, Vec3::ZERO);
    let mut radius_sq = 0.0;
    k = first;
    while k < first + count {
        let (a, b, c, n, centroid) = slot_triangle(tris, k);
        moment = moment + outer(n, centroid - center);
        radius_sq = max(radius_sq, length_sq(a - center));
        radius_sq = max(radius_sq, length_sq(b - center));
        radius_sq = max(radius_sq, length_sq(c - center));
        k += 1;
    }
    WindingNode {
        center,
        radius: sqrt(radius_sq),
        area_normal,
        area,
        moment,
        pad: Vec3::ZERO,
    }
}

/// The winding data of an inner node from its children's.
#[func(crate = ::weft_runtime)]
pub fn combine_winding(l: WindingNode, r: WindingNode) -> WindingNode {
    let area = l.area + r.area;
    let mut center = (l.center + r.center) * 0.5;
    if area > 0.0 {
        center = (l.center * l.area + r.center * r.area) / area;
    }
    let radius = max(
        length(l.center - center) + l.radius,
        length(r.center - center) + r.radius,
    );
    let moment = l.moment
        + outer(l.area_normal, l.center - center)
        + r.moment
        + outer(r.area_normal, r.center - center);
    WindingNode {
        center,
        radius,
        area_normal: l.area_normal + r.area_normal,
        area,
        moment,
        pad: Vec3::ZERO,
    }
}

/// A thread per node: a leaf writes its winding data, then climbs while it is
/// the second child to arrive at a parent (`visits`, zeroed before the launch),
/// writing each such parent's from its children's. Inner nodes' threads return.
#[kernel(crate = ::weft_runtime)]
pub fn winding_climb(
    nodes: &Array<BvhNode>,
    parents: &Array<u32>,
    tris: &Array<Vec4>,
    visits: &mut Array<u32>,
    winding: &mut Array<WindingNode>,
) {
    let leaf_bit = 1u32 << 31;
    let i = tid();
    let node = nodes[i];
    if (node.right_or_count & leaf_bit) != 0 {
        let count = (node.right_or_count & !leaf_bit) as i32;
        winding[i] = leaf_winding(tris, node.left_or_first as i32, count);
        let mut id = i as i32;
        let mut go = id != 0;
        while go {
            let p = parents[id] as i32;
            // Release this thread's node before counting in; acquire the
            // sibling's after.
            thread_fence();
            if atomic_add(&mut visits[p], 1) == 0 {
                go = false;
            } else {
                thread_fence();
                let r = nodes[p].right_or_count as i32;
                winding[p] = combine_winding(winding[p + 1], winding[r]);
                id = p;
                go = id != 0;
            }
        }
    }
}
