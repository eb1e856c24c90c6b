//! The SPH kernels: density and pressure, pressure and viscosity forces, and
//! symplectic Euler with the boundary projection. One thread per particle.
//!
//! The neighbour passes ([`sph_density`], [`sph_forces`]) run in one of two
//! ways, which find the same neighbours within `2h` in the same order and so
//! give the same sums bit for bit:
//!
//! - on CUDA, one thread per particle walks the [`DeviceHashGrid`] around it
//!   and reads its neighbours' data by particle index;
//! - on a CPU, one thread per slot of the grid reads its neighbours' slots
//!   from a [`NeighbourList`] and their data from copies in the grid's order
//!   ([`sph_gather`]), where neighbours in space are close in memory; results
//!   go back to the particles' own indices.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceHashGrid, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code (until issue 28's hygiene fix)
use weft_collide::ShapeSet;

use super::neighbours::NeighbourList;
use crate::kernels::shapes::shape_sdf;
use crate::{Model, State};

/// What the SPH kernels read besides the model and the state: the fluid's
/// constants, the parameters one may differentiate with respect to (one-element
/// arrays: scalar kernel parameters carry no gradient), and the wall table.
#[weft::structure]
pub struct SphFluid {
    /// Smoothing length `h`.
    pub h: f32,
    /// Rest density `ρ₀`.
    pub rest_density: f32,
    /// Lower corner of the domain box.
    pub lo: Vec3,
    /// Upper corner of the domain box.
    pub hi: Vec3,
    /// Gravity.
    pub gravity: Vec3,
    /// `[B]`, the Tait stiffness (Pa).
    pub stiffness: Array<f32>,
    /// `[ν]`, the kinematic viscosity (m²/s).
    pub viscosity: Array<f32>,
    /// `(Φ, A)` of the continuous wall over `0..=2h` (see `boundary.rs`).
    pub wall: Array<Vec2>,
}

/// `c mod d` in `0..d`.
#[weft::func]
pub fn wrap_cell(c: i32, d: i32) -> i32 {
    let m = c % d;
    let mut out = m;
    if m < 0 {
        out = m + d;
    }
    out
}

/// The cubes of `grid` that a query of radius `r` around `p` visits: the first
/// cube's hashed coordinates (wrapped into the grid), the number of cubes per
/// axis (at most the grid's cells on that axis, so each hashed cell comes
/// once), and the first cube's coordinates before wrapping. The same cubes as
/// `weft::geom::hash_grid_query`, which the kernels below walk with three
/// nested loops instead (no 64-bit divisions per cube: 30% faster on a CPU),
/// skipping cubes whose box is farther than `r` from `p`.
#[weft::func]
pub fn neighbour_cubes(grid: &DeviceHashGrid, p: Vec3, r: f32) -> (IVec3, IVec3, IVec3) {
    let pad = (abs(p) + Vec3::splat(r)) * 1.0e-6;
    let inv = grid.inv_cell_size;
    let lo = (p - Vec3::splat(r) - pad) * inv;
    let hi = (p + Vec3::splat(r) + pad) * inv;
    let a = IVec3::new(floor(lo.x) as i32, floor(lo.y) as i32, floor(lo.z) as i32);
    let b = IVec3::new(floor(hi.x) as i32, floor(hi.y) as i32, floor(hi.z) as i32);
    let mut first = IVec3::new(
        wrap_cell(a.x, grid.dim_x),
        wrap_cell(a.y, grid.dim_y),
        wrap_cell(a.z, grid.dim_z),
    );
    let mut count = IVec3::new(
        min(b.x - a.x + 1, grid.dim_x),
        min(b.y - a.y + 1, grid.dim_y),
        min(b.z - a.z + 1, grid.dim_z),
    );
    if grid.sorted_index.len() == 0 {
        count = IVec3::ZERO;
    }
    if count.x == grid.dim_x {
        first.x = 0;
    }
    if count.y == grid.dim_y {
        first.y = 0;
    }
    if count.z == grid.dim_z {
        first.z = 0;
    }
    (first, count, a)
}

