//! Axis-aligned bounding boxes and the robust ray–box slab test.

use glam::{Vec3, Vec3A};

/// An axis-aligned box `lower ..= upper` (inclusive on every face).
///
/// [`Aabb::EMPTY`] has `lower = +MAX`, `upper = -MAX`: it overlaps nothing and is the
/// identity of [`Aabb::union`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Aabb {
    /// Minimum corner.
    pub lower: Vec3,
    /// Maximum corner.
    pub upper: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    /// The empty box (inverted, finite bounds).
    pub const EMPTY: Aabb = Aabb {
        lower: Vec3::splat(f32::MAX),
        upper: Vec3::splat(-f32::MAX),
    };

    /// A box from its corners (not reordered).
    pub const fn new(lower: Vec3, upper: Vec3) -> Self {
        Self { lower, upper }
    }

    /// The box holding exactly one point.
    pub fn from_point(p: Vec3) -> Self {
        Self { lower: p, upper: p }
    }

    /// The smallest box holding all `points` ([`Aabb::EMPTY`] for none).
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Self {
        points.into_iter().fold(Self::EMPTY, |b, p| b.grow(p))
    }

    /// The bounds of a triangle.
    #[inline]
    pub fn from_triangle(a: Vec3, b: Vec3, c: Vec3) -> Self {
        Self {
            lower: a.min(b).min(c),
            upper: a.max(b).max(c),
        }
    }

    /// `true` when `lower > upper` on some axis.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.lower.cmpgt(self.upper).any()
    }

    /// The box grown to hold `p`.
    #[inline]
    pub fn grow(self, p: Vec3) -> Self {
        Self {
            lower: self.lower.min(p),
            upper: self.upper.max(p),
        }
    }

    /// The smallest box holding both.
    #[inline]
    pub fn union(self, other: Aabb) -> Self {
        Self {
            lower: self.lower.min(other.lower),
            upper: self.upper.max(other.upper),
        }
    }

    /// `upper - lower` (negative components for an empty box).
    #[inline]
    pub fn extent(&self) -> Vec3 {
        self.upper - self.lower
    }

    /// The centre `(lower + upper) / 2`.
    #[inline]
    pub fn center(&self) -> Vec3 {
        (self.lower + self.upper) * 0.5
    }

    /// Surface area (0 for an empty or flat box).
    #[inline]
    pub fn surface_area(&self) -> f32 {
        let e = self.extent().max(Vec3::ZERO);
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }

    /// `true` when the boxes share at least one point (touching counts).
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.lower.cmple(other.upper).all() && self.upper.cmpge(other.lower).all()
    }

    /// `true` when `p` is inside or on the boundary.
    #[inline]
    pub fn contains(&self, p: Vec3) -> bool {
        self.lower.cmple(p).all() && self.upper.cmpge(p).all()
    }

    /// Squared distance from `p` to the box (0 inside; `+inf`-free for finite input).
    #[inline]
    pub fn distance_squared(&self, p: Vec3) -> f32 {
        let d = (self.lower - p).max(p - self.upper).max(Vec3::ZERO);
        d.length_squared()
    }
}

/// A ray prepared for many slab tests: origin, reciprocal direction and, per axis,
/// whether the direction component is zero.
///
/// The test is the one the kernel versions implement:
///
/// * an axis with `dir == 0` does not constrain `t`; the ray misses if the origin is
///   outside the slab on that axis (this avoids `0 * inf = NaN` for rays that lie in a
///   box face — rays along mesh edges);
/// * otherwise `t0 = (lower - o) / d`, `t1 = (upper - o) / d`, sorted, intersected
///   over the axes;
/// * the far distance is scaled by `1 + 2γ₃` (γ₃ = 3ε/(1-3ε), ε = 2⁻²⁴) so rounding
///   never culls a box that the exact ray touches (Ize 2013, "Robust BVH Ray Traversal").
///
/// Rays whose reciprocal direction is finite on every axis (all but axis-parallel
/// ones) take a branch-free 4-wide path computing the same values.
#[derive(Clone, Copy, Debug)]
pub struct RayBoxTest {
    origin: Vec3A,
    inv_dir: Vec3A,
    zero: [bool; 3],
    /// Origin, direction and reciprocal direction are finite: no axis needs the
    /// special case and no NaN can arise from finite boxes.
    finite: bool,
}

/// `1 + 2γ₃` with γ₃ = 3ε/(1-3ε), ε = 2⁻²⁴: the conservative factor for the far
/// slab distance.
pub const SLAB_FAR_SCALE: f32 =
    1.0 + 2.0 * (3.0 * f32::EPSILON * 0.5) / (1.0 - 3.0 * f32::EPSILON * 0.5);

