//! Adjoints of the spatial-vector builtins `spatial_top spatial_bottom spatial_cross
//! spatial_cross_dual`. Spatial vectors are (linear, angular) = (`top`, `bottom`).

use crate::builtins::traits::{Cross, Spatial};
use crate::{DSpatialVector, DVec3, SpatialVector, Vec3};

/// Adjoints of the spatial builtins (`SpatialVector`, `DSpatialVector`).
pub trait AdjSpatial: Spatial {
    /// See [`adj_spatial_top`].
    fn adj_top(self, adj_r: Self::Vec3) -> Self;
    /// See [`adj_spatial_bottom`].
    fn adj_bottom(self, adj_r: Self::Vec3) -> Self;
    /// See [`adj_spatial_cross`].
    fn adj_cross(self, b: Self, adj_r: Self) -> (Self, Self);
    /// See [`adj_spatial_cross_dual`].
    fn adj_cross_dual(self, f: Self, adj_r: Self) -> (Self, Self);
}

/// Adjoint of `spatial_top(a)`: `(adj_r, 0)`.
#[inline]
pub fn adj_spatial_top<S: AdjSpatial>(a: S, adj_r: S::Vec3) -> S {
    S::adj_top(a, adj_r)
}

/// Adjoint of `spatial_bottom(a)`: `(0, adj_r)`.
#[inline]
pub fn adj_spatial_bottom<S: AdjSpatial>(a: S, adj_r: S::Vec3) -> S {
    S::adj_bottom(a, adj_r)
}

/// Adjoint of `spatial_cross(a, b)` with `a = (v, ω)`, `b = (v', ω')`,
/// `adj_r = (t̄, b̄)` (result `top = ω × v' + v × ω'`, `bottom = ω × ω'`):
/// `ā = (ω' × t̄, v' × t̄ + ω' × b̄)`, `b̄' = (t̄ × ω, t̄ × v + b̄ × ω)`.
#[inline]
pub fn adj_spatial_cross<S: AdjSpatial>(a: S, b: S, adj_r: S) -> (S, S) {
    S::adj_cross(a, b, adj_r)
}

/// Adjoint of `spatial_cross_dual(a, f)` with `a = (v, ω)`, `f = (f, τ)`,
/// `adj_r = (t̄, b̄)` (result `top = ω × f`, `bottom = ω × τ + v × f`):
/// `ā = (f × b̄, f × t̄ + τ × b̄)`, `f̄ = (t̄ × ω + b̄ × v, b̄ × ω)`.
#[inline]
pub fn adj_spatial_cross_dual<S: AdjSpatial>(a: S, f: S, adj_r: S) -> (S, S) {
    S::adj_cross_dual(a, f, adj_r)
}

macro_rules! impl_adj_spatial {
    ($sv:ident, $v:ident) => {
        impl AdjSpatial for $sv {
            #[inline]
            fn adj_top(self, adj_r: $v) -> $sv {
                $sv::new(adj_r, $v::ZERO)
            }
            #[inline]
            fn adj_bottom(self, adj_r: $v) -> $sv {
                $sv::new($v::ZERO, adj_r)
            }
            #[inline]
            fn adj_cross(self, b: $sv, adj_r: $sv) -> ($sv, $sv) {
                let (v, w, vb, wb) = (self.top, self.bottom, b.top, b.bottom);
                let (gt, gb) = (adj_r.top, adj_r.bottom);
                let da = $sv::new(
                    Cross::cross(wb, gt),
                    Cross::cross(vb, gt) + Cross::cross(wb, gb),
                );
                let db = $sv::new(
                    Cross::cross(gt, w),
                    Cross::cross(gt, v) + Cross::cross(gb, w),
                );
                (da, db)
            }
            #[inline]
            fn adj_cross_dual(self, f: $sv, adj_r: $sv) -> ($sv, $sv) {
                let (v, w, ff, tau) = (self.top, self.bottom, f.top, f.bottom);
                let (gt, gb) = (adj_r.top, adj_r.bottom);
                let da = $sv::new(
                    Cross::cross(ff, gb),
                    Cross::cross(ff, gt) + Cross::cross(tau, gb),
                );
                let df = $sv::new(
                    Cross::cross(gt, w) + Cross::cross(gb, v),
                    Cross::cross(gb, w),
                );
                (da, df)
            }
        }
    };
}

impl_adj_spatial!(SpatialVector, Vec3);
impl_adj_spatial!(DSpatialVector, DVec3);
