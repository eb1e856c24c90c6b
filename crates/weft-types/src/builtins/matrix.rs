//! Matrix builtins: `outer transpose determinant inverse trace diag skew`.
//!
//! glam matrices are column-major; the formulas here name elements `mRC` by row `R` and
//! column `C` (so `m01` is row 0, column 1, stored in column 1).

use crate::{DMat2, DMat3, DMat4, DVec2, DVec3, DVec4, Mat2, Mat3, Mat4, Vec2, Vec3, Vec4};

/// `transpose`, `determinant` and `trace` of square float matrices.
pub trait SquareMatrix: Copy {
    /// The scalar type of the elements.
    type Scalar;
    /// The matrix with rows and columns swapped (exact: moves values only).
    fn transpose(self) -> Self;
    /// The determinant, by the cofactor formula documented on [`determinant`].
    fn determinant(self) -> Self::Scalar;
    /// Sum of the diagonal `m00 + m11 + ...`, left to right.
    fn trace(self) -> Self::Scalar;
}

/// The `inverse` builtin: matrices, quaternions and transforms.
pub trait Inverse: Copy {
    /// The inverse. For matrices, adjugate / determinant (a singular matrix gives the
    /// infinities and NaNs of dividing by zero); for quaternions [`super::quat_inverse`];
    /// for transforms [`super::transform_inverse`].
    fn inverse(self) -> Self;
}

/// The `outer` builtin of float vectors.
pub trait Outer: Copy {
    /// The square matrix type of the same dimension.
    type Matrix;
    /// `a bᵀ`: element (row `i`, column `j`) is `a[i] * b[j]`.
    fn outer(self, b: Self) -> Self::Matrix;
}

/// The `diag` builtin of float vectors.
pub trait Diag: Copy {
    /// The square matrix type of the same dimension.
    type Matrix;
    /// The matrix with `self` on its diagonal and zeros elsewhere.
    fn diag(self) -> Self::Matrix;
}

/// The `skew` builtin of 3-vectors.
pub trait Skew: Copy {
    /// The 3×3 matrix type.
    type Matrix;
    /// The cross-product matrix: `skew(a) * b == cross(a, b)`.
    fn skew(self) -> Self::Matrix;
}

/// Outer product `a bᵀ`: element (row `i`, column `j`) is `a[i] * b[j]` (one rounding each).
#[inline]
pub fn outer<V: Outer>(a: V, b: V) -> V::Matrix {
    V::outer(a, b)
}

/// Transpose (exact).
#[inline]
pub fn transpose<M: SquareMatrix>(m: M) -> M {
    M::transpose(m)
}

/// Determinant.
///
/// * 2×2: `m00*m11 - m01*m10`.
/// * 3×3: first-row cofactor expansion `m00*c00 + m01*c01 + m02*c02` (left to right) with
///   `c00 = m11*m22 - m12*m21`, `c01 = m12*m20 - m10*m22`, `c02 = m10*m21 - m11*m20`.
/// * 4×4: from the 2×2 minors of rows 0–1 (`s0..s5`) and rows 2–3 (`c0..c5`) as in
///   [`Inverse`]'s 4×4 formula: `s0*c5 - s1*c4 + s2*c3 + s3*c2 - s4*c1 + s5*c0`, left to
///   right, where `s0 = m00*m11 - m10*m01`, `s1 = m00*m12 - m10*m02`,
///   `s2 = m00*m13 - m10*m03`, `s3 = m01*m12 - m11*m02`, `s4 = m01*m13 - m11*m03`,
///   `s5 = m02*m13 - m12*m03`, `c0 = m20*m31 - m30*m21`, `c1 = m20*m32 - m30*m22`,
///   `c2 = m20*m33 - m30*m23`, `c3 = m21*m32 - m31*m22`, `c4 = m21*m33 - m31*m23`,
///   `c5 = m22*m33 - m32*m23`.
#[inline]
pub fn determinant<M: SquareMatrix>(m: M) -> M::Scalar {
    M::determinant(m)
}

