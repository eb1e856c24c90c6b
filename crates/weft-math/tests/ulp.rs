//! Accuracy sweeps: every function against a correctly rounded (for `f32`)
//! or ~1-ulp (`std` `f64`, for `f64`) reference. Prints a table (run with
//! `--nocapture`) and asserts the documented bounds.

mod common;

use common::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

type Job = Box<dyn Fn() -> Stat + Send + Sync>;

/// Runs the jobs on all cores, keeping the original order in the output.
fn run_parallel(jobs: Vec<Job>) -> Vec<Stat> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Stat>>> = Mutex::new(vec![None; jobs.len()]);
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= jobs.len() {
                        break;
                    }
                    let st = jobs[i]();
                    out.lock().unwrap()[i] = Some(st);
                }
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|s| s.unwrap())
        .collect()
}

fn check_bounds(stats: &[Stat]) {
    let bad: Vec<_> = stats
        .iter()
        .filter(|s| s.max_dist.is_nan() || s.max_dist > s.bound)
        .collect();
    assert!(bad.is_empty(), "functions over their ulp bound: {bad:#?}");
}

/// Full-range sweep of a unary f32 function plus dense linear ranges.
fn unary32(
    name: &'static str,
    bound: f64,
    f: fn(f32) -> f32,
    r: fn(f64) -> f64,
    ranges: &'static [(f64, f64, usize)],
) -> Job {
    Box::new(move || {
        let mut st = Stat::new(name, bound);
        let mut check = |x: f32| {
            let (fr, d) = err32(f(x), r(x as f64));
            st.add(fr, d, || format!("{x:e} ({:#010x})", x.to_bits()));
        };
        // ~4.2M patterns over the whole range (odd step: all exponents and
        // mantissa residues are visited).
        for x in bit_sweep32(1031 * scale(), 17) {
            check(x);
        }
        for &(lo, hi, n) in ranges {
            for x in linear32(lo, hi, n / scale() as usize) {
                check(x);
            }
        }
        st
    })
}

fn binary32(
    name: &'static str,
    bound: f64,
    f: fn(f32, f32) -> f32,
    r: fn(f64, f64) -> f64,
    inputs: fn(&mut Rng, usize) -> (f32, f32),
    n: usize,
) -> Job {
    Box::new(move || {
        let mut st = Stat::new(name, bound);
        let mut rng = Rng(0x5eed_0000 + n as u64);
        for i in 0..n / scale() as usize {
            let (x, y) = inputs(&mut rng, i);
            let (fr, d) = err32(f(x, y), r(x as f64, y as f64));
            st.add(fr, d, || format!("({x:e}, {y:e})"));
        }
        st
    })
}

fn any_f32(rng: &mut Rng) -> f32 {
    f32::from_bits(rng.next_u32())
}

fn atan2_gen(rng: &mut Rng, i: usize) -> (f32, f32) {
    match i % 3 {
        0 => (any_f32(rng), any_f32(rng)),
        1 => (
            rng.uniform(-10.0, 10.0) as f32,
            rng.uniform(-10.0, 10.0) as f32,
        ),
        _ => {
            // grid-like: y = x * ratio with ratio near the octant boundaries
            let x = rng.uniform(-100.0, 100.0) as f32;
            let t = rng.uniform(-3.0, 3.0);
            (x * t as f32, x)
        }
    }
}

fn pow_gen(rng: &mut Rng, i: usize) -> (f32, f32) {
    match i % 6 {
        0 => (any_f32(rng), any_f32(rng)),
        1 => (
            rng.uniform(0.0, 10.0) as f32,
            rng.uniform(-40.0, 40.0) as f32,
        ),
        2 => (
            f32::from_bits(rng.next_u32() >> 1),
            rng.uniform(-2.0, 2.0) as f32,
        ),
        3 => (
            rng.uniform(0.5, 2.0) as f32,
            rng.uniform(-2000.0, 2000.0) as f32,
        ),
        4 => (
            rng.uniform(-10.0, 10.0) as f32,
            (rng.uniform(-60.0, 60.0) as f32).round(),
        ),
        _ => {
            // results near overflow / underflow thresholds
            let x = rng.uniform(1.001, 100.0) as f32;
            let target = if rng.next_u32() & 1 == 0 {
                127.9
            } else {
                -149.5
            };
            let y = (target / (x as f64).log2() * rng.uniform(0.999, 1.001)) as f32;
            (x, y)
        }
    }
}