impl RayBoxTest {
    /// Prepares the test for the ray `origin + t dir`.
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        let inv_dir = dir.recip();
        Self {
            origin: origin.into(),
            inv_dir: inv_dir.into(),
            zero: [dir.x == 0.0, dir.y == 0.0, dir.z == 0.0],
            finite: inv_dir.is_finite() && dir.is_finite() && origin.is_finite(),
        }
    }

    /// The ray origin.
    #[inline(always)]
    pub(crate) fn origin(&self) -> Vec3A {
        self.origin
    }

    /// The reciprocal direction (infinite on axes where the direction is zero).
    #[inline(always)]
    pub(crate) fn inv_dir(&self) -> Vec3A {
        self.inv_dir
    }

    /// `true` when the branch-free path applies: origin, direction and reciprocal
    /// direction are finite.
    #[inline(always)]
    pub(crate) fn is_finite(&self) -> bool {
        self.finite
    }

    /// The entry distance `t ≥ 0` of the ray into `b` when it enters at or before
    /// `max_t`, else `None`. Empty boxes are never hit.
    #[inline]
    pub fn hit(&self, b: &Aabb, max_t: f32) -> Option<f32> {
        if b.is_empty() {
            return None;
        }
        self.hit_corners(b.lower.into(), b.upper.into(), max_t)
    }

    /// [`RayBoxTest::hit`] for a box given by its corners, without the empty-box check
    /// (an inverted box may report a hit: callers use this for BVH nodes, whose boxes
    /// are unions of primitive boxes, and test the primitives exactly).
    #[inline(always)]
    pub(crate) fn hit_corners(&self, lower: Vec3A, upper: Vec3A, max_t: f32) -> Option<f32> {
        if self.finite {
            let t0 = (lower - self.origin) * self.inv_dir;
            let t1 = (upper - self.origin) * self.inv_dir;
            // No NaN here: finite corners, finite origin and reciprocal direction. The
            // max/min over axes equals the per-axis loop below (scaling by a positive
            // constant is monotone, so scaling the minimum equals the minimum of the
            // scaled values).
            let t_near = t0.min(t1).max_element().max(0.0);
            let t_far = (t0.max(t1).min_element() * SLAB_FAR_SCALE).min(max_t);
            return (t_near <= t_far).then_some(t_near);
        }
        let mut t_near = 0.0f32;
        let mut t_far = max_t;
        for a in 0..3 {
            let o = self.origin[a];
            if self.zero[a] {
                if o < lower[a] || o > upper[a] {
                    return None;
                }
                continue;
            }
            let t0 = (lower[a] - o) * self.inv_dir[a];
            let t1 = (upper[a] - o) * self.inv_dir[a];
            let (lo, hi) = if t0 <= t1 { (t0, t1) } else { (t1, t0) };
            t_near = t_near.max(lo);
            t_far = t_far.min(hi * SLAB_FAR_SCALE);
        }
        (t_near <= t_far).then_some(t_near)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_union_identity_and_overlaps_nothing() {
        let b = Aabb::new(Vec3::ZERO, Vec3::ONE);
        assert_eq!(Aabb::EMPTY.union(b), b);
        assert!(!Aabb::EMPTY.overlaps(&b));
        assert!(Aabb::EMPTY.is_empty());
        assert_eq!(Aabb::EMPTY.surface_area(), 0.0);
    }

    #[test]
    fn ray_in_box_face_plane_hits() {
        let b = Aabb::new(Vec3::ZERO, Vec3::ONE);
        // Lies in the face x = 0, direction has zero x.
        let r = RayBoxTest::new(Vec3::new(0.0, -1.0, 0.5), Vec3::Y);
        assert_eq!(r.hit(&b, f32::INFINITY), Some(1.0));
        let r = RayBoxTest::new(Vec3::new(-1e-7, -1.0, 0.5), Vec3::Y);
        assert_eq!(r.hit(&b, f32::INFINITY), None);
    }

    #[test]
    fn ray_behind_or_too_far_misses() {
        let b = Aabb::new(Vec3::ZERO, Vec3::ONE);
        let r = RayBoxTest::new(Vec3::new(0.5, 0.5, 2.0), Vec3::Z);
        assert_eq!(r.hit(&b, f32::INFINITY), None);
        let r = RayBoxTest::new(Vec3::new(0.5, 0.5, -2.0), Vec3::Z);
        assert_eq!(r.hit(&b, 1.0), None);
        assert_eq!(r.hit(&b, 2.0), Some(2.0));
        let r = RayBoxTest::new(Vec3::splat(0.5), -Vec3::Z);
        assert_eq!(r.hit(&b, 1.0), Some(0.0));
    }

    /// The 4-wide path computes exactly what the per-axis loop computes.
    #[test]
    fn fast_path_equals_per_axis_loop() {
        let mut r = crate::test_rng::uniform(0x2545_f491, -2.0, 2.0);
        for i in 0..20_000 {
            let v = |r: &mut dyn FnMut() -> f32| Vec3::new(r(), r(), r());
            let (o, d) = (v(&mut r), v(&mut r));
            let (a, b) = (v(&mut r), v(&mut r));
            let bx = Aabb::new(a.min(b), a.max(b));
            let max_t = if i % 3 == 0 {
                r().abs() * 3.0
            } else {
                f32::INFINITY
            };
            let fast = RayBoxTest::new(o, d);
            assert!(fast.finite);
            let slow = RayBoxTest {
                finite: false,
                ..fast
            };
            assert_eq!(fast.hit(&bx, max_t), slow.hit(&bx, max_t), "{o} {d} {bx:?}");
        }
    }

    #[test]
    fn distance_squared_to_box() {
        let b = Aabb::new(Vec3::ZERO, Vec3::ONE);
        assert_eq!(b.distance_squared(Vec3::splat(0.5)), 0.0);
        assert_eq!(b.distance_squared(Vec3::new(2.0, 0.5, -1.0)), 2.0);
    }
}
