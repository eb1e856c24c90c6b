//! Adjoints of the quaternion builtins `quat_to_matrix quat_inverse quat_rotate
//! quat_rotate_inv quat_from_axis_angle quat_from_matrix`, the quaternion `inverse` and
//! the Hamilton product. Quaternions are `(x, y, z, w)`; `u = (x, y, z)` is the vector part.
//!
//! The rules differentiate the formulas as written in [`crate::builtins`], for any
//! quaternion (unit or not), so they match finite differences off the unit sphere too.

use super::matrix::AdjInverse;
use super::vector::AdjNorm;
use crate::builtins::traits::{Cross, Dot, FloatMath, Rotation};
use crate::{DMat3, DQuat, DVec3, Mat3, Quat, Vec3};

/// Adjoints of `quat_to_matrix quat_inverse quat_rotate quat_rotate_inv` and of the
/// Hamilton product `Quat * Quat` ([`Rotation::mul`]), for `Quat` and `DQuat`.
pub trait AdjRotation: Rotation {
    /// See [`adj_quat_to_matrix`].
    fn adj_to_matrix(self, adj_r: Self::Mat3) -> Self;
    /// See [`adj_quat_inverse`].
    fn adj_quat_inverse(self, adj_r: Self) -> Self;
    /// See [`adj_quat_rotate`].
    fn adj_rotate(self, v: Self::Vec3, adj_r: Self::Vec3) -> (Self, Self::Vec3);
    /// See [`adj_quat_rotate_inv`].
    fn adj_rotate_inv(self, v: Self::Vec3, adj_r: Self::Vec3) -> (Self, Self::Vec3);
    /// Adjoint of `self * r`: `(adj_r * conjugate(r), conjugate(self) * adj_r)` (Hamilton
    /// products; exact for non-unit quaternions since the product is bilinear and the
    /// transpose of left/right multiplication by `q` is multiplication by its conjugate).
    fn adj_quat_mul(self, r: Self, adj_r: Self) -> (Self, Self);
}

/// Adjoint of `quat_from_axis_angle`, dispatched on the axis type (`Vec3`, `DVec3`).
pub trait AdjAxisAngle: Copy {
    /// The scalar type of the angle.
    type Scalar;
    /// The quaternion type.
    type Quat;
    /// See [`adj_quat_from_axis_angle`].
    fn adj_quat_from_axis_angle(
        self,
        angle: Self::Scalar,
        adj_r: Self::Quat,
    ) -> (Self, Self::Scalar);
}

/// Adjoint of `quat_from_matrix` (`Mat3`, `DMat3`).
pub trait AdjFromRotationMatrix: Copy {
    /// The quaternion type.
    type Quat;
    /// See [`adj_quat_from_matrix`].
    fn adj_quat_from_matrix(self, adj_r: Self::Quat) -> Self;
}

/// Adjoint of `quat_to_matrix(q)` for any `q` (glam's formula is a quadratic form of `q`).
/// With `G = adj_r` (`Gij`: row `i`, column `j`):
/// `x̄ = 2(y(G10+G01) + z(G20+G02) + w(G21-G12) - 2x(G11+G22))`,
/// `ȳ = 2(x(G10+G01) + z(G21+G12) + w(G02-G20) - 2y(G00+G22))`,
/// `z̄ = 2(x(G20+G02) + y(G21+G12) + w(G10-G01) - 2z(G00+G11))`,
/// `w̄ = 2(x(G21-G12) + y(G02-G20) + z(G10-G01))`.
#[inline]
pub fn adj_quat_to_matrix<Q: AdjRotation>(q: Q, adj_r: Q::Mat3) -> Q {
    Q::adj_to_matrix(q, adj_r)
}

/// Adjoint of `quat_inverse(q) = conjugate(q) / n`, `n = |q|²`:
/// `(conjugate(adj_r) - 2 q dot(conjugate(q), adj_r) / n) / n`. The zero quaternion
/// (outside the domain) gives NaNs, as the forward does.
#[inline]
pub fn adj_quat_inverse<Q: AdjRotation>(q: Q, adj_r: Q) -> Q {
    Q::adj_quat_inverse(q, adj_r)
}

/// Adjoint of `quat_rotate(q, v) = v + w t + cross(u, t)`, `t = 2 cross(u, v)`, for any
/// `q` (a non-unit `q` scales and shears, and the rule follows the formula):
/// `t̄ = w adj_r + cross(adj_r, u)`, `w̄ = dot(adj_r, t)`,
/// `ū = cross(t, adj_r) + 2 cross(v, t̄)`, `v̄ = adj_r + 2 cross(t̄, u)`; returns
/// `((ū, w̄), v̄)`. Also the adjoint of `Quat * Vec3`.
#[inline]
pub fn adj_quat_rotate<Q: AdjRotation>(q: Q, v: Q::Vec3, adj_r: Q::Vec3) -> (Q, Q::Vec3) {
    Q::adj_rotate(q, v, adj_r)
}

