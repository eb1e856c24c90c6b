//! A dam break: a column of water collapses in a box, runs along the floor, over
//! a half-buried ball and up the far wall. Weakly compressible SPH (`weft_sim::Sph`)
//! with a hash grid rebuilt on the device every step; points coloured by speed
//! (or density, in the panel).
//!
//! Run: `cargo run --release --example dam_break` (a window, or PNG frames in
//! `out/dam_break/` without a display; `--headless --frames N --out DIR`,
//! `--help` lists the options). Runs on a GPU when one is present
//! (`Device::best()`), else on the CPU: the default 15 × 15 × 25 column (5,625
//! particles) keeps a CPU at a few frames per second.

use glam::Vec3;
use weft::prelude::*;
use weft_sim::{FluidBlock, Model, ModelBuilder, Shape, Sph, SphParams, State};
use weft_viewer::{
    App, AppResult, Color, Colormap, Lines, OrbitCamera, Params, Points, Scene, Settings,
};

const SPACING: f32 = 0.02;
/// The box: 1 m long, 0.3 m deep, 0.6 m high.
const BOX: Vec3 = Vec3::new(1.0, 0.3, 0.6);
const BALL: (Vec3, f32) = (Vec3::new(0.62, 0.15, 0.0), 0.09);
/// Speed of sound (m/s): about 7 times the fastest flow, density errors ~2%.
const SOUND: f32 = 20.0;

struct DamBreak {
    device: Device,
    height: usize,
    viscosity_scale: f32,
    color_by_density: bool,
    model: Option<Model>,
    sph: Option<Sph>,
    a: Option<State>,
    b: Option<State>,
}

impl DamBreak {
    fn sph_params(&self) -> SphParams {
        let mut p = SphParams::for_spacing(SPACING, SOUND);
        p.viscosity *= self.viscosity_scale;
        p.dt = p.stable_dt();
        p.domain_lo = Vec3::ZERO;
        p.domain_hi = BOX;
        p
    }
}

impl App for DamBreak {
    fn settings(&self) -> Settings {
        let dt = self.sph_params().dt;
        Settings {
            title: "dam_break".into(),
            dt,
            steps_per_frame: (1.0 / 60.0 / dt).round() as u32,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(0.5, -1.25, 0.75),
                Vec3::new(0.5, 0.15, 0.18),
            )),
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let params = self.sph_params();
        let mut b = ModelBuilder::new();
        b.ground = None;
        b.add_fluid_block(&FluidBlock {
            lo: Vec3::ZERO,
            counts: [15, 15, self.height],
            spacing: SPACING,
            rest_density: params.rest_density,
            vel: Vec3::ZERO,
        });
        b.add_shape(Shape::Sphere {
            center: BALL.0,
            radius: BALL.1,
            mu: 0.0,
        });
        let model = b.finalize(self.device)?;
        self.sph = Some(Sph::new(&model, params)?);
        self.a = Some(State::new(&model)?);
        self.b = Some(State::new(&model)?);
        self.model = Some(model);
        Ok(())
    }

    fn step(&mut self, _dt: f32) -> AppResult {
        let (Some(model), Some(sph), Some(a), Some(b)) =
            (&self.model, &mut self.sph, &mut self.a, &mut self.b)
        else {
            return Ok(());
        };
        sph.step(model, a, b)?;
        std::mem::swap(a, b);
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let (Some(a), Some(sph)) = (&self.a, &self.sph) else {
            return Ok(());
        };
        let q = a.particle_q.try_to_vec()?;
        let speed: Vec<f32> = a
            .particle_qd
            .try_to_vec()?
            .iter()
            .map(|v| v.length())
            .collect();
        let rho = sph.density().try_to_vec()?;
        let rest = sph.params().rest_density;
        let points = Points::new(&q).radius(0.5 * SPACING);
        let points = if self.color_by_density {
            points
                .scalars(&rho, Colormap::Viridis)
                .range(0.95 * rest, 1.05 * rest)
        } else {
            points.scalars(&speed, Colormap::Viridis).range(0.0, 2.5)
        };
        scene.log_points("water", points)?;
        scene.log_lines("box", Lines::segments(&box_edges(BOX)).color(Color::GREY))?;
        scene.log_shapes(
            "ball",
            &[weft_viewer::Shape::sphere(BALL.1)
                .at(weft_viewer::Transform::from_translation(BALL.0))
                .color(Color::GOLD)],
        )?;
        scene.log_scalar("particles", q.len() as f64);
        scene.log_scalar(
            "max speed (m/s)",
            speed.iter().fold(0.0f32, |m, &s| m.max(s)) as f64,
        );
        let max_rho = rho.iter().fold(0.0f32, |m, &r| m.max(r));
        scene.log_scalar("max density / rest", (max_rho / rest) as f64);
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        let mut changed = false;
        let mut h = self.height as f32;
        if p.slider("column height (particles)", &mut h, 5.0..=28.0) {
            self.height = h.round() as usize;
            changed = true;
        }
        changed |= p.slider("viscosity ×", &mut self.viscosity_scale, 0.25..=8.0);
        p.checkbox("colour by density", &mut self.color_by_density);
        if changed {
            let _ = self.reset();
        }
    }
}

/// The 12 edges of the box `0..size`.
fn box_edges(size: Vec3) -> Vec<[Vec3; 2]> {
    let c = |i: u32| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32) * size;
    let mut e = Vec::new();
    for i in 0..8u32 {
        for bit in [1, 2, 4] {
            if i & bit == 0 {
                e.push([c(i), c(i | bit)]);
            }
        }
    }
    e
}

fn main() -> Result<(), weft_viewer::Error> {
    let device = Device::best();
    println!("dam_break on {device}");
    weft_viewer::run(DamBreak {
        device,
        height: 25,
        viscosity_scale: 1.0,
        color_by_density: false,
        model: None,
        sph: None,
        a: None,
        b: None,
    })
}