#[allow(clippy::type_complexity)]
fn f32_jobs() -> Vec<Job> {
    use weft_math as m;
    const TRIG: &[(f64, f64, usize)] = &[
        (-10.0, 10.0, 1_000_000),
        (-500.0, 500.0, 500_000),
        (-1e6, 1e6, 300_000),
    ];
    const EXPR: &[(f64, f64, usize)] = &[
        (-104.0, 89.0, 1_000_000),
        (87.0, 89.0, 200_000),
        (-104.0, -85.0, 200_000),
    ];
    const LOGR: &[(f64, f64, usize)] = &[
        (0.0, 4.0, 1_000_000),
        (0.99, 1.01, 300_000),
        (0.0, 1e6, 200_000),
    ];
    vec![
        unary32("sin", 1.0, m::sin, f64::sin, TRIG),
        unary32("cos", 1.0, m::cos, f64::cos, TRIG),
        unary32("tan", 1.0, m::tan, f64::tan, TRIG),
        unary32(
            "sincos.s",
            1.0,
            |x| m::sincos(x).0,
            f64::sin,
            &[(-20.0, 20.0, 200_000)],
        ),
        unary32(
            "sincos.c",
            1.0,
            |x| m::sincos(x).1,
            f64::cos,
            &[(-20.0, 20.0, 200_000)],
        ),
        unary32("asin", 1.0, m::asin, f64::asin, &[(-1.0, 1.0, 1_000_000)]),
        unary32("acos", 1.0, m::acos, f64::acos, &[(-1.0, 1.0, 1_000_000)]),
        unary32("atan", 1.0, m::atan, f64::atan, &[(-10.0, 10.0, 1_000_000)]),
        unary32(
            "sinh",
            1.0,
            m::sinh,
            f64::sinh,
            &[(-2.0, 2.0, 500_000), (-90.0, 90.0, 500_000)],
        ),
        unary32(
            "cosh",
            1.0,
            m::cosh,
            f64::cosh,
            &[(-2.0, 2.0, 500_000), (-90.0, 90.0, 500_000)],
        ),
        unary32("tanh", 1.0, m::tanh, f64::tanh, &[(-10.0, 10.0, 1_000_000)]),
        unary32("exp", 1.0, m::exp, f64::exp, EXPR),
        unary32(
            "exp2",
            1.0,
            m::exp2,
            f64::exp2,
            &[(-151.0, 129.0, 1_000_000), (-1.0, 1.0, 200_000)],
        ),
        unary32("log", 1.0, m::log, f64::ln, LOGR),
        unary32("log2", 1.0, m::log2, f64::log2, LOGR),
        unary32("log10", 1.0, m::log10, f64::log10, LOGR),
        unary32("sqrt", 0.0, m::sqrt, f64::sqrt, &[(0.0, 10.0, 500_000)]),
        unary32("cbrt", 1.0, m::cbrt, f64::cbrt, &[(-10.0, 10.0, 500_000)]),
        unary32(
            "floor",
            0.0,
            m::floor,
            f64::floor,
            &[(-10.0, 10.0, 100_000)],
        ),
        unary32("ceil", 0.0, m::ceil, f64::ceil, &[(-10.0, 10.0, 100_000)]),
        unary32(
            "round",
            0.0,
            m::round,
            f64::round,
            &[(-10.0, 10.0, 100_000)],
        ),
        unary32(
            "trunc",
            0.0,
            m::trunc,
            f64::trunc,
            &[(-10.0, 10.0, 100_000)],
        ),
        unary32("abs", 0.0, m::abs, f64::abs, &[]),
        binary32("atan2", 1.0, m::atan2, f64::atan2, atan2_gen, 3_000_000),
        binary32("pow", 1.0, m::pow, f64::powf, pow_gen, 3_000_000),
    ]
}

