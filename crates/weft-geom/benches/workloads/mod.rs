//! The issue-5 query workloads, shared by the criterion benches and the
//! `query_throughput` example: deterministic query sets over a [`MeshBvh`].
#![allow(dead_code)]

use glam::Vec3;
use rayon::prelude::*;
use weft_geom::{Aabb, MeshBvh};

/// Image size of the camera workload (rays = `CAMERA_SIZE²`).
pub const CAMERA_SIZE: usize = 1024;
/// Side of the square tiles the camera image is split into (one rayon task each).
pub const TILE: usize = 16;
/// Number of random rays and of closest-point queries.
pub const QUERIES: usize = 1 << 20;

/// Deterministic uniform numbers in `[0, 1)` (PCG-style LCG, high bits).
pub struct Rng(u64);

impl Rng {
    /// A generator with a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in `[0, 1)`.
    pub fn f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in the box `b`.
    pub fn in_box(&mut self, b: &Aabb) -> Vec3 {
        b.lower + b.extent() * Vec3::new(self.f32(), self.f32(), self.f32())
    }

    /// Uniform on the unit sphere.
    pub fn dir(&mut self) -> Vec3 {
        let z = 2.0 * self.f32() - 1.0;
        let phi = std::f32::consts::TAU * self.f32();
        let r = (1.0 - z * z).max(0.0).sqrt();
        Vec3::new(r * phi.cos(), r * phi.sin(), z)
    }
}

/// The mesh bounds scaled by `s` about their centre.
pub fn scaled_bounds(mesh: &MeshBvh, s: f32) -> Aabb {
    let b = mesh.mesh().aabb();
    let (c, h) = (b.center(), b.extent() * 0.5 * s);
    Aabb::new(c - h, c + h)
}

/// Length of the mesh's bounding-box diagonal ("the mesh size").
pub fn mesh_size(mesh: &MeshBvh) -> f32 {
    mesh.mesh().aabb().extent().length()
}

/// `QUERIES` rays: origins uniform in 1.2× the mesh bounds, directions uniform.
pub fn random_rays(mesh: &MeshBvh) -> Vec<(Vec3, Vec3)> {
    let b = scaled_bounds(mesh, 1.2);
    let mut r = Rng::new(1);
    (0..QUERIES).map(|_| (r.in_box(&b), r.dir())).collect()
}

/// `QUERIES` points uniform in 1.2× the mesh bounds.
pub fn random_points(mesh: &MeshBvh) -> Vec<Vec3> {
    let b = scaled_bounds(mesh, 1.2);
    let mut r = Rng::new(2);
    (0..QUERIES).map(|_| r.in_box(&b)).collect()
}

/// A pinhole camera looking at the mesh centre from 2 diagonals away along
/// `(1, -2, 1)`, with a 40° vertical field of view (the mesh fills most of the image).
pub struct Camera {
    eye: Vec3,
    /// Direction through the image centre (unnormalized, with `right`/`up` scaled to
    /// half the image plane).
    forward: Vec3,
    right: Vec3,
    up: Vec3,
}

impl Camera {
    /// The camera for `mesh`.
    pub fn looking_at(mesh: &MeshBvh) -> Self {
        let b = mesh.mesh().aabb();
        let target = b.center();
        let eye = target + Vec3::new(1.0, -2.0, 1.0).normalize() * mesh_size(mesh);
        let forward = (target - eye).normalize();
        let right = forward.cross(Vec3::Z).normalize();
        let up = right.cross(forward);
        let half = (20f32).to_radians().tan();
        Self {
            eye,
            forward,
            right: right * half,
            up: up * half,
        }
    }

    /// The ray through the centre of pixel `(x, y)` of a `CAMERA_SIZE²` image.
    #[inline]
    pub fn ray(&self, x: usize, y: usize) -> (Vec3, Vec3) {
        let s = 2.0 / CAMERA_SIZE as f32;
        let (u, v) = ((x as f32 + 0.5) * s - 1.0, 1.0 - (y as f32 + 0.5) * s);
        (self.eye, self.forward + self.right * u + self.up * v)
    }
}

