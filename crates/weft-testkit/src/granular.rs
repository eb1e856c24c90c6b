//! The granular workload shared by `examples/granular.rs`, the CUDA benchmark and
//! the granular tests: spheres of radius 1 cm and sand-like density with
//! particle–particle contacts (DEM through the hash grid), friction and the ground.
//!
//! Two set-ups: a [`Pour`] that activates layers of particles at a spout as time
//! goes on (the example), and a [`block`] of particles on a lattice that falls as
//! a whole (the benchmark: every particle active from the first step).

use weft::prelude::*;
use weft_sim::{Model, ModelBuilder, ParticleContactParams, SimError, State};

/// Particle radius (m).
pub const RADIUS: f32 = 0.01;
/// Particle mass (kg): a sphere of radius [`RADIUS`] at 2500 kg/m³.
pub const MASS: f32 = 2500.0 * 4.0 / 3.0 * std::f32::consts::PI * RADIUS * RADIUS * RADIUS;
/// Substeps per 60 Hz frame.
pub const SUBSTEPS: usize = 32;
/// The substep (s).
pub const DT: f32 = 1.0 / 60.0 / SUBSTEPS as f32;

/// Distance a released layer travels before the next is released (m): 1.5 times
/// the spacing within a layer, so the stream is loose rather than a solid rod.
pub const LAYER_GAP: f32 = 3.3 * RADIUS;

/// A builder with the granular contact parameters and the ground, and no particles.
pub fn builder() -> ModelBuilder {
    let mut b = ModelBuilder::new();
    // The contact terms are explicit, and a grain in a pile touches up to 12
    // others and the ground, so each sum over its contacts must stay inside the
    // substep's stability bound: Σ ke dt² / m < 4 (springs), Σ (kd + kf) dt / m
    // < 2 (damping and viscous friction). With m = 10.5 g and dt = 0.52 ms:
    // 13 × ke 1e4 gives 3.4; 12 grains × (1 + 1.5) + the ground's 5 + 5 give
    // 2.0. A grain arriving at 4 m/s compresses a contact by less than half its
    // radius; the ground's damping stops grains bouncing on it.
    b.particle_contact = ParticleContactParams {
        ke: 1.0e4,
        kd: 1.0,
        kf: 1.5,
        mu: 0.6,
        cohesion: 0.0,
    };
    b.contact.ke = 1.0e4;
    b.contact.kd = 5.0;
    b.contact.kf = 5.0;
    b.ground.as_mut().expect("default ground").mu = 0.6;
    b
}

/// `dims[0] × dims[1] × dims[2]` particles on a lattice of spacing 2.1 radii
/// (jittered by 5 %), centred over the origin with its lowest layer at `z0`.
pub fn block(dims: [usize; 3], z0: f32) -> ModelBuilder {
    let mut b = builder();
    let s = 2.1 * RADIUS;
    let n = dims[0] * dims[1] * dims[2];
    let jitter = crate::random_f32s(3 * n, 5, -0.05 * RADIUS, 0.05 * RADIUS);
    let mut k = 0;
    for z in 0..dims[2] {
        for y in 0..dims[1] {
            for x in 0..dims[0] {
                let p = Vec3::new(
                    (x as f32 - 0.5 * (dims[0] - 1) as f32) * s + jitter[3 * k],
                    (y as f32 - 0.5 * (dims[1] - 1) as f32) * s + jitter[3 * k + 1],
                    z0 + z as f32 * s + jitter[3 * k + 2],
                );
                b.add_particle(p, Vec3::ZERO, MASS, RADIUS);
                k += 1;
            }
        }
    }
    b
}

