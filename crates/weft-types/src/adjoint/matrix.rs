//! Adjoints of the matrix builtins `transpose determinant trace inverse outer diag skew`.
//!
//! glam matrices are column-major; `G` below is `adj_r` and `Mᵀ` a transpose.

use crate::builtins::traits::{Inverse, SquareMatrix};
use crate::{DMat2, DMat3, DMat4, DVec2, DVec3, DVec4, Mat2, Mat3, Mat4, Vec2, Vec3, Vec4};

/// Adjoints of `transpose`, `determinant` and `trace` of square float matrices.
pub trait AdjSquareMatrix: SquareMatrix {
    /// `Gᵀ`.
    fn adj_transpose(self, adj_r: Self) -> Self;
    /// `adj_r` times the cofactor matrix of `self` (`∂det/∂m_ij` is the cofactor `C_ij`),
    /// exact for singular matrices too.
    fn adj_determinant(self, adj_r: Self::Scalar) -> Self;
    /// `adj_r` times the identity.
    fn adj_trace(self, adj_r: Self::Scalar) -> Self;
}

/// Adjoint of `inverse`: matrices here, quaternions and transforms next to their types.
pub trait AdjInverse: Inverse {
    /// The vector-Jacobian product of `inverse` at `self`; see [`adj_inverse`].
    fn adj_inverse(self, adj_r: Self) -> Self;
}

/// Adjoint of `outer` (float vectors).
pub trait AdjOuter: Copy {
    /// The matrix type of `outer`'s result.
    type Matrix;
    /// `(G b, Gᵀ a)`.
    fn adj_outer(self, b: Self, adj_r: Self::Matrix) -> (Self, Self);
}

/// Adjoint of `diag` (float vectors).
pub trait AdjDiag: Copy {
    /// The matrix type of `diag`'s result.
    type Matrix;
    /// The diagonal of `G`.
    fn adj_diag(self, adj_r: Self::Matrix) -> Self;
}

/// Adjoint of `skew` (`Vec3`, `DVec3`).
pub trait AdjSkew: Copy {
    /// The 3×3 matrix type.
    type Matrix;
    /// `(G21 - G12, G02 - G20, G10 - G01)` (`Gij`: row `i`, column `j`).
    fn adj_skew(self, adj_r: Self::Matrix) -> Self;
}

/// Adjoint of `transpose(m)`: `adj_rᵀ`.
#[inline]
pub fn adj_transpose<M: AdjSquareMatrix>(m: M, adj_r: M) -> M {
    M::adj_transpose(m, adj_r)
}

/// Adjoint of `determinant(m)`: `adj_r` times the cofactor matrix of `m` (equal to
/// `adj_r det(m) m⁻ᵀ` when `m` is invertible, and still exact when it is singular).
#[inline]
pub fn adj_determinant<M: AdjSquareMatrix>(m: M, adj_r: M::Scalar) -> M {
    M::adj_determinant(m, adj_r)
}

/// Adjoint of `trace(m)`: `adj_r` on the diagonal.
#[inline]
pub fn adj_trace<M: AdjSquareMatrix>(m: M, adj_r: M::Scalar) -> M {
    M::adj_trace(m, adj_r)
}

/// Adjoint of `inverse(x)`.
///
/// * Matrices: with `R = inverse(m)`, `-Rᵀ adj_r Rᵀ`. A singular `m`, whose `inverse` is
///   the zero matrix, gets a zero gradient (`R = 0`).
/// * Quaternions: the derivative of `quat_inverse`'s `conjugate(q) / |q|²`; see
///   [`super::adj_quat_inverse`].
/// * Transforms: the derivative of `transform_inverse`'s formula; see
///   [`super::adj_transform_inverse`].
#[inline]
pub fn adj_inverse<T: AdjInverse>(x: T, adj_r: T) -> T {
    T::adj_inverse(x, adj_r)
}

/// Adjoint of `outer(a, b) = a bᵀ`: `(adj_r b, adj_rᵀ a)`.
#[inline]
pub fn adj_outer<V: AdjOuter>(a: V, b: V, adj_r: V::Matrix) -> (V, V) {
    V::adj_outer(a, b, adj_r)
}

/// Adjoint of `diag(v)`: the diagonal of `adj_r`.
#[inline]
pub fn adj_diag<V: AdjDiag>(v: V, adj_r: V::Matrix) -> V {
    V::adj_diag(v, adj_r)
}

