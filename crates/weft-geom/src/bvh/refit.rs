//! Refit: recompute every node's box bottom-up after the primitives moved, keeping the
//! tree's topology.
//!
//! O(nodes + prims). On the host it recurses over the depth-first layout — the subtree
//! of a node is a contiguous slice, split into the left and right subtrees at the right
//! child's index — and refits the two halves in parallel with `rayon::join`. A kernel
//! does the same work from the leaves up with [`Bvh::parents`] and per-node counters.

use super::Bvh;
use super::layout::BvhNode;
use crate::aabb::Aabb;
use crate::mesh::Mesh;

/// Subtrees with more nodes than this are refitted in parallel.
const PAR_REFIT: usize = 4096;

impl Bvh {
    /// Recomputes all boxes from `prim_aabb(prim)`; the topology and primitive order are
    /// kept. Boxes end up exactly equal to the unions a fresh build computes for the
    /// same topology.
    ///
    /// ```
    /// use glam::Vec3;
    /// use weft_geom::{Aabb, Bvh};
    ///
    /// let mut boxes = vec![Aabb::new(Vec3::ZERO, Vec3::ONE); 8];
    /// let mut bvh = Bvh::build(&boxes);
    /// boxes[3].upper.x = 5.0;
    /// bvh.refit(|p| boxes[p as usize]);
    /// assert_eq!(bvh.root_aabb().upper.x, 5.0);
    /// ```
    pub fn refit(&mut self, prim_aabb: impl Fn(u32) -> Aabb + Sync) {
        if self.is_empty() {
            return;
        }
        let mut unit = vec![(); self.num_prims()];
        self.refit_slots(&mut unit, |prim, _| prim_aabb(prim));
    }

    /// [`Bvh::refit`] that also fills one item per leaf slot: `slot_aabb(prim, item)`
    /// returns the box of primitive `prim = prim_indices[slot]` and may write
    /// `out[slot]` (done in the same parallel pass).
    ///
    /// # Panics
    ///
    /// When `out.len() != self.num_prims()`.
    pub(crate) fn refit_slots<T: Send>(
        &mut self,
        out: &mut [T],
        slot_aabb: impl Fn(u32, &mut T) -> Aabb + Sync,
    ) {
        assert_eq!(out.len(), self.num_prims(), "one item per primitive");
        if self.is_empty() {
            return;
        }
        let prims = &self.prim_indices;
        refit_subtree(&mut self.nodes, 0, out, 0, &|slot, item: &mut T| {
            slot_aabb(prims[slot], item)
        });
    }

    /// Refits from one box per primitive, in primitive order.
    ///
    /// # Panics
    ///
    /// When `aabbs.len() != self.num_prims()`.
    pub fn refit_from(&mut self, aabbs: &[Aabb]) {
        assert_eq!(
            aabbs.len(),
            self.num_prims(),
            "refit needs one box per primitive"
        );
        self.refit(|p| aabbs[p as usize]);
    }

    /// Refits a BVH built over the faces of `mesh` after its points moved.
    ///
    /// # Panics
    ///
    /// When `mesh.num_faces() != self.num_prims()`.
    pub fn refit_mesh(&mut self, mesh: &Mesh) {
        assert_eq!(
            mesh.num_faces(),
            self.num_prims(),
            "refit needs the mesh the BVH was built for"
        );
        self.refit(|f| mesh.face_aabb(f as usize));
    }
}

/// Refits the subtree stored in `nodes` (global index `base` for `nodes[0]`), whose
/// leaves own the slots `first .. first + out.len()`; returns its box.
fn refit_subtree<T: Send>(
    nodes: &mut [BvhNode],
    base: usize,
    out: &mut [T],
    first: usize,
    slot_aabb: &(impl Fn(usize, &mut T) -> Aabb + Sync),
) -> Aabb {
    let node = nodes[0];
    let bounds = if node.is_leaf() {
        node.prim_range().fold(Aabb::EMPTY, |b, slot| {
            b.union(slot_aabb(slot, &mut out[slot - first]))
        })
    } else {
        let (left, right) = node.children();
        debug_assert_eq!(left as usize, base + 1, "left child follows its parent");
        let split = right as usize - base - 1;
        let parallel = nodes.len() > PAR_REFIT;
        let (left_nodes, right_nodes) = nodes[1..].split_at_mut(split);
        // The right subtree's first slot is its leftmost leaf's (left children follow
        // their parents, so that leaf is the first leaf at or after `right`).
        let right_first = right_nodes
            .iter()
            .find(|n| n.is_leaf())
            .map_or(first, |n| n.left_or_first as usize);
        let (left_out, right_out) = out.split_at_mut(right_first - first);
        let mut refit_left = || refit_subtree(left_nodes, base + 1, left_out, first, slot_aabb);
        let mut refit_right = || {
            refit_subtree(
                right_nodes,
                right as usize,
                right_out,
                right_first,
                slot_aabb,
            )
        };
        let (l, r) = if parallel {
            rayon::join(refit_left, refit_right)
        } else {
            (refit_left(), refit_right())
        };
        l.union(r)
    };
    nodes[0].set_aabb(bounds);
    bounds
}
