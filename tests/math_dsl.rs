//! The elementary functions written in the kernel language
//! (`crates/weft-math/dsl/{f32,f64}.rs`, what the PTX back end compiles) against
//! `weft_math` (what the CPU back end calls): results must be bit-identical (any
//! NaN matches any NaN) on special values, thresholds of every branch, near
//! multiples of pi/2, and seeded random inputs over the whole float range and
//! the interesting ranges.

use weft::prelude::*;
use weft_testkit::Rng;

mod f32_dsl {
    use weft::prelude::*;
    include!("../crates/weft-math/dsl/f32.rs");

    macro_rules! unary {
        ($($kernel:ident => $func:ident),* $(,)?) => {$(
            #[weft::kernel]
            pub fn $kernel(x: &Array<f32>, out: &mut Array<f32>) {
                let i = tid();
                out[i] = $func(x[i]);
            }
        )*};
    }

    unary! {
        sin => __weft_sin_f32, cos => __weft_cos_f32, tan => __weft_tan_f32,
        asin => __weft_asin_f32, acos => __weft_acos_f32, atan => __weft_atan_f32,
        sinh => __weft_sinh_f32, cosh => __weft_cosh_f32, tanh => __weft_tanh_f32,
        exp => __weft_exp_f32, exp2 => __weft_exp2_f32, log => __weft_log_f32,
        log2 => __weft_log2_f32, log10 => __weft_log10_f32, cbrt => __weft_cbrt_f32,
    }

    #[weft::kernel]
    pub fn atan2(y: &Array<f32>, x: &Array<f32>, out: &mut Array<f32>) {
        let i = tid();
        out[i] = __weft_atan2_f32(y[i], x[i]);
    }

    #[weft::kernel]
    pub fn pow(x: &Array<f32>, y: &Array<f32>, out: &mut Array<f32>) {
        let i = tid();
        out[i] = __weft_pow_f32(x[i], y[i]);
    }
}

mod f64_dsl {
    use weft::prelude::*;
    include!("../crates/weft-math/dsl/f64.rs");

    macro_rules! unary {
        ($($kernel:ident => $func:ident),* $(,)?) => {$(
            #[weft::kernel]
            pub fn $kernel(x: &Array<f64>, out: &mut Array<f64>) {
                let i = tid();
                out[i] = $func(x[i]);
            }
        )*};
    }

    unary! {
        sin => __weft_sin_f64, cos => __weft_cos_f64, tan => __weft_tan_f64,
        asin => __weft_asin_f64, acos => __weft_acos_f64, atan => __weft_atan_f64,
        sinh => __weft_sinh_f64, cosh => __weft_cosh_f64, tanh => __weft_tanh_f64,
        exp => __weft_exp_f64, exp2 => __weft_exp2_f64, log => __weft_log_f64,
        log2 => __weft_log2_f64, log10 => __weft_log10_f64, cbrt => __weft_cbrt_f64,
    }

    #[weft::kernel]
    pub fn atan2(y: &Array<f64>, x: &Array<f64>, out: &mut Array<f64>) {
        let i = tid();
        out[i] = __weft_atan2_f64(y[i], x[i]);
    }

    #[weft::kernel]
    pub fn pow(x: &Array<f64>, y: &Array<f64>, out: &mut Array<f64>) {
        let i = tid();
        out[i] = __weft_pow_f64(x[i], y[i]);
    }
}

/// Random inputs per function and range kind (plus the structured ones).
const N: usize = if cfg!(debug_assertions) {
    60_000
} else {
    1_000_000
};

/// The kit's seeded generator for the function `name` (seeded by the name's
/// FNV-1a hash): every function gets its own stream, so failures reproduce.
fn rng_for(name: &str) -> Rng {
    let mut h = 0xcbf2_9ce4_8422_2325_u64;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    Rng::new(h)
}