/// Squared distance along one axis from `x` to the cube `k` of side `side`;
/// zero when the query covers the whole axis (`all`: its cubes were wrapped,
/// so `k` is no longer where the cube is).
#[weft::func]
pub fn cube_gap_sq(x: f32, k: i32, side: f32, all: bool) -> f32 {
    let lo = k as f32 * side;
    let hi = lo + side;
    let mut g = max(max(lo - x, x - hi), 0.0);
    if all {
        g = 0.0;
    }
    g * g
}

/// The shape of Monaghan's cubic spline in 3-D (support `2h`): `W(r, h) = w(r/h) / (π h³)`, with
/// `w(q) = 1 − 1.5 q² + 0.75 q³` below 1, `0.25 (2 − q)³` below 2, else 0,
/// computed as `0.25 t³ − u³` with `t = max(2 − q, 0)` and `u = max(1 − q, 0)`
/// so that a CPU need not branch on which piece a neighbour falls in. The
/// neighbour loops call this with `q = r · (1/h)` and apply `1/(π h³)` once, so
/// a neighbour costs no division.
#[weft::func]
pub fn spline_shape(q: f32) -> f32 {
    let (t, u) = spline_tu(q);
    0.25 * t * t * t - u * u * u
}

/// `(t, u) = (max(2 − q, 0), max(1 − q, 0))`, the two pieces of the spline.
#[weft::func]
fn spline_tu(q: f32) -> (f32, f32) {
    let mut t = 2.0 - q;
    if t < 0.0 {
        t = 0.0;
    }
    let mut u = 1.0 - q;
    if u < 0.0 {
        u = 0.0;
    }
    (t, u)
}

/// `dw/dq` of [`spline_shape`], `3 u² − 0.75 t²` (`∂W/∂r = w'(r/h) / (π h⁴)`).
#[weft::func]
pub fn spline_slope(q: f32) -> f32 {
    let (t, u) = spline_tu(q);
    3.0 * u * u - 0.75 * t * t
}

/// Where distance `d` falls in the wall table of `n` samples over `0..=2h`: the
/// sample below and the fraction towards the next one.
#[weft::func]
pub fn wall_slot(d: f32, h: f32, n: i32) -> (i32, f32) {
    let t = clamp(d / (2.0 * h), 0.0, 1.0) * (n - 1) as f32;
    let k = min(floor(t) as i32, n - 2);
    (k, t - k as f32)
}

/// Distance to boundary `b` of the domain box (0–5: −x, +x, −y, +y, −z, +z) and
/// its normal into the fluid.
#[weft::func]
pub fn box_wall(x: Vec3, lo: Vec3, hi: Vec3, b: i32) -> (f32, Vec3) {
    let mut d = x.x - lo.x;
    let mut n = Vec3::X;
    if b == 1 {
        d = hi.x - x.x;
        n = -Vec3::X;
    } else if b == 2 {
        d = x.y - lo.y;
        n = Vec3::Y;
    } else if b == 3 {
        d = hi.y - x.y;
        n = -Vec3::Y;
    } else if b == 4 {
        d = x.z - lo.z;
        n = Vec3::Z;
    } else if b == 5 {
        d = hi.z - x.z;
        n = -Vec3::Z;
    }
    (d, n)
}

/// `v` with component `axis` (0, 1, 2) set to `value`.
#[weft::func]
pub fn set_axis(v: Vec3, axis: i32, value: f32) -> Vec3 {
    let mut out = v;
    if axis == 0 {
        out.x = value;
    } else if axis == 1 {
        out.y = value;
    } else {
        out.z = value;
    }
    out
}

/// The part of a wall's pressure force that comes from the hydrostatic rise of
/// its pressure (Adami et al. 2012: the wall's pressure extrapolated from the
/// particle's with the body force, `p_b = pᵢ + ρᵢ g·(x_b − xᵢ)`), over the
/// continuous wall at distance `d` with normal `n` and table values `t = (Φ, A)`,
/// per `ρ₀/ρᵢ`: `Φ g_t + (Φ + d A) g_n` (`g_n` the part of `g` along `n`, `g_t`
/// the rest), subtracted from the acceleration. It holds up the fluid next to
/// vertical walls, where the mirrored pressure alone has no vertical component.
#[weft::func]
pub fn hydrostatic_wall(g: Vec3, n: Vec3, d: f32, t: Vec2) -> Vec3 {
    let gn = n * dot(g, n);
    (g - gn) * t.x + gn * (t.x + d * t.y)
}