/// Side of the pixel blocks whose rays go through the tree together
/// ([`MeshBvh::rays_into`]: `BLOCK²` = [`MeshBvh::RAY_PACKET`] rays).
pub const BLOCK: usize = 4;

/// Casts the camera image in `TILE²` tiles over rayon's pool with the packet query
/// [`MeshBvh::rays_into`] (each tile's rays ordered by `BLOCK²` pixel blocks); returns
/// the hit count.
pub fn render_hits(mesh: &MeshBvh, cam: &Camera) -> usize {
    const { assert!(BLOCK * BLOCK == MeshBvh::RAY_PACKET && TILE.is_multiple_of(BLOCK)) };
    let tiles = CAMERA_SIZE / TILE;
    (0..tiles * tiles)
        .into_par_iter()
        .map(|t| {
            let (tx, ty) = (t % tiles * TILE, t / tiles * TILE);
            let mut rays = [(Vec3::ZERO, Vec3::ZERO); TILE * TILE];
            let mut k = 0;
            for by in (ty..ty + TILE).step_by(BLOCK) {
                for bx in (tx..tx + TILE).step_by(BLOCK) {
                    for y in by..by + BLOCK {
                        for x in bx..bx + BLOCK {
                            rays[k] = cam.ray(x, y);
                            k += 1;
                        }
                    }
                }
            }
            let mut out = [None; TILE * TILE];
            mesh.rays_into(&rays, f32::INFINITY, &mut out);
            out.iter().filter(|h| h.is_some()).count()
        })
        .sum()
}

/// [`render_hits`] with one [`MeshBvh::ray`] call per pixel.
pub fn render_hits_one_by_one(mesh: &MeshBvh, cam: &Camera) -> usize {
    let tiles = CAMERA_SIZE / TILE;
    (0..tiles * tiles)
        .into_par_iter()
        .map(|t| {
            let (tx, ty) = (t % tiles * TILE, t / tiles * TILE);
            let mut hits = 0;
            for y in ty..ty + TILE {
                for x in tx..tx + TILE {
                    let (o, d) = cam.ray(x, y);
                    hits += mesh.ray(o, d, f32::INFINITY).is_some() as usize;
                }
            }
            hits
        })
        .sum()
}

/// Casts `rays` in parallel; returns the hit count.
pub fn cast_all(mesh: &MeshBvh, rays: &[(Vec3, Vec3)]) -> usize {
    rays.par_iter()
        .with_min_len(256)
        .filter(|(o, d)| mesh.ray(*o, *d, f32::INFINITY).is_some())
        .count()
}

/// Closest points of `points` within `max_dist`, one [`MeshBvh::closest_point`] call
/// per point in the given order, in parallel; returns how many found one.
pub fn closest_one_by_one(mesh: &MeshBvh, points: &[Vec3], max_dist: f32) -> usize {
    points
        .par_iter()
        .with_min_len(256)
        .filter(|&&p| mesh.closest_point(p, max_dist).is_some())
        .count()
}

/// Closest points (unsigned) of `points` within `max_dist` with the batch query
/// [`MeshBvh::closest_points`]; returns how many found one.
pub fn closest_all(mesh: &MeshBvh, points: &[Vec3], max_dist: f32) -> usize {
    let found = mesh.closest_points(points, max_dist);
    found.par_iter().filter(|q| q.is_some()).count()
}

/// Closest points with the inside/outside sign (winding number) of `points` within
/// `max_dist`, with the batch query [`MeshBvh::closest_points_signed`]; returns how
/// many are inside.
pub fn closest_signed_all(mesh: &MeshBvh, points: &[Vec3], max_dist: f32) -> usize {
    let found = mesh.closest_points_signed(points, max_dist);
    found
        .par_iter()
        .filter(|q| q.is_some_and(|q| q.inside))
        .count()
}

/// `n` points uniform in the unit cube (the hash-grid workload).
pub fn cube_points(n: usize) -> Vec<Vec3> {
    let mut r = Rng::new(3);
    (0..n)
        .map(|_| Vec3::new(r.f32(), r.f32(), r.f32()))
        .collect()
}
