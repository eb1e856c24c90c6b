//! Spatial (6-D) vectors and matrices of rigid-body dynamics, ordered (linear, angular):
//! a motion vector is `(v, ω)`, a force vector `(f, τ)`.

use crate::{DVec3, Vec3};
use core::ops::{
    Add, AddAssign, Div, DivAssign, Index, IndexMut, Mul, MulAssign, Neg, Sub, SubAssign,
};

macro_rules! spatial_types {
    (
        $(#[$vattr:meta])* $sv:ident,
        $(#[$mattr:meta])* $sm:ident,
        $v:ident, $s:ty
    ) => {
        $(#[$vattr])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $sv {
            /// The linear part (components 0..3).
            pub top: $v,
            /// The angular part (components 3..6).
            pub bottom: $v,
        }

        impl $sv {
            /// All zeros.
            pub const ZERO: Self = Self { top: $v::ZERO, bottom: $v::ZERO };

            /// From the linear (`top`) and angular (`bottom`) parts.
            #[inline]
            pub const fn new(top: $v, bottom: $v) -> Self {
                Self { top, bottom }
            }

            /// From six components `[top.x, top.y, top.z, bottom.x, bottom.y, bottom.z]`.
            #[inline]
            pub const fn from_array(a: [$s; 6]) -> Self {
                Self {
                    top: $v::new(a[0], a[1], a[2]),
                    bottom: $v::new(a[3], a[4], a[5]),
                }
            }

            /// The six components `[top.x, top.y, top.z, bottom.x, bottom.y, bottom.z]`.
            #[inline]
            pub const fn to_array(self) -> [$s; 6] {
                [self.top.x, self.top.y, self.top.z, self.bottom.x, self.bottom.y, self.bottom.z]
            }
        }

        impl Index<usize> for $sv {
            type Output = $s;
            /// Component `i`: 0..3 are `top.x..top.z`, 3..6 `bottom.x..bottom.z`.
            /// Panics if `i >= 6`.
            #[inline]
            fn index(&self, i: usize) -> &$s {
                match i {
                    0 => &self.top.x,
                    1 => &self.top.y,
                    2 => &self.top.z,
                    3 => &self.bottom.x,
                    4 => &self.bottom.y,
                    5 => &self.bottom.z,
                    _ => panic!("spatial vector index {i} out of range 0..6"),
                }
            }
        }

        impl IndexMut<usize> for $sv {
            /// Component `i`: 0..3 are `top.x..top.z`, 3..6 `bottom.x..bottom.z`.
            /// Panics if `i >= 6`.
            #[inline]
            fn index_mut(&mut self, i: usize) -> &mut $s {
                match i {
                    0 => &mut self.top.x,
                    1 => &mut self.top.y,
                    2 => &mut self.top.z,
                    3 => &mut self.bottom.x,
                    4 => &mut self.bottom.y,
                    5 => &mut self.bottom.z,
                    _ => panic!("spatial vector index {i} out of range 0..6"),
                }
            }
        }

        impl Add for $sv {
            type Output = $sv;
            #[inline]
            fn add(self, b: $sv) -> $sv {
                $sv::new(self.top + b.top, self.bottom + b.bottom)
            }
        }

        impl Sub for $sv {
            type Output = $sv;
            #[inline]
            fn sub(self, b: $sv) -> $sv {
                $sv::new(self.top - b.top, self.bottom - b.bottom)
            }
        }

        impl Neg for $sv {
            type Output = $sv;
            #[inline]
            fn neg(self) -> $sv {
                $sv::new(-self.top, -self.bottom)
            }
        }

        impl Mul<$s> for $sv {
            type Output = $sv;
            #[inline]
            fn mul(self, s: $s) -> $sv {
                $sv::new(self.top * s, self.bottom * s)
            }
        }

        impl Mul<$sv> for $s {
            type Output = $sv;
            #[inline]
            fn mul(self, v: $sv) -> $sv {
                v * self
            }
        }

        impl Div<$s> for $sv {
            type Output = $sv;
            /// Each component divided by `s` (an IEEE division each).
            #[inline]
            fn div(self, s: $s) -> $sv {
                $sv::new(self.top / s, self.bottom / s)
            }
        }

        impl AddAssign for $sv {
            #[inline]
            fn add_assign(&mut self, b: $sv) {
                *self = *self + b;
            }
        }

        impl SubAssign for $sv {
            #[inline]
            fn sub_assign(&mut self, b: $sv) {
                *self = *self - b;
            }
        }

        impl MulAssign<$s> for $sv {
            #[inline]
            fn mul_assign(&mut self, s: $s) {
                *self = *self * s;
            }
        }

        impl DivAssign<$s> for $sv {
            #[inline]
            fn div_assign(&mut self, s: $s) {
                *self = *self / s;
            }
        }

        $(#[$mattr])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $sm {
            /// Elements, row-major: `m[row][col]`.
            pub m: [[$s; 6]; 6],
        }

        impl $sm {
            /// All zeros (also the `Default`).
            pub const ZERO: Self = Self { m: [[0.0; 6]; 6] };

            /// The identity.
            pub const IDENTITY: Self = {
                let mut m = [[0.0; 6]; 6];
                let mut i = 0;
                while i < 6 {
                    m[i][i] = 1.0;
                    i += 1;
                }
                Self { m }
            };

            /// From rows: `rows[r][c]` is row `r`, column `c`.
            #[inline]
            pub const fn from_rows(rows: [[$s; 6]; 6]) -> Self {
                Self { m: rows }
            }

            /// Row `r` as a spatial vector. Panics if `r >= 6`.
            #[inline]
            pub const fn row(&self, r: usize) -> $sv {
                $sv::from_array(self.m[r])
            }

            /// Column `c` as a spatial vector. Panics if `c >= 6`.
            #[inline]
            pub fn col(&self, c: usize) -> $sv {
                $sv::from_array(core::array::from_fn(|r| self.m[r][c]))
            }

            /// The transpose (exact).
            #[inline]
            pub fn transpose(&self) -> Self {
                Self { m: core::array::from_fn(|r| core::array::from_fn(|c| self.m[c][r])) }
            }

            fn map2(self, b: Self, f: impl Fn($s, $s) -> $s) -> Self {
                Self {
                    m: core::array::from_fn(|r| core::array::from_fn(|c| f(self.m[r][c], b.m[r][c]))),
                }
            }

            fn map(self, f: impl Fn($s) -> $s) -> Self {
                Self { m: self.m.map(|row| row.map(&f)) }
            }
        }

        impl Add for $sm {
            type Output = $sm;
            #[inline]
            fn add(self, b: $sm) -> $sm {
                self.map2(b, |x, y| x + y)
            }
        }

        impl Sub for $sm {
            type Output = $sm;
            #[inline]
            fn sub(self, b: $sm) -> $sm {
                self.map2(b, |x, y| x - y)
            }
        }

        impl Neg for $sm {
            type Output = $sm;
            #[inline]
            fn neg(self) -> $sm {
                self.map(|x| -x)
            }
        }

        impl AddAssign for $sm {
            #[inline]
            fn add_assign(&mut self, b: $sm) {
                *self = *self + b;
            }
        }

        impl SubAssign for $sm {
            #[inline]
            fn sub_assign(&mut self, b: $sm) {
                *self = *self - b;
            }
        }

        impl Mul<$s> for $sm {
            type Output = $sm;
            #[inline]
            fn mul(self, s: $s) -> $sm {
                self.map(|x| x * s)
            }
        }

        impl Mul<$sm> for $s {
            type Output = $sm;
            #[inline]
            fn mul(self, m: $sm) -> $sm {
                m * self
            }
        }

        impl Mul<$sv> for $sm {
            type Output = $sv;
            /// Matrix × vector: `out[r] = m[r][0]*v[0] + m[r][1]*v[1] + ... + m[r][5]*v[5]`,
            /// left to right.
            #[inline]
            fn mul(self, v: $sv) -> $sv {
                let v = v.to_array();
                $sv::from_array(self.m.map(|row| {
                    row[0] * v[0]
                        + row[1] * v[1]
                        + row[2] * v[2]
                        + row[3] * v[3]
                        + row[4] * v[4]
                        + row[5] * v[5]
                }))
            }
        }

        impl Mul for $sm {
            type Output = $sm;
            /// Matrix product: `out[r][c] = a[r][0]*b[0][c] + ... + a[r][5]*b[5][c]`,
            /// left to right.
            #[inline]
            fn mul(self, b: $sm) -> $sm {
                let a = &self.m;
                let b = &b.m;
                $sm {
                    m: core::array::from_fn(|r| {
                        core::array::from_fn(|c| {
                            a[r][0] * b[0][c]
                                + a[r][1] * b[1][c]
                                + a[r][2] * b[2][c]
                                + a[r][3] * b[3][c]
                                + a[r][4] * b[4][c]
                                + a[r][5] * b[5][c]
                        })
                    }),
                }
            }
        }
    };
}

spatial_types! {
    /// A spatial 6-vector in f32, ordered (linear, angular): `top` is the linear part
    /// (velocity or force), `bottom` the angular part (angular velocity or torque).
    /// Size 24, align 4, `Pod`.
    SpatialVector,
    /// A 6×6 spatial matrix in f32, row-major `m[row][col]` (unlike glam's column-major
    /// matrices), acting on (linear, angular) spatial vectors. Size 144, align 4, `Pod`.
    SpatialMatrix,
    Vec3, f32
}

spatial_types! {
    /// A spatial 6-vector in f64, ordered (linear, angular): `top` is the linear part,
    /// `bottom` the angular part. Size 48, align 8, `Pod`.
    DSpatialVector,
    /// A 6×6 spatial matrix in f64, row-major `m[row][col]`. Size 288, align 8, `Pod`.
    DSpatialMatrix,
    DVec3, f64
}