/// Tait's equation of state with exponent 7, clamped at zero pressure.
#[weft::func]
pub fn tait(rho: f32, rest: f32, stiffness: f32) -> f32 {
    let r = rho / rest;
    let r2 = r * r;
    let r4 = r2 * r2;
    max(stiffness * (r4 * r2 * r - 1.0), 0.0)
}

/// Copies what the neighbour passes read of each particle into the grid's
/// order: slot `s` of `x`, `v` and `mass` gets particle `grid.sorted_index[s]`'s
/// position, velocity and mass. On the tape like the passes themselves, so
/// gradients flow back to the particles through it.
#[weft::kernel]
pub fn sph_gather(
    model: &Model,
    state: &State,
    grid: &DeviceHashGrid,
    x: &mut Array<Vec3>,
    v: &mut Array<Vec3>,
    mass: &mut Array<f32>,
) {
    let s = tid();
    let i = grid.sorted_index[s] as i32;
    x[s] = state.particle_q[i];
    v[s] = state.particle_qd[i];
    mass[s] = model.particle_mass[i];
}

/// Density by kernel summation over the neighbours (the particle itself
/// included) plus the walls' share, the pressure from it, and `p/ρ²` (which
/// the force pass reads for each neighbour).
///
/// With a `list` (a CPU), thread `t` is slot `t` of `grid`: `x` and `mass`
/// are by slot ([`sph_gather`]), the neighbours' slots come from the list, and
/// the density and `p/ρ²` go to `sorted_density` and `p_over_rho2` at the
/// slot. With an empty list (CUDA), thread `t` is particle `t`: `x` and `mass`
/// are the particles', the neighbours are found by walking the grid, `p/ρ²`
/// goes to `p_over_rho2` at the particle and `sorted_density` is not used
/// (pass an empty array). Either way the density and pressure go to
/// `density` and `pressure` at the particle's index.
#[weft::kernel]
#[allow(clippy::too_many_arguments)]
pub fn sph_density(
    model: &Model,
    fluid: &SphFluid,
    grid: &DeviceHashGrid,
    list: &NeighbourList,
    x: &Array<Vec3>,
    mass: &Array<f32>,
    sorted_density: &mut Array<f32>,
    p_over_rho2: &mut Array<f32>,
    density: &mut Array<f32>,
    pressure: &mut Array<f32>,
) {
    let t = tid();
    let xi = x[t];
    let h = fluid.h;
    let support = 2.0 * h;
    let r2 = support * support;
    let inv_h = 1.0 / h;
    // Σ mⱼ w(|xᵢ − xⱼ|/h); W's factor 1/(π h³) is applied after the loop.
    let mut sum = 0.0;
    let listed = list.range.len() > 0;
    if listed {
        let run = list.range[t];
        for k in run.x as i32..run.y as i32 {
            let j = list.index[k] as i32;
            sum += mass[j] * spline_shape(length(xi - x[j]) * inv_h);
        }
    }
    let (first, mut count, a0) = neighbour_cubes(grid, xi, support);
    if listed {
        count = IVec3::ZERO;
    }
    let side = 1.0 / grid.inv_cell_size;
    for cz in 0..count.z {
        let mut z = first.z + cz;
        if z >= grid.dim_z {
            z -= grid.dim_z;
        }
        let gz = cube_gap_sq(xi.z, a0.z + cz, side, count.z == grid.dim_z);
        for cy in 0..count.y {
            let mut y = first.y + cy;
            if y >= grid.dim_y {
                y -= grid.dim_y;
            }
            let gy = gz + cube_gap_sq(xi.y, a0.y + cy, side, count.y == grid.dim_y);
            let row = (z * grid.dim_y + y) * grid.dim_x;
            for cx in 0..count.x {
                let mut c = first.x + cx;
                if c >= grid.dim_x {
                    c -= grid.dim_x;
                }
                let cell = row + c;
                let mut start = grid.cell_start[cell] as i32;
                let end = grid.cell_end[cell] as i32;
                if gy + cube_gap_sq(xi.x, a0.x + cx, side, count.x == grid.dim_x) > r2 * 1.0001 {
                    start = end;
                }
                for slot in start..end {
                    if length_sq(grid.sorted_points[slot] - xi) <= r2 {
                        let j = grid.sorted_index[slot] as i32;
                        sum += mass[j] * spline_shape(length(xi - x[j]) * inv_h);
                    }
                }
            }
        }
    }
    let mut rho = sum / (std::f32::consts::PI * h * h * h);
    let nw = fluid.wall.len();
    // The box: the fraction of the kernel inside it, as a product over the axes
    // (exact for a separable kernel, close for the spline; a sum of the six
    // walls would count the fluid behind an edge or a corner twice or thrice).
    let mut phi_lo = Vec3::ZERO;
    let mut phi_hi = Vec3::ZERO;
    for b in 0..6 {
        let (d, _n) = box_wall(xi, fluid.lo, fluid.hi, b);
        if d < support {
            let (k, f) = wall_slot(d, h, nw);
            let phi = fluid.wall[k].x * (1.0 - f) + fluid.wall[k + 1].x * f;
            if b % 2 == 0 {
                phi_lo = set_axis(phi_lo, b / 2, phi);
            } else {
                phi_hi = set_axis(phi_hi, b / 2, phi);
            }
        }
    }
    let inside = Vec3::ONE - phi_lo - phi_hi;
    rho += fluid.rest_density * (1.0 - inside.x * inside.y * inside.z);
    // The shapes, one wall each.
    for s in 0..model.shape_kind.len() {
        let xf = model.shape_transform[s];
        let local = quat_rotate_inv(xf.q, xi - xf.p);
        let (d, _n) = shape_sdf(model.shape_kind[s], local, model.shape_scale[s]);
        if d < support {
            let (k, f) = wall_slot(d, h, nw);
            rho += fluid.rest_density * (fluid.wall[k].x * (1.0 - f) + fluid.wall[k + 1].x * f);
        }
    }
    let p = tait(rho, fluid.rest_density, fluid.stiffness[0]);
    p_over_rho2[t] = p / (rho * rho);
    let mut i = t;
    if listed {
        sorted_density[t] = rho;
        i = grid.sorted_index[t] as i32;
    }
    density[i] = rho;
    pressure[i] = p;
}