#[test]
fn ulp_f32() {
    let t = std::time::Instant::now();
    let stats = run_parallel(f32_jobs());
    print_table(
        "f32 functions vs the f64 std result (frac = |got - ref| / ulp, max ulp = distance to ref rounded to f32)",
        &stats,
        "max frac",
    );
    println!("(f32 sweep took {:.1} s)", t.elapsed().as_secs_f64());
    check_bounds(&stats);
}

/// Random-bit-pattern sweep of a unary f64 function plus dense ranges,
/// against `std` (itself ~1 ulp; hence the tolerance of bound + 1).
fn unary64(
    name: &'static str,
    bound: f64,
    f: fn(f64) -> f64,
    r: fn(f64) -> f64,
    ranges: &'static [(f64, f64, usize)],
) -> Job {
    Box::new(move || {
        let mut st = Stat::new(name, bound);
        let mut rng = Rng(0xf64_0000 ^ name.len() as u64);
        let mut check = |x: f64| {
            let got = f(x);
            let re = r(x);
            let d = dist64(got, re);
            let frac = if got.is_finite() && re.is_finite() {
                (got - re).abs() / ulp64_at(re)
            } else {
                d
            };
            st.add(frac, d, || format!("{x:e} ({:#018x})", x.to_bits()));
        };
        for _ in 0..2_000_000 / scale() {
            check(f64::from_bits(rng.next_u64()));
        }
        for &(lo, hi, n) in ranges {
            for _ in 0..n / scale() as usize {
                check(rng.uniform(lo, hi));
            }
        }
        st
    })
}

fn binary64(
    name: &'static str,
    bound: f64,
    f: fn(f64, f64) -> f64,
    r: fn(f64, f64) -> f64,
    inputs: fn(&mut Rng, usize) -> (f64, f64),
    n: usize,
) -> Job {
    Box::new(move || {
        let mut st = Stat::new(name, bound);
        let mut rng = Rng(0xb64_0000 + n as u64);
        for i in 0..n / scale() as usize {
            let (x, y) = inputs(&mut rng, i);
            let got = f(x, y);
            let re = r(x, y);
            let d = dist64(got, re);
            let frac = if got.is_finite() && re.is_finite() {
                (got - re).abs() / ulp64_at(re)
            } else {
                d
            };
            st.add(frac, d, || format!("({x:e}, {y:e})"));
        }
        st
    })
}

fn atan2_gen64(rng: &mut Rng, i: usize) -> (f64, f64) {
    match i % 3 {
        0 => (
            f64::from_bits(rng.next_u64()),
            f64::from_bits(rng.next_u64()),
        ),
        1 => (rng.uniform(-10.0, 10.0), rng.uniform(-10.0, 10.0)),
        _ => {
            let x = rng.uniform(-100.0, 100.0);
            (x * rng.uniform(-3.0, 3.0), x)
        }
    }
}

fn pow_gen64(rng: &mut Rng, i: usize) -> (f64, f64) {
    match i % 6 {
        0 => (
            f64::from_bits(rng.next_u64()),
            f64::from_bits(rng.next_u64()),
        ),
        1 => (rng.uniform(0.0, 10.0), rng.uniform(-40.0, 40.0)),
        2 => (f64::from_bits(rng.next_u64() >> 1), rng.uniform(-2.0, 2.0)),
        3 => (rng.uniform(0.5, 2.0), rng.uniform(-20000.0, 20000.0)),
        4 => (rng.uniform(-10.0, 10.0), rng.uniform(-300.0, 300.0).round()),
        _ => {
            let x = rng.uniform(1.001, 100.0);
            let target = if rng.next_u32() & 1 == 0 {
                1023.9
            } else {
                -1074.5
            };
            (x, target / x.log2() * rng.uniform(0.999, 1.001))
        }
    }
}

