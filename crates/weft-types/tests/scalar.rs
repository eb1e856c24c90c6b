//! Scalar builtins against f64 `std` references, and `abs sign min max clamp`.

mod common;

use common::{assert_close, config};
use proptest::prelude::*;
use weft_types::builtins::*;
use weft_types::*;

/// f32 tolerance: a few ulp of an accurate implementation, scaled by max(1, |value|).
const F32_TOL: f64 = 4e-6;
/// f64 tolerance.
const F64_TOL: f64 = 1e-14;

macro_rules! unary_cases {
    ($($name:ident: $f32fn:expr, $reference:expr, $range:expr;)*) => {
        proptest! {
            #![proptest_config(config())]
            $(
                #[test]
                fn $name(x in $range) {
                    let r: fn(f64) -> f64 = $reference;
                    let g32: fn(f32) -> f32 = $f32fn;
                    assert_close(g32(x as f32) as f64, r((x as f32) as f64), F32_TOL);
                    let g64: fn(f64) -> f64 = $f32fn;
                    assert_close(g64(x), r(x), F64_TOL);
                }
            )*
        }
    };
}

unary_cases! {
    sin_matches_std: |x| sin(x), f64::sin, -10.0f64..10.0;
    cos_matches_std: |x| cos(x), f64::cos, -10.0f64..10.0;
    tan_matches_std: |x| tan(x), f64::tan, -1.5f64..1.5;
    asin_matches_std: |x| asin(x), f64::asin, -1.0f64..1.0;
    acos_matches_std: |x| acos(x), f64::acos, -1.0f64..1.0;
    atan_matches_std: |x| atan(x), f64::atan, -100.0f64..100.0;
    sinh_matches_std: |x| sinh(x), f64::sinh, -10.0f64..10.0;
    cosh_matches_std: |x| cosh(x), f64::cosh, -10.0f64..10.0;
    tanh_matches_std: |x| tanh(x), f64::tanh, -10.0f64..10.0;
    exp_matches_std: |x| exp(x), f64::exp, -20.0f64..20.0;
    exp2_matches_std: |x| exp2(x), f64::exp2, -30.0f64..30.0;
    log_matches_std: |x| log(x), f64::ln, 1e-3f64..1e6;
    log2_matches_std: |x| log2(x), f64::log2, 1e-3f64..1e6;
    log10_matches_std: |x| log10(x), f64::log10, 1e-3f64..1e6;
    sqrt_matches_std: |x| sqrt(x), f64::sqrt, 0.0f64..1e6;
    cbrt_matches_std: |x| cbrt(x), f64::cbrt, -1e3f64..1e3;
    floor_matches_std: |x| floor(x), f64::floor, -1e3f64..1e3;
    ceil_matches_std: |x| ceil(x), f64::ceil, -1e3f64..1e3;
    trunc_matches_std: |x| trunc(x), f64::trunc, -1e3f64..1e3;
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn atan2_matches_std(y in -10.0f64..10.0, x in -10.0f64..10.0) {
        let (y32, x32) = (y as f32, x as f32);
        assert_close(atan2(y32, x32) as f64, (y32 as f64).atan2(x32 as f64), F32_TOL);
        assert_close(atan2(y, x), y.atan2(x), F64_TOL);
    }

    #[test]
    fn pow_matches_std(x in 1e-2f64..10.0, y in -5.0f64..5.0) {
        let (x32, y32) = (x as f32, y as f32);
        assert_close(pow(x32, y32) as f64, (x32 as f64).powf(y32 as f64), F32_TOL);
        assert_close(pow(x, y), x.powf(y), F64_TOL);
    }

    #[test]
    fn round_is_nearest_integer(x in -1e3f32..1e3) {
        let r = round(x);
        prop_assert_eq!(r, r.trunc());
        prop_assert!((r - x).abs() <= 0.5);
        if (x - x.trunc()).abs() != 0.5 {
            prop_assert_eq!(r, x.round());
        }
    }

    #[test]
    fn abs_sign_min_max_clamp_scalars(a in -100i32..100, b in -100i32..100, c in -100i32..100) {
        let (lo, hi) = (b.min(c), b.max(c));
        prop_assert_eq!(abs(a), a.abs());
        prop_assert_eq!(sign(a), a.signum());
        prop_assert_eq!(abs(a as i64), (a as i64).abs());
        prop_assert_eq!(sign(a as i64), (a as i64).signum());
        prop_assert_eq!(min(a, b), a.min(b));
        prop_assert_eq!(max(a, b), a.max(b));
        prop_assert_eq!(clamp(a, lo, hi), a.clamp(lo, hi));
        prop_assert_eq!(clamp(a as i64, lo as i64, hi as i64), (a as i64).clamp(lo as i64, hi as i64));
        let (ua, ulo, uhi) = (a.unsigned_abs(), lo.unsigned_abs().min(hi.unsigned_abs()), lo.unsigned_abs().max(hi.unsigned_abs()));
        prop_assert_eq!(min(ua, ulo), ua.min(ulo));
        prop_assert_eq!(max(ua as u64, ulo as u64), (ua as u64).max(ulo as u64));
        prop_assert_eq!(clamp(ua, ulo, uhi), ua.clamp(ulo, uhi));
        prop_assert_eq!(clamp(ua as u64, ulo as u64, uhi as u64), (ua as u64).clamp(ulo as u64, uhi as u64));
        let (fa, flo, fhi) = (a as f32 * 0.25, lo as f32 * 0.25, hi as f32 * 0.25);
        prop_assert_eq!(abs(fa), fa.abs());
        prop_assert_eq!(min(fa, flo), fa.min(flo));
        prop_assert_eq!(max(fa as f64, flo as f64), (fa as f64).max(flo as f64));
        prop_assert_eq!(clamp(fa, flo, fhi), fa.clamp(flo, fhi));
        prop_assert_eq!(clamp(fa as f64, flo as f64, fhi as f64), (fa as f64).clamp(flo as f64, fhi as f64));
        prop_assert_eq!(sign(fa), if a > 0 { 1.0 } else if a < 0 { -1.0 } else { 0.0 });
    }

    #[test]
    fn componentwise_vectors(a in proptest::array::uniform4(-100i32..100), b in proptest::array::uniform4(-100i32..100)) {
        let (ia, ib) = (IVec4::from_array(a), IVec4::from_array(b));
        prop_assert_eq!(abs(ia), ia.abs());
        prop_assert_eq!(sign(ia), ia.signum());
        prop_assert_eq!(min(ia, ib), ia.min(ib));
        prop_assert_eq!(max(ia, ib), ia.max(ib));
        let (lo, hi) = (ia.min(ib), ia.max(ib));
        prop_assert_eq!(clamp(IVec4::splat(7), lo, hi), IVec4::splat(7).clamp(lo, hi));
        let (fa, fb) = (ia.as_vec4(), ib.as_vec4());
        prop_assert_eq!(abs(fa), fa.abs());
        prop_assert_eq!(min(fa, fb), fa.min(fb));
        prop_assert_eq!(max(fa.truncate(), fb.truncate()), fa.truncate().max(fb.truncate()));
        prop_assert_eq!(clamp(fa.as_dvec4(), lo.as_dvec4(), hi.as_dvec4()), fa.as_dvec4().clamp(lo.as_dvec4(), hi.as_dvec4()));
        let sa = sign(fa);
        for i in 0..4 {
            prop_assert_eq!(sa[i], (a[i].signum()) as f32);
        }
        let (ua, ub) = (ia.abs().as_uvec4(), ib.abs().as_uvec4());
        prop_assert_eq!(min(ua, ub), ua.min(ub));
        prop_assert_eq!(max(ua.as_u64vec4(), ub.as_u64vec4()), ua.as_u64vec4().max(ub.as_u64vec4()));
        prop_assert_eq!(abs(ia.as_i64vec4().truncate()), ia.as_i64vec4().truncate().abs());
        prop_assert_eq!(sign(ia.truncate().truncate()), ia.truncate().truncate().signum());
    }
}

