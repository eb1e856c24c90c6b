//! Property-based checks (proptest) of algebraic identities.

use proptest::prelude::*;
use weft_math as m;

fn ulps32(a: f32, b: f32) -> u32 {
    let k = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0x8000_0000 { b } else { 0x8000_0000 - b }
    };
    (k(a) - k(b)).unsigned_abs() as u32
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(debug_assertions) { 2000 } else { 20000 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn pythagorean_identity(x in -1e5f32..1e5f32) {
        let (s, c) = (m::sin(x), m::cos(x));
        prop_assert!(((s as f64).powi(2) + (c as f64).powi(2) - 1.0).abs() <= 4.0 * f32::EPSILON as f64);
        prop_assert_eq!(m::sincos(x), (s, c));
    }

    #[test]
    fn pythagorean_identity_f64(x in -1e9f64..1e9f64) {
        let (s, c) = (m::sin_f64(x), m::cos_f64(x));
        prop_assert!((s * s + c * c - 1.0).abs() <= 4.0 * f64::EPSILON);
    }

    #[test]
    fn exp_inverts_log(x in 1e-30f32..1e30f32) {
        let y = m::exp(m::log(x));
        let tol = (3.0 + 2.0 * (x as f64).ln().abs()) * f32::EPSILON as f64;
        prop_assert!(((y as f64) - (x as f64)).abs() <= tol * x as f64, "exp(log({})) = {}", x, y);
    }

    #[test]
    fn exp2_log2_roundtrip_on_powers(k in -149i32..128) {
        let p = m::exp2(k as f32);
        prop_assert_eq!(p, 2f64.powi(k) as f32);
        prop_assert_eq!(m::log2(p), k as f32);
    }

    #[test]
    fn floor_ceil_bracket(x in -8.0e6f32..8.0e6f32) {
        let f = m::floor(x);
        let c = m::ceil(x);
        prop_assert!(f <= x && x < f + 1.0);
        prop_assert!(c >= x && x > c - 1.0);
        prop_assert_eq!(m::trunc(x), x.trunc());
        prop_assert_eq!(m::round(x), x.round());
    }

    #[test]
    fn rounding_matches_std_f64(x in any::<f64>()) {
        prop_assert_eq!(m::floor_f64(x).to_bits(), x.floor().to_bits());
        prop_assert_eq!(m::ceil_f64(x).to_bits(), x.ceil().to_bits());
        prop_assert_eq!(m::round_f64(x).to_bits(), x.round().to_bits());
    }

    #[test]
    fn sqrt_is_correctly_rounded(x in any::<f32>(), y in any::<f64>()) {
        let (a, b) = (m::sqrt(x), x.sqrt());
        prop_assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
        let (c, d) = (m::sqrt_f64(y), y.sqrt());
        prop_assert!(c.to_bits() == d.to_bits() || (c.is_nan() && d.is_nan()));
    }

    #[test]
    fn cbrt_cubes_back(x in -1e30f32..1e30f32) {
        let c = m::cbrt(x) as f64;
        prop_assert!((c * c * c - x as f64).abs() <= 4.0 * f32::EPSILON as f64 * (x as f64).abs());
    }

    #[test]
    fn pow_matches_repeated_multiplication(x in 0.1f32..10.0, n in -20i32..20) {
        let want = (x as f64).powi(n) as f32;
        prop_assert!(ulps32(m::pow(x, n as f32), want) <= 1);
        let signed = if n % 2 == 0 { want } else { -want };
        prop_assert!(ulps32(m::pow(-x, n as f32), signed) <= 1);
    }

    #[test]
    fn atan2_consistent_with_atan(y in -1e3f32..1e3f32, x in 1e-3f32..1e3f32) {
        let a = m::atan2(y, x) as f64;
        let b = ((y as f64) / (x as f64)).atan();
        prop_assert!((a - b).abs() <= 2.0 * f32::EPSILON as f64 * b.abs().max(1e-30) + 1e-45);
        prop_assert!(m::atan2(y, -x).abs() >= std::f32::consts::FRAC_PI_2 - 1e-6);
    }

    #[test]
    fn tanh_between_minus_one_and_one(x in any::<f32>()) {
        let t = m::tanh(x);
        prop_assert!(x.is_nan() || (-1.0..=1.0).contains(&t));
        prop_assert!(x.is_nan() || m::cosh(x) >= 1.0);
    }

    #[test]
    fn min_max_clamp(a in any::<f32>(), b in any::<f32>()) {
        let lo = m::min(a, b);
        let hi = m::max(a, b);
        if !a.is_nan() && !b.is_nan() {
            prop_assert!(lo <= hi);
            prop_assert_eq!(m::clamp(a, lo, hi), a);
        }
        prop_assert_eq!(lo.is_nan(), a.is_nan() && b.is_nan());
    }
}
