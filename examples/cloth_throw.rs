//! Optimizes the initial velocity of a thrown cloth so that its centre of mass
//! comes to rest on a target, by gradient descent through 600 simulation steps:
//! a 16 × 16-cell cloth (membrane triangles and bending), thrown tilted and
//! spinning like a frisbee with one velocity `v0` shared by every particle, flies
//! for about 0.9 s, lands on the ground, slides, and is at rest well before the
//! last step at 1.5 s. The loss is the squared distance of the centre of mass at
//! the last step to the target; the gradient d loss / d v0 comes from the tape
//! through every step.
//!
//! Ground contact makes such a loss piecewise smooth: each particle's first touch
//! and each switch of friction to Coulomb's cone is a crease, hundreds of
//! particles land at different steps, and a stiff contact resolved in two or three
//! steps makes the landing depend on where between two steps it happens. So the
//! ground here is rounded off (see `weft_testkit::cloth_throw`: the depth's kink
//! smoothed over ±2 cm, damping that grows from zero with the depth, Coulomb
//! friction smoothed over a slip speed, a contact soft enough to spread a landing
//! over many steps — a landing cloth sinks about 3 cm for a moment), which makes
//! the loss continuously differentiable; and the last step is taken after the
//! cloth has stopped, so the loss measures where it rests, not where it happens to
//! be mid-slide. Finite differences then agree with the tape to about 1e-3 and
//! plain gradient descent converges to a tenth of a millimetre in 15 iterations.
//! (A cloth that tumbles instead — spin about an axis in its plane — lands folding
//! over itself, and where it folds changes abruptly with the throw: that
//! gradient is rough whatever the contact.)
//!
//! Gradcheck first, a progress bar while it runs, the loss curve at the end and a
//! plot (`out/cloth_throw_loss.png`); then the optimized throw plays in the viewer
//! (the panel's `throw` switches to the initial guess, as does `--set throw=guess`),
//! or without a display is rendered to PNG frames in `out/cloth_throw/`. The target
//! is the gold marker and pole; the paths of the centre of mass are drawn for both
//! throws (coral: optimized, blue: the initial guess).
//!
//! Run: `cargo run --release --example cloth_throw` (`-- --help` lists the
//! viewer's options).

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use plotters::style::Color as _;
use weft::prelude::*;
use weft_sim::{Model, State};
use weft_testkit::cloth_throw::{Stepper, ThrowConfig, ThrowRollout, initial_velocities};
use weft_viewer::{App, AppResult, Color, Lines, Mesh, OrbitCamera, Params, Scene, Settings};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Parse the viewer's options first, so that `--help` answers at once.
    let options = weft_viewer::Options::from_env();
    let dev = Device::Cpu;
    let config = ThrowConfig::example();

    // A target the cloth can reach: where the centre of mass of a throw at
    // (2.6, 0.8, 2.4) m/s comes to rest.
    let target = {
        let mut probe = ThrowRollout::new(config, dev, Vec3::ZERO)?;
        let throw = Array::from_slice(dev, &[Vec3::new(2.6, 0.8, 2.4)]);
        probe.run(&throw, &mut Array::zeros(dev, [1]))?;
        probe.final_com()
    };
    let mut rollout = ThrowRollout::new(config, dev, target)?;
    let guess = Vec3::new(1.2, -0.6, 3.2);
    let mut v0 = Array::from_slice(dev, &[guess]).requires_grad();
    println!(
        "{} particles, {} steps of {:.2} ms; target {target:.3?}",
        rollout.particle_count(),
        config.steps,
        config.dt * 1e3
    );

    // Check the gradient once before trusting it.
    let t = Instant::now();
    let report = gradcheck(&mut [&mut v0], None, |v, loss| rollout.run(v[0], loss))?;
    println!("{report} ({:.1} s)", t.elapsed().as_secs_f32());
    let tape_grad = v0.grad_to_vec().expect("gradcheck leaves the gradient")[0];
    println!("d loss / d v0 = {tape_grad:.5?}");

    let iterations = 40;
    let lr = 0.3;
    let bar = ProgressBar::new(iterations);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} loss {msg} [{elapsed}]",
    )?);
    let mut losses = Vec::new();
    let mut loss = Array::zeros(dev, [1]).requires_grad();
    let mut tape = Tape::new();
    let t = Instant::now();
    for _ in 0..iterations {
        rollout.gradient(&mut tape, &v0, &mut loss)?;
        let l = loss.to_vec()[0];
        losses.push(l);
        let g = v0.grad_to_vec().expect("v0 requires grad")[0];
        v0.copy_from_slice(&[v0.to_vec()[0] - g * lr])?;
        bar.set_message(format!("{l:.3e}"));
        bar.inc(1);
    }
    bar.finish();
    let seconds = t.elapsed().as_secs_f32();

    let best = v0.to_vec()[0];
    rollout.run(&v0, &mut loss)?;
    let (end, final_loss) = (rollout.final_com(), loss.to_vec()[0]);
    let optimized_path = rollout.com_path();
    println!("loss curve (every 4 iterations):");
    for (k, l) in losses.iter().enumerate().step_by(4) {
        println!("  {k:4}  {l:.4e}");
    }
    println!(
        "{iterations} iterations in {seconds:.1} s ({:.0} ms each, forward and backward)",
        1e3 * seconds / iterations as f32
    );
    println!("initial velocity {guess:.3?} -> {best:.3?}");
    println!(
        "centre of mass ends at {end:.3?} (target {target:.3?}, {:.1} mm away; fastest particle {:.3} m/s)",
        1e3 * (end - target).length(),
        rollout.final_max_speed()
    );
    println!(
        "loss {:.4e} -> {final_loss:.4e} ({:.2e} of the initial)",
        losses[0],
        final_loss / losses[0]
    );

    std::fs::create_dir_all("out")?;
    plot(&losses, "out/cloth_throw_loss.png")?;
    println!("wrote out/cloth_throw_loss.png");

    // The initial guess's path, for the viewer to show next to the optimized one.
    let guess_path = {
        rollout.run(&Array::from_slice(dev, &[guess]), &mut loss)?;
        rollout.com_path()
    };
    let view = ThrowView::new(config, [best, guess], [optimized_path, guess_path], target);
    weft_viewer::run_with(view, &options)?;
    Ok(())
}