/// A float type under test.
trait Float: Copy + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    const NAME: &'static str;
    fn bits(self) -> u64;
    fn is_nan(self) -> bool;
    fn from_f64(x: f64) -> Self;
    /// A random bit pattern: every exponent, NaNs, infinities and subnormals.
    fn random_bits(rng: &mut Rng) -> Self;
    /// `x` and its `k` nearest neighbours on each side (as bit patterns).
    fn around(x: Self, k: i64) -> Vec<Self>;
}

impl Float for f32 {
    const NAME: &'static str = "f32";
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn random_bits(rng: &mut Rng) -> Self {
        f32::from_bits(rng.next_u64() as u32)
    }
    fn around(x: Self, k: i64) -> Vec<Self> {
        let b = x.to_bits() as i64;
        (-k..=k)
            .map(|d| f32::from_bits((b + d).clamp(0, u32::MAX as i64) as u32))
            .collect()
    }
}

impl Float for f64 {
    const NAME: &'static str = "f64";
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn random_bits(rng: &mut Rng) -> Self {
        f64::from_bits(rng.next_u64())
    }
    fn around(x: Self, k: i64) -> Vec<Self> {
        let b = x.to_bits() as i128;
        (-k as i128..=k as i128)
            .map(|d| f64::from_bits((b + d).clamp(0, u64::MAX as i128) as u64))
            .collect()
    }
}

fn same<F: Float>(a: F, b: F) -> bool {
    a.bits() == b.bits() || (a.is_nan() && b.is_nan())
}

/// Values every function is tried on: zeros, infinities, NaNs, subnormals,
/// extremes, and each threshold of weft-math's branches with 3 neighbours on
/// each side (the thresholds of both widths, so each type also gets the other's).
fn specials<F: Float>() -> Vec<F> {
    let mut points: Vec<f64> = vec![
        0.0, 1.0, 0.5, 2.0, 3.0, 10.0, 0.75, 1.5, 2.5, 0.1, 1e-3, 1e3, 1e6, 1e10, 1e15, 1e20, 1e30,
        1e38, 1e-30, 1e-38, 1e-40, 1e-45, 1e100, 1e300, 1e-300, 1e-310, 1e-320,
    ];
    // f32 thresholds (weft-math `*.rs`).
    points.extend([
        std::f32::consts::FRAC_PI_4 as f64,
        0.000_244_140_63,         // 2^-12
        0.000_122_070_31,         // 2^-13
        400.0,                    // Cody-Waite / Payne-Hanek
        88.8_f32 as f64,          // exp overflow
        88.722_84,                // ln(f32::MAX)
        104.0,                    // exp underflow
        103.972_08,               // 2^-150
        87.336_54,                // ln(2^-126)
        128.0,                    // exp2 overflow
        151.0,                    // exp2 underflow
        149.0,                    // exp2 subnormal
        126.0,                    // exp2 subnormal
        89.5,                     // sinh/cosh overflow
        89.415_985,               // asinh(f32::MAX) ~
        12.0,                     // sinh/cosh: e^-x dropped
        0.549_3_f32 as f64,       // tanh polynomial bound
        9.1_f32 as f64,           // tanh = 1
        9.313_226e-10_f32 as f64, // atan residual
        7.888_609e-31_f32 as f64, // atan rescale
        16_777_216.0,             // pow: every f32 above is even
        std::f32::consts::FRAC_PI_2 as f64,
        std::f32::consts::PI as f64,
        f32::MAX as f64,
        f32::MIN_POSITIVE as f64,
        f32::EPSILON as f64,
        f32::from_bits(1) as f64,
        f32::from_bits(0x007f_ffff) as f64,
        f32::from_bits(0x0d80_0000) as f64, // cbrt scaling bounds
        f32::from_bits(0x7e00_0000) as f64,
    ]);
    // f64 thresholds.
    points.extend([
        std::f64::consts::FRAC_PI_4,
        7.450580596923828e-9,    // 2^-27
        1.5e6,                   // Cody-Waite / Payne-Hanek
        1_048_576.0,             // 2^20
        710.0,                   // exp overflow
        709.782712893384,        // ln(f64::MAX)
        746.0,                   // exp underflow
        745.1332191019412,       // ln(2^-1075)
        708.3964185322641,       // ln(2^-1022)
        1024.0,                  // exp2 overflow
        1076.0,                  // exp2 underflow
        1074.0,                  // exp2 subnormal
        1022.0,                  // exp2 subnormal
        711.0,                   // sinh/cosh overflow
        710.4758600739439,       // asinh(f64::MAX)
        22.0,                    // sinh/cosh: e^-x dropped
        0.5493,                  // tanh polynomial bound
        20.0,                    // tanh = 1
        8.673617379884035e-19,   // atan2 residual
        8.452712498170644e270,   // atan2 rescale
        1.1830521861667747e-271, // atan2 rescale
        0.4375,                  // atan reduction bounds
        0.6875,
        1.1875,
        2.4375,
        9_007_199_254_740_992.0, // pow: every f64 above is even
        1.8446744073709552e19,   // pow: |y| > 2^64
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::EPSILON,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::from_bits(0x07b0_0000_0000_0000), // cbrt scaling bounds
        f64::from_bits(0x7830_0000_0000_0000),
        // Kahan-McDonald: the f64 closest to a multiple of pi/2.
        6_381_956_970_095_103.0 * f64::from_bits((797 + 1023_u64) << 52),
    ]);
    let mut out = Vec::new();
    for p in points {
        for s in [p, -p] {
            let x = F::from_f64(s);
            out.extend(F::around(x, 3));
        }
    }
    out.extend([
        F::from_f64(f64::INFINITY),
        F::from_f64(f64::NEG_INFINITY),
        F::from_f64(f64::NAN),
        F::from_f64(-f64::NAN),
    ]);
    out
}

