//! Shared helpers for the integration tests: a seeded RNG and random meshes.
#![allow(dead_code)]

use glam::Vec3;
use weft_geom::Mesh;

pub use weft_testkit::Rng;

/// Random vectors from the kit's generator.
pub trait RngExt {
    /// Each component uniform in `[lo, hi)`.
    fn vec3(&mut self, lo: f32, hi: f32) -> Vec3;
    /// A random unit vector.
    fn dir(&mut self) -> Vec3;
}

impl RngExt for Rng {
    fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    fn dir(&mut self) -> Vec3 {
        loop {
            let v = self.vec3(-1.0, 1.0);
            let l = v.length_squared();
            if l > 1e-4 && l <= 1.0 {
                return v / l.sqrt();
            }
        }
    }
}

/// A triangle soup of `n` triangles of varied sizes in `[-1, 1]³`, every 17th one
/// degenerate (zero area) and every 23rd one sharing a corner with the previous one.
pub fn random_soup(rng: &mut Rng, n: usize) -> Mesh {
    let mut points = Vec::with_capacity(3 * n);
    let mut indices = Vec::with_capacity(n);
    for f in 0..n {
        let c = rng.vec3(-1.0, 1.0);
        let s = 0.02 + 0.3 * rng.f32() * rng.f32();
        let a = c + rng.vec3(-s, s);
        let b = c + rng.vec3(-s, s);
        let d = if f % 17 == 5 {
            (a + b) * 0.5
        } else {
            c + rng.vec3(-s, s)
        };
        let base = points.len() as u32;
        points.extend([a, b, d]);
        let first = if f % 23 == 7 && f > 0 { base - 1 } else { base };
        indices.push([first, base + 1, base + 2]);
    }
    Mesh::new(points, indices).unwrap()
}

/// A connected random mesh: a jittered terrain-like grid (shared vertices).
pub fn random_grid(rng: &mut Rng, n: usize) -> Mesh {
    let mut m = weft_geom::generate::plane(2.0, 2.0, n, n);
    for p in m.points_mut() {
        *p += rng.vec3(-0.3, 0.3) * Vec3::new(0.1, 0.1, 1.0);
    }
    m
}