/// Adjoint of `quat_rotate_inv(q, v) = quat_rotate(conjugate(q), v)`: [`adj_quat_rotate`]
/// at `conjugate(q)`, its quaternion adjoint conjugated back.
#[inline]
pub fn adj_quat_rotate_inv<Q: AdjRotation>(q: Q, v: Q::Vec3, adj_r: Q::Vec3) -> (Q, Q::Vec3) {
    Q::adj_rotate_inv(q, v, adj_r)
}

/// Adjoint of `quat_from_axis_angle(axis, angle) = (axis sin(angle/2), cos(angle/2))`
/// (the axis is not normalized, so any axis is differentiated as is):
/// `(adj_r.xyz sin(angle/2), (dot(adj_r.xyz, axis) cos(angle/2) - adj_r.w sin(angle/2)) / 2)`.
#[inline]
pub fn adj_quat_from_axis_angle<V: AdjAxisAngle>(
    axis: V,
    angle: V::Scalar,
    adj_r: V::Quat,
) -> (V, V::Scalar) {
    V::adj_quat_from_axis_angle(axis, angle, adj_r)
}

/// Adjoint of `quat_from_matrix(m)`: the derivative of the Shepperd branch the forward
/// takes at `m` (the same tests on the trace and diagonal), followed by the derivative
/// of the final `normalize`. Exact for any matrix inside the branch; at a branch boundary
/// it is the derivative of the branch taken (the result's sign may flip there, so no
/// derivative exists). A matrix that makes the branch's square root zero (not a rotation)
/// gives the infinities of the forward's `0.5 / h`.
#[inline]
pub fn adj_quat_from_matrix<M: AdjFromRotationMatrix>(m: M, adj_r: M::Quat) -> M {
    M::adj_quat_from_matrix(m, adj_r)
}

/// Shepperd's branches of `quat_from_matrix`, indexed by the component the branch computes
/// as `0.5 * h` (0–2: `x y z`, when that diagonal element is the largest and the trace is
/// negative; 3: `w`, when the trace is `>= 0`). Each lists the other three components `k`
/// as `(m[r0][c0] ± m[r1][c1]) * f`: `(k, (r0, c0), (r1, c1), minus)`.
const SHEPPERD: [[ShepperdTerm; 3]; 4] = [
    [
        (1, (0, 1), (1, 0), false),
        (2, (2, 0), (0, 2), false),
        (3, (2, 1), (1, 2), true),
    ],
    [
        (0, (0, 1), (1, 0), false),
        (2, (1, 2), (2, 1), false),
        (3, (0, 2), (2, 0), true),
    ],
    [
        (0, (2, 0), (0, 2), false),
        (1, (1, 2), (2, 1), false),
        (3, (1, 0), (0, 1), true),
    ],
    [
        (0, (2, 1), (1, 2), true),
        (1, (0, 2), (2, 0), true),
        (2, (1, 0), (0, 1), true),
    ],
];

/// `(k, (r0, c0), (r1, c1), minus)`: component `k` is `(m[r0][c0] ± m[r1][c1]) * f`.
type ShepperdTerm = (usize, (usize, usize), (usize, usize), bool);

