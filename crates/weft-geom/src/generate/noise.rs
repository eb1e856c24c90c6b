//! Deterministic 2-D value noise.

/// Fractal value noise at `(x, y)`: `octaves` layers of smoothly interpolated lattice
/// noise, each at twice the frequency and half the amplitude of the previous one.
/// Values lie in `(-1, 1)`; the same `seed` always gives the same field.
///
/// ```
/// let a = weft_geom::generate::fbm(0.3, 0.7, 5, 42);
/// assert_eq!(a, weft_geom::generate::fbm(0.3, 0.7, 5, 42));
/// assert!(a.abs() < 1.0);
/// ```
pub fn fbm(x: f64, y: f64, octaves: u32, seed: u32) -> f64 {
    let (mut sum, mut amp, mut freq, mut norm) = (0.0, 0.5, 1.0, 0.0);
    for o in 0..octaves {
        sum += amp
            * value(
                x * freq,
                y * freq,
                seed.wrapping_add(o.wrapping_mul(0x9E37_79B9)),
            );
        norm += amp;
        amp *= 0.5;
        freq *= 2.0;
    }
    if norm > 0.0 { sum / norm } else { 0.0 }
}

/// Value noise in `[-1, 1]`, smoothstep-interpolated between lattice points.
fn value(x: f64, y: f64, seed: u32) -> f64 {
    let (fx, fy) = (x.floor(), y.floor());
    let (ix, iy) = (fx as i64, fy as i64);
    let (tx, ty) = (smooth(x - fx), smooth(y - fy));
    let h = |dx: i64, dy: i64| lattice(ix + dx, iy + dy, seed);
    let a = h(0, 0) + (h(1, 0) - h(0, 0)) * tx;
    let b = h(0, 1) + (h(1, 1) - h(0, 1)) * tx;
    a + (b - a) * ty
}

fn smooth(t: f64) -> f64 {
    t * t * (3.0 - 2.0 * t)
}

/// A hash of a lattice point mapped to `[-1, 1]`.
fn lattice(x: i64, y: i64, seed: u32) -> f64 {
    let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (seed as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^= h >> 33;
    (h >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}
