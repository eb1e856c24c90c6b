//! Scalar math: elementary functions, `abs`/`sign` and `min`/`max`/`clamp`.
//!
//! Elementary and rounding functions are `weft_math`'s (the same algorithms the PTX back
//! end uses); `sqrt` is IEEE correctly rounded.

use crate::math_shim as m;

/// Elementary and rounding functions of a float scalar (`f32`, `f64`).
///
/// Each method is the `weft_math` function of the same name (`_f64` suffix for `f64`),
/// except `sqrt`, which is the correctly rounded IEEE square root.
pub trait FloatMath: Copy {
    /// Sine (radians).
    fn sin(self) -> Self;
    /// Cosine (radians).
    fn cos(self) -> Self;
    /// Tangent (radians).
    fn tan(self) -> Self;
    /// Arc sine, in `[-π/2, π/2]`, of `self` clamped to `[-1, 1]` (as Warp does), so
    /// `asin(dot(a, b))` of unit vectors is never NaN from rounding; NaN stays NaN.
    fn asin(self) -> Self;
    /// Arc cosine, in `[0, π]`, of `self` clamped to `[-1, 1]` (see [`FloatMath::asin`]).
    fn acos(self) -> Self;
    /// Arc tangent, in `[-π/2, π/2]`.
    fn atan(self) -> Self;
    /// Four-quadrant arc tangent of `self / x` (`self` is `y`), in `[-π, π]`.
    fn atan2(self, x: Self) -> Self;
    /// Hyperbolic sine.
    fn sinh(self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// `e^self`.
    fn exp(self) -> Self;
    /// `2^self`.
    fn exp2(self) -> Self;
    /// Natural logarithm.
    fn log(self) -> Self;
    /// Base-2 logarithm.
    fn log2(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// `self^y`.
    fn pow(self, y: Self) -> Self;
    /// Correctly rounded square root.
    fn sqrt(self) -> Self;
    /// Cube root.
    fn cbrt(self) -> Self;
    /// Largest integer not above `self`.
    fn floor(self) -> Self;
    /// Smallest integer not below `self`.
    fn ceil(self) -> Self;
    /// Nearest integer, as `weft_math::round` defines ties.
    fn round(self) -> Self;
    /// Integer part (rounds toward zero).
    fn trunc(self) -> Self;
}

macro_rules! clamped_inverse_trig {
    ($($name:ident = $f:path: $t:ty;)*) => {$(
        /// The function of the argument clamped to `[-1, 1]` (NaN stays NaN); the PTX
        /// back end clamps the same way.
        #[inline]
        fn $name(x: $t) -> $t {
            let c = if x < -1.0 {
                -1.0
            } else if x > 1.0 {
                1.0
            } else {
                x
            };
            $f(c)
        }
    )*};
}

clamped_inverse_trig! {
    asin_clamped = m::asin: f32;
    acos_clamped = m::acos: f32;
    asin_clamped_f64 = m::asin_f64: f64;
    acos_clamped_f64 = m::acos_f64: f64;
}

macro_rules! impl_float_math {
    ($t:ty, $sqrt:path; $($name:ident = $f:path,)* ; $($name2:ident = $f2:path,)*) => {
        impl FloatMath for $t {
            $(
                #[inline]
                fn $name(self) -> $t {
                    $f(self)
                }
            )*
            $(
                #[inline]
                fn $name2(self, b: $t) -> $t {
                    $f2(self, b)
                }
            )*
            #[inline]
            fn sqrt(self) -> $t {
                $sqrt(self)
            }
        }
    };
}

impl_float_math!(f32, m::sqrt;
    sin = m::sin, cos = m::cos, tan = m::tan, asin = asin_clamped, acos = acos_clamped,
    atan = m::atan,
    sinh = m::sinh, cosh = m::cosh, tanh = m::tanh, exp = m::exp, exp2 = m::exp2, log = m::log,
    log2 = m::log2, log10 = m::log10, cbrt = m::cbrt, floor = m::floor, ceil = m::ceil,
    round = m::round, trunc = m::trunc,;
    atan2 = m::atan2, pow = m::pow,
);
impl_float_math!(f64, m::sqrt_f64;
    sin = m::sin_f64, cos = m::cos_f64, tan = m::tan_f64, asin = asin_clamped_f64,
    acos = acos_clamped_f64, atan = m::atan_f64, sinh = m::sinh_f64, cosh = m::cosh_f64,
    tanh = m::tanh_f64, exp = m::exp_f64, exp2 = m::exp2_f64, log = m::log_f64,
    log2 = m::log2_f64, log10 = m::log10_f64, cbrt = m::cbrt_f64, floor = m::floor_f64,
    ceil = m::ceil_f64, round = m::round_f64, trunc = m::trunc_f64,;
    atan2 = m::atan2_f64, pow = m::pow_f64,
);

macro_rules! unary_builtins {
    ($($name:ident: $doc:literal;)*) => {
        $(
            #[doc = $doc]
            #[inline]
            pub fn $name<F: FloatMath>(x: F) -> F {
                F::$name(x)
            }
        )*
    };
}

unary_builtins! {
    sin: "Sine of `x` (radians), via `weft_math::sin`.";
    cos: "Cosine of `x` (radians), via `weft_math::cos`.";
    tan: "Tangent of `x` (radians), via `weft_math::tan`.";
    asin: "Arc sine of `x` clamped to `[-1, 1]`, via `weft_math::asin` (see [`FloatMath::asin`]).";
    acos: "Arc cosine of `x` clamped to `[-1, 1]`, via `weft_math::acos` (see [`FloatMath::acos`]).";
    atan: "Arc tangent of `x`, via `weft_math::atan`.";
    sinh: "Hyperbolic sine of `x`, via `weft_math::sinh`.";
    cosh: "Hyperbolic cosine of `x`, via `weft_math::cosh`.";
    tanh: "Hyperbolic tangent of `x`, via `weft_math::tanh`.";
    exp: "`e^x`, via `weft_math::exp`.";
    exp2: "`2^x`, via `weft_math::exp2`.";
    log: "Natural logarithm of `x`, via `weft_math::log`.";
    log2: "Base-2 logarithm of `x`, via `weft_math::log2`.";
    log10: "Base-10 logarithm of `x`, via `weft_math::log10`.";
    sqrt: "Correctly rounded square root of `x` (IEEE 754; PTX `sqrt.rn`).";
    cbrt: "Cube root of `x`, via `weft_math::cbrt`.";
    floor: "Largest integer not above `x`, via `weft_math::floor`.";
    ceil: "Smallest integer not below `x`, via `weft_math::ceil`.";
    round: "Nearest integer to `x`, via `weft_math::round`.";
    trunc: "Integer part of `x` (toward zero), via `weft_math::trunc`.";
}

/// Four-quadrant arc tangent of `y / x` in `[-π, π]`, via `weft_math::atan2`.
#[inline]
pub fn atan2<F: FloatMath>(y: F, x: F) -> F {
    F::atan2(y, x)
}

/// `x^y`, via `weft_math::pow`.
#[inline]
pub fn pow<F: FloatMath>(x: F, y: F) -> F {
    F::pow(x, y)
}

/// `abs` and `sign` of signed scalars (`f32 f64 i32 i64`) and, componentwise, their vectors.
pub trait Signed: Copy {
    /// Absolute value. Floats: `weft_math::abs` (clears the sign bit, so
    /// `abs(-0.0) == +0.0`); integers wrap (`abs(i32::MIN) == i32::MIN`, as PTX `abs.s32`).
    fn abs(self) -> Self;
    /// `-1`, `0` or `+1`. Floats: `weft_math::sign`, i.e. `1.0` if `x > 0`, `-1.0` if
    /// `x < 0`, and `x` itself for `±0` (a zero of the same sign) and NaN.
    fn sign(self) -> Self;
}

impl Signed for f32 {
    #[inline]
    fn abs(self) -> f32 {
        m::abs(self)
    }
    #[inline]
    fn sign(self) -> f32 {
        m::sign(self)
    }
}

impl Signed for f64 {
    #[inline]
    fn abs(self) -> f64 {
        m::abs_f64(self)
    }
    #[inline]
    fn sign(self) -> f64 {
        m::sign_f64(self)
    }
}

macro_rules! impl_signed_int {
    ($($t:ty),*) => {$(
        impl Signed for $t {
            #[inline]
            fn abs(self) -> $t {
                self.wrapping_abs()
            }
            #[inline]
            fn sign(self) -> $t {
                self.signum()
            }
        }
    )*};
}
impl_signed_int!(i32, i64);

/// Absolute value of a scalar, or of each component of a vector. See [`Signed::abs`].
#[inline]
pub fn abs<T: Signed>(x: T) -> T {
    T::abs(x)
}

/// `-1`, `0` or `+1` for a scalar, or for each component of a vector. See [`Signed::sign`].
#[inline]
pub fn sign<T: Signed>(x: T) -> T {
    T::sign(x)
}

/// `min`, `max` and `clamp` of numeric scalars and, componentwise, vectors.
pub trait MinMax: Copy {
    /// The smaller of `self` and `b`. Floats: `weft_math::min` (IEEE `minNum`: a NaN
    /// argument yields the other one; `min(-0.0, 0.0) == -0.0`).
    fn min(self, b: Self) -> Self;
    /// The larger of `self` and `b`. Floats: `weft_math::max` (IEEE `maxNum`).
    fn max(self, b: Self) -> Self;
    /// `if x < lo { lo } else if x > hi { hi } else { x }` (floats: `weft_math::clamp`,
    /// so a NaN `x` stays NaN). Never panics; expects `lo <= hi`.
    fn clamp(self, lo: Self, hi: Self) -> Self;
}

macro_rules! impl_minmax_float {
    ($t:ty, $min:path, $max:path, $clamp:path) => {
        impl MinMax for $t {
            #[inline]
            fn min(self, b: $t) -> $t {
                $min(self, b)
            }
            #[inline]
            fn max(self, b: $t) -> $t {
                $max(self, b)
            }
            #[inline]
            fn clamp(self, lo: $t, hi: $t) -> $t {
                $clamp(self, lo, hi)
            }
        }
    };
}
impl_minmax_float!(f32, m::min, m::max, m::clamp);
impl_minmax_float!(f64, m::min_f64, m::max_f64, m::clamp_f64);

macro_rules! impl_minmax_int {
    ($($t:ty),*) => {$(
        impl MinMax for $t {
            #[inline]
            fn min(self, b: $t) -> $t {
                if b < self { b } else { self }
            }
            #[inline]
            fn max(self, b: $t) -> $t {
                if b > self { b } else { self }
            }
            #[inline]
            fn clamp(self, lo: $t, hi: $t) -> $t {
                if self < lo {
                    lo
                } else if self > hi {
                    hi
                } else {
                    self
                }
            }
        }
    )*};
}
impl_minmax_int!(i32, u32, i64, u64);

/// The smaller of `a` and `b` (componentwise for vectors). See [`MinMax::min`].
#[inline]
pub fn min<T: MinMax>(a: T, b: T) -> T {
    T::min(a, b)
}

/// The larger of `a` and `b` (componentwise for vectors). See [`MinMax::max`].
#[inline]
pub fn max<T: MinMax>(a: T, b: T) -> T {
    T::max(a, b)
}

/// `x` restricted to `[lo, hi]`: `if x < lo { lo } else if x > hi { hi } else { x }`
/// (componentwise for vectors). Never panics. See [`MinMax::clamp`].
#[inline]
pub fn clamp<T: MinMax>(x: T, lo: T, hi: T) -> T {
    T::clamp(x, lo, hi)
}
