//! Faces of a [`DeviceMesh`] whose bounds overlap a box, one at a time.

use super::prelude::*;
#[allow(unused_imports)] // named by the generated code
use super::{BvhNode, DeviceMesh};

/// Where a box query over a [`DeviceMesh`] stands: `face` is the current face, -1
/// once there are no more. Start with [`mesh_query_aabb`], advance with
/// [`mesh_query_aabb_next`] (passing the same box):
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::{DeviceMesh, MeshAabbQuery, mesh_query_aabb, mesh_query_aabb_next};
///
/// #[kernel(crate = ::weft_runtime)]
/// fn count(mesh: &DeviceMesh, centres: &Array<Vec3>, n: &mut Array<i32>) {
///     let i = tid();
///     let lo = centres[i] - Vec3::splat(0.1);
///     let hi = centres[i] + Vec3::splat(0.1);
///     let mut k = 0;
///     let mut q = mesh_query_aabb(mesh, lo, hi);
///     while q.face >= 0 {
///         k += 1;
///         q = mesh_query_aabb_next(mesh, q, lo, hi);
///     }
///     n[i] = k;
/// }
///
/// let mesh = DeviceMesh::new(Device::Cpu, &weft_geom::generate::icosphere(1.0, 2)).unwrap();
/// let c = Array::from_slice(Device::Cpu, &[Vec3::new(0.0, 0.0, 1.0), Vec3::ZERO]);
/// let mut n = Array::zeros(Device::Cpu, [2]);
/// count::launch(2, &mesh, &c, &mut n).unwrap();
/// let n = n.to_vec();
/// assert!(n[0] > 0 && n[1] == 0);
/// ```
#[structure(crate = ::weft_runtime)]
pub struct MeshAabbQuery {
    /// The current face, or -1 when the query is done.
    pub face: i32,
    /// The BVH node the traversal stands on.
    pub node: i32,
    /// 1 while walking down into `node`, 0 while climbing out of it.
    pub down: i32,
    /// The next slot of the current leaf in `prims`.
    pub slot: i32,
    /// The end of the current leaf's slots.
    pub end: i32,
}

/// Whether boxes `alo..ahi` and `blo..bhi` overlap (touching counts).
#[func(crate = ::weft_runtime)]
pub fn boxes_overlap(alo: Vec3, ahi: Vec3, blo: Vec3, bhi: Vec3) -> bool {
    alo.x <= bhi.x
        && alo.y <= bhi.y
        && alo.z <= bhi.z
        && ahi.x >= blo.x
        && ahi.y >= blo.y
        && ahi.z >= blo.z
}

/// One step of a stackless walk climbing out of `node` (not the root) of a
/// depth-first tree with parent links (the layout of [`BvhNode`]): `(right
/// sibling, 1)` when `node` is a left child (walk down into the sibling next), else
/// `(parent, 0)` (keep climbing).
#[func(crate = ::weft_runtime)]
pub fn climb_out(nodes: &Array<BvhNode>, parents: &Array<u32>, node: i32) -> (i32, i32) {
    let parent = parents[node] as i32;
    let mut out = (parent, 0);
    if node == parent + 1 {
        out = (nodes[parent].right_or_count as i32, 1);
    }
    out
}

/// One step down of a stackless box walk at `node` (its record `n`) whose box
/// test gave `hit`: the walk's next `(node, down, slot, end)` — a miss climbs out
/// of `node`, a leaf hands out its slots `slot..end` and then climbs, an inner
/// node is entered through its left child (`node + 1`).
#[func(crate = ::weft_runtime)]
pub fn walk_down(n: BvhNode, node: i32, hit: bool) -> (i32, i32, i32, i32) {
    let leaf_bit = 1u32 << 31;
    let rc = n.right_or_count;
    let mut out = (node + 1, 1, 0, 0);
    if !hit {
        out = (node, 0, 0, 0);
    } else if (rc & leaf_bit) != 0 {
        let first = n.left_or_first as i32;
        out = (node, 0, first, first + (rc & !leaf_bit) as i32);
    }
    out
}

/// The first face of `mesh` whose bounding box overlaps `lower..upper` (see
/// [`MeshAabbQuery`]). Like `weft_geom::MeshBvh::aabb_query`, it tests face bounds:
/// conservative, for contact generation.
#[func(crate = ::weft_runtime)]
pub fn mesh_query_aabb(mesh: &DeviceMesh, lower: Vec3, upper: Vec3) -> MeshAabbQuery {
    let start = MeshAabbQuery {
        face: -1,
        node: 0,
        down: 1,
        slot: 0,
        end: 0,
    };
    mesh_query_aabb_next(mesh, start, lower, upper)
}

/// The query's next face (`face` -1 when there is none); pass the same box.
#[func(crate = ::weft_runtime)]
pub fn mesh_query_aabb_next(
    mesh: &DeviceMesh,
    q: MeshAabbQuery,
    lower: Vec3,
    upper: Vec3,
) -> MeshAabbQuery {
    let leaf_bit = 1u32 << 31;
    let mut node = q.node;
    let mut down = q.down;
    let mut slot = q.slot;
    let mut end = q.end;
    let mut face = -1;
    loop {
        if slot < end {
            let f = mesh.prims[slot] as i32;
            slot += 1;
            let a = mesh.points[mesh.faces[3 * f] as i32];
            let b = mesh.points[mesh.faces[3 * f + 1] as i32];
            let c = mesh.points[mesh.faces[3 * f + 2] as i32];
            if boxes_overlap(min(min(a, b), c), max(max(a, b), c), lower, upper) {
                face = f;
                break;
            }
        } else if down == 1 {
            let n = mesh.nodes[node];
            let hit = boxes_overlap(n.lower, n.upper, lower, upper);
            (node, down, slot, end) = walk_down(n, node, hit);
        } else {
            if node == 0 {
                break;
            }
            (node, down) = climb_out(mesh.nodes, mesh.parents, node);
        }
    }
    MeshAabbQuery {
        face,
        node,
        down,
        slot,
        end,
    }
}
