//! Spatial vectors and matrices: operators, cross products against Featherstone's 6×6
//! matrices, and duality.

mod common;

use common::*;
use proptest::prelude::*;
use weft_types::builtins::*;
use weft_types::*;

/// 6×6 f64 matrix from four 3×3 blocks `[[a, b], [c, d]]`.
fn blocks(a: DMat3, b: DMat3, c: DMat3, d: DMat3) -> DSpatialMatrix {
    let mut m = DSpatialMatrix::ZERO;
    for (r0, c0, blk) in [(0, 0, a), (0, 3, b), (3, 0, c), (3, 3, d)] {
        for i in 0..3 {
            for j in 0..3 {
                m.m[r0 + i][c0 + j] = blk.col(j)[i];
            }
        }
    }
    m
}

/// Featherstone's `crm(a)` for (linear, angular) ordering: `[[ω×, v×], [0, ω×]]`.
fn crm(a: DSpatialVector) -> DSpatialMatrix {
    blocks(skew(a.bottom), skew(a.top), DMat3::ZERO, skew(a.bottom))
}

/// `crf(a) = -crm(a)ᵀ`.
fn crf(a: DSpatialVector) -> DSpatialMatrix {
    -crm(a).transpose()
}

fn naive_mul(a: &[[f64; 6]; 6], v: [f64; 6]) -> [f64; 6] {
    core::array::from_fn(|r| (0..6).map(|c| a[r][c] * v[c]).sum())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn cross_is_antisymmetric(a in spatial(), b in spatial()) {
        prop_assert_eq!(spatial_cross(a, b), -spatial_cross(b, a));
        prop_assert_eq!(spatial_cross(a, a), SpatialVector::ZERO);
    }

    #[test]
    fn cross_matches_crm(a in dspatial(), b in dspatial()) {
        assert_close_slice(&spatial_cross(a, b).to_array(), &(crm(a) * b).to_array(), 1e-12);
        assert_close_slice(&spatial_cross_dual(a, b).to_array(), &(crf(a) * b).to_array(), 1e-12);
    }

    #[test]
    fn f32_cross_matches_f64(a in spatial(), b in spatial()) {
        let (da, db) = (DSpatialVector::from_array(sv_f64(a)), DSpatialVector::from_array(sv_f64(b)));
        // Each component sums at most four products, so f32 rounding is bounded by a few
        // ulps of the largest product |a|∞·|b|∞, not of the (possibly cancelled) result.
        let scale = sv_f64(a).iter().fold(0f64, |m, x| m.max(x.abs()))
            * sv_f64(b).iter().fold(0f64, |m, x| m.max(x.abs()));
        let bound = 8.0 * f64::from(f32::EPSILON) * scale.max(1.0);
        for (x, y) in [
            (sv_f64(spatial_cross(a, b)), spatial_cross(da, db).to_array()),
            (sv_f64(spatial_cross_dual(a, b)), spatial_cross_dual(da, db).to_array()),
        ] {
            for i in 0..6 {
                prop_assert!((x[i] - y[i]).abs() <= bound, "component {i}: {} vs {} (bound {bound})", x[i], y[i]);
            }
        }
    }

    #[test]
    fn cross_dual_is_dual(a in dspatial(), m in dspatial(), f in dspatial()) {
        // (a ×ₘ m) · f == -(m · (a ×* f))
        assert_close(dot(spatial_cross(a, m), f), -dot(m, spatial_cross_dual(a, f)), 1e-10);
    }

    #[test]
    fn top_bottom_dot(a in spatial(), b in spatial()) {
        prop_assert_eq!(spatial_top(a), a.top);
        prop_assert_eq!(spatial_bottom(a), a.bottom);
        let (x, y) = (a.to_array(), b.to_array());
        prop_assert_eq!(dot(a, b), x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] + x[4] * y[4] + x[5] * y[5]);
        for i in 0..6 {
            prop_assert_eq!(a[i], x[i]);
        }
    }

    #[test]
    fn vector_operators(a in spatial(), b in spatial(), s in f()) {
        let (x, y) = (a.to_array(), b.to_array());
        prop_assert_eq!((a + b).to_array(), core::array::from_fn(|i| x[i] + y[i]));
        prop_assert_eq!((a - b).to_array(), core::array::from_fn(|i| x[i] - y[i]));
        prop_assert_eq!((-a).to_array(), x.map(|v| -v));
        prop_assert_eq!((a * s).to_array(), x.map(|v| v * s));
        prop_assert_eq!(s * a, a * s);
        prop_assume!(s != 0.0);
        prop_assert_eq!((a / s).to_array(), x.map(|v| v / s));
        let mut c = a;
        c += b;
        prop_assert_eq!(c, a + b);
        c -= b;
        prop_assert_eq!(c, a + b - b);
        c *= s;
        prop_assert_eq!(c, (a + b - b) * s);
        c /= s;
        prop_assert_eq!(c, (a + b - b) * s / s);
        let mut d = a;
        d[4] = 7.0;
        prop_assert_eq!(d.bottom.y, 7.0);
    }

    #[test]
    fn matrix_operators(m in spatial_matrix(), n in spatial_matrix(), v in spatial(), s in f()) {
        let md = m.m.map(|r| r.map(f64::from));
        let mv = m * v;
        assert_close_slice(&sv_f64(mv), &naive_mul(&md, sv_f64(v)), 1e-4);
        let mn = m * n;
        for c in 0..6 {
            let col = naive_mul(&md, sv_f64(n.col(c)));
            assert_close_slice(&sv_f64(mn.col(c)), &col, 1e-4);
        }
        prop_assert_eq!((m + n).m[2][5], m.m[2][5] + n.m[2][5]);
        prop_assert_eq!((m - n).m[5][0], m.m[5][0] - n.m[5][0]);
        prop_assert_eq!((-m).m[1][3], -m.m[1][3]);
        prop_assert_eq!((m * s).m[4][4], m.m[4][4] * s);
        prop_assert_eq!(s * m, m * s);
        prop_assert_eq!(m.transpose().m[1][4], m.m[4][1]);
        prop_assert_eq!(m.transpose().transpose(), m);
        prop_assert_eq!(m.row(3), SpatialVector::from_array(m.m[3]));
        prop_assert_eq!(SpatialMatrix::IDENTITY * v, v);
        prop_assert_eq!(SpatialMatrix::IDENTITY * m, m);
        prop_assert_eq!(m * SpatialMatrix::IDENTITY, m);
        let mut k = m;
        k += n;
        prop_assert_eq!(k, m + n);
        k -= n;
        prop_assert_eq!(k, m + n - n);
    }
}

#[test]
fn constants() {
    assert_eq!(SpatialVector::default(), SpatialVector::ZERO);
    assert_eq!(SpatialMatrix::default(), SpatialMatrix::ZERO);
    assert_eq!(DSpatialMatrix::IDENTITY.m[5][5], 1.0);
    assert_eq!(DSpatialMatrix::IDENTITY.m[5][4], 0.0);
    let v = SpatialVector::new(Vec3::X, Vec3::Y);
    assert_eq!(v.to_array(), [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    // Linear velocity along x crossed with angular velocity about z... (ω × v, here 0 × ..)
    let w = SpatialVector::new(Vec3::ZERO, Vec3::Z);
    assert_eq!(spatial_cross(w, v), SpatialVector::new(Vec3::Y, -Vec3::X));
}

#[test]
#[should_panic(expected = "out of range")]
fn index_out_of_range_panics() {
    let _ = SpatialVector::ZERO[6];
}
