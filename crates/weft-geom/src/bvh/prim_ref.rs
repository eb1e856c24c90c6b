//! The builder's working box: SIMD-width corners, 32 bytes.

use glam::Vec3A;

use crate::aabb::Aabb;

/// A box with 16-byte-aligned corners so unions are two SIMD instructions. The
/// builder keeps one per primitive, permuted in place with the primitive indices, so
/// each pass over a node's primitives reads memory sequentially.
#[derive(Clone, Copy, Debug)]
pub(super) struct Box3A {
    pub lo: Vec3A,
    pub hi: Vec3A,
}

impl Box3A {
    pub const EMPTY: Box3A = Box3A {
        lo: Vec3A::splat(f32::MAX),
        hi: Vec3A::splat(-f32::MAX),
    };

    #[inline]
    pub fn from_aabb(b: &Aabb) -> Self {
        Self {
            lo: b.lower.into(),
            hi: b.upper.into(),
        }
    }

    #[inline]
    pub fn to_aabb(self) -> Aabb {
        Aabb::new(self.lo.into(), self.hi.into())
    }

    #[inline]
    pub fn union(self, o: Box3A) -> Self {
        Self {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    #[inline]
    pub fn grow(self, p: Vec3A) -> Self {
        Self {
            lo: self.lo.min(p),
            hi: self.hi.max(p),
        }
    }

    #[inline]
    pub fn centroid(&self) -> Vec3A {
        (self.lo + self.hi) * 0.5
    }

    #[inline]
    pub fn extent(&self) -> Vec3A {
        self.hi - self.lo
    }

    /// Surface area (0 for an empty or flat box).
    #[inline]
    pub fn area(&self) -> f32 {
        let e = self.extent().max(Vec3A::ZERO);
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }
}
