//! A pile of granular material poured onto the ground: 100,000 spheres of 1 cm
//! (DEM: springs between overlapping spheres with damping and Coulomb friction,
//! found through a hash grid rebuilt every substep), released in layers from a
//! spout 60 cm up, integrated by semi-implicit Euler with 32 substeps per
//! frame on the best device (the GPU when there is one).
//!
//! Run: `cargo run --release --example granular` (a window, or PNG frames in
//! `out/granular/` without a display). The whole pour takes about 4 s of simulated
//! time: headless, `-- --frames 240 --every 20`. `--set grains=N` changes the
//! count. The panel shows the grains released, the deepest overlap of a grain with
//! the ground and the largest speed. Grains are coloured by speed.

use std::time::Instant;

use glam::Vec3;
use weft::prelude::*;
use weft_sim::{Control, SemiImplicit, State};
use weft_testkit::granular::{DT, Pour, RADIUS, SUBSTEPS};
use weft_viewer::{App, AppResult, Colormap, OrbitCamera, Params, Points, Scene, Settings};

struct Granular {
    grains: usize,
    device: Device,
    pour: Option<Pour>,
    a: Option<State>,
    b: Option<State>,
    control: Control,
    solver: SemiImplicit,
    /// Wall-clock seconds spent simulating and substeps simulated.
    sim_time: (f64, u64),
}

impl Granular {
    fn new() -> Self {
        let device = Device::best();
        Granular {
            grains: 100_000,
            device,
            pour: None,
            a: None,
            b: None,
            control: Control::empty(device),
            solver: SemiImplicit::new(),
            sim_time: (0.0, 0),
        }
    }
}

impl App for Granular {
    fn settings(&self) -> Settings {
        Settings {
            title: "granular".into(),
            dt: DT,
            steps_per_frame: SUBSTEPS as u32,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(1.1, -1.5, 0.8),
                Vec3::new(0.0, 0.0, 0.12),
            )),
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let pour = Pour::new(self.device, self.grains, Vec3::new(0.0, 0.0, 0.6), 0.2, 2.5)?;
        self.a = Some(State::new(&pour.model)?);
        self.b = Some(State::new(&pour.model)?);
        self.control = Control::empty(self.device);
        self.pour = Some(pour);
        self.sim_time = (0.0, 0);
        println!("granular: {} grains on {}", self.grains, self.device);
        Ok(())
    }

    fn step(&mut self, dt: f32) -> AppResult {
        let (Some(pour), Some(a), Some(b)) = (&mut self.pour, &mut self.a, &mut self.b) else {
            return Ok(());
        };
        let t = Instant::now();
        pour.update(a, dt)?;
        self.solver.simulate(&pour.model, a, b, &self.control, dt)?;
        std::mem::swap(a, b);
        if self.sim_time.1 % 64 == 63 {
            self.device.synchronize()?;
        }
        self.sim_time.0 += t.elapsed().as_secs_f64();
        self.sim_time.1 += 1;
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let (Some(pour), Some(a)) = (&self.pour, &self.a) else {
            return Ok(());
        };
        let n = pour.released;
        let q = a.particle_q.to_vec();
        let v = a.particle_qd.to_vec();
        let speed: Vec<f32> = v[..n].iter().map(|v| v.length()).collect();
        scene.log_points(
            "grains",
            Points::new(&q[..n])
                .radius(RADIUS)
                .scalars(&speed, Colormap::Viridis)
                .range(0.0, 3.0),
        )?;
        let lowest = q[..n].iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
        scene.log_scalar("grains released", n as f64);
        if n > 0 {
            scene.log_scalar(
                "deepest overlap with the ground (% of radius)",
                (100.0 * (RADIUS - lowest) / RADIUS).max(0.0) as f64,
            );
            let top = speed.iter().fold(0.0f32, |m, s| m.max(*s));
            scene.log_scalar("max speed (m/s)", top as f64);
            let pile = q[..n].iter().map(|p| p.z).fold(0.0f32, f32::max);
            scene.log_scalar("highest grain (m)", pile as f64);
        }
        if self.sim_time.1 > 0 {
            scene.log_scalar(
                "ms per substep",
                self.sim_time.0 * 1e3 / self.sim_time.1 as f64,
            );
        }
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        if p.slider("grains", &mut self.grains, 1_000..=1_000_000) {
            let _ = self.reset();
        }
    }
}

fn main() -> Result<(), weft_viewer::Error> {
    weft_viewer::run(Granular::new())
}