/// Values within a few ulp of `k pi/2` for small and large `k`.
fn near_pio2<F: Float>(rng: &mut Rng, count: usize) -> Vec<F> {
    // pi/2 as a double-word, so that k pi/2 is accurate to an f64 ulp.
    const P1: f64 = std::f64::consts::FRAC_PI_2;
    const P2: f64 = 6.123233995736766e-17;
    let kpio2 = |k: f64| {
        let p = k * P1;
        let e = k.mul_add(P1, -p);
        p + (e + k * P2)
    };
    let mut out = Vec::new();
    for k in 1..=count / 8 {
        out.extend(F::around(F::from_f64(kpio2(k as f64)), 1));
    }
    while out.len() < count {
        let k = (rng.uniform(1.0, 40.0).exp2()).floor();
        let x = F::from_f64(kpio2(k) * if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 });
        out.extend(F::around(x, 1));
    }
    out
}

fn uniform<F: Float>(rng: &mut Rng, count: usize, lo: f64, hi: f64) -> Vec<F> {
    (0..count)
        .map(|_| F::from_f64(rng.uniform(lo, hi)))
        .collect()
}

fn random_bits<F: Float>(rng: &mut Rng, count: usize) -> Vec<F> {
    (0..count).map(|_| F::random_bits(rng)).collect()
}

/// `specials`, `N` random bit patterns, and `N` values spread over `ranges`.
fn unary_inputs<F: Float>(rng: &mut Rng, ranges: &[(f64, f64)]) -> Vec<F> {
    let mut xs = specials::<F>();
    xs.extend(random_bits::<F>(rng, N));
    for &(lo, hi) in ranges {
        xs.extend(uniform::<F>(rng, N / ranges.len(), lo, hi));
    }
    xs
}