/// The acceleration of `i` from neighbour `j` (mass `mj`, density `rho_j`,
/// `pj = pⱼ/ρⱼ²`) at `d = xᵢ − xⱼ` with relative velocity `vij`, over
/// `1/(π h⁴)` (which the caller applies once to the sum):
/// `(visc − mⱼ (pᵢ/ρᵢ² + pⱼ/ρⱼ²)) ∇Wᵢⱼ` with `∇Wᵢⱼ = d w'(r/h) / (π h⁴ r)` and
/// the viscosity term `visc = 10ν · 2mⱼ (vᵢⱼ·d) / s`,
/// `s = (ρᵢ + ρⱼ)(|d|² + ε)`, computed as
/// `d mⱼ w'(r/h) (20ν (vᵢⱼ·d) − (pᵢ/ρᵢ² + pⱼ/ρⱼ²) s) / (r s)`: one division.
/// `own` is `(ρᵢ, pᵢ/ρᵢ², 20ν)` and `consts` `(ε, 1/h)`. Zero at `d = 0`.
#[weft::func]
pub fn pair_accel(
    d: Vec3,
    vij: Vec3,
    mj: f32,
    rho_j: f32,
    pj: f32,
    own: Vec3,
    consts: Vec2,
) -> Vec3 {
    let (rho_i, pi, nu20) = (own.x, own.y, own.z);
    let (eps, inv_h) = (consts.x, consts.y);
    let r2 = length_sq(d);
    let r = sqrt(r2);
    let mut out = Vec3::ZERO;
    if r > 0.0 {
        let s = (rho_i + rho_j) * (r2 + eps);
        let inv = 1.0 / (r * s);
        out = d * (mj * spline_slope(r * inv_h) * (nu20 * dot(vij, d) - (pi + pj) * s) * inv);
    }
    out
}

