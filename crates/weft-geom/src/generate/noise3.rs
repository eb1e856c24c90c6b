//! Deterministic 3-D value noise (for displacing closed surfaces).

use glam::DVec3;

/// Fractal 3-D value noise at `p`: `octaves` layers of smoothly (trilinear,
/// smoothstep-weighted) interpolated lattice noise, each at twice the frequency and half
/// the amplitude of the previous one. Values lie in `(-1, 1)`; the same `seed` always
/// gives the same field, and the field is continuous.
///
/// ```
/// use glam::DVec3;
/// let p = DVec3::new(0.3, 0.7, -1.2);
/// let a = weft_geom::generate::fbm3(p, 4, 9);
/// assert_eq!(a, weft_geom::generate::fbm3(p, 4, 9));
/// assert!(a.abs() < 1.0);
/// ```
pub fn fbm3(p: DVec3, octaves: u32, seed: u32) -> f64 {
    let (mut sum, mut amp, mut freq, mut norm) = (0.0, 0.5, 1.0, 0.0);
    for o in 0..octaves {
        sum += amp * value3(p * freq, seed.wrapping_add(o.wrapping_mul(0x9E37_79B9)));
        norm += amp;
        amp *= 0.5;
        freq *= 2.0;
    }
    if norm > 0.0 { sum / norm } else { 0.0 }
}

/// Value noise in `[-1, 1]`, smoothstep-interpolated between lattice points.
fn value3(p: DVec3, seed: u32) -> f64 {
    let f = p.floor();
    let i = f.as_i64vec3();
    let t = (p - f).to_array().map(|t| t * t * (3.0 - 2.0 * t));
    let h = |dx: i64, dy: i64, dz: i64| lattice3(i.x + dx, i.y + dy, i.z + dz, seed);
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
    let plane = |dz: i64| {
        let a = lerp(h(0, 0, dz), h(1, 0, dz), t[0]);
        let b = lerp(h(0, 1, dz), h(1, 1, dz), t[0]);
        lerp(a, b, t[1])
    };
    lerp(plane(0), plane(1), t[2])
}

/// A hash of a lattice point mapped to `[-1, 1]`.
fn lattice3(x: i64, y: i64, z: i64, seed: u32) -> f64 {
    let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (z as u64).wrapping_mul(0x1656_67B1_9E37_79F9)
        ^ (seed as u64).wrapping_mul(0x27D4_EB2F_1656_67C5);
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^= h >> 33;
    (h >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}
