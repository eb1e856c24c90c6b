//! [`FluidBlock`]: a box of fluid particles on a lattice, added to a
//! [`ModelBuilder`].

use glam::Vec3;

use crate::ModelBuilder;

/// A block of fluid: `counts` particles per axis on a cubic lattice of
/// `spacing`, the first at `lo + spacing / 2` (so the block fills
/// `lo .. lo + counts · spacing`), each of mass `rest_density · spacing³`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FluidBlock {
    /// The block's lower corner (m).
    pub lo: Vec3,
    /// Particles along x, y and z.
    pub counts: [usize; 3],
    /// Distance between neighbouring particles (m).
    pub spacing: f32,
    /// Rest density of the fluid (kg/m³): sets the particle mass.
    pub rest_density: f32,
    /// Initial velocity of every particle (m/s).
    pub vel: Vec3,
}

impl Default for FluidBlock {
    fn default() -> Self {
        FluidBlock {
            lo: Vec3::new(-0.5, -0.5, 0.0),
            counts: [10, 10, 10],
            spacing: 0.02,
            rest_density: 1000.0,
            vel: Vec3::ZERO,
        }
    }
}

impl ModelBuilder {
    /// Adds the particles of `block` (x fastest, then y, then z) and returns the
    /// range of their indices. The contact radius is half the spacing (used by
    /// the viewer only: SPH particles are points). Bad values (a negative
    /// spacing, a NaN) are reported by [`ModelBuilder::finalize`].
    pub fn add_fluid_block(&mut self, block: &FluidBlock) -> std::ops::Range<usize> {
        let first = self.particle_count();
        let s = block.spacing;
        let mass = block.rest_density * s * s * s;
        let [nx, ny, nz] = block.counts;
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    let p = block.lo + (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * s;
                    self.add_particle(p, block.vel, mass, 0.5 * s);
                }
            }
        }
        first..self.particle_count()
    }
}