/// Adjoint of `skew(a)`: `(G21 - G12, G02 - G20, G10 - G01)` with `G = adj_r`
/// (`Gij`: row `i`, column `j`).
#[inline]
pub fn adj_skew<V: AdjSkew>(a: V, adj_r: V::Matrix) -> V {
    V::adj_skew(a, adj_r)
}

macro_rules! impl_common {
    ($m:ident, $v:ident, $s:ty, [$($i:literal),*]) => {
        impl AdjInverse for $m {
            #[inline]
            fn adj_inverse(self, adj_r: $m) -> $m {
                let rt = Inverse::inverse(self).transpose();
                -(rt * adj_r * rt)
            }
        }

        impl AdjOuter for $v {
            type Matrix = $m;
            #[inline]
            fn adj_outer(self, b: $v, adj_r: $m) -> ($v, $v) {
                (adj_r * b, adj_r.transpose() * self)
            }
        }

        impl AdjDiag for $v {
            type Matrix = $m;
            #[inline]
            fn adj_diag(self, adj_r: $m) -> $v {
                let g = adj_r.to_cols_array_2d();
                $v::new($(g[$i][$i]),*)
            }
        }

        impl AdjSquareMatrix for $m {
            #[inline]
            fn adj_transpose(self, adj_r: $m) -> $m {
                adj_r.transpose()
            }
            #[inline]
            fn adj_determinant(self, adj_r: $s) -> $m {
                cofactors(self) * adj_r
            }
            #[inline]
            fn adj_trace(self, adj_r: $s) -> $m {
                $m::from_diagonal($v::splat(adj_r))
            }
        }
    };
}

/// The cofactor matrix `C_ij = (-1)^(i+j) minor_ij` of square matrices.
trait Cofactors {
    fn cofactors(self) -> Self;
}

#[inline]
fn cofactors<M: Cofactors>(m: M) -> M {
    m.cofactors()
}

macro_rules! impl_mat2 {
    ($m:ident, $v:ident, $s:ty) => {
        impl_common!($m, $v, $s, [0, 1]);
        impl Cofactors for $m {
            #[inline]
            fn cofactors(self) -> $m {
                let [[m00, m10], [m01, m11]] = self.to_cols_array_2d();
                $m::from_cols($v::new(m11, -m01), $v::new(-m10, m00))
            }
        }
    };
}

macro_rules! impl_mat3 {
    ($m:ident, $v:ident, $s:ty) => {
        impl_common!($m, $v, $s, [0, 1, 2]);
        impl Cofactors for $m {
            #[inline]
            fn cofactors(self) -> $m {
                // c[row][col], as in `builtins::inverse`.
                let [[c00, c01, c02], [c10, c11, c12], [c20, c21, c22]] =
                    crate::builtins::matrix::cofactors3(self.to_cols_array_2d());
                $m::from_cols(
                    $v::new(c00, c10, c20),
                    $v::new(c01, c11, c21),
                    $v::new(c02, c12, c22),
                )
            }
        }

        impl AdjSkew for $v {
            type Matrix = $m;
            #[inline]
            fn adj_skew(self, adj_r: $m) -> $v {
                // g[col][row]
                let g = adj_r.to_cols_array_2d();
                $v::new(g[1][2] - g[2][1], g[2][0] - g[0][2], g[0][1] - g[1][0])
            }
        }
    };
}

macro_rules! impl_mat4 {
    ($m:ident, $v:ident, $s:ty) => {
        impl_common!($m, $v, $s, [0, 1, 2, 3]);
        impl Cofactors for $m {
            #[inline]
            fn cofactors(self) -> $m {
                // C[row][col] = b[col][row] for the adjugate b of `builtins::inverse`.
                let (b, _) = crate::builtins::matrix::adjugate4(self.to_cols_array_2d());
                // Column j of C is (C0j, C1j, C2j, C3j) = (bj0, bj1, bj2, bj3).
                $m::from_cols(
                    $v::new(b[0][0], b[0][1], b[0][2], b[0][3]),
                    $v::new(b[1][0], b[1][1], b[1][2], b[1][3]),
                    $v::new(b[2][0], b[2][1], b[2][2], b[2][3]),
                    $v::new(b[3][0], b[3][1], b[3][2], b[3][3]),
                )
            }
        }
    };
}

impl_mat2!(Mat2, Vec2, f32);
impl_mat2!(DMat2, DVec2, f64);
impl_mat3!(Mat3, Vec3, f32);
impl_mat3!(DMat3, DVec3, f64);
impl_mat4!(Mat4, Vec4, f32);
impl_mat4!(DMat4, DVec4, f64);
