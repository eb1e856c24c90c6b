//! A few thousand rigid bodies rain onto a terrain: boxes (orange), spheres
//! (blue), capsules (teal) and convex rocks (coral), 5–14 cm across, start in
//! a loose, jittered lattice of 20 × 20 per layer and fall into a bumpy bowl —
//! a static triangle mesh of 4,608 triangles — where they tumble, roll and
//! pile up. `XpbdRigid` steps them (16 substeps per 60 Hz frame by default);
//! the panel switches to `SemiImplicit` penalty contacts (32 substeps), sets
//! the body count and the substeps, and mixes in cylinders (gold; off by
//! default, see `PileConfig::cylinders`).
//!
//! Run: `cargo run --release --example rigid_pile` (a window, or PNG frames in
//! `out/rigid_pile/` without a display; the pile settles in about 4 s:
//! headless, `-- --frames 60 --steps-per-frame 4 --every 10`). `--set
//! count=N`, `--set solver=semi-implicit`, `--set substeps=N` and `--set
//! cylinders=true` change the scene. The panel
//! shows the time per step, the fastest body and the deepest any body's
//! centre has sunk below the terrain (0 when nothing tunnels through).
//!
//! With `XpbdRigid` the pile lands and spreads over the bowl (2,000 bodies,
//! 62 ms per step on a 2-core VM). Known problem: a few convex rocks that
//! land spinning fast (20–60 rad/s) pass through the mesh (from frame 25; the
//! panel's "deepest centre below the terrain" shows it). With penalty
//! contacts (`--set solver=semi-implicit`, about 20 times the cost per frame)
//! the pile settles with a few bodies thrown out or through.
//! `tests/rigid_pile.rs` and `docs/notes/rigid.md` have the numbers.

use std::time::Instant;

use glam::Vec3;
use weft::prelude::*;
use weft_collide::Geometry;
use weft_sim::State;
use weft_testkit::rigid_pile::{Kind, Pile, PileConfig, PileStepper, Solver};
use weft_viewer::{App, AppResult, Color, Mesh, OrbitCamera, Params, Scene, Settings, Shape};

const SOLVERS: [Solver; 2] = [Solver::Xpbd, Solver::SemiImplicit];

struct RigidPile {
    count: usize,
    solver: usize,
    cylinders: bool,
    substeps: usize,
    pile: Option<Pile>,
    stepper: Option<PileStepper>,
    a: Option<State>,
    b: Option<State>,
    /// The terrain mesh, for drawing.
    terrain: (Vec<Vec3>, Vec<[u32; 3]>),
    /// Wall-clock seconds spent stepping and steps taken.
    sim_time: (f64, u64),
}

impl RigidPile {
    fn new() -> Self {
        RigidPile {
            count: 2_000,
            solver: 0,
            cylinders: false,
            substeps: Solver::Xpbd.default_substeps(),
            pile: None,
            stepper: None,
            a: None,
            b: None,
            terrain: (Vec::new(), Vec::new()),
            sim_time: (0.0, 0),
        }
    }
}

/// A kind's colour, shaded a little per body so neighbours stand apart.
fn color(kind: Kind, body: usize) -> Color {
    let base = match kind {
        Kind::Box => Color::ORANGE,
        Kind::Sphere => Color::SKY,
        Kind::Capsule => Color::TEAL,
        Kind::Cylinder => Color::GOLD,
        Kind::Rock => Color::CORAL,
    };
    let t = ((body as u32).wrapping_mul(2_654_435_761) >> 24) as f32 / 255.0;
    base.lerp(Color::WHITE, 0.25 * t)
}

