//! Table-driven special values: NaN, infinities, signed zeros, overflow,
//! underflow, domain errors and the C99 cases of `pow` and `atan2`.

use std::f32::consts as c32;
use std::f64::consts as c64;
use weft_math as m;

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;
const NAN64: f64 = f64::NAN;
const INF64: f64 = f64::INFINITY;

/// Same value, same sign of zero, or both NaN.
fn same32(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn same64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn check1(name: &str, f: fn(f32) -> f32, cases: &[(f32, f32)]) {
    for &(x, want) in cases {
        let got = f(x);
        assert!(
            same32(got, want),
            "{name}({x:e}) = {got:e}, expected {want:e}"
        );
    }
}

fn check2(name: &str, f: fn(f32, f32) -> f32, cases: &[(f32, f32, f32)]) {
    for &(x, y, want) in cases {
        let got = f(x, y);
        assert!(
            same32(got, want),
            "{name}({x:e}, {y:e}) = {got:e}, expected {want:e}"
        );
    }
}

fn check1_64(name: &str, f: fn(f64) -> f64, cases: &[(f64, f64)]) {
    for &(x, want) in cases {
        let got = f(x);
        assert!(
            same64(got, want),
            "{name}({x:e}) = {got:e}, expected {want:e}"
        );
    }
}

fn check2_64(name: &str, f: fn(f64, f64) -> f64, cases: &[(f64, f64, f64)]) {
    for &(x, y, want) in cases {
        let got = f(x, y);
        assert!(
            same64(got, want),
            "{name}({x:e}, {y:e}) = {got:e}, expected {want:e}"
        );
    }
}

#[test]
fn trig_special() {
    let odd = [
        (0.0, 0.0),
        (-0.0, -0.0),
        (NAN, NAN),
        (INF, NAN),
        (-INF, NAN),
        (1e-40, 1e-40),
    ];
    check1("sin", m::sin, &odd);
    check1("tan", m::tan, &odd);
    check1("sincos.0", |x| m::sincos(x).0, &odd);
    check1(
        "cos",
        m::cos,
        &[(0.0, 1.0), (-0.0, 1.0), (NAN, NAN), (INF, NAN), (-INF, NAN)],
    );
    check1("sincos.1", |x| m::sincos(x).1, &[(0.0, 1.0), (INF, NAN)]);
    // Huge arguments are reduced exactly (values from a 200-digit reference).
    assert_eq!(m::sin(f32::MAX), -0.521_876_5);
    assert_eq!(m::cos(f32::MAX), 0.853_021);
    let odd64 = [
        (0.0, 0.0),
        (-0.0, -0.0),
        (NAN64, NAN64),
        (INF64, NAN64),
        (-INF64, NAN64),
    ];
    check1_64("sin_f64", m::sin_f64, &odd64);
    check1_64("tan_f64", m::tan_f64, &odd64);
    check1_64(
        "cos_f64",
        m::cos_f64,
        &[(0.0, 1.0), (-0.0, 1.0), (NAN64, NAN64), (INF64, NAN64)],
    );
    assert_eq!(m::sin_f64(1e22), -0.852_200_849_767_188_8);
    assert_eq!(m::sin_f64(f64::MAX), 0.004_961_954_789_184_062);
}

#[test]
fn inverse_trig_special() {
    check1(
        "asin",
        m::asin,
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (1.0, c32::FRAC_PI_2),
            (-1.0, -c32::FRAC_PI_2),
            (1.5, NAN),
            (NAN, NAN),
            (INF, NAN),
        ],
    );
    check1(
        "acos",
        m::acos,
        &[
            (1.0, 0.0),
            (-1.0, c32::PI),
            (0.0, c32::FRAC_PI_2),
            (-1.5, NAN),
            (NAN, NAN),
        ],
    );
    check1(
        "atan",
        m::atan,
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, c32::FRAC_PI_2),
            (-INF, -c32::FRAC_PI_2),
            (NAN, NAN),
            (1.0, c32::FRAC_PI_4),
        ],
    );
    let pi = c32::PI;
    let pio2 = c32::FRAC_PI_2;
    let pio4 = c32::FRAC_PI_4;
    check2(
        "atan2",
        m::atan2,
        &[
            (0.0, 0.0, 0.0),
            (-0.0, 0.0, -0.0),
            (0.0, -0.0, pi),
            (-0.0, -0.0, -pi),
            (0.0, 1.0, 0.0),
            (-0.0, 1.0, -0.0),
            (0.0, -1.0, pi),
            (-0.0, -1.0, -pi),
            (1.0, 0.0, pio2),
            (1.0, -0.0, pio2),
            (-1.0, 0.0, -pio2),
            (INF, INF, pio4),
            (INF, -INF, 3.0 * pio4),
            (-INF, INF, -pio4),
            (-INF, -INF, -3.0 * pio4),
            (INF, 5.0, pio2),
            (-INF, 5.0, -pio2),
            (1.0, INF, 0.0),
            (-1.0, INF, -0.0),
            (1.0, -INF, pi),
            (-1.0, -INF, -pi),
            (NAN, 1.0, NAN),
            (1.0, NAN, NAN),
            (1.0, 1.0, pio4),
            (-1.0, -1.0, -3.0 * pio4),
        ],
    );
    check1_64(
        "asin_f64",
        m::asin_f64,
        &[(-0.0, -0.0), (1.0, c64::FRAC_PI_2), (2.0, NAN64)],
    );
    check1_64(
        "acos_f64",
        m::acos_f64,
        &[(1.0, 0.0), (-1.0, c64::PI), (2.0, NAN64)],
    );
    check1_64(
        "atan_f64",
        m::atan_f64,
        &[(-0.0, -0.0), (INF64, c64::FRAC_PI_2), (NAN64, NAN64)],
    );
    check2_64(
        "atan2_f64",
        m::atan2_f64,
        &[
            (0.0, -0.0, c64::PI),
            (-0.0, -0.0, -c64::PI),
            (-0.0, 2.0, -0.0),
            (INF64, -INF64, 3.0 * c64::FRAC_PI_4),
            (-1.0, INF64, -0.0),
            (1.0, -INF64, c64::PI),
            (-3.0, 0.0, -c64::FRAC_PI_2),
        ],
    );
}

