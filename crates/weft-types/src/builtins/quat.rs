//! Quaternion builtins. Quaternions are glam's `(x, y, z, w)`, `w` the scalar part;
//! `u = (x, y, z)` below is the vector part.

use super::matrix::Inverse;
use super::scalar::FloatMath;
use super::vector::{Dot, Norm};
use crate::{DMat3, DQuat, DVec3, Mat3, Quat, Vec3};

/// Quaternion builtins of `Quat` and `DQuat`: `quat_to_matrix quat_inverse quat_rotate
/// quat_rotate_inv`, plus the Hamilton product used by `Transform` composition.
pub trait Rotation: Copy {
    /// The scalar type.
    type Scalar;
    /// The matching 3-vector type.
    type Vec3;
    /// The matching 3×3 matrix type.
    type Mat3;
    /// Rotation matrix of a unit quaternion; see [`quat_to_matrix`].
    fn to_matrix(self) -> Self::Mat3;
    /// `conjugate / |q|²`; see [`quat_inverse`].
    fn inverse(self) -> Self;
    /// `(-x, -y, -z, w)` (exact).
    fn conjugate(self) -> Self;
    /// Rotates `v` by a unit quaternion; see [`quat_rotate`].
    fn rotate(self, v: Self::Vec3) -> Self::Vec3;
    /// Rotates `v` by the conjugate of a unit quaternion; see [`quat_rotate_inv`].
    fn rotate_inv(self, v: Self::Vec3) -> Self::Vec3;
    /// Hamilton product `self * r` (apply `r`, then `self`), each component summed left
    /// to right in this order:
    /// `x = w0*x1 + x0*w1 + y0*z1 - z0*y1`, `y = w0*y1 - x0*z1 + y0*w1 + z0*x1`,
    /// `z = w0*z1 + x0*y1 - y0*x1 + z0*w1`, `w = w0*w1 - x0*x1 - y0*y1 - z0*z1`.
    fn mul(self, r: Self) -> Self;
}

/// The `quat_from_axis_angle` builtin, dispatched on the axis type (`Vec3`, `DVec3`).
pub trait AxisAngle: Copy {
    /// The scalar type of the angle.
    type Scalar;
    /// The quaternion type.
    type Quat;
    /// See [`quat_from_axis_angle`].
    fn quat_from_axis_angle(self, angle: Self::Scalar) -> Self::Quat;
}

/// The `quat_from_matrix` builtin of `Mat3` and `DMat3`.
pub trait FromRotationMatrix: Copy {
    /// The quaternion type.
    type Quat;
    /// See [`quat_from_matrix`].
    fn quat_from_matrix(self) -> Self::Quat;
}

/// Rotation of `angle` radians about the unit vector `axis`:
/// `s = sin(angle * 0.5)`, `c = cos(angle * 0.5)` (`weft_math`), result
/// `(axis.x*s, axis.y*s, axis.z*s, c)`. The axis is not normalized here.
#[inline]
pub fn quat_from_axis_angle<V: AxisAngle>(axis: V, angle: V::Scalar) -> V::Quat {
    V::quat_from_axis_angle(axis, angle)
}

/// Rotation matrix of the unit quaternion `q` (glam's formula): with `x2 = x+x`,
/// `y2 = y+y`, `z2 = z+z`, `xx = x*x2`, `xy = x*y2`, `xz = x*z2`, `yy = y*y2`, `yz = y*z2`,
/// `zz = z*z2`, `wx = w*x2`, `wy = w*y2`, `wz = w*z2`, the rows are
/// `[1-(yy+zz), xy-wz, xz+wy]`, `[xy+wz, 1-(xx+zz), yz-wx]`, `[xz-wy, yz+wx, 1-(xx+yy)]`.
/// A non-unit `q` gives a matrix that is not a rotation.
#[inline]
pub fn quat_to_matrix<Q: Rotation>(q: Q) -> Q::Mat3 {
    Q::to_matrix(q)
}