/// Adds `mᵢ aᵢ` to `particle_f`: the symmetric pressure force
/// `−Σ mⱼ (pᵢ/ρᵢ² + pⱼ/ρⱼ²) ∇Wᵢⱼ`, the laminar viscosity
/// `10 ν Σ (2mⱼ/(ρᵢ+ρⱼ)) (vᵢⱼ·xᵢⱼ) / (|xᵢⱼ|² + 0.01 h²) ∇Wᵢⱼ` (symmetrized in
/// the densities, so it conserves momentum), and the walls' mirrored
/// pressure `−2 pᵢ/ρᵢ² ∇ρ_wall` (`2 pᵢ ρ₀ A(d) / ρᵢ² n` for a single wall) plus
/// their hydrostatic part ([`hydrostatic_wall`]); a neighbour's share is
/// [`pair_accel`].
///
/// As [`sph_density`]: with a `list` (a CPU), thread `t` is slot `t` of `grid`
/// and `x`, `v`, `mass`, `density` and `p_over_rho2` are by slot
/// ([`sph_gather`], and [`sph_density`]'s `sorted_density`); with an empty list
/// (CUDA), thread `t` is particle `t`, they are by particle and the grid is
/// walked. Either way the force goes to `particle_f` (the state's) at the
/// particle's index.
#[weft::kernel]
#[allow(clippy::too_many_arguments)]
pub fn sph_forces(
    model: &Model,
    fluid: &SphFluid,
    grid: &DeviceHashGrid,
    list: &NeighbourList,
    x: &Array<Vec3>,
    v: &Array<Vec3>,
    mass: &Array<f32>,
    density: &Array<f32>,
    p_over_rho2: &Array<f32>,
    particle_f: &mut Array<Vec3>,
) {
    let t = tid();
    let xi = x[t];
    let vi = v[t];
    let h = fluid.h;
    let support = 2.0 * h;
    let rho_i = density[t];
    let pi = p_over_rho2[t];
    let nu20 = 20.0 * fluid.viscosity[0];
    let eps = 0.01 * h * h;
    let r2 = support * support;
    let inv_h = 1.0 / h;
    let mut a = Vec3::ZERO;
    let listed = list.range.len() > 0;
    if listed {
        let run = list.range[t];
        for k in run.x as i32..run.y as i32 {
            let j = list.index[k] as i32;
            if j != t {
                a += pair_accel(
                    xi - x[j],
                    vi - v[j],
                    mass[j],
                    density[j],
                    p_over_rho2[j],
                    Vec3::new(rho_i, pi, nu20),
                    Vec2::new(eps, inv_h),
                );
            }
        }
    }
    let (first, mut count, a0) = neighbour_cubes(grid, xi, support);
    if listed {
        count = IVec3::ZERO;
    }
    let side = 1.0 / grid.inv_cell_size;
    for cz in 0..count.z {
        let mut z = first.z + cz;
        if z >= grid.dim_z {
            z -= grid.dim_z;
        }
        let gz = cube_gap_sq(xi.z, a0.z + cz, side, count.z == grid.dim_z);
        for cy in 0..count.y {
            let mut y = first.y + cy;
            if y >= grid.dim_y {
                y -= grid.dim_y;
            }
            let gy = gz + cube_gap_sq(xi.y, a0.y + cy, side, count.y == grid.dim_y);
            let row = (z * grid.dim_y + y) * grid.dim_x;
            for cx in 0..count.x {
                let mut c = first.x + cx;
                if c >= grid.dim_x {
                    c -= grid.dim_x;
                }
                let cell = row + c;
                let mut start = grid.cell_start[cell] as i32;
                let end = grid.cell_end[cell] as i32;
                if gy + cube_gap_sq(xi.x, a0.x + cx, side, count.x == grid.dim_x) > r2 * 1.0001 {
                    start = end;
                }
                for slot in start..end {
                    let j = grid.sorted_index[slot] as i32;
                    if j != t && length_sq(grid.sorted_points[slot] - xi) <= r2 {
                        a += pair_accel(
                            xi - x[j],
                            vi - v[j],
                            mass[j],
                            density[j],
                            p_over_rho2[j],
                            Vec3::new(rho_i, pi, nu20),
                            Vec2::new(eps, inv_h),
                        );
                    }
                }
            }
        }
    }
    // ∂W/∂r = w'(r/h) / (π h⁴): the neighbours' factor.
    a *= 1.0 / (std::f32::consts::PI * h * h * h * h);
    let nw = fluid.wall.len();
    // The box: the gradient of the density's box term (see `sph_density`).
    let mut phi_lo = Vec3::ZERO;
    let mut phi_hi = Vec3::ZERO;
    let mut a_lo = Vec3::ZERO;
    let mut a_hi = Vec3::ZERO;
    let g = fluid.gravity;
    let lift = fluid.rest_density / rho_i;
    for b in 0..6 {
        let (d, n) = box_wall(xi, fluid.lo, fluid.hi, b);
        if d < support {
            let (k, f) = wall_slot(d, h, nw);
            let tw = fluid.wall[k] * (1.0 - f) + fluid.wall[k + 1] * f;
            a -= hydrostatic_wall(g, n, d, tw) * lift;
            if b % 2 == 0 {
                phi_lo = set_axis(phi_lo, b / 2, tw.x);
                a_lo = set_axis(a_lo, b / 2, tw.y);
            } else {
                phi_hi = set_axis(phi_hi, b / 2, tw.x);
                a_hi = set_axis(a_hi, b / 2, tw.y);
            }
        }
    }
    let inside = Vec3::ONE - phi_lo - phi_hi;
    let others = Vec3::new(
        inside.y * inside.z,
        inside.x * inside.z,
        inside.x * inside.y,
    );
    let push = 2.0 * pi * fluid.rest_density;
    a += (a_lo - a_hi) * others * push;
    for s in 0..model.shape_kind.len() {
        let xf = model.shape_transform[s];
        let local = quat_rotate_inv(xf.q, xi - xf.p);
        let (d, nl) = shape_sdf(model.shape_kind[s], local, model.shape_scale[s]);
        if d < support {
            let (k, f) = wall_slot(d, h, nw);
            let tw = fluid.wall[k] * (1.0 - f) + fluid.wall[k + 1] * f;
            let n = quat_rotate(xf.q, nl);
            a += n * (push * tw.y) - hydrostatic_wall(g, n, d, tw) * lift;
        }
    }
    let mut i = t;
    if listed {
        i = grid.sorted_index[t] as i32;
    }
    atomic_add(&mut particle_f[i], a * mass[t]);
}

