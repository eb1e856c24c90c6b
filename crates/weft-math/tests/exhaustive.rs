//! Every unary `f32` function on all 2^32 inputs against the `f64` `std` result (the
//! claim of the crate docs' accuracy table). Ignored by `cargo test`: it takes about
//! 2^32 evaluations per function; run it with `scripts/math-exhaustive.sh` (release,
//! all cores). `WEFT_EXHAUSTIVE_STEP=N` visits every N-th bit pattern instead (a quick
//! trial of the script: the reported counts then say so).

mod common;

use common::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bit patterns per work item.
const BLOCK: u64 = 1 << 22;

/// A function under test: name, largest ulp distance allowed, the `f32` function and
/// its `f64` reference.
type Case = (&'static str, f64, fn(f32) -> f32, fn(f64) -> f64);

/// Every unary `f32` function with its bound (the crate docs' table).
fn functions() -> Vec<Case> {
    use weft_math as m;
    vec![
        ("sin", 1.0, m::sin, f64::sin),
        ("cos", 1.0, m::cos, f64::cos),
        ("tan", 1.0, m::tan, f64::tan),
        ("sincos.s", 1.0, |x| m::sincos(x).0, f64::sin),
        ("sincos.c", 1.0, |x| m::sincos(x).1, f64::cos),
        ("asin", 1.0, m::asin, f64::asin),
        ("acos", 1.0, m::acos, f64::acos),
        ("atan", 1.0, m::atan, f64::atan),
        ("sinh", 1.0, m::sinh, f64::sinh),
        ("cosh", 1.0, m::cosh, f64::cosh),
        ("tanh", 1.0, m::tanh, f64::tanh),
        ("exp", 1.0, m::exp, f64::exp),
        ("exp2", 1.0, m::exp2, f64::exp2),
        ("log", 1.0, m::log, f64::ln),
        ("log2", 1.0, m::log2, f64::log2),
        ("log10", 1.0, m::log10, f64::log10),
        ("sqrt", 0.0, m::sqrt, f64::sqrt),
        ("cbrt", 1.0, m::cbrt, f64::cbrt),
        ("floor", 0.0, m::floor, f64::floor),
        ("ceil", 0.0, m::ceil, f64::ceil),
        ("round", 0.0, m::round, f64::round),
        ("trunc", 0.0, m::trunc, f64::trunc),
        ("abs", 0.0, m::abs, f64::abs),
    ]
}

/// One function over every `step`-th bit pattern, on all cores.
fn sweep(name: &str, bound: f64, f: fn(f32) -> f32, r: fn(f64) -> f64, step: u64) -> Stat {
    let next = AtomicU64::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let parts: Vec<Stat> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut st = Stat::new(name, bound);
                    loop {
                        let start = next.fetch_add(BLOCK, Ordering::Relaxed);
                        if start > u32::MAX as u64 {
                            break st;
                        }
                        let end = (start + BLOCK).min(1 << 32);
                        for b in (start..end).step_by(step as usize) {
                            let x = f32::from_bits(b as u32);
                            let (frac, dist) = err32(f(x), r(x as f64));
                            st.add(frac, dist, || format!("{x:e} ({b:#010x})"));
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let mut all = Stat::new(name, bound);
    for p in parts {
        all.n += p.n;
        if p.max_dist > all.max_dist || (p.max_dist == all.max_dist && p.max_frac > all.max_frac) {
            all.worst = p.worst;
        }
        all.max_dist = all.max_dist.max(p.max_dist);
        all.max_frac = all.max_frac.max(p.max_frac);
    }
    all
}

#[test]
#[ignore = "2^32 inputs per function: run scripts/math-exhaustive.sh"]
fn every_f32_input_within_the_documented_bound() {
    let step: u64 = std::env::var("WEFT_EXHAUSTIVE_STEP")
        .map(|s| s.parse().expect("WEFT_EXHAUSTIVE_STEP: a positive integer"))
        .unwrap_or(1)
        .max(1);
    let mut stats = Vec::new();
    for (name, bound, f, r) in functions() {
        let t = std::time::Instant::now();
        let st = sweep(name, bound, f, r, step);
        println!(
            "{name}: {} inputs, max {} ulp ({:.1} s)",
            st.n,
            st.max_dist,
            t.elapsed().as_secs_f64()
        );
        stats.push(st);
    }
    print_table(
        &format!("f32 functions on every {step}-th of the 2^32 inputs vs the f64 std result"),
        &stats,
        "max frac",
    );
    let bad: Vec<_> = stats
        .iter()
        .filter(|s| s.max_dist.is_nan() || s.max_dist > s.bound)
        .collect();
    assert!(bad.is_empty(), "functions over their ulp bound: {bad:#?}");
}