/// Inverse of a matrix, quaternion or transform.
///
/// Matrices: each element of the adjugate divided by the determinant (an IEEE division
/// per element). 2×2 adjugate `[[m11, -m01], [-m10, m00]]`; 3×3 `inv[i][j] = c[j][i] / det`
/// with the cofactors `c[i][j]` each a difference of two products (e.g.
/// `c11 = m00*m22 - m02*m20`, `c12 = m01*m20 - m00*m21`) and `det` as in [`determinant`];
/// 4×4 the minor formula of [`determinant`] (see the source for the 16 adjugate terms, each
/// three products summed left to right). **A singular matrix gives zeros** (as in Warp):
/// when any element of that quotient is not finite — `det == 0`, an overflow, or a
/// non-finite input — the result is the zero matrix, on the CPU and the GPU alike (and
/// so its gradient is zero too, see `adjoint::adj_inverse`).
///
/// ```
/// use weft_types::builtins::inverse;
/// use weft_types::{Mat2, Vec2};
///
/// // Rows [1, 2] and [3, 4] (glam stores columns).
/// let m = Mat2::from_cols(Vec2::new(1.0, 3.0), Vec2::new(2.0, 4.0));
/// assert_eq!(inverse(m) * m, Mat2::IDENTITY);
/// ```
#[inline]
pub fn inverse<T: Inverse>(x: T) -> T {
    T::inverse(x)
}

/// Trace: `m00 + m11 + ...`, left to right.
#[inline]
pub fn trace<M: SquareMatrix>(m: M) -> M::Scalar {
    M::trace(m)
}

/// Diagonal matrix with `v` on the diagonal.
#[inline]
pub fn diag<V: Diag>(v: V) -> V::Matrix {
    V::diag(v)
}

/// Cross-product matrix of `a`, rows `[0, -a.z, a.y]`, `[a.z, 0, -a.x]`, `[-a.y, a.x, 0]`,
/// so that `skew(a) * b == cross(a, b)`.
///
/// ```
/// use weft_types::builtins::{cross, skew};
/// use weft_types::Vec3;
///
/// let (a, b) = (Vec3::new(1.0, 2.0, 3.0), Vec3::new(-4.0, 0.5, 2.0));
/// assert_eq!(skew(a) * b, cross(a, b));
/// ```
#[inline]
pub fn skew<V: Skew>(a: V) -> V::Matrix {
    V::skew(a)
}

macro_rules! impl_mat2 {
    ($m:ident, $v:ident, $s:ty) => {
        impl SquareMatrix for $m {
            type Scalar = $s;
            #[inline]
            fn transpose(self) -> $m {
                let [[m00, m10], [m01, m11]] = self.to_cols_array_2d();
                $m::from_cols_array_2d(&[[m00, m01], [m10, m11]])
            }
            #[inline]
            fn determinant(self) -> $s {
                let [[m00, m10], [m01, m11]] = self.to_cols_array_2d();
                m00 * m11 - m01 * m10
            }
            #[inline]
            fn trace(self) -> $s {
                let [[m00, _], [_, m11]] = self.to_cols_array_2d();
                m00 + m11
            }
        }

        impl Inverse for $m {
            #[inline]
            fn inverse(self) -> $m {
                let [[m00, m10], [m01, m11]] = self.to_cols_array_2d();
                let det = m00 * m11 - m01 * m10;
                finite_or_zero($m::from_cols_array_2d(&[
                    [m11 / det, -m10 / det],
                    [-m01 / det, m00 / det],
                ]))
            }
        }

        impl Outer for $v {
            type Matrix = $m;
            #[inline]
            fn outer(self, b: $v) -> $m {
                let a = self;
                $m::from_cols($v::new(a.x * b.x, a.y * b.x), $v::new(a.x * b.y, a.y * b.y))
            }
        }

        impl Diag for $v {
            type Matrix = $m;
            #[inline]
            fn diag(self) -> $m {
                $m::from_diagonal(self)
            }
        }
    };
}

