//! Shared helpers for the accuracy tests: ulp measurement, input generators.
#![allow(dead_code, unused_imports)] // each test binary uses a part

pub use weft_testkit::Rng;

/// Key such that consecutive floats have consecutive keys (±0 share 0).
pub fn key32(x: f32) -> i64 {
    let b = x.to_bits();
    if b & 0x8000_0000 != 0 {
        -((b & 0x7fff_ffff) as i64)
    } else {
        b as i64
    }
}

pub fn key64(x: f64) -> i128 {
    let b = x.to_bits();
    if b & 0x8000_0000_0000_0000 != 0 {
        -((b & 0x7fff_ffff_ffff_ffff) as i128)
    } else {
        b as i128
    }
}

/// Size of one f32 ulp at the magnitude of `r` (exact value given as f64).
pub fn ulp32_at(r: f64) -> f64 {
    let a = r.abs();
    if a < f32::MIN_POSITIVE as f64 {
        return 2f64.powi(-149);
    }
    let e = (((a.to_bits() >> 52) as i32) - 1023).min(127);
    f64::from_bits(((e - 23 + 1023) as u64) << 52)
}

pub fn ulp64_at(r: f64) -> f64 {
    let a = r.abs();
    if a < f64::MIN_POSITIVE {
        return 2f64.powi(-1074);
    }
    // exponent from the bits is exact
    let e = ((a.to_bits() >> 52) as i32) - 1023 - 52;
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// Error of an f32 result against an f64 reference: `(fractional ulps vs the
/// f64 value, integer ulp distance to the reference rounded to f32)`.
/// NaN must match NaN; infinities must match exactly (else `inf`).
pub fn err32(got: f32, reference: f64) -> (f64, f64) {
    if reference.is_nan() || got.is_nan() {
        return if reference.is_nan() && got.is_nan() {
            (0.0, 0.0)
        } else {
            (f64::INFINITY, f64::INFINITY)
        };
    }
    let r32 = reference as f32;
    let dist = (key32(got) - key32(r32)).abs() as f64;
    if got.is_infinite() || reference.is_infinite() {
        let frac = if got as f64 == reference {
            0.0
        } else {
            dist.max(0.5)
        };
        return (frac, dist);
    }
    let frac = (got as f64 - reference).abs() / ulp32_at(reference);
    (frac, dist)
}

/// Integer ulp distance between two f64 values (NaN == NaN).
pub fn dist64(got: f64, reference: f64) -> f64 {
    if reference.is_nan() || got.is_nan() {
        return if reference.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    (key64(got) - key64(reference)).abs() as f64
}

/// Iterates every `step`-th f32 bit pattern (both signs, all exponents),
/// starting at `start`.
pub fn bit_sweep32(step: u64, start: u64) -> impl Iterator<Item = f32> {
    (start..=u32::MAX as u64)
        .step_by(step as usize)
        .map(|b| f32::from_bits(b as u32))
}

/// `n` values evenly spaced in value between `lo` and `hi`, rounded to f32.
pub fn linear32(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f32> {
    (0..=n).map(move |i| (lo + (hi - lo) * (i as f64) / (n as f64)) as f32)
}

/// All f32 bit patterns between `lo` and `hi` (same sign, `0 <= lo < hi`) with step.
pub fn bits_between32(lo: f32, hi: f32, step: u32) -> impl Iterator<Item = f32> {
    (lo.to_bits()..=hi.to_bits())
        .step_by(step as usize)
        .map(f32::from_bits)
}

/// Sample count scale: smaller sweeps in debug builds.
pub fn scale() -> u64 {
    if cfg!(debug_assertions) { 4 } else { 1 }
}

/// Accumulates the worst error seen for one function.
#[derive(Clone, Debug)]
pub struct Stat {
    pub name: String,
    pub n: u64,
    pub max_frac: f64,
    pub max_dist: f64,
    pub worst: String,
    pub bound: f64,
}

impl Stat {
    pub fn new(name: &str, bound: f64) -> Self {
        Stat {
            name: name.to_string(),
            n: 0,
            max_frac: 0.0,
            max_dist: 0.0,
            worst: String::new(),
            bound,
        }
    }
    pub fn add(&mut self, frac: f64, dist: f64, input: impl FnOnce() -> String) {
        self.n += 1;
        if dist > self.max_dist || (dist == self.max_dist && frac > self.max_frac) {
            self.worst = input();
        }
        if dist > self.max_dist {
            self.max_dist = dist;
        }
        if frac > self.max_frac {
            self.max_frac = frac;
        }
    }
}

pub fn print_table(title: &str, stats: &[Stat], frac_label: &str) {
    println!();
    println!("{title}");
    println!(
        "{:<10} {:>10} {frac_label:>12} {:>10} {:>6}  worst input",
        "function", "inputs", "max ulp", "bound"
    );
    for s in stats {
        println!(
            "{:<10} {:>10} {:>12.3} {:>10} {:>6}  {}",
            s.name, s.n, s.max_frac, s.max_dist, s.bound, s.worst
        );
    }
}