/// Unit quaternion of the rotation matrix `m`, by Shepperd's method (branch on the
/// largest of the trace and the diagonal), then normalized with [`super::normalize`].
///
/// With `t = m00 + m11 + m22` (left to right):
/// * `t >= 0`: `h = sqrt(t + 1)`, `w = 0.5*h`, `f = 0.5/h`, `x = (m21 - m12)*f`,
///   `y = (m02 - m20)*f`, `z = (m10 - m01)*f` (so `w > 0`);
/// * else if `m00` is the largest diagonal element (`m00 >= m11` and `m00 >= m22`):
///   `h = sqrt(m00 - (m11 + m22) + 1)`, `x = 0.5*h`, `f = 0.5/h`, `y = (m01 + m10)*f`,
///   `z = (m20 + m02)*f`, `w = (m21 - m12)*f`;
/// * else if `m11 >= m22`: `h = sqrt(m11 - (m22 + m00) + 1)`, `y = 0.5*h`, `f = 0.5/h`,
///   `z = (m12 + m21)*f`, `x = (m01 + m10)*f`, `w = (m02 - m20)*f`;
/// * else: `h = sqrt(m22 - (m00 + m11) + 1)`, `z = 0.5*h`, `f = 0.5/h`,
///   `x = (m20 + m02)*f`, `y = (m12 + m21)*f`, `w = (m10 - m01)*f`.
///
/// The sign of the result is the branch's choice (`q` and `-q` are the same rotation).
#[inline]
pub fn quat_from_matrix<M: FromRotationMatrix>(m: M) -> M::Quat {
    M::quat_from_matrix(m)
}

/// Inverse of any non-zero quaternion: the conjugate divided by `|q|²`,
/// `(-x/n, -y/n, -z/n, w/n)` with `n = x*x + y*y + z*z + w*w` (left to right).
/// The zero quaternion gives NaNs.
#[inline]
pub fn quat_inverse<Q: Rotation>(q: Q) -> Q {
    Q::inverse(q)
}

/// Rotates `v` by the unit quaternion `q`, with `u = (x, y, z)`:
/// `t = cross(u, v) * 2` (each component of the cross product then times 2),
/// result `v + w*t + cross(u, t)`, each component `(v.i + w*t.i) + cross(u, t).i`.
/// `cross` is [`super::cross`]'s formula.
#[inline]
pub fn quat_rotate<Q: Rotation>(q: Q, v: Q::Vec3) -> Q::Vec3 {
    Q::rotate(q, v)
}

/// Rotates `v` by the inverse of the unit quaternion `q`: exactly
/// `quat_rotate(conjugate(q), v)` (negating `x y z` is exact).
#[inline]
pub fn quat_rotate_inv<Q: Rotation>(q: Q, v: Q::Vec3) -> Q::Vec3 {
    Q::rotate_inv(q, v)
}

