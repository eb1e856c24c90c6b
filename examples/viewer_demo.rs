//! The viewer demo: particles integrated by a Weft kernel fall onto a ball, a box
//! and the ground, next to a flag waving on a pole — everything the renderer draws
//! (instanced spheres coloured through a colour map, a mesh with smooth normals,
//! rigid shapes, lines, the ground grid, shadows) with a panel of parameters.
//!
//! Run: `cargo run --release --example viewer_demo`
//!
//! With a display it opens a window (drag to orbit, right-drag to pan, wheel to zoom,
//! Space play/pause, `.` step, `r` reset, `f` frame). Without one — or with
//! `--headless` — it renders PNG frames to `out/viewer_demo/`. `--help` lists the
//! options, e.g. `--set particles=1M --frames 120 --size 1920x1080`.

use glam::{Quat, Vec3};
use weft::prelude::*;
use weft_viewer::{
    App, AppResult, Color, Colormap, Lines, Mesh, OrbitCamera, Params, Points, Scene, Settings,
    Shape, Transform,
};

/// Semi-implicit Euler with collisions against a ball, a box and the ground.
#[weft::kernel]
fn integrate(
    x: &mut Array<Vec3>,
    v: &mut Array<Vec3>,
    gravity: Vec3,
    restitution: f32,
    radius: f32,
    ball: Vec4,
    box_center: Vec3,
    box_half: Vec3,
    dt: f32,
) {
    let i = tid();
    let mut vel = v[i] + gravity * dt;
    let mut pos = x[i] + vel * dt;

    // Ball (centre xyz, radius w).
    let c = Vec3::new(ball.x, ball.y, ball.z);
    let d = pos - c;
    let dist = d.length();
    let reach = ball.w + radius;
    if dist < reach && dist > 0.0 {
        let n = d / dist;
        pos = c + n * reach;
        let vn = vel.dot(n);
        if vn < 0.0 {
            vel = (vel - n * vn) * 0.98 - n * (vn * restitution);
        }
    }

    // Box: push out along the axis of least penetration.
    let q = pos - box_center;
    let ext = box_half + Vec3::splat(radius);
    let pen = ext - q.abs();
    if pen.x > 0.0 && pen.y > 0.0 && pen.z > 0.0 {
        if pen.z <= pen.x && pen.z <= pen.y {
            let s = sign(q.z);
            pos.z = box_center.z + s * ext.z;
            if vel.z * s < 0.0 {
                vel.z = -vel.z * restitution;
                vel.x *= 0.95;
                vel.y *= 0.95;
            }
        } else if pen.x <= pen.y {
            let s = sign(q.x);
            pos.x = box_center.x + s * ext.x;
            if vel.x * s < 0.0 {
                vel.x = -vel.x * restitution;
            }
        } else {
            let s = sign(q.y);
            pos.y = box_center.y + s * ext.y;
            if vel.y * s < 0.0 {
                vel.y = -vel.y * restitution;
            }
        }
    }

    // Ground at z = 0, with a little friction.
    if pos.z < radius {
        pos.z = radius;
        if vel.z < 0.0 {
            vel.z = -vel.z * restitution;
            vel.x *= 0.95;
            vel.y *= 0.95;
        }
    }
    x[i] = pos;
    v[i] = vel;
}

/// A block of particles above the ball, with a little random velocity.
#[weft::kernel]
fn seed(x: &mut Array<Vec3>, v: &mut Array<Vec3>, size: f32, seed: u32) {
    let i = tid();
    let mut rng = rand_init(seed, i as u32);
    let p = Vec3::new(
        randf(&mut rng) - 0.5,
        randf(&mut rng) - 0.5,
        randf(&mut rng) * 0.6,
    );
    x[i] = Vec3::new(p.x * size, p.y * size, 1.1 + p.z * size);
    v[i] = Vec3::new(randn(&mut rng), randn(&mut rng), randn(&mut rng)) * 0.15;
}

/// Per-particle speed and height, for colouring.
#[weft::kernel]
fn color_values(x: &Array<Vec3>, v: &Array<Vec3>, speed: &mut Array<f32>, height: &mut Array<f32>) {
    let i = tid();
    speed[i] = v[i].length();
    height[i] = x[i].z;
}