/// Compares the DSL results with the reference on every input; panics listing
/// the first mismatches.
fn check<F: Float, I: std::fmt::Debug>(
    name: &str,
    inputs: &[I],
    got: &[F],
    reference: impl Fn(&I) -> F,
) {
    assert_eq!(inputs.len(), got.len());
    let bad: Vec<String> = inputs
        .iter()
        .zip(got)
        .filter_map(|(x, &g)| {
            let r = reference(x);
            (!same(g, r)).then(|| {
                format!(
                    "{name}({x:?}): dsl {g:?} ({:#x}), weft_math {r:?} ({:#x})",
                    g.bits(),
                    r.bits()
                )
            })
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{name}_{}: {} of {} inputs differ:\n{}",
        F::NAME,
        bad.len(),
        inputs.len(),
        bad[..bad.len().min(20)].join("\n")
    );
    eprintln!("{name}_{}: {} inputs bit-identical", F::NAME, inputs.len());
}

macro_rules! unary_test {
    ($test:ident, $ty:ident, $module:ident :: $kernel:ident, $reference:path, $inputs:expr) => {
        #[test]
        fn $test() {
            let mut rng = rng_for(stringify!($test));
            let xs: Vec<$ty> = $inputs(&mut rng);
            let x = Array::from_slice(Device::Cpu, &xs);
            let mut out = Array::zeros(Device::Cpu, [xs.len()]);
            $module::$kernel::launch(xs.len(), &x, &mut out).unwrap();
            check(stringify!($kernel), &xs, &out.to_vec(), |&x| $reference(x));
        }
    };
}

macro_rules! binary_test {
    ($test:ident, $ty:ident, $module:ident :: $kernel:ident, $reference:path, $inputs:expr) => {
        #[test]
        fn $test() {
            let mut rng = rng_for(stringify!($test));
            let pairs: Vec<($ty, $ty)> = $inputs(&mut rng);
            let a: Vec<$ty> = pairs.iter().map(|p| p.0).collect();
            let b: Vec<$ty> = pairs.iter().map(|p| p.1).collect();
            let a = Array::from_slice(Device::Cpu, &a);
            let b = Array::from_slice(Device::Cpu, &b);
            let mut out = Array::zeros(Device::Cpu, [pairs.len()]);
            $module::$kernel::launch(pairs.len(), &a, &b, &mut out).unwrap();
            check(stringify!($kernel), &pairs, &out.to_vec(), |&(a, b)| {
                $reference(a, b)
            });
        }
    };
}

fn trig_inputs<F: Float>(rng: &mut Rng, small: f64, reduce: f64) -> Vec<F> {
    let mut xs = unary_inputs::<F>(rng, &[(-small, small), (-reduce, reduce), (-1e6, 1e6)]);
    xs.extend(near_pio2::<F>(rng, N / 2));
    xs
}

fn log_inputs<F: Float>(rng: &mut Rng) -> Vec<F> {
    let mut xs = unary_inputs::<F>(rng, &[(0.5, 2.0), (0.99, 1.01), (0.0, 100.0)]);
    // Positive random bit patterns: every exponent, subnormals included.
    let positive: Vec<F> = random_bits::<F>(rng, N)
        .into_iter()
        .map(|x| F::from_f64(f64::abs(to_f64(x))))
        .collect();
    xs.extend(positive);
    xs
}

fn to_f64<F: Float>(x: F) -> f64 {
    // f32 -> f64 is exact, f64 -> f64 the identity.
    if F::NAME == "f32" {
        f32::from_bits(x.bits() as u32) as f64
    } else {
        f64::from_bits(x.bits())
    }
}

/// An interval `(lo, hi)`.
type Range = (f64, f64);

/// Cross product of the specials, random bit pairs, and pairs from `ranges`.
fn pairs_from<F: Float>(rng: &mut Rng, ranges: &[(Range, Range)]) -> Vec<(F, F)> {
    let s = specials::<F>();
    let mut out = Vec::new();
    // Every 7th special against every 5th: ~ a few thousand pairs.
    for a in s.iter().step_by(7) {
        for b in s.iter().step_by(5) {
            out.push((*a, *b));
        }
    }
    for _ in 0..N {
        out.push((F::random_bits(rng), F::random_bits(rng)));
    }
    for &((alo, ahi), (blo, bhi)) in ranges {
        for _ in 0..N / ranges.len() {
            out.push((
                F::from_f64(rng.uniform(alo, ahi)),
                F::from_f64(rng.uniform(blo, bhi)),
            ));
        }
    }
    out
}

fn atan2_inputs<F: Float>(rng: &mut Rng) -> Vec<(F, F)> {
    let mut out = pairs_from::<F>(
        rng,
        &[((-4.0, 4.0), (-4.0, 4.0)), ((-1e3, 1e3), (-1e-3, 1e-3))],
    );
    // |y| == |x| and |y| ~ |x|, every sign combination.
    for _ in 0..N / 4 {
        let x = F::random_bits(rng);
        let xf = to_f64(x);
        let y = F::from_f64(xf * (1.0 + rng.uniform(-1e-6, 1e-6)));
        out.push((x, x));
        out.push((F::from_f64(-xf), x));
        out.push((y, x));
        out.push((x, F::from_f64(-to_f64(y))));
    }
    out
}

fn pow_inputs<F: Float>(rng: &mut Rng, ybig: f64) -> Vec<(F, F)> {
    let mut out = pairs_from::<F>(
        rng,
        &[
            ((0.0, 4.0), (-40.0, 40.0)),
            ((0.0, 1e3), (-ybig, ybig)),
            ((0.999, 1.001), (-1e6, 1e6)),
            ((-4.0, 0.0), (-10.0, 10.0)),
        ],
    );
    for _ in 0..N / 4 {
        // Negative bases with integer and half-integer exponents.
        let x = F::from_f64(-rng.uniform(0.0, 10.0));
        let n = rng.uniform(-60.0, 60.0).round();
        out.push((x, F::from_f64(n)));
        out.push((x, F::from_f64(n + 0.5)));
        // Random positive bases, exponents that land anywhere in range.
        let a = f64::abs(to_f64(F::random_bits(rng)));
        let y = rng.uniform(-ybig, ybig);
        out.push((F::from_f64(a), F::from_f64(y)));
        // Near 1 with huge exponents.
        let x1 = F::from_f64(1.0 + rng.uniform(-1e-7, 1e-7));
        out.push((x1, F::from_f64(rng.uniform(-1e9, 1e9))));
    }
    out
}

// --- f32 ---------------------------------------------------------------------

unary_test!(sin_f32, f32, f32_dsl::sin, weft_math::sin, |r: &mut Rng| {
    trig_inputs::<f32>(r, 8.0, 500.0)
});
unary_test!(cos_f32, f32, f32_dsl::cos, weft_math::cos, |r: &mut Rng| {
    trig_inputs::<f32>(r, 8.0, 500.0)
});
unary_test!(tan_f32, f32, f32_dsl::tan, weft_math::tan, |r: &mut Rng| {
    trig_inputs::<f32>(r, 8.0, 500.0)
});
unary_test!(
    asin_f32,
    f32,
    f32_dsl::asin,
    weft_math::asin,
    |r: &mut Rng| {
        unary_inputs::<f32>(
            r,
            &[(-1.0, 1.0), (0.49, 0.51), (0.999, 1.0), (-1.0, -0.999)],
        )
    }
);
unary_test!(
    acos_f32,
    f32,
    f32_dsl::acos,
    weft_math::acos,
    |r: &mut Rng| {
        unary_inputs::<f32>(
            r,
            &[(-1.0, 1.0), (0.49, 0.51), (0.999, 1.0), (-1.0, -0.999)],
        )
    }
);
unary_test!(
    atan_f32,
    f32,
    f32_dsl::atan,
    weft_math::atan,
    |r: &mut Rng| { unary_inputs::<f32>(r, &[(-4.0, 4.0), (0.9, 1.1), (-1e4, 1e4)]) }
);
unary_test!(
    sinh_f32,
    f32,
    f32_dsl::sinh,
    weft_math::sinh,
    |r: &mut Rng| { unary_inputs::<f32>(r, &[(-1.0, 1.0), (-12.5, 12.5), (-95.0, 95.0)]) }
);
unary_test!(
    cosh_f32,
    f32,
    f32_dsl::cosh,
    weft_math::cosh,
    |r: &mut Rng| { unary_inputs::<f32>(r, &[(-1.0, 1.0), (-12.5, 12.5), (-95.0, 95.0)]) }
);
unary_test!(
    tanh_f32,
    f32,
    f32_dsl::tanh,
    weft_math::tanh,
    |r: &mut Rng| { unary_inputs::<f32>(r, &[(-0.6, 0.6), (-10.0, 10.0)]) }
);
unary_test!(exp_f32, f32, f32_dsl::exp, weft_math::exp, |r: &mut Rng| {
    unary_inputs::<f32>(r, &[(-1.0, 1.0), (-110.0, 95.0), (-104.5, -85.0)])
});
unary_test!(
    exp2_f32,
    f32,
    f32_dsl::exp2,
    weft_math::exp2,
    |r: &mut Rng| { unary_inputs::<f32>(r, &[(-1.0, 1.0), (-155.0, 130.0), (-152.0, -124.0)]) }
);
unary_test!(
    log_f32,
    f32,
    f32_dsl::log,
    weft_math::log,
    log_inputs::<f32>
);
unary_test!(
    log2_f32,
    f32,
    f32_dsl::log2,
    weft_math::log2,
    log_inputs::<f32>
);
unary_test!(
    log10_f32,
    f32,
    f32_dsl::log10,
    weft_math::log10,
    log_inputs::<f32>
);
unary_test!(
    cbrt_f32,
    f32,
    f32_dsl::cbrt,
    weft_math::cbrt,
    |r: &mut Rng| {
        let mut xs = unary_inputs::<f32>(r, &[(-10.0, 10.0), (-1e-3, 1e-3)]);
        xs.extend((-300..=300).map(|n| (n * n * n) as f32));
        xs
    }
);
binary_test!(
    atan2_f32,
    f32,
    f32_dsl::atan2,
    weft_math::atan2,
    atan2_inputs::<f32>
);
binary_test!(pow_f32, f32, f32_dsl::pow, weft_math::pow, |r: &mut Rng| {
    pow_inputs::<f32>(r, 200.0)
});

// --- f64 ---------------------------------------------------------------------

unary_test!(
    sin_f64,
    f64,
    f64_dsl::sin,
    weft_math::sin_f64,
    |r: &mut Rng| { trig_inputs::<f64>(r, 8.0, 2e6) }
);
unary_test!(
    cos_f64,
    f64,
    f64_dsl::cos,
    weft_math::cos_f64,
    |r: &mut Rng| { trig_inputs::<f64>(r, 8.0, 2e6) }
);
unary_test!(
    tan_f64,
    f64,
    f64_dsl::tan,
    weft_math::tan_f64,
    |r: &mut Rng| { trig_inputs::<f64>(r, 8.0, 2e6) }
);
unary_test!(
    asin_f64,
    f64,
    f64_dsl::asin,
    weft_math::asin_f64,
    |r: &mut Rng| {
        unary_inputs::<f64>(
            r,
            &[(-1.0, 1.0), (0.49, 0.51), (0.999, 1.0), (-1.0, -0.999)],
        )
    }
);
unary_test!(
    acos_f64,
    f64,
    f64_dsl::acos,
    weft_math::acos_f64,
    |r: &mut Rng| {
        unary_inputs::<f64>(
            r,
            &[(-1.0, 1.0), (0.49, 0.51), (0.999, 1.0), (-1.0, -0.999)],
        )
    }
);
unary_test!(
    atan_f64,
    f64,
    f64_dsl::atan,
    weft_math::atan_f64,
    |r: &mut Rng| { unary_inputs::<f64>(r, &[(-4.0, 4.0), (0.4, 2.5), (-1e4, 1e4)]) }
);
unary_test!(
    sinh_f64,
    f64,
    f64_dsl::sinh,
    weft_math::sinh_f64,
    |r: &mut Rng| { unary_inputs::<f64>(r, &[(-1.0, 1.0), (-23.0, 23.0), (-720.0, 720.0)]) }
);
unary_test!(
    cosh_f64,
    f64,
    f64_dsl::cosh,
    weft_math::cosh_f64,
    |r: &mut Rng| { unary_inputs::<f64>(r, &[(-1.0, 1.0), (-23.0, 23.0), (-720.0, 720.0)]) }
);
unary_test!(
    tanh_f64,
    f64,
    f64_dsl::tanh,
    weft_math::tanh_f64,
    |r: &mut Rng| { unary_inputs::<f64>(r, &[(-0.6, 0.6), (-21.0, 21.0)]) }
);
unary_test!(
    exp_f64,
    f64,
    f64_dsl::exp,
    weft_math::exp_f64,
    |r: &mut Rng| { unary_inputs::<f64>(r, &[(-1.0, 1.0), (-750.0, 712.0), (-746.5, -700.0)]) }
);
unary_test!(
    exp2_f64,
    f64,
    f64_dsl::exp2,
    weft_math::exp2_f64,
    |r: &mut Rng| { unary_inputs::<f64>(r, &[(-1.0, 1.0), (-1080.0, 1030.0), (-1077.0, -1020.0)]) }
);
unary_test!(
    log_f64,
    f64,
    f64_dsl::log,
    weft_math::log_f64,
    log_inputs::<f64>
);
unary_test!(
    log2_f64,
    f64,
    f64_dsl::log2,
    weft_math::log2_f64,
    log_inputs::<f64>
);
unary_test!(
    log10_f64,
    f64,
    f64_dsl::log10,
    weft_math::log10_f64,
    log_inputs::<f64>
);
unary_test!(
    cbrt_f64,
    f64,
    f64_dsl::cbrt,
    weft_math::cbrt_f64,
    |r: &mut Rng| {
        let mut xs = unary_inputs::<f64>(r, &[(-10.0, 10.0), (-1e-3, 1e-3)]);
        xs.extend((-300..=300).map(|n| (n * n * n) as f64));
        xs
    }
);
binary_test!(
    atan2_f64,
    f64,
    f64_dsl::atan2,
    weft_math::atan2_f64,
    atan2_inputs::<f64>
);
binary_test!(
    pow_f64,
    f64,
    f64_dsl::pow,
    weft_math::pow_f64,
    |r: &mut Rng| { pow_inputs::<f64>(r, 1500.0) }
);

/// The kernel macro reads a float literal as `f64` and then rounds it to `f32`:
/// every `f32` literal of the DSL source must round the same way directly.
#[test]
fn f32_literals_round_once() {
    let src = weft_math::dsl::F32.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while i < src.len() {
        let starts = src[i].is_ascii_digit()
            && (i == 0 || !(src[i - 1].is_ascii_alphanumeric() || src[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < src.len()
            && (src[j].is_ascii_alphanumeric()
                || src[j] == b'_'
                || src[j] == b'.'
                || (src[j] == b'-' && src[j - 1] == b'e' && src[i + 1] != b'x'))
        {
            j += 1;
        }
        let token = std::str::from_utf8(&src[i..j]).unwrap();
        if let Some(body) = token.strip_suffix("_f32") {
            let text = body.replace('_', "");
            let direct: f32 = text.parse().unwrap();
            let through_f64 = text.parse::<f64>().unwrap() as f32;
            assert_eq!(direct.to_bits(), through_f64.to_bits(), "{token}");
            count += 1;
        }
        i = j;
    }
    assert!(count > 100, "found only {count} f32 literals");
}

/// Every builtin that `weft_math::dsl` maps to a func is tested above.
#[test]
fn every_dsl_builtin_is_covered() {
    let tested = [
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp",
        "exp2", "log", "log2", "log10", "pow", "cbrt",
    ];
    for b in weft_math::dsl::BUILTINS {
        assert!(tested.contains(b), "`{b}` has a DSL func but no test here");
        assert!(weft_math::dsl::func_name(b, false).is_some());
        assert!(weft_math::dsl::func_name(b, true).is_some());
    }
    assert_eq!(tested.len(), weft_math::dsl::BUILTINS.len());
}
