//! `fma`: fused multiply-add, `a * b + c` rounded once.

use glam::{DVec2, DVec3, DVec4, Vec2, Vec3, Vec4};

/// Fused multiply-add of float scalars and vectors (componentwise).
pub trait MulAdd: Copy {
    /// `self * b + c` with a single rounding (IEEE 754 `fusedMultiplyAdd`).
    fn fma(self, b: Self, c: Self) -> Self;
}

macro_rules! impl_mul_add_scalar {
    ($($t:ty),*) => {$(
        impl MulAdd for $t {
            #[inline]
            fn fma(self, b: $t, c: $t) -> $t {
                // IEEE requires the fused result to be exact before its one rounding,
                // so every implementation (x86 `vfmadd`, a libm `fma`, PTX `fma.rn`)
                // gives the same bits.
                self.mul_add(b, c)
            }
        }
    )*};
}
impl_mul_add_scalar!(f32, f64);

macro_rules! impl_mul_add_vector {
    ($($v:ident: $($c:ident),*;)*) => {$(
        impl MulAdd for $v {
            #[inline]
            fn fma(self, b: $v, c: $v) -> $v {
                $v::new($(MulAdd::fma(self.$c, b.$c, c.$c)),*)
            }
        }
    )*};
}
impl_mul_add_vector! {
    Vec2: x, y;
    Vec3: x, y, z;
    Vec4: x, y, z, w;
    DVec2: x, y;
    DVec3: x, y, z;
    DVec4: x, y, z, w;
}

/// `a * b + c` rounded once (componentwise for vectors): more accurate than
/// `a * b + c`, and one instruction on a GPU, where the separate multiply and add
/// of kernel code are never fused (CPU and GPU results stay equal bit for bit).
///
/// On the CPU it is `f32::mul_add`: one instruction in code compiled with the
/// `fma` target feature — kernels that call `fma` run their CPU loops so compiled
/// where the processor has it (`weft_runtime::cpu::with_fma`) — otherwise a call
/// to the C library's `fmaf`, slower but with the same result.
///
/// ```
/// use weft_types::builtins::fma;
/// // 0.1 * 10 - 1 is 0 when rounded twice; fused, it keeps the representation error.
/// assert_eq!(0.1f32 * 10.0 - 1.0, 0.0);
/// assert_eq!(fma(0.1f32, 10.0, -1.0), 1.4901161e-8);
/// ```
#[inline]
pub fn fma<T: MulAdd>(a: T, b: T, c: T) -> T {
    a.fma(b, c)
}