/// The flag: a sheet hanging from the pole, rippling with a travelling wave that
/// grows towards the free edge.
#[weft::kernel]
fn wave(rest: &Array<Vec3>, along: &Array<f32>, x: &mut Array<Vec3>, t: f32, wind: f32) {
    let i = tid();
    let s = along[i];
    let phase = 7.0 * s - 6.0 * t + rest[i].z * 2.0;
    let side = wind * 0.16 * s * phase.sin();
    let sag = -0.06 * s * s * (1.0 - 0.5 * wind);
    x[i] = rest[i] + Vec3::new(0.0, side, sag);
}

const COUNTS: [(&str, usize); 5] = [
    ("5k", 5_000),
    ("20k", 20_000),
    ("100k", 100_000),
    ("1M", 1_000_000),
    ("4M", 4_000_000),
];
const BALL: Vec4 = Vec4::new(0.0, 0.0, 0.35, 0.35);
const BOX_CENTER: Vec3 = Vec3::new(0.75, -0.55, 0.15);
const BOX_HALF: Vec3 = Vec3::new(0.3, 0.25, 0.15);
const POLE: Vec3 = Vec3::new(-1.1, 0.7, 0.0);
const FLAG_W: usize = 36;
const FLAG_H: usize = 20;

struct Demo {
    // Parameters (the panel edits them).
    count: usize,
    gravity: f32,
    restitution: f32,
    radius: f32,
    color_by: usize,
    colormap: usize,
    wind: f32,
    show_velocity: bool,
    // State.
    x: Array<Vec3>,
    v: Array<Vec3>,
    speed: Array<f32>,
    height: Array<f32>,
    flag_rest: Array<Vec3>,
    flag_along: Array<f32>,
    flag: Array<Vec3>,
    flag_tris: Vec<[u32; 3]>,
    time: f32,
}

impl Demo {
    fn new() -> Self {
        let (rest, along, tris) = flag_mesh();
        let n = rest.len();
        Demo {
            count: 1,
            gravity: 9.81,
            restitution: 0.45,
            radius: 0.012,
            color_by: 0,
            colormap: 0,
            wind: 1.0,
            show_velocity: true,
            x: Array::zeros(Device::Cpu, [0]),
            v: Array::zeros(Device::Cpu, [0]),
            speed: Array::zeros(Device::Cpu, [0]),
            height: Array::zeros(Device::Cpu, [0]),
            flag_rest: Array::from_vec(Device::Cpu, rest),
            flag_along: Array::from_vec(Device::Cpu, along),
            flag: Array::zeros(Device::Cpu, [n]),
            flag_tris: tris,
            time: 0.0,
        }
    }

    fn n(&self) -> usize {
        COUNTS[self.count].1
    }
}

/// The flag's rest grid (in the x–z plane, hanging from the pole top), the distance
/// of each vertex from the pole (0..1), and its triangles.
fn flag_mesh() -> (Vec<Vec3>, Vec<f32>, Vec<[u32; 3]>) {
    let (w, h) = (0.9, 0.5);
    let top = POLE + Vec3::new(0.0, 0.0, 1.55);
    let mut rest = Vec::new();
    let mut along = Vec::new();
    for j in 0..=FLAG_H {
        for i in 0..=FLAG_W {
            let s = i as f32 / FLAG_W as f32;
            rest.push(top + Vec3::new(0.03 + s * w, 0.0, -(j as f32 / FLAG_H as f32) * h));
            along.push(s);
        }
    }
    let mut tris = Vec::new();
    let row = (FLAG_W + 1) as u32;
    for j in 0..FLAG_H as u32 {
        for i in 0..FLAG_W as u32 {
            let a = j * row + i;
            tris.push([a, a + row, a + 1]);
            tris.push([a + 1, a + row, a + row + 1]);
        }
    }
    (rest, along, tris)
}