macro_rules! impl_quat {
    ($q:ident, $v:ident, $m:ident, $s:ty) => {
        impl Dot for $q {
            type Scalar = $s;
            #[inline]
            fn dot(self, b: $q) -> $s {
                self.x * b.x + self.y * b.y + self.z * b.z + self.w * b.w
            }
        }

        impl Norm for $q {
            #[inline]
            fn length_sq(self) -> $s {
                Dot::dot(self, self)
            }
            #[inline]
            fn length(self) -> $s {
                FloatMath::sqrt(Dot::dot(self, self))
            }
            #[inline]
            fn normalize(self) -> $q {
                let l = Norm::length(self);
                if l == 0.0 {
                    $q::from_xyzw(0.0, 0.0, 0.0, 0.0)
                } else {
                    // An IEEE division per component, as for vectors (and in the
                    // PTX back end).
                    $q::from_xyzw(self.x / l, self.y / l, self.z / l, self.w / l)
                }
            }
        }

        impl Inverse for $q {
            #[inline]
            fn inverse(self) -> $q {
                Rotation::inverse(self)
            }
        }

        impl Rotation for $q {
            type Scalar = $s;
            type Vec3 = $v;
            type Mat3 = $m;

            #[inline]
            fn to_matrix(self) -> $m {
                let (x, y, z, w) = (self.x, self.y, self.z, self.w);
                let (x2, y2, z2) = (x + x, y + y, z + z);
                let (xx, xy, xz) = (x * x2, x * y2, x * z2);
                let (yy, yz, zz) = (y * y2, y * z2, z * z2);
                let (wx, wy, wz) = (w * x2, w * y2, w * z2);
                $m::from_cols(
                    $v::new(1.0 - (yy + zz), xy + wz, xz - wy),
                    $v::new(xy - wz, 1.0 - (xx + zz), yz + wx),
                    $v::new(xz + wy, yz - wx, 1.0 - (xx + yy)),
                )
            }

            #[inline]
            fn inverse(self) -> $q {
                let n = Dot::dot(self, self);
                $q::from_xyzw(-self.x / n, -self.y / n, -self.z / n, self.w / n)
            }

            #[inline]
            fn conjugate(self) -> $q {
                $q::from_xyzw(-self.x, -self.y, -self.z, self.w)
            }

            #[inline]
            fn rotate(self, v: $v) -> $v {
                let u = $v::new(self.x, self.y, self.z);
                let w = self.w;
                let c = super::vector::Cross::cross(u, v);
                let t = $v::new(c.x * 2.0, c.y * 2.0, c.z * 2.0);
                let d = super::vector::Cross::cross(u, t);
                $v::new(
                    v.x + w * t.x + d.x,
                    v.y + w * t.y + d.y,
                    v.z + w * t.z + d.z,
                )
            }

            #[inline]
            fn rotate_inv(self, v: $v) -> $v {
                Rotation::rotate(Rotation::conjugate(self), v)
            }

            #[inline]
            fn mul(self, r: $q) -> $q {
                let (x0, y0, z0, w0) = (self.x, self.y, self.z, self.w);
                let (x1, y1, z1, w1) = (r.x, r.y, r.z, r.w);
                $q::from_xyzw(
                    w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1,
                    w0 * y1 - x0 * z1 + y0 * w1 + z0 * x1,
                    w0 * z1 + x0 * y1 - y0 * x1 + z0 * w1,
                    w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1,
                )
            }
        }

        impl AxisAngle for $v {
            type Scalar = $s;
            type Quat = $q;
            #[inline]
            fn quat_from_axis_angle(self, angle: $s) -> $q {
                let half = angle * 0.5;
                let s = FloatMath::sin(half);
                let c = FloatMath::cos(half);
                $q::from_xyzw(self.x * s, self.y * s, self.z * s, c)
            }
        }

        impl FromRotationMatrix for $m {
            type Quat = $q;
            #[inline]
            fn quat_from_matrix(self) -> $q {
                let [[m00, m10, m20], [m01, m11, m21], [m02, m12, m22]] = self.to_cols_array_2d();
                let t = m00 + m11 + m22;
                let q = if t >= 0.0 {
                    let h = FloatMath::sqrt(t + 1.0);
                    let f = 0.5 / h;
                    $q::from_xyzw((m21 - m12) * f, (m02 - m20) * f, (m10 - m01) * f, 0.5 * h)
                } else if m00 >= m11 && m00 >= m22 {
                    let h = FloatMath::sqrt(m00 - (m11 + m22) + 1.0);
                    let f = 0.5 / h;
                    $q::from_xyzw(0.5 * h, (m01 + m10) * f, (m20 + m02) * f, (m21 - m12) * f)
                } else if m11 >= m22 {
                    let h = FloatMath::sqrt(m11 - (m22 + m00) + 1.0);
                    let f = 0.5 / h;
                    $q::from_xyzw((m01 + m10) * f, 0.5 * h, (m12 + m21) * f, (m02 - m20) * f)
                } else {
                    let h = FloatMath::sqrt(m22 - (m00 + m11) + 1.0);
                    let f = 0.5 / h;
                    $q::from_xyzw((m20 + m02) * f, (m12 + m21) * f, 0.5 * h, (m10 - m01) * f)
                };
                Norm::normalize(q)
            }
        }
    };
}

impl_quat!(Quat, Vec3, Mat3, f32);
impl_quat!(DQuat, DVec3, DMat3, f64);
