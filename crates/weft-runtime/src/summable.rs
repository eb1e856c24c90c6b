//! Plain (non-atomic) sums of array elements, for privatised accumulation: a CPU
//! launch may give each runner a private zeroed copy of an array the kernel only
//! updates with `atomic_add`/`atomic_sub`, add into it with plain arithmetic, and
//! sum the copies into the array afterwards (see `cpu::accumulate`).

use weft_types::*;

use crate::{ArrayView, Elem, Offset};

/// Element types whose values can be summed componentwise with plain arithmetic:
/// every type `atomic_add` accepts and every type gradients accumulate in.
/// Integers wrap, as their atomics do, so privatised integer sums are exact.
pub trait Summable: Elem {
    /// `a + b`, componentwise.
    fn plus(a: Self, b: Self) -> Self;
    /// `a - b`, componentwise.
    fn minus(a: Self, b: Self) -> Self;

    /// `dst[i] = plus(dst[i], src[i])` for `i` in `0..n`.
    ///
    /// # Safety
    /// `dst` and `src` must be valid, aligned and non-overlapping for `n`
    /// elements, and no other thread may access them meanwhile.
    #[inline(always)]
    unsafe fn add_slices(dst: *mut Self, src: *const Self, n: usize) {
        for i in 0..n {
            // SAFETY: in bounds and exclusive by the caller's contract.
            unsafe {
                dst.add(i)
                    .write(Self::plus(dst.add(i).read(), src.add(i).read()))
            }
        }
    }
}

/// Types made of `N` words of one scalar type, summed word by word.
macro_rules! summable_words {
    ($w:ty, $add:expr, $sub:expr; $($t:ty),* $(,)?) => {$(
        impl Summable for $t {
            #[inline(always)]
            fn plus(a: Self, b: Self) -> Self {
                summable_words!(@zip $w, $t, a, b, $add)
            }
            #[inline(always)]
            fn minus(a: Self, b: Self) -> Self {
                summable_words!(@zip $w, $t, a, b, $sub)
            }
            #[inline(always)]
            unsafe fn add_slices(dst: *mut Self, src: *const Self, n: usize) {
                // Word by word over the whole run: a loop the compiler vectorizes.
                const N: usize = std::mem::size_of::<$t>() / std::mem::size_of::<$w>();
                // SAFETY: `$t` is `N` words of `$w` without padding (the
                // `bytemuck::cast`s of `plus` check that at compile time), so the
                // runs are `n * N` valid, aligned words by the caller's contract.
                let (d, s) = unsafe {
                    (
                        std::slice::from_raw_parts_mut(dst as *mut $w, n * N),
                        std::slice::from_raw_parts(src as *const $w, n * N),
                    )
                };
                for (x, y) in d.iter_mut().zip(s) {
                    *x = $add(*x, *y);
                }
            }
        }
    )*};
    (@zip $w:ty, $t:ty, $a:ident, $b:ident, $op:expr) => {{
        const N: usize = std::mem::size_of::<$t>() / std::mem::size_of::<$w>();
        let mut x: [$w; N] = bytemuck::cast($a);
        let y: [$w; N] = bytemuck::cast($b);
        for i in 0..N {
            x[i] = $op(x[i], y[i]);
        }
        bytemuck::cast(x)
    }};
}

summable_words!(f32, |a: f32, b| a + b, |a: f32, b| a - b;
    f32, Vec2, Vec3, Vec4, Mat2, Mat3, Mat4, Quat, SpatialVector, SpatialMatrix);
summable_words!(f64, |a: f64, b| a + b, |a: f64, b| a - b;
    f64, DVec2, DVec3, DVec4, DMat2, DMat3, DMat4, DQuat, DSpatialVector, DSpatialMatrix,
    DTransform);
summable_words!(u32, u32::wrapping_add, u32::wrapping_sub;
    u32, i32, IVec2, IVec3, IVec4, UVec2, UVec3, UVec4);
summable_words!(u64, u64::wrapping_add, u64::wrapping_sub; u64, i64);

// `Transform` has padding between `p` and `q`: sum the fields.
impl Summable for Transform {
    #[inline(always)]
    fn plus(a: Self, b: Self) -> Self {
        Transform::new(Vec3::plus(a.p, b.p), Quat::plus(a.q, b.q))
    }
    #[inline(always)]
    fn minus(a: Self, b: Self) -> Self {
        Transform::new(Vec3::minus(a.p, b.p), Quat::minus(a.q, b.q))
    }
}

impl<T: Summable, const N: usize> ArrayView<T, N> {
    /// `atomic_add` with a plain read-modify-write, into a private buffer; returns
    /// the old value.
    ///
    /// # Safety
    /// No other thread may access the element during the call (the view points
    /// at a runner's private buffer, or the launch runs on one thread).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn add_plain(&self, o: Offset, v: T) -> T {
        // SAFETY: in bounds (checked offset); exclusive by the caller's contract.
        unsafe {
            let old = self.read_unsync(o);
            self.write_unsync(o, T::plus(old, v));
            old
        }
    }

    /// `atomic_sub` with a plain read-modify-write; see [`ArrayView::add_plain`].
    ///
    /// # Safety
    /// As for [`ArrayView::add_plain`].
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn sub_plain(&self, o: Offset, v: T) -> T {
        // SAFETY: as in `add_plain`.
        unsafe {
            let old = self.read_unsync(o);
            self.write_unsync(o, T::minus(old, v));
            old
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_componentwise_and_integers_wrap() {
        assert_eq!(
            Vec3::plus(Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.5, -2.0, 1.0)),
            Vec3::new(1.5, 0.0, 4.0)
        );
        assert_eq!(i32::plus(i32::MAX, 1), i32::MIN);
        assert_eq!(u64::minus(0, 1), u64::MAX);
        assert_eq!(
            IVec2::minus(IVec2::new(1, -5), IVec2::new(3, 2)),
            IVec2::new(-2, -7)
        );
        let t = Transform::new(Vec3::ONE, Quat::from_xyzw(1.0, 2.0, 3.0, 4.0));
        assert_eq!(Transform::minus(Transform::plus(t, t), t), t);
    }
}