#[test]
fn exp_log_special() {
    check1(
        "exp",
        m::exp,
        &[
            (0.0, 1.0),
            (-0.0, 1.0),
            (INF, INF),
            (-INF, 0.0),
            (NAN, NAN),
            (89.0, INF),
            (-104.0, 0.0),
            (1000.0, INF),
        ],
    );
    // gradual underflow: smallest subnormal and its neighbourhood
    assert_eq!(m::exp(-103.0), (-103.0_f64).exp() as f32);
    assert!(m::exp(-100.0) > 0.0 && m::exp(-100.0) < f32::MIN_POSITIVE);
    assert_eq!(m::exp(88.72283), (88.72283_f32 as f64).exp() as f32);
    check1(
        "exp2",
        m::exp2,
        &[
            (0.0, 1.0),
            (-149.0, f32::from_bits(1)),
            (-150.5, 0.0),
            (128.0, INF),
            (-INF, 0.0),
        ],
    );
    for name_f in [
        ("log", m::log as fn(f32) -> f32),
        ("log2", m::log2),
        ("log10", m::log10),
    ] {
        check1(
            name_f.0,
            name_f.1,
            &[
                (1.0, 0.0),
                (0.0, -INF),
                (-0.0, -INF),
                (-1.0, NAN),
                (-INF, NAN),
                (INF, INF),
                (NAN, NAN),
            ],
        );
    }
    assert_eq!(m::log2(f32::from_bits(1)), -149.0);
    assert_eq!(m::log10(1e-3), -3.0);
    check1_64(
        "exp_f64",
        m::exp_f64,
        &[
            (0.0, 1.0),
            (710.0, INF64),
            (-746.0, 0.0),
            (-INF64, 0.0),
            (NAN64, NAN64),
        ],
    );
    check1_64(
        "exp2_f64",
        m::exp2_f64,
        &[(-1074.0, f64::from_bits(1)), (1024.0, INF64), (3.0, 8.0)],
    );
    check1_64(
        "log_f64",
        m::log_f64,
        &[(1.0, 0.0), (0.0, -INF64), (-2.0, NAN64), (INF64, INF64)],
    );
    check1_64(
        "log2_f64",
        m::log2_f64,
        &[(f64::from_bits(1), -1074.0), (0.0, -INF64)],
    );
    check1_64("log10_f64", m::log10_f64, &[(1e-10, -10.0), (-0.0, -INF64)]);
}

