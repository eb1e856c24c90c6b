//! Weakly compressible SPH fluid ([`Sph`]).
//!
//! The method, in the order of a step:
//!
//! 1. **Neighbours**: a [`DeviceHashGrid`](weft::geom::DeviceHashGrid) with cells of
//!    the kernel's support `2h`, rebuilt every step by kernels on the device
//!    where the positions live (CPU or CUDA alike; no copy to the host); the
//!    kernels walk the 27 cells around a particle directly
//!    (`kernels::neighbour_cubes`) on CUDA; on a CPU the walk is done once per
//!    step by host code that lists each grid slot's neighbours
//!    ([`NeighbourList`]), and the density and force passes run by slot over
//!    the particles' data copied into the grid's order
//!    (`kernels::sph_gather`, on the tape), so that neighbours in space are
//!    close in memory.
//! 2. **Density** by kernel summation with Monaghan's cubic spline (M4, support
//!    `2h`) — chosen over Wendland C2 because it is the common reference of
//!    WCSPH (Monaghan, SPlisHSPlasH, Warp's example) and needs fewer neighbours
//!    for the same accuracy on a lattice — plus the share of the walls (below);
//!    then **pressure** from Tait's equation `p = B ((ρ/ρ₀)^7 − 1)`, clamped at
//!    zero so that the free surface feels no tension.
//! 3. **Forces**: the symmetric pressure force
//!    `−mᵢ Σ mⱼ (pᵢ/ρᵢ² + pⱼ/ρⱼ²) ∇Wᵢⱼ` (conserves momentum), the laminar
//!    viscosity of Morris et al.
//!    `10 ν Σ (2mⱼ/(ρᵢ+ρⱼ)) (vᵢⱼ·xᵢⱼ)/(|xᵢⱼ|² + 0.01h²) ∇Wᵢⱼ`
//!    (smooth, unlike Monaghan's switch on approaching pairs, so gradients
//!    through it are clean), and the walls' pressure.
//! 4. **Symplectic Euler** (`v` first, then `x` with the new `v`), and the
//!    boundary projection.
//!
//! **Boundaries.** The six faces of the domain box and the model's analytic
//! shapes (planes, spheres, boxes, capsules) act as continuous walls: fluid at
//! rest density behind the wall adds its share of the kernel to a particle's
//! density, and pushes with the particle's own (mirrored) pressure; both are a
//! function of the distance to the wall, tabulated once (`boundary.rs`). Near a
//! wall the density is therefore right (no particle deficiency, so no clumping
//! on the floor, and a hydrostatic column has the right pressure at the
//! bottom). After the position update a particle that left the box or entered a
//! shape is projected back onto the surface and loses its velocity into it, so
//! none ever leaves the domain or enters a shape.
//!
//! **Incompressible variants.** PBF and DFSPH are not implemented: a weakly
//! compressible step is four kernels whose adjoints are the tape's ordinary
//! ones, where DFSPH's and PBF's iterations to a density tolerance make a
//! rollout's tape grow with the iteration count and make the step's cost data
//! dependent (bad for CUDA graph capture). With `c ≈ 10 v_max` WCSPH keeps
//! density errors near 1%, enough for the examples here; PBF would be next
//! (fixed iteration count, so it stays capturable).

mod boundary;
mod fluid_block;
pub mod kernels;
mod neighbours;
mod params;
mod solver;

pub use boundary::{WALL_OFFSET, WALL_SAMPLES, cubic_spline, wall_table};
pub use fluid_block::FluidBlock;
pub use neighbours::NeighbourList;
pub use params::SphParams;
pub use solver::Sph;