macro_rules! impl_mat3 {
    ($m:ident, $v:ident, $s:ty) => {
        impl SquareMatrix for $m {
            type Scalar = $s;
            #[inline]
            fn transpose(self) -> $m {
                let [[m00, m10, m20], [m01, m11, m21], [m02, m12, m22]] = self.to_cols_array_2d();
                $m::from_cols_array_2d(&[[m00, m01, m02], [m10, m11, m12], [m20, m21, m22]])
            }
            #[inline]
            fn determinant(self) -> $s {
                let [[m00, m10, m20], [m01, m11, m21], [m02, m12, m22]] = self.to_cols_array_2d();
                let c00 = m11 * m22 - m12 * m21;
                let c01 = m12 * m20 - m10 * m22;
                let c02 = m10 * m21 - m11 * m20;
                m00 * c00 + m01 * c01 + m02 * c02
            }
            #[inline]
            fn trace(self) -> $s {
                let [[m00, _, _], [_, m11, _], [_, _, m22]] = self.to_cols_array_2d();
                m00 + m11 + m22
            }
        }

        impl Inverse for $m {
            #[inline]
            fn inverse(self) -> $m {
                let cols = self.to_cols_array_2d();
                let [[m00, _, _], [m01, _, _], [m02, _, _]] = cols;
                let [[c00, c01, c02], [c10, c11, c12], [c20, c21, c22]] = cofactors3(cols);
                let det = m00 * c00 + m01 * c01 + m02 * c02;
                // inv[i][j] = c[j][i] / det; column j of the inverse is row j of c.
                finite_or_zero($m::from_cols(
                    $v::new(c00 / det, c01 / det, c02 / det),
                    $v::new(c10 / det, c11 / det, c12 / det),
                    $v::new(c20 / det, c21 / det, c22 / det),
                ))
            }
        }

        impl Outer for $v {
            type Matrix = $m;
            #[inline]
            fn outer(self, b: $v) -> $m {
                let a = self;
                $m::from_cols(
                    $v::new(a.x * b.x, a.y * b.x, a.z * b.x),
                    $v::new(a.x * b.y, a.y * b.y, a.z * b.y),
                    $v::new(a.x * b.z, a.y * b.z, a.z * b.z),
                )
            }
        }

        impl Diag for $v {
            type Matrix = $m;
            #[inline]
            fn diag(self) -> $m {
                $m::from_diagonal(self)
            }
        }

        impl Skew for $v {
            type Matrix = $m;
            #[inline]
            fn skew(self) -> $m {
                let a = self;
                $m::from_cols(
                    $v::new(0.0, a.z, -a.y),
                    $v::new(-a.z, 0.0, a.x),
                    $v::new(a.y, -a.x, 0.0),
                )
            }
        }
    };
}

macro_rules! impl_mat4 {
    ($m:ident, $v:ident, $s:ty) => {
        impl SquareMatrix for $m {
            type Scalar = $s;
            #[inline]
            fn transpose(self) -> $m {
                let [
                    [m00, m10, m20, m30],
                    [m01, m11, m21, m31],
                    [m02, m12, m22, m32],
                    [m03, m13, m23, m33],
                ] = self.to_cols_array_2d();
                $m::from_cols_array_2d(&[
                    [m00, m01, m02, m03],
                    [m10, m11, m12, m13],
                    [m20, m21, m22, m23],
                    [m30, m31, m32, m33],
                ])
            }
            #[inline]
            fn determinant(self) -> $s {
                let (s, c) = minors4(self.to_cols_array_2d());
                s[0] * c[5] - s[1] * c[4] + s[2] * c[3] + s[3] * c[2] - s[4] * c[1] + s[5] * c[0]
            }
            #[inline]
            fn trace(self) -> $s {
                let c = self.to_cols_array_2d();
                c[0][0] + c[1][1] + c[2][2] + c[3][3]
            }
        }

        impl Inverse for $m {
            #[inline]
            fn inverse(self) -> $m {
                let cols = self.to_cols_array_2d();
                let (b, det) = adjugate4(cols);
                finite_or_zero($m::from_cols(
                    $v::new(b[0][0] / det, b[1][0] / det, b[2][0] / det, b[3][0] / det),
                    $v::new(b[0][1] / det, b[1][1] / det, b[2][1] / det, b[3][1] / det),
                    $v::new(b[0][2] / det, b[1][2] / det, b[2][2] / det, b[3][2] / det),
                    $v::new(b[0][3] / det, b[1][3] / det, b[2][3] / det, b[3][3] / det),
                ))
            }
        }

        impl Outer for $v {
            type Matrix = $m;
            #[inline]
            fn outer(self, b: $v) -> $m {
                let a = self;
                $m::from_cols(
                    $v::new(a.x * b.x, a.y * b.x, a.z * b.x, a.w * b.x),
                    $v::new(a.x * b.y, a.y * b.y, a.z * b.y, a.w * b.y),
                    $v::new(a.x * b.z, a.y * b.z, a.z * b.z, a.w * b.z),
                    $v::new(a.x * b.w, a.y * b.w, a.z * b.w, a.w * b.w),
                )
            }
        }

        impl Diag for $v {
            type Matrix = $m;
            #[inline]
            fn diag(self) -> $m {
                $m::from_diagonal(self)
            }
        }
    };
}

/// The 2×2 minors of a 4×4 matrix (given column-major, `cols[c][r]`): `s` from rows 0–1
/// and `c` from rows 2–3, in the order documented on [`determinant`].
#[inline]
fn minors4<S>(cols: [[S; 4]; 4]) -> ([S; 6], [S; 6])
where
    S: Copy + core::ops::Mul<Output = S> + core::ops::Sub<Output = S>,
{
    let [
        [m00, m10, m20, m30],
        [m01, m11, m21, m31],
        [m02, m12, m22, m32],
        [m03, m13, m23, m33],
    ] = cols;
    let s = [
        m00 * m11 - m10 * m01,
        m00 * m12 - m10 * m02,
        m00 * m13 - m10 * m03,
        m01 * m12 - m11 * m02,
        m01 * m13 - m11 * m03,
        m02 * m13 - m12 * m03,
    ];
    let c = [
        m20 * m31 - m30 * m21,
        m20 * m32 - m30 * m22,
        m20 * m33 - m30 * m23,
        m21 * m32 - m31 * m22,
        m21 * m33 - m31 * m23,
        m22 * m33 - m32 * m23,
    ];
    (s, c)
}