#[test]
fn hyperbolic_special() {
    check1(
        "sinh",
        m::sinh,
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, INF),
            (-INF, -INF),
            (NAN, NAN),
            (100.0, INF),
            (-100.0, -INF),
        ],
    );
    check1(
        "cosh",
        m::cosh,
        &[
            (0.0, 1.0),
            (-0.0, 1.0),
            (INF, INF),
            (-INF, INF),
            (NAN, NAN),
            (-100.0, INF),
        ],
    );
    check1(
        "tanh",
        m::tanh,
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, 1.0),
            (-INF, -1.0),
            (NAN, NAN),
            (30.0, 1.0),
        ],
    );
    // sinh/cosh stay finite just below their overflow threshold
    assert!(m::sinh(89.0).is_finite() && m::cosh(-89.0).is_finite());
    check1_64(
        "sinh_f64",
        m::sinh_f64,
        &[(-0.0, -0.0), (-INF64, -INF64), (800.0, INF64)],
    );
    check1_64(
        "cosh_f64",
        m::cosh_f64,
        &[(-0.0, 1.0), (-INF64, INF64), (NAN64, NAN64)],
    );
    check1_64(
        "tanh_f64",
        m::tanh_f64,
        &[(-0.0, -0.0), (-INF64, -1.0), (NAN64, NAN64)],
    );
    assert!(m::sinh_f64(710.0).is_finite());
}

#[test]
fn pow_special() {
    check2(
        "pow",
        m::pow,
        &[
            (NAN, 0.0, 1.0),
            (NAN, -0.0, 1.0),
            (1.0, NAN, 1.0),
            (1.0, INF, 1.0),
            (-1.0, INF, 1.0),
            (-1.0, -INF, 1.0),
            (2.0, NAN, NAN),
            (NAN, 2.0, NAN),
            (0.5, INF, 0.0),
            (0.5, -INF, INF),
            (2.0, INF, INF),
            (2.0, -INF, 0.0),
            (0.0, -3.0, INF),
            (-0.0, -3.0, -INF),
            (-0.0, -2.0, INF),
            (-0.0, -0.5, INF),
            (0.0, 3.0, 0.0),
            (-0.0, 3.0, -0.0),
            (-0.0, 2.0, 0.0),
            (-0.0, 0.5, 0.0),
            (-INF, -3.0, -0.0),
            (-INF, -2.0, 0.0),
            (-INF, 3.0, -INF),
            (-INF, 2.0, INF),
            (INF, -1.0, 0.0),
            (INF, 0.5, INF),
            (-2.0, 0.5, NAN),
            (-2.0, 3.0, -8.0),
            (-2.0, 2.0, 4.0),
            (-2.0, -1.0, -0.5),
            (2.0, 0.5, c32::SQRT_2),
            (10.0, 39.0, INF),
            (10.0, -46.0, 0.0),
            (2.0, -149.0, f32::from_bits(1)),
            (-2.0, 127.0, -1.701_411_8e38),
            (4.0, 0.5, 2.0),
        ],
    );
    check2_64(
        "pow_f64",
        m::pow_f64,
        &[
            (NAN64, 0.0, 1.0),
            (1.0, NAN64, 1.0),
            (-1.0, -INF64, 1.0),
            (-0.0, -3.0, -INF64),
            (-0.0, 3.0, -0.0),
            (-INF64, -3.0, -0.0),
            (-INF64, 3.0, -INF64),
            (-8.0, 1.0 / 3.0, NAN64),
            (-3.0, 3.0, -27.0),
            (2.0, -1074.0, f64::from_bits(1)),
            (2.0, 1024.0, INF64),
            (1.0000001, 1e300, INF64),
            (0.5, 1e300, 0.0),
        ],
    );
}

#[test]
fn roots_special() {
    check1(
        "sqrt",
        m::sqrt,
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (-1.0, NAN),
            (INF, INF),
            (-INF, NAN),
            (NAN, NAN),
            (4.0, 2.0),
        ],
    );
    check1(
        "cbrt",
        m::cbrt,
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, INF),
            (-INF, -INF),
            (NAN, NAN),
            (-27.0, -3.0),
            (1e-45, 1.119_034_7e-15),
        ],
    );
    check1_64(
        "sqrt_f64",
        m::sqrt_f64,
        &[
            (-0.0, -0.0),
            (-1.0, NAN64),
            (INF64, INF64),
            (2.0, c64::SQRT_2),
        ],
    );
    check1_64(
        "cbrt_f64",
        m::cbrt_f64,
        &[(-0.0, -0.0), (-INF64, -INF64), (64.0, 4.0)],
    );
}

