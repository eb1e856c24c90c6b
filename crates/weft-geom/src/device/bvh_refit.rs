//! The kernel of `DeviceBvh::refit`: new node boxes from the items' current
//! boxes, bottom-up, the topology kept.
//!
//! `bvh_refit` runs a thread per node; the threads of leaves do the work. Each
//! writes its leaf's box (the union of its items' boxes), then climbs the parent
//! links: at each inner node an atomic visit counter (zeroed before the launch)
//! stops the first child's thread, and the second goes on and writes the node's
//! box, the union of its children's — the scheme of `lbvh_nodes` (step 6 in
//! `lbvh_kernels.rs`), with its memory ordering: a `thread_fence()` after
//! writing a node and before counting in at the parent, and another before
//! reading the children, so the fences pair through the counter.
//!
//! A thread tells whether its node is a leaf from the parent links alone (see
//! `is_leaf`), not by reading the node, which another thread may be writing at
//! the time. Each node is then written by one thread and read only after its
//! writer counted in, so no access races. Boxes are unions (`min`/`max`, exact),
//! so the CPU and a GPU compute the same bits whatever the threads' timing.

#[allow(unused_imports)] // named by the generated code
use super::BvhNode;
use super::prelude::*;

/// Whether node `i` of a depth-first tree with these parent links is a leaf:
/// the next node is not its left child (an inner node's left child is always
/// the next node, and a leaf's next node is the right child of an ancestor).
#[func(crate = ::weft_runtime)]
pub fn is_leaf(parents: &Array<u32>, i: i32) -> bool {
    i + 1 == parents.len() || parents[i + 1] as i32 != i
}

/// A thread per node `i`: for a leaf, writes its box from the boxes of its items
/// (`prims` slots, item `k` spanning `lowers[k]..uppers[k]`), then climbs while
/// it is the second child to arrive at a parent (`visits`, zero before the
/// launch), writing each such parent's box from its children's. Nodes' child and
/// item fields are kept.
#[kernel(crate = ::weft_runtime)]
pub fn bvh_refit(
    lowers: &Array<Vec3>,
    uppers: &Array<Vec3>,
    prims: &Array<u32>,
    parents: &Array<u32>,
    visits: &mut Array<u32>,
    nodes: &mut Array<BvhNode>,
) {
    let leaf_bit = 1u32 << 31;
    let i = tid();
    if is_leaf(parents, i) {
        let leaf = nodes[i];
        let first = leaf.left_or_first as i32;
        let count = (leaf.right_or_count & !leaf_bit) as i32;
        let k0 = prims[first] as i32;
        let mut lo = lowers[k0];
        let mut hi = uppers[k0];
        for s in first + 1..first + count {
            let k = prims[s] as i32;
            lo = min(lo, lowers[k]);
            hi = max(hi, uppers[k]);
        }
        nodes[i] = BvhNode {
            lower: lo,
            left_or_first: leaf.left_or_first,
            upper: hi,
            right_or_count: leaf.right_or_count,
        };
        refit_climb(parents, visits, nodes, i as i32);
    }
}

/// The climb of a refit from leaf `leaf`, whose box this thread just wrote: at
/// each parent, counts in (`visits`); the second child's thread writes the
/// parent's box from its children's and goes on, the first stops.
#[func(crate = ::weft_runtime)]
pub fn refit_climb(
    parents: &Array<u32>,
    visits: &mut Array<u32>,
    nodes: &mut Array<BvhNode>,
    leaf: i32,
) {
    let mut c = leaf;
    while c != 0 {
        let p = parents[c] as i32;
        // Release this thread's node before counting in; acquire the
        // sibling's after (see the module docs).
        thread_fence();
        if atomic_add(&mut visits[p], 1) == 0 {
            break;
        }
        thread_fence();
        let node = nodes[p];
        let r = node.right_or_count as i32;
        nodes[p] = BvhNode {
            lower: min(nodes[p + 1].lower, nodes[r].lower),
            left_or_first: node.left_or_first,
            upper: max(nodes[p + 1].upper, nodes[r].upper),
            right_or_count: node.right_or_count,
        };
        c = p;
    }
}

/// The refit of a [`DeviceMesh`](super::DeviceMesh)'s tree after its points
/// moved (`LbvhBuilder::refit`): a thread per node; a leaf's thread rewrites its
/// triangles' leaf-ordered corners (`tris`) from `points` and `faces`, its box from
/// them, then climbs as [`bvh_refit`]. The same bits as the host's
/// `weft_geom::Bvh::refit_mesh` (boxes are unions: `min`/`max`, exact).
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn mesh_refit(
    points: &Array<Vec3>,
    faces: &Array<u32>,
    prims: &Array<u32>,
    parents: &Array<u32>,
    visits: &mut Array<u32>,
    nodes: &mut Array<BvhNode>,
    tris: &mut Array<Vec4>,
) {
    let leaf_bit = 1u32 << 31;
    let i = tid();
    if is_leaf(parents, i) {
        let leaf = nodes[i];
        let first = leaf.left_or_first as i32;
        let count = (leaf.right_or_count & !leaf_bit) as i32;
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(-f32::INFINITY);
        for k in first..first + count {
            let f = prims[k] as i32;
            let a = points[faces[3 * f] as i32];
            let b = points[faces[3 * f + 1] as i32];
            let c = points[faces[3 * f + 2] as i32];
            tris[3 * k] = Vec4::new(a.x, a.y, a.z, 0.0);
            tris[3 * k + 1] = Vec4::new(b.x, b.y, b.z, 0.0);
            tris[3 * k + 2] = Vec4::new(c.x, c.y, c.z, 0.0);
            lo = min(lo, min(min(a, b), c));
            hi = max(hi, max(max(a, b), c));
        }
        nodes[i] = BvhNode {
            lower: lo,
            left_or_first: leaf.left_or_first,
            upper: hi,
            right_or_count: leaf.right_or_count,
        };
        refit_climb(parents, visits, nodes, i as i32);
    }
}
