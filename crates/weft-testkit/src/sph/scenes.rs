//! Small scenes for the SPH tests: a fluid block in a box, a dam break against
//! a sphere, and a loop that steps them.

use weft::prelude::*;
use weft_sim::{FluidBlock, Model, ModelBuilder, Shape, Sph, SphParams, State};

use super::SPACING as DX;

/// A model of one fluid block of `counts` at `lo`, and parameters for spacing
/// [`SPACING`](super::SPACING) with speed of sound `c` in the box `domain`.
pub fn block(
    device: Device,
    lo: Vec3,
    counts: [usize; 3],
    c: f32,
    domain: (Vec3, Vec3),
) -> (Model, SphParams) {
    let mut params = SphParams::for_spacing(DX, c);
    (params.domain_lo, params.domain_hi) = domain;
    let mut b = ModelBuilder::new();
    b.add_fluid_block(&FluidBlock {
        lo,
        counts,
        spacing: DX,
        rest_density: params.rest_density,
        vel: Vec3::ZERO,
    });
    (b.finalize(device).unwrap(), params)
}

/// Runs `steps` steps, calling `each` after every one with the step number.
pub fn run(
    model: &Model,
    sph: &mut Sph,
    s: &mut State,
    steps: usize,
    mut each: impl FnMut(usize, &State, &Sph),
) {
    let mut next = State::new(model).unwrap();
    for k in 0..steps {
        sph.step(model, s, &mut next).unwrap();
        std::mem::swap(s, &mut next);
        each(k, s, sph);
    }
}

/// A dam break: a column of `counts` in the corner of a 30 × 8 × 30 cm box, with
/// a sphere of radius 5 cm half sunk into the floor at x = 20 cm; returns the
/// sphere's centre and radius too.
pub fn dam_break(device: Device, counts: [usize; 3], c: f32) -> (Model, SphParams, (Vec3, f32)) {
    let sphere = (Vec3::new(0.2, 0.04, 0.0), 0.05);
    let (mut b, mut params) = (ModelBuilder::new(), SphParams::for_spacing(DX, c));
    params.domain_lo = Vec3::ZERO;
    params.domain_hi = Vec3::new(0.3, 0.08, 0.3);
    b.add_fluid_block(&FluidBlock {
        lo: Vec3::ZERO,
        counts,
        spacing: DX,
        ..Default::default()
    });
    b.add_shape(Shape::Sphere {
        center: sphere.0,
        radius: sphere.1,
        mu: 0.0,
    });
    (b.finalize(device).unwrap(), params, sphere)
}