/// The loss per iteration, log scale (no text: plotters is built without fonts).
fn plot(losses: &[f32], path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let log = |l: f32| l.max(1e-12).log10();
    let lo = losses
        .iter()
        .cloned()
        .map(log)
        .fold(f32::INFINITY, f32::min);
    let hi = losses
        .iter()
        .cloned()
        .map(log)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut chart = ChartBuilder::on(&root)
        .margin(20)
        .build_cartesian_2d(0f32..losses.len() as f32, lo - 0.1..hi + 0.1)?;
    chart.configure_mesh().x_labels(0).y_labels(0).draw()?;
    chart.draw_series(LineSeries::new(
        losses.iter().enumerate().map(|(i, l)| (i as f32, log(*l))),
        BLUE.stroke_width(2),
    ))?;
    root.present()?;
    Ok(())
}

/// Steps simulated after the rollout's end before the window replays the throw.
const REST_STEPS: usize = 200;

/// The throw in the viewer: the optimized one, or the initial guess.
struct ThrowView {
    config: ThrowConfig,
    /// Initial velocities: optimized, initial guess.
    throws: [Vec3; 2],
    /// Their centres of mass at every step of the rollout.
    paths: [Vec<Vec3>; 2],
    target: Vec3,
    /// 0: the optimized throw, 1: the initial guess.
    which: usize,
    model: Option<Model>,
    a: Option<State>,
    b: Option<State>,
    stepper: Stepper,
    tris: Vec<[u32; 3]>,
    steps: usize,
}

impl ThrowView {
    fn new(config: ThrowConfig, throws: [Vec3; 2], paths: [Vec<Vec3>; 2], target: Vec3) -> Self {
        ThrowView {
            stepper: Stepper::new(&config, Device::Cpu),
            config,
            throws,
            paths,
            target,
            which: 0,
            model: None,
            a: None,
            b: None,
            tris: Vec::new(),
            steps: 0,
        }
    }
}

impl App for ThrowView {
    fn settings(&self) -> Settings {
        Settings {
            title: "cloth_throw".into(),
            dt: self.config.dt,
            // 50 frames a second: the rollout is 62.5 frames.
            steps_per_frame: 8,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(0.1, -3.9, 2.1),
                Vec3::new(0.0, 0.3, 0.55),
            )),
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let model = self.config.build(Device::Cpu)?;
        let mut a = State::new(&model)?;
        let v = initial_velocities(&self.config, &model, self.throws[self.which]);
        a.particle_qd.copy_from_slice(&v)?;
        self.b = Some(State::new(&model)?);
        self.a = Some(a);
        self.tris = model
            .tri_indices
            .to_vec()
            .iter()
            .map(|t| [t.x as u32, t.y as u32, t.z as u32])
            .collect();
        self.model = Some(model);
        self.steps = 0;
        Ok(())
    }

    fn step(&mut self, _dt: f32) -> AppResult {
        if self.steps >= self.config.steps + REST_STEPS {
            // Replay the throw.
            return self.reset();
        }
        let (Some(model), Some(a), Some(b)) = (&self.model, &mut self.a, &mut self.b) else {
            return Ok(());
        };
        self.stepper.step(model, a, b)?;
        std::mem::swap(a, b);
        self.steps += 1;
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let Some(a) = &self.a else { return Ok(()) };
        let q = a.particle_q.to_vec();
        let color = [Color::CORAL, Color::SKY][self.which];
        scene.log_mesh("cloth", Mesh::from_triangles(&q, &self.tris).color(color))?;
        // The target: a gold marker with a pole, visible under the cloth too.
        scene.log_shapes(
            "target",
            &[weft_viewer::Shape::sphere(0.035)
                .at(weft_viewer::Transform::from_translation(self.target))
                .color(Color::GOLD)],
        )?;
        let pole = [[self.target, self.target + Vec3::Z * 0.6]];
        scene.log_lines(
            "target pole",
            Lines::segments(&pole).color(Color::GOLD).width(3.0),
        )?;
        // Centre-of-mass paths of both throws, the shown one drawn bolder.
        let shown = self.steps.min(self.config.steps);
        for (k, (name, c)) in [
            ("optimized path", Color::CORAL),
            ("initial guess path", Color::SKY),
        ]
        .into_iter()
        .enumerate()
        {
            let path = if k == self.which {
                &self.paths[k][..=shown]
            } else {
                &self.paths[k][..]
            };
            let width = if k == self.which { 3.0 } else { 1.5 };
            scene.log_lines(name, Lines::strip(path).color(c).width(width))?;
        }
        let com = q.iter().sum::<Vec3>() / q.len() as f32; // equal masses
        scene.log_shapes(
            "centre of mass",
            &[weft_viewer::Shape::sphere(0.02)
                .at(weft_viewer::Transform::from_translation(com))
                .color(Color::BLACK)],
        )?;
        scene.log_scalar("time (s)", (self.steps as f32 * self.config.dt) as f64);
        scene.log_scalar(
            "centre of mass to target (cm)",
            100.0 * (com - self.target).length() as f64,
        );
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        if p.choice("throw", &mut self.which, &["optimized", "guess"]) {
            let _ = self.reset();
        }
    }
}