#[test]
fn sign_special_values() {
    assert_eq!(sign(3.5f32), 1.0);
    assert_eq!(sign(-1e-30f32), -1.0);
    assert_eq!(sign(f32::INFINITY), 1.0);
    assert_eq!(sign(f64::NEG_INFINITY), -1.0);
    assert_eq!(sign(0.0f32).to_bits(), 0.0f32.to_bits());
    assert_eq!(
        sign(-0.0f32).to_bits(),
        (-0.0f32).to_bits(),
        "sign(±0) is that zero"
    );
    assert_eq!(sign(-0.0f64).to_bits(), (-0.0f64).to_bits());
    assert!(sign(f32::NAN).is_nan());
    assert!(sign(f64::NAN).is_nan());
    assert_eq!(sign(Vec3::new(-2.0, 0.0, 5.0)), Vec3::new(-1.0, 0.0, 1.0));
}

#[test]
fn abs_and_clamp_edge_cases() {
    assert_eq!(abs(i32::MIN), i32::MIN, "wraps like PTX abs.s32");
    assert_eq!(abs(-0.0f32).to_bits(), 0.0f32.to_bits());
    assert_eq!(clamp(5, 3, 1), 1, "lo > hi never panics");
    assert_eq!(clamp(5.0f32, 3.0, 1.0), 1.0);
    assert!(clamp(f32::NAN, 0.0, 1.0).is_nan());
    assert_eq!(min(f32::NAN, 1.0), 1.0, "IEEE minNum");
    assert_eq!(max(2.0f64, f64::NAN), 2.0, "IEEE maxNum");
}