/// Symplectic Euler, `v' = v + (f/m + g) dt`, `x' = x + v' dt`, then the
/// boundary: a particle that left the box is put back on its wall, one inside a
/// shape onto the shape's surface, and the velocity into the wall or shape is
/// removed (the tangential part is kept: free slip). Clears `s_out`'s forces.
#[weft::kernel]
pub fn sph_integrate(model: &Model, fluid: &SphFluid, s_in: &State, s_out: &mut State, dt: f32) {
    let i = tid();
    let v = s_in.particle_qd[i]
        + (s_in.particle_f[i] * model.particle_inv_mass[i] + fluid.gravity) * dt;
    let mut x = s_in.particle_q[i] + v * dt;
    let mut v1 = v;
    for s in 0..model.shape_kind.len() {
        let xf = model.shape_transform[s];
        let (d, nl) = shape_sdf(
            model.shape_kind[s],
            quat_rotate_inv(xf.q, x - xf.p),
            model.shape_scale[s],
        );
        if d < 0.0 {
            let n = quat_rotate(xf.q, nl);
            x -= n * d;
            v1 -= n * min(dot(v1, n), 0.0);
        }
    }
    if x.x < fluid.lo.x {
        x.x = fluid.lo.x;
        v1.x = max(v1.x, 0.0);
    }
    if x.x > fluid.hi.x {
        x.x = fluid.hi.x;
        v1.x = min(v1.x, 0.0);
    }
    if x.y < fluid.lo.y {
        x.y = fluid.lo.y;
        v1.y = max(v1.y, 0.0);
    }
    if x.y > fluid.hi.y {
        x.y = fluid.hi.y;
        v1.y = min(v1.y, 0.0);
    }
    if x.z < fluid.lo.z {
        x.z = fluid.lo.z;
        v1.z = max(v1.z, 0.0);
    }
    if x.z > fluid.hi.z {
        x.z = fluid.hi.z;
        v1.z = min(v1.z, 0.0);
    }
    s_out.particle_q[i] = x;
    s_out.particle_qd[i] = v1;
    s_out.particle_f[i] = Vec3::ZERO;
}
