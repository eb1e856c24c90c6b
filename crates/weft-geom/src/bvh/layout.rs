//! The flat node layout shared by the host code and the kernel builtins.
//!
//! A [`Bvh`](super::Bvh) is three arrays:
//!
//! * `nodes: [BvhNode]` — 32 bytes each, two 16-byte halves:
//!
//!   | bytes | field | inner node | leaf |
//!   |---|---|---|---|
//!   | 0..12  | `lower: Vec3` | box minimum | box minimum |
//!   | 12..16 | `left_or_first: u32` | index of the left child in `nodes` | first slot in `prim_indices` |
//!   | 16..28 | `upper: Vec3` | box maximum | box maximum |
//!   | 28..32 | `right_or_count: u32` | index of the right child (bit 31 clear) | [`LEAF_BIT`] \| primitive count |
//!
//!   A node is a leaf iff bit 31 of `right_or_count` ([`LEAF_BIT`]) is set; its
//!   primitives are `prim_indices[first .. first + (right_or_count & !LEAF_BIT)]`.
//!   The root is `nodes[0]`. Boxes are exact unions of the primitives' boxes (no
//!   padding; traversal is made conservative instead, see
//!   [`RayBoxTest`](crate::RayBoxTest)).
//! * `prim_indices: [u32]` — a permutation of `0..num_prims`; leaves own contiguous
//!   runs of it. For a mesh BVH a primitive is a face index.
//! * `parents: [u32]` — parent of each node, [`NO_PARENT`] for the root; used by a
//!   bottom-up refit on the GPU (one thread per leaf, an atomic visit counter per
//!   node, the second arrival computes the parent).
//!
//! Order: nodes are in depth-first pre-order. The left child of an inner node `i` is
//! always `i + 1`, its right child `r > i + 1`, the left subtree occupies exactly
//! `i + 1 .. r` and the subtree of `i` is a contiguous range, as is the run of
//! `prim_indices` it covers. Host refit relies on this; traversal only needs the
//! stored child indices.
//!
//! Depth: the root has depth 0 and no leaf is deeper than [`MAX_DEPTH`] - 1, so a
//! traversal stack of [`MAX_DEPTH`] entries never overflows.
//!
//! An empty BVH (no primitives) is one leaf with count 0 and [`Aabb::EMPTY`](crate::Aabb::EMPTY)
//! bounds: traversal needs no special case.

use glam::{Vec3, Vec3A};

use crate::aabb::Aabb;

/// Bit 31 of [`BvhNode::right_or_count`]: set on leaves.
pub const LEAF_BIT: u32 = 1 << 31;

/// Parent index stored for the root.
pub const NO_PARENT: u32 = u32::MAX;

/// Upper bound on the number of levels (root = level 0); a traversal stack of this many
/// entries is always enough.
pub const MAX_DEPTH: usize = 64;

/// One BVH node: two 16-byte halves `{lower, left_or_first}`, `{upper, right_or_count}`.
/// See the [module documentation](self) for the exact meaning.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BvhNode {
    /// Box minimum.
    pub lower: Vec3,
    /// Inner: left child index. Leaf: first slot in `prim_indices`.
    pub left_or_first: u32,
    /// Box maximum.
    pub upper: Vec3,
    /// Inner: right child index. Leaf: [`LEAF_BIT`] | primitive count.
    pub right_or_count: u32,
}

impl BvhNode {
    /// An inner node.
    pub fn inner(bounds: Aabb, left: u32, right: u32) -> Self {
        debug_assert!(right & LEAF_BIT == 0);
        Self {
            lower: bounds.lower,
            left_or_first: left,
            upper: bounds.upper,
            right_or_count: right,
        }
    }

    /// A leaf over `prim_indices[first .. first + count]`.
    pub fn leaf(bounds: Aabb, first: u32, count: u32) -> Self {
        debug_assert!(count & LEAF_BIT == 0);
        Self {
            lower: bounds.lower,
            left_or_first: first,
            upper: bounds.upper,
            right_or_count: LEAF_BIT | count,
        }
    }

    /// `true` for a leaf.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.right_or_count & LEAF_BIT != 0
    }

    /// The node's box.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb::new(self.lower, self.upper)
    }

    /// Box minimum as a SIMD vector (lane 3 is 0).
    #[inline(always)]
    pub(crate) fn lower_a(&self) -> Vec3A {
        load_xyz(&self.lower)
    }

    /// Box maximum as a SIMD vector (lane 3 is 0).
    #[inline(always)]
    pub(crate) fn upper_a(&self) -> Vec3A {
        load_xyz(&self.upper)
    }

    /// Replaces the node's box.
    #[inline]
    pub fn set_aabb(&mut self, b: Aabb) {
        self.lower = b.lower;
        self.upper = b.upper;
    }

    /// Inner node: `(left, right)` child indices.
    #[inline]
    pub fn children(&self) -> (u32, u32) {
        (self.left_or_first, self.right_or_count)
    }

    /// Leaf: the range of `prim_indices` it owns.
    #[inline]
    pub fn prim_range(&self) -> std::ops::Range<usize> {
        let first = self.left_or_first as usize;
        first..first + (self.right_or_count & !LEAF_BIT) as usize
    }
}

/// Loads the 12-byte corner at the start of a 16-byte half of a node as a SIMD vector:
/// one unaligned 16-byte load whose fourth lane (the node's index field) is masked to
/// 0, so it never holds a NaN or a denormal.
#[inline(always)]
fn load_xyz(v: &Vec3) -> Vec3A {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{_mm_and_ps, _mm_castsi128_ps, _mm_loadu_ps, _mm_set_epi32};
        // SAFETY: `v` is the first field of a 16-byte half of a `#[repr(C)]`
        // `BvhNode` (callers pass `&node.lower` or `&node.upper`), so 16 bytes are
        // readable from it; `_mm_loadu_ps` has no alignment requirement and SSE2 is
        // enabled (cfg above).
        unsafe {
            let raw = _mm_loadu_ps(v as *const Vec3 as *const f32);
            let mask = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
            Vec3A::from(_mm_and_ps(raw, mask))
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        Vec3A::from(*v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_is_two_16_byte_halves() {
        assert_eq!(std::mem::size_of::<BvhNode>(), 32);
        assert_eq!(std::mem::align_of::<BvhNode>(), 4);
        assert_eq!(std::mem::offset_of!(BvhNode, left_or_first), 12);
        assert_eq!(std::mem::offset_of!(BvhNode, upper), 16);
        assert_eq!(std::mem::offset_of!(BvhNode, right_or_count), 28);
    }

    #[test]
    fn simd_corners_ignore_the_index_fields() {
        let n = BvhNode::inner(
            Aabb::new(Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0)),
            7,
            0x7fff_ffff,
        );
        assert_eq!(n.lower_a(), Vec3A::new(1.0, 2.0, 3.0));
        assert_eq!(n.upper_a(), Vec3A::new(4.0, 5.0, 6.0));
        let lanes: [f32; 4] = unsafe { std::mem::transmute(n.upper_a()) };
        assert_eq!(lanes[3].to_bits(), 0);
    }

    #[test]
    fn leaf_flag_and_range() {
        let l = BvhNode::leaf(Aabb::EMPTY, 7, 3);
        assert!(l.is_leaf());
        assert_eq!(l.prim_range(), 7..10);
        assert_eq!(l.right_or_count, 0x8000_0003);
        let n = BvhNode::inner(Aabb::EMPTY, 1, 5);
        assert!(!n.is_leaf());
        assert_eq!(n.children(), (1, 5));
    }
}