/// Activates particles `first..first + offsets.len()` at `spout + offsets[k]`
/// (jittered in the plane by `jitter`) moving down at `speed`.
#[weft::kernel]
pub fn emit_layer(
    flags: &mut Array<u32>,
    q: &mut Array<Vec3>,
    qd: &mut Array<Vec3>,
    offsets: &Array<Vec3>,
    first: i32,
    spout: Vec3,
    jitter: f32,
    speed: f32,
    seed: u32,
) {
    let k = tid();
    let i = first + k;
    let mut rng = rand_init(seed, i as u32);
    let dx = (randf(&mut rng) - 0.5) * jitter;
    let dy = (randf(&mut rng) - 0.5) * jitter;
    q[i] = spout + offsets[k] + Vec3::new(dx, dy, 0.0);
    qd[i] = Vec3::new(0.0, 0.0, -speed);
    flags[i] = 1;
}

/// A pour: `count` particles, inactive at first and parked far below the ground,
/// released in layers (a disc of radius `spout_radius` at `spout`) moving down at
/// `speed`, one layer each time the previous one has moved [`LAYER_GAP`].
pub struct Pour {
    /// The model (its particle flags change as layers are released).
    pub model: Model,
    /// Lattice offsets of one layer in the spout's disc.
    offsets: Array<Vec3>,
    /// Centre of the spout.
    pub spout: Vec3,
    /// Speed of the released grains (m/s).
    pub speed: f32,
    /// Particles released so far.
    pub released: usize,
    /// Simulated time since the last release (s).
    since: f32,
    layer: u32,
}

impl Pour {
    /// A pour of `count` grains from a spout of radius `spout_radius` (m) at
    /// `spout`, on `device`.
    pub fn new(
        device: Device,
        count: usize,
        spout: Vec3,
        spout_radius: f32,
        speed: f32,
    ) -> Result<Pour, SimError> {
        let mut b = builder();
        // Parked: a lattice 5 cm apart far below the ground, one grain per cell of
        // the contact grid (inactive grains take no part in contacts or motion).
        let side = (count as f32).cbrt().ceil() as usize;
        for k in 0..count {
            let (x, y, z) = (k % side, (k / side) % side, k / (side * side));
            let p = Vec3::new(x as f32, y as f32, -(z as f32)) * 0.05 - Vec3::new(0.0, 0.0, 50.0);
            b.add_particle(p, Vec3::ZERO, MASS, RADIUS);
        }
        let mut model = b.finalize(device)?;
        model.particle_flags.try_fill(0)?;
        let s = 2.2 * RADIUS;
        let m = (spout_radius / s).floor() as i32;
        let mut offsets = Vec::new();
        for y in -m..=m {
            for x in -m..=m {
                // Alternate rows shifted by half a spacing: a denser, rounder disc.
                let o = Vec3::new(
                    (x as f32 + 0.5 * (y & 1) as f32) * s,
                    y as f32 * s * 0.87,
                    0.0,
                );
                if o.length() <= spout_radius {
                    offsets.push(o);
                }
            }
        }
        Ok(Pour {
            model,
            offsets: Array::try_from_slice(device, &offsets)?,
            spout,
            speed,
            released: 0,
            since: f32::INFINITY,
            layer: 0,
        })
    }

    /// Grains per released layer.
    pub fn layer_size(&self) -> usize {
        self.offsets.len()
    }

    /// Advances the pour's clock by `dt` and releases a layer into `state` when it
    /// is due (and grains are left).
    pub fn update(&mut self, state: &mut State, dt: f32) -> Result<(), SimError> {
        self.since += dt;
        let due = LAYER_GAP / self.speed;
        let n = self.layer_size();
        if self.since >= due && self.released + n <= self.model.particle_count() {
            emit_layer::launch(
                n,
                &mut self.model.particle_flags,
                &mut state.particle_q,
                &mut state.particle_qd,
                &self.offsets,
                self.released as i32,
                self.spout,
                0.1 * RADIUS,
                self.speed,
                self.layer,
            )?;
            self.released += n;
            self.layer += 1;
            self.since = if self.since.is_finite() {
                self.since - due
            } else {
                0.0
            };
        }
        Ok(())
    }
}