#[test]
fn rounding_special() {
    check1(
        "floor",
        m::floor,
        &[
            (-0.5, -1.0),
            (-0.0, -0.0),
            (0.5, 0.0),
            (INF, INF),
            (NAN, NAN),
            (-1.5, -2.0),
            (8388609.0, 8388609.0),
        ],
    );
    check1(
        "ceil",
        m::ceil,
        &[
            (-0.5, -0.0),
            (0.5, 1.0),
            (-0.0, -0.0),
            (-INF, -INF),
            (NAN, NAN),
            (1.0000001, 2.0),
        ],
    );
    check1(
        "round",
        m::round,
        &[
            (0.5, 1.0),
            (-0.5, -1.0),
            (2.5, 3.0),
            (-2.5, -3.0),
            (0.49999997, 0.0),
            (-0.4, -0.0),
            (INF, INF),
            (NAN, NAN),
        ],
    );
    check1(
        "trunc",
        m::trunc,
        &[
            (-0.7, -0.0),
            (2.9, 2.0),
            (-2.9, -2.0),
            (1e30, 1e30),
            (NAN, NAN),
        ],
    );
    check1("abs", m::abs, &[(-0.0, 0.0), (-INF, INF), (-3.0, 3.0)]);
    check1(
        "sign",
        m::sign,
        &[
            (-0.0, -0.0),
            (0.0, 0.0),
            (-5.0, -1.0),
            (1e-45, 1.0),
            (-INF, -1.0),
            (NAN, NAN),
        ],
    );
    check2(
        "copysign",
        m::copysign,
        &[(1.0, -0.0, -1.0), (-2.0, 1.0, 2.0), (NAN, 1.0, NAN)],
    );
    check2(
        "min",
        m::min,
        &[
            (1.0, 2.0, 1.0),
            (NAN, 2.0, 2.0),
            (2.0, NAN, 2.0),
            (NAN, NAN, NAN),
            (-0.0, 0.0, -0.0),
            (0.0, -0.0, -0.0),
            (-INF, 0.0, -INF),
        ],
    );
    check2(
        "max",
        m::max,
        &[
            (1.0, 2.0, 2.0),
            (NAN, 2.0, 2.0),
            (2.0, NAN, 2.0),
            (-0.0, 0.0, 0.0),
            (0.0, -0.0, 0.0),
            (INF, 0.0, INF),
        ],
    );
    assert_eq!(m::clamp(5.0, 0.0, 1.0), 1.0);
    assert_eq!(m::clamp(-5.0, 0.0, 1.0), 0.0);
    assert_eq!(m::clamp(0.25, 0.0, 1.0), 0.25);
    assert!(m::clamp(NAN, 0.0, 1.0).is_nan());
    check1_64(
        "floor_f64",
        m::floor_f64,
        &[
            (-0.5, -1.0),
            (-0.0, -0.0),
            (4503599627370497.0, 4503599627370497.0),
        ],
    );
    check1_64("ceil_f64", m::ceil_f64, &[(-0.5, -0.0), (0.2, 1.0)]);
    check1_64(
        "round_f64",
        m::round_f64,
        &[(-0.5, -1.0), (0.49999999999999994, 0.0), (2.5, 3.0)],
    );
    check1_64("trunc_f64", m::trunc_f64, &[(-0.5, -0.0), (-7.9, -7.0)]);
    check1_64(
        "sign_f64",
        m::sign_f64,
        &[(-0.0, -0.0), (3.0, 1.0), (NAN64, NAN64)],
    );
    check2_64(
        "min_f64",
        m::min_f64,
        &[(NAN64, 1.0, 1.0), (-0.0, 0.0, -0.0)],
    );
    check2_64(
        "max_f64",
        m::max_f64,
        &[(1.0, NAN64, 1.0), (-0.0, 0.0, 0.0)],
    );
    assert!(m::clamp_f64(NAN64, 0.0, 1.0).is_nan());
    assert_eq!(m::ldexp(1.0, -149), f32::from_bits(1));
    assert_eq!(m::ldexp(1.5, -149), f32::from_bits(2)); // ties to even, single rounding
    assert_eq!(m::ldexp(1.0, 128), INF);
    assert_eq!(m::ldexp_f64(1.0, -1075), 0.0);
    assert_eq!(m::ldexp_f64(1.0, 1023), 8.98846567431158e307);
}

#[test]
fn classify() {
    assert!(m::is_nan(NAN) && !m::is_nan(INF));
    assert!(m::is_inf(-INF) && !m::is_inf(f32::MAX));
    assert!(m::is_finite(f32::MAX) && !m::is_finite(NAN));
    assert!(m::is_nan_f64(NAN64) && m::is_inf_f64(INF64) && m::is_finite_f64(0.0));
}