impl App for RigidPile {
    fn settings(&self) -> Settings {
        Settings {
            title: "rigid_pile".into(),
            dt: 1.0 / 60.0,
            steps_per_frame: 1,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(4.6, -5.6, 3.6),
                Vec3::new(0.0, 0.0, 0.35),
            )),
            ground: None,
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let mut config = PileConfig::example(self.count);
        if self.cylinders {
            config.cylinders = 0.1;
        }
        let pile = Pile::new(&config, Device::Cpu)?;
        let solver = SOLVERS[self.solver];
        self.stepper = Some(PileStepper::new(&pile.model, solver, self.substeps)?);
        self.a = Some(State::new(&pile.model)?);
        self.b = Some(State::new(&pile.model)?);
        self.terrain = pile.terrain.triangles();
        println!(
            "rigid_pile: {} bodies, {solver:?} with {} substeps, terrain of {} triangles",
            self.count,
            self.substeps,
            self.terrain.1.len()
        );
        self.pile = Some(pile);
        self.sim_time = (0.0, 0);
        Ok(())
    }

    fn step(&mut self, dt: f32) -> AppResult {
        let (Some(pile), Some(stepper), Some(a), Some(b)) =
            (&self.pile, &mut self.stepper, &mut self.a, &mut self.b)
        else {
            return Ok(());
        };
        let t = Instant::now();
        stepper.step(&pile.model, a, b, dt)?;
        self.sim_time.0 += t.elapsed().as_secs_f64();
        self.sim_time.1 += 1;
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let (Some(pile), Some(a)) = (&self.pile, &self.a) else {
            return Ok(());
        };
        scene.log_mesh(
            "terrain",
            Mesh::from_triangles(&self.terrain.0, &self.terrain.1).color(Color::hex(0x8C_A0_7E)),
        )?;
        let q = a.body_q.to_vec();
        let mut shapes = Vec::with_capacity(q.len());
        // Rocks: one mesh of every rock's triangles, vertices unshared so each
        // face is shaded flat.
        let (mut rock_points, mut rock_colors) = (Vec::new(), Vec::new());
        for (body, (x, g)) in q.iter().zip(&pile.geometry).enumerate() {
            let c = color(pile.kinds[body], body);
            let shape = match g {
                Geometry::Box { half_extents } => Shape::cuboid(*half_extents),
                Geometry::Sphere { radius } => Shape::sphere(*radius),
                Geometry::Capsule {
                    radius,
                    half_height,
                } => Shape::capsule(*radius, *half_height),
                Geometry::Cylinder {
                    radius,
                    half_height,
                } => Shape::cylinder(*radius, *half_height),
                Geometry::Convex { hull, scale } => {
                    let v = hull.vertices();
                    for t in hull.triangles() {
                        for k in t {
                            rock_points.push(x.p + x.q * (v[*k as usize] * *scale));
                            rock_colors.push(c);
                        }
                    }
                    continue;
                }
                _ => continue,
            };
            shapes.push(shape.at(*x).color(c));
        }
        scene.log_shapes("bodies", &shapes)?;
        let rock_index: Vec<u32> = (0..rock_points.len() as u32).collect();
        if !rock_points.is_empty() {
            scene.log_mesh(
                "rocks",
                Mesh::new(&rock_points, &rock_index).colors(&rock_colors),
            )?;
        }

        let qd = a.body_qd.to_vec();
        let fastest = qd.iter().map(|v| v.top.length()).fold(0.0f32, f32::max);
        let sunk = q
            .iter()
            .filter_map(|x| pile.terrain.height_at(x.p.x, x.p.y).map(|h| h - x.p.z))
            .fold(0.0f32, f32::max);
        scene.log_scalar("bodies", q.len() as f64);
        scene.log_scalar("fastest body (m/s)", fastest as f64);
        scene.log_scalar("deepest centre below the terrain (mm)", 1e3 * sunk as f64);
        if self.sim_time.1 > 0 {
            scene.log_scalar(
                "ms per step",
                self.sim_time.0 * 1e3 / self.sim_time.1 as f64,
            );
        }
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        let mut changed = p.slider("count", &mut self.count, 10..=10_000);
        if p.choice("solver", &mut self.solver, &["xpbd", "semi-implicit"]) {
            self.substeps = SOLVERS[self.solver].default_substeps();
            changed = true;
        }
        changed |= p.slider("substeps", &mut self.substeps, 1..=64);
        changed |= p.checkbox("cylinders", &mut self.cylinders);
        if changed {
            let _ = self.reset();
        }
    }
}

fn main() -> Result<(), weft_viewer::Error> {
    weft_viewer::run(RigidPile::new())
}