impl_mat2!(Mat2, Vec2, f32);
impl_mat2!(DMat2, DVec2, f64);
impl_mat3!(Mat3, Vec3, f32);
impl_mat3!(DMat3, DVec3, f64);
impl_mat4!(Mat4, Vec4, f32);
impl_mat4!(DMat4, DVec4, f64);

/// The adjugate `b[row][col]` of a 4×4 matrix given by columns, and its
/// determinant, from the 2×2 minors of `minors4` (the operation order the GPU back
/// end reproduces). Shared by `inverse` and the adjoint of `determinant`.
pub(crate) fn adjugate4<S>(cols: [[S; 4]; 4]) -> ([[S; 4]; 4], S)
where
    S: Copy
        + core::ops::Mul<Output = S>
        + core::ops::Sub<Output = S>
        + core::ops::Add<Output = S>
        + core::ops::Neg<Output = S>,
{
    let [
        [m00, m10, m20, m30],
        [m01, m11, m21, m31],
        [m02, m12, m22, m32],
        [m03, m13, m23, m33],
    ] = cols;
    let ([s0, s1, s2, s3, s4, s5], [c0, c1, c2, c3, c4, c5]) = minors4(cols);
    let det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
    let b = [
        [
            m11 * c5 - m12 * c4 + m13 * c3,
            -m01 * c5 + m02 * c4 - m03 * c3,
            m31 * s5 - m32 * s4 + m33 * s3,
            -m21 * s5 + m22 * s4 - m23 * s3,
        ],
        [
            -m10 * c5 + m12 * c2 - m13 * c1,
            m00 * c5 - m02 * c2 + m03 * c1,
            -m30 * s5 + m32 * s2 - m33 * s1,
            m20 * s5 - m22 * s2 + m23 * s1,
        ],
        [
            m10 * c4 - m11 * c2 + m13 * c0,
            -m00 * c4 + m01 * c2 - m03 * c0,
            m30 * s4 - m31 * s2 + m33 * s0,
            -m20 * s4 + m21 * s2 - m23 * s0,
        ],
        [
            -m10 * c3 + m11 * c1 - m12 * c0,
            m00 * c3 - m01 * c1 + m02 * c0,
            -m30 * s3 + m31 * s1 - m32 * s0,
            m20 * s3 - m21 * s1 + m22 * s0,
        ],
    ];
    (b, det)
}

/// The cofactors `c[row][col]` of a 3×3 matrix given by columns, in the operation
/// order the GPU back end reproduces. Shared by `inverse` and the adjoint of
/// `determinant`.
pub(crate) fn cofactors3<S>(cols: [[S; 3]; 3]) -> [[S; 3]; 3]
where
    S: Copy + core::ops::Mul<Output = S> + core::ops::Sub<Output = S>,
{
    let [[m00, m10, m20], [m01, m11, m21], [m02, m12, m22]] = cols;
    [
        [
            m11 * m22 - m12 * m21,
            m12 * m20 - m10 * m22,
            m10 * m21 - m11 * m20,
        ],
        [
            m02 * m21 - m01 * m22,
            m00 * m22 - m02 * m20,
            m01 * m20 - m00 * m21,
        ],
        [
            m01 * m12 - m02 * m11,
            m02 * m10 - m00 * m12,
            m00 * m11 - m01 * m10,
        ],
    ]
}

/// Matrices `inverse` can return: `is_finite` and `ZERO`.
trait FiniteMatrix: Copy {
    fn all_finite(self) -> bool;
    fn zero() -> Self;
}

macro_rules! impl_finite_matrix {
    ($($m:ident),*) => {$(
        impl FiniteMatrix for $m {
            #[inline]
            fn all_finite(self) -> bool {
                self.is_finite()
            }
            #[inline]
            fn zero() -> Self {
                $m::ZERO
            }
        }
    )*};
}
impl_finite_matrix!(Mat2, Mat3, Mat4, DMat2, DMat3, DMat4);

/// `m`, or the zero matrix if any element of `m` is not finite: `inverse`'s result for
/// singular matrices.
#[inline]
fn finite_or_zero<M: FiniteMatrix>(m: M) -> M {
    if m.all_finite() { m } else { M::zero() }
}