fn f64_jobs() -> Vec<Job> {
    use weft_math as m;
    const TRIG: &[(f64, f64, usize)] = &[
        (-10.0, 10.0, 500_000),
        (-1e7, 1e7, 200_000),
        (-1e300, 1e300, 100_000),
    ];
    const LOGR: &[(f64, f64, usize)] = &[(0.0, 4.0, 500_000), (0.99, 1.01, 200_000)];
    vec![
        unary64("sin_f64", 2.0, m::sin_f64, f64::sin, TRIG),
        unary64("cos_f64", 2.0, m::cos_f64, f64::cos, TRIG),
        unary64("tan_f64", 2.0, m::tan_f64, f64::tan, TRIG),
        unary64(
            "asin_f64",
            2.0,
            m::asin_f64,
            f64::asin,
            &[(-1.0, 1.0, 500_000)],
        ),
        unary64(
            "acos_f64",
            2.0,
            m::acos_f64,
            f64::acos,
            &[(-1.0, 1.0, 500_000)],
        ),
        unary64(
            "atan_f64",
            2.0,
            m::atan_f64,
            f64::atan,
            &[(-10.0, 10.0, 500_000)],
        ),
        unary64(
            "sinh_f64",
            2.0,
            m::sinh_f64,
            f64::sinh,
            &[(-2.0, 2.0, 300_000), (-712.0, 712.0, 300_000)],
        ),
        unary64(
            "cosh_f64",
            2.0,
            m::cosh_f64,
            f64::cosh,
            &[(-2.0, 2.0, 300_000), (-712.0, 712.0, 300_000)],
        ),
        unary64(
            "tanh_f64",
            2.0,
            m::tanh_f64,
            f64::tanh,
            &[(-22.0, 22.0, 500_000)],
        ),
        unary64(
            "exp_f64",
            2.0,
            m::exp_f64,
            f64::exp,
            &[(-746.0, 710.0, 500_000), (-1.0, 1.0, 200_000)],
        ),
        unary64(
            "exp2_f64",
            2.0,
            m::exp2_f64,
            f64::exp2,
            &[(-1076.0, 1024.0, 500_000)],
        ),
        unary64("log_f64", 2.0, m::log_f64, f64::ln, LOGR),
        unary64("log2_f64", 2.0, m::log2_f64, f64::log2, LOGR),
        unary64("log10_f64", 2.0, m::log10_f64, f64::log10, LOGR),
        unary64(
            "sqrt_f64",
            0.0,
            m::sqrt_f64,
            f64::sqrt,
            &[(0.0, 10.0, 300_000)],
        ),
        unary64(
            "cbrt_f64",
            2.0,
            m::cbrt_f64,
            f64::cbrt,
            &[(-10.0, 10.0, 300_000)],
        ),
        unary64(
            "floor_f64",
            0.0,
            m::floor_f64,
            f64::floor,
            &[(-10.0, 10.0, 100_000)],
        ),
        unary64(
            "ceil_f64",
            0.0,
            m::ceil_f64,
            f64::ceil,
            &[(-10.0, 10.0, 100_000)],
        ),
        unary64(
            "round_f64",
            0.0,
            m::round_f64,
            f64::round,
            &[(-10.0, 10.0, 100_000)],
        ),
        unary64(
            "trunc_f64",
            0.0,
            m::trunc_f64,
            f64::trunc,
            &[(-10.0, 10.0, 100_000)],
        ),
        binary64(
            "atan2_f64",
            2.0,
            m::atan2_f64,
            f64::atan2,
            atan2_gen64,
            2_000_000,
        ),
        binary64("pow_f64", 2.0, m::pow_f64, f64::powf, pow_gen64, 2_000_000),
    ]
}

#[test]
fn ulp_f64() {
    let t = std::time::Instant::now();
    let stats = run_parallel(f64_jobs());
    print_table(
        "f64 functions vs std f64 (itself within ~1 ulp; bound checked with +1 ulp tolerance)",
        &stats,
        "max frac",
    );
    println!("(f64 sweep took {:.1} s)", t.elapsed().as_secs_f64());
    let loosened: Vec<Stat> = stats
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if s.bound > 0.0 {
                s.bound += 1.0;
            }
            s
        })
        .collect();
    check_bounds(&loosened);
}
