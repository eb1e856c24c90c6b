//! The continuous wall: what a half-space of fluid at rest density behind a wall
//! contributes to a particle's density, and the pressure force it exerts.
//!
//! A particle at distance `d` from a planar wall misses the part of its kernel
//! behind the wall. Filling that half-space with fluid at rest density adds
//! `ρ₀ Φ(d)` to the density, `Φ(d) = ∫_{z > d} A(z) dz` with
//! `A(z) = 2π ∫_z^{2h} W(r) r dr` (the kernel integrated over a plane at distance
//! `z`). The gradient of that density is `−ρ₀ A(d) n`, so the mirrored pressure
//! force (the wall's pressure and density those of the particle, as in Akinci's
//! boundary particles) accelerates the particle by `2 p ρ₀ A(d) / ρ² · n` along
//! the wall's normal `n`. Both are tabulated once per smoothing length
//! ([`WALL_SAMPLES`] samples over `0..2h`, interpolated linearly in the
//! kernels); the shapes use it with their signed distances (as if their surface
//! were planar within `2h`). For the box, the fraction of the kernel inside it
//! is the product over the axes of `1 − Φ(d_lo) − Φ(d_hi)` (exact for a
//! separable kernel and close for the spline, where a sum over the six walls
//! would count the fluid behind an edge twice and behind a corner thrice).
//!
//! The table is sampled at `d + WALL_OFFSET · h`: the fluid behind the wall is
//! taken to start a little behind it. On a lattice the kernel sum over the
//! missing neighbours (the mirror images of the particles) is smaller than the
//! continuous integral, because the spline is steep where the nearest layer
//! sits; with this offset a lattice of spacing `h / 1.1` filling a box is at
//! rest density on its walls too (within 0.7%, against 3% without), so a
//! fluid at rest stays at rest.

use glam::Vec2;

/// Samples of the wall table over `0..=2h`.
pub const WALL_SAMPLES: usize = 128;

/// How far behind a wall (in smoothing lengths) the fluid it stands for starts.
pub const WALL_OFFSET: f32 = 0.05;

/// Monaghan's cubic spline in 3-D, `W(r, h)` (support `2h`), in f64.
pub fn cubic_spline(r: f64, h: f64) -> f64 {
    let q = r / h;
    let sigma = 1.0 / (std::f64::consts::PI * h * h * h);
    if q < 1.0 {
        sigma * (1.0 - 1.5 * q * q + 0.75 * q * q * q)
    } else if q < 2.0 {
        sigma * 0.25 * (2.0 - q).powi(3)
    } else {
        0.0
    }
}

/// The table `(Φ(d + o), A(d + o))` at `d = k · 2h / (WALL_SAMPLES − 1)`, for
/// an offset `o = offset · h` (the solver uses [`WALL_OFFSET`]): `Φ`
/// dimensionless, `A` in 1/m (see the module docs). Integrated with Simpson's
/// rule in f64 (the error is far below f32 rounding).
pub fn wall_table(h: f32, offset: f32) -> Vec<Vec2> {
    let h = h as f64;
    let shift = offset as f64 * h;
    let support = 2.0 * h;
    let fine = 64 * (WALL_SAMPLES - 1); // even, a multiple of the table's steps
    let dz = support / fine as f64;
    // A(z) = 2π ∫_z^{2h} W(r) r dr on the fine grid, by Simpson on sub-intervals.
    let radial = |z: f64| {
        let m = 64;
        let step = (support - z) / m as f64;
        let f = |r: f64| cubic_spline(r, h) * r;
        let mut s = f(z) + f(support);
        for k in 1..m {
            s += f(z + k as f64 * step) * if k % 2 == 1 { 4.0 } else { 2.0 };
        }
        2.0 * std::f64::consts::PI * s * step / 3.0
    };
    let a: Vec<f64> = (0..=fine).map(|k| radial(k as f64 * dz)).collect();
    // Φ(d) = ∫_d^{2h} A: trapezoids from the far end, on the fine grid.
    let mut phi = vec![0.0; fine + 1];
    for k in (0..fine).rev() {
        phi[k] = phi[k + 1] + 0.5 * (a[k] + a[k + 1]) * dz;
    }
    let every = fine as f64 / (WALL_SAMPLES - 1) as f64;
    let at = |v: &[f64], d: f64| {
        let t = (d / dz).min(fine as f64);
        let k = (t.floor() as usize).min(fine - 1);
        let f = t - k as f64;
        v[k] * (1.0 - f) + v[k + 1] * f
    };
    (0..WALL_SAMPLES)
        .map(|k| {
            let d = (k as f64 * every) * dz + shift;
            Vec2::new(at(&phi, d) as f32, at(&a, d) as f32)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_has_unit_integral_and_the_wall_takes_half_at_contact() {
        let h = 0.03f32;
        let t = wall_table(h, 0.0);
        // Φ(0) is half the kernel's integral, Φ(2h) = 0, A(2h) = 0.
        assert!((t[0].x - 0.5).abs() < 1e-5, "Φ(0) = {}", t[0].x);
        assert!(t[WALL_SAMPLES - 1].length() < 1e-6);
        // Φ decreases, A is positive inside the support.
        for w in t.windows(2) {
            assert!(w[1].x <= w[0].x && w[0].y > 0.0);
        }
    }
}