impl App for Demo {
    fn settings(&self) -> Settings {
        Settings {
            title: "viewer_demo".into(),
            dt: 1.0 / 240.0,
            steps_per_frame: 4,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(2.05, -2.35, 1.35),
                Vec3::new(-0.15, 0.05, 0.5),
            )),
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let n = self.n();
        self.x = Array::zeros(Device::Cpu, [n]);
        self.v = Array::zeros(Device::Cpu, [n]);
        self.speed = Array::zeros(Device::Cpu, [n]);
        self.height = Array::zeros(Device::Cpu, [n]);
        // Bigger crowds get a bigger block so they do not all overlap.
        let size = 0.5 * (n as f32 / 20_000.0).cbrt().max(1.0);
        seed::launch(n, &mut self.x, &mut self.v, size, 7)?;
        self.time = 0.0;
        self.step(0.0)?;
        Ok(())
    }

    fn step(&mut self, dt: f32) -> AppResult {
        let n = self.n();
        let g = Vec3::new(0.0, 0.0, -self.gravity);
        integrate::launch(
            n,
            &mut self.x,
            &mut self.v,
            g,
            self.restitution,
            self.radius,
            BALL,
            BOX_CENTER,
            BOX_HALF,
            dt,
        )?;
        self.time += dt;
        wave::launch(
            self.flag.len(),
            &self.flag_rest,
            &self.flag_along,
            &mut self.flag,
            self.time,
            self.wind,
        )?;
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let n = self.n();
        color_values::launch(n, &self.x, &self.v, &mut self.speed, &mut self.height)?;
        let x = self.x.as_slice();
        let map = [Colormap::Viridis, Colormap::Magma, Colormap::Coolwarm][self.colormap];
        let points = Points::new(&x).radius(self.radius);
        let speed = self.speed.as_slice();
        let height = self.height.as_slice();
        let points = match self.color_by {
            0 => points.scalars(&speed, map).range(0.0, 3.5),
            1 => points.scalars(&height, map).range(0.0, 1.2),
            _ => points.color(Color::SKY),
        };
        scene.log_points("particles", points)?;

        let flag = self.flag.as_slice();
        scene.log_mesh(
            "flag",
            Mesh::from_triangles(&flag, &self.flag_tris).color(Color::CORAL),
        )?;
        // The flag's hem, as lines.
        let hem: Vec<Vec3> = (0..=FLAG_W)
            .map(|i| flag[FLAG_H * (FLAG_W + 1) + i])
            .collect();
        scene.log_lines(
            "hem",
            Lines::strip(&hem).color(Color::rgb(120, 30, 20)).width(2.0),
        )?;

        scene.log_shapes(
            "obstacles",
            &[
                Shape::sphere(BALL.w)
                    .at(Transform::from_translation(BALL.truncate()))
                    .color(Color::TEAL),
                Shape::cuboid(BOX_HALF)
                    .at(Transform::from_translation(BOX_CENTER))
                    .color(Color::GOLD),
                Shape::capsule(0.025, 0.8)
                    .at(Transform::from_translation(POLE + Vec3::Z * 0.8))
                    .color(Color::rgb(70, 70, 80)),
                Shape::sphere(0.045)
                    .at(Transform::from_translation(POLE + Vec3::Z * 1.63))
                    .color(Color::GOLD),
                Shape::cuboid(Vec3::new(0.12, 0.12, 0.02))
                    .at(Transform::new(
                        POLE + Vec3::Z * 0.02,
                        Quat::from_rotation_z(0.4),
                    ))
                    .color(Color::rgb(70, 70, 80)),
            ],
        )?;

        if self.show_velocity {
            let stride = (n / 120).max(1);
            let v = self.v.as_slice();
            let origins: Vec<Vec3> = x.iter().step_by(stride).copied().collect();
            let vectors: Vec<Vec3> = v.iter().step_by(stride).copied().collect();
            scene.log_lines(
                "velocity",
                Lines::vectors(&origins, &vectors, 0.06)
                    .color(Color::rgb(30, 40, 110))
                    .width(1.5),
            )?;
        }

        let inv = 1.0 / n as f64;
        let ke: f64 = speed
            .iter()
            .map(|s| 0.5 * (*s as f64) * (*s as f64))
            .sum::<f64>()
            * inv;
        let mean_z: f64 = height.iter().map(|z| *z as f64).sum::<f64>() * inv;
        scene.log_scalar("kinetic energy (J/kg)", ke);
        scene.log_scalar("mean height (m)", mean_z);
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        let labels: Vec<&str> = COUNTS.iter().map(|(l, _)| *l).collect();
        if p.choice("particles", &mut self.count, &labels) {
            // A new count needs new arrays: rebuild (the viewer resets time too on `r`).
            let _ = self.reset();
        }
        p.slider("gravity", &mut self.gravity, 0.0..=20.0);
        p.slider("restitution", &mut self.restitution, 0.0..=1.0);
        p.slider("radius", &mut self.radius, 0.003..=0.05);
        p.choice(
            "colour by",
            &mut self.color_by,
            &["speed", "height", "none"],
        );
        p.choice(
            "colour map",
            &mut self.colormap,
            &["viridis", "magma", "coolwarm"],
        );
        p.slider("wind", &mut self.wind, 0.0..=2.0);
        p.checkbox("velocity vectors", &mut self.show_velocity);
    }
}

fn main() -> Result<(), weft_viewer::Error> {
    weft_viewer::run(Demo::new())
}