macro_rules! impl_adj_quat {
    ($q:ident, $v:ident, $m:ident, $s:ty) => {
        impl AdjRotation for $q {
            #[inline]
            fn adj_to_matrix(self, adj_r: $m) -> $q {
                let (x, y, z, w) = (self.x, self.y, self.z, self.w);
                // c[col][row]: Gij = c[j][i].
                let c = adj_r.to_cols_array_2d();
                let (g00, g01, g02) = (c[0][0], c[1][0], c[2][0]);
                let (g10, g11, g12) = (c[0][1], c[1][1], c[2][1]);
                let (g20, g21, g22) = (c[0][2], c[1][2], c[2][2]);
                let (sxy, sxz, syz) = (g10 + g01, g20 + g02, g21 + g12);
                let (dx, dy, dz) = (g21 - g12, g02 - g20, g10 - g01);
                let ax = y * sxy + z * sxz + w * dx - 2.0 * x * (g11 + g22);
                let ay = x * sxy + z * syz + w * dy - 2.0 * y * (g00 + g22);
                let az = x * sxz + y * syz + w * dz - 2.0 * z * (g00 + g11);
                let aw = x * dx + y * dy + z * dz;
                $q::from_xyzw(2.0 * ax, 2.0 * ay, 2.0 * az, 2.0 * aw)
            }

            #[inline]
            fn adj_quat_inverse(self, adj_r: $q) -> $q {
                let n = Dot::dot(self, self);
                let k = Dot::dot(Rotation::conjugate(self), adj_r) / n;
                (Rotation::conjugate(adj_r) - self * (k + k)) / n
            }

            #[inline]
            fn adj_rotate(self, v: $v, adj_r: $v) -> ($q, $v) {
                let u = $v::new(self.x, self.y, self.z);
                let w = self.w;
                let t = Cross::cross(u, v) * 2.0;
                let at = adj_r * w + Cross::cross(adj_r, u);
                let aw = Dot::dot(adj_r, t);
                let au = Cross::cross(t, adj_r) + Cross::cross(v, at) * 2.0;
                let av = adj_r + Cross::cross(at, u) * 2.0;
                ($q::from_xyzw(au.x, au.y, au.z, aw), av)
            }

            #[inline]
            fn adj_rotate_inv(self, v: $v, adj_r: $v) -> ($q, $v) {
                let (aq, av) = AdjRotation::adj_rotate(Rotation::conjugate(self), v, adj_r);
                (Rotation::conjugate(aq), av)
            }

            #[inline]
            fn adj_quat_mul(self, r: $q, adj_r: $q) -> ($q, $q) {
                (
                    Rotation::mul(adj_r, Rotation::conjugate(r)),
                    Rotation::mul(Rotation::conjugate(self), adj_r),
                )
            }
        }

        impl AdjInverse for $q {
            #[inline]
            fn adj_inverse(self, adj_r: $q) -> $q {
                AdjRotation::adj_quat_inverse(self, adj_r)
            }
        }

        impl AdjAxisAngle for $v {
            type Scalar = $s;
            type Quat = $q;
            #[inline]
            fn adj_quat_from_axis_angle(self, angle: $s, adj_r: $q) -> ($v, $s) {
                let half = angle * 0.5;
                let s = FloatMath::sin(half);
                let c = FloatMath::cos(half);
                let g = $v::new(adj_r.x, adj_r.y, adj_r.z);
                (g * s, 0.5 * (Dot::dot(g, self) * c - adj_r.w * s))
            }
        }

        impl AdjFromRotationMatrix for $m {
            type Quat = $q;
            fn adj_quat_from_matrix(self, adj_r: $q) -> $m {
                let [[m00, m10, m20], [m01, m11, m21], [m02, m12, m22]] = self.to_cols_array_2d();
                // a[row][col] accumulates the adjoint of m.
                let mut a = [[0.0 as $s; 3]; 3];
                let t = m00 + m11 + m22;
                // The forward's branch: the component computed from `h` (see [`SHEPPERD`]).
                let (big, d) = if t >= 0.0 {
                    (3, t + 1.0)
                } else if m00 >= m11 && m00 >= m22 {
                    (0, m00 - (m11 + m22) + 1.0)
                } else if m11 >= m22 {
                    (1, m11 - (m22 + m00) + 1.0)
                } else {
                    (2, m22 - (m00 + m11) + 1.0)
                };
                let h = FloatMath::sqrt(d);
                let f = 0.5 / h;
                let pairs = SHEPPERD[big]
                    .map(|(k, e0, e1, minus)| (k, e0, e1, if minus { -1.0 as $s } else { 1.0 }));
                let mr = [[m00, m01, m02], [m10, m11, m12], [m20, m21, m22]];
                let mut raw = [0.0 as $s; 4];
                raw[big] = 0.5 * h;
                for &(k, (r0, c0), (r1, c1), sg) in &pairs {
                    raw[k] = (mr[r0][c0] + sg * mr[r1][c1]) * f;
                }
                let raw = $q::from_array(raw);
                let g = AdjNorm::adj_normalize(raw, adj_r).to_array();
                // Back through `raw`.
                let mut af = 0.0 as $s;
                for &(k, (r0, c0), (r1, c1), sg) in &pairs {
                    af += g[k] * (mr[r0][c0] + sg * mr[r1][c1]);
                    a[r0][c0] += g[k] * f;
                    a[r1][c1] += sg * g[k] * f;
                }
                let ah = 0.5 * g[big] - af * f / h;
                let ad = ah * f;
                // d = ±m00 ± m11 ± m22 + 1: `+` on the big diagonal element (all three for
                // the trace branch), `-` on the others.
                for i in 0..3 {
                    a[i][i] += if big == 3 || i == big { ad } else { -ad };
                }
                $m::from_cols(
                    $v::new(a[0][0], a[1][0], a[2][0]),
                    $v::new(a[0][1], a[1][1], a[2][1]),
                    $v::new(a[0][2], a[1][2], a[2][2]),
                )
            }
        }
    };
}

impl_adj_quat!(Quat, Vec3, Mat3, f32);
impl_adj_quat!(DQuat, DVec3, DMat3, f64);
