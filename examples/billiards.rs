//! A cut shot found by gradient descent through the contacts: the cue ball
//! (white) must strike the red ball so that it rolls into the top-right corner
//! pocket and stops there. The cue ball's initial velocity is optimized
//! through 1,500 steps of 2 ms (3 s) of `SemiImplicit` rigid-body dynamics:
//! penalty contacts with the cloth (regularised friction turns the sliding
//! ball into a rolling one) and the six cushions, elastic ball–ball contacts,
//! rolling resistance. The loss is the squared distance of the red ball's
//! final position to the pocket's centre; its gradient comes from the tape.
//!
//! The contacts are made smooth enough to differentiate (see
//! `weft_testkit::billiards`): no contact damping; the balls' contacts with
//! each other are computed by the example, along the line between their
//! centres (weft-sim's penalty contacts hold the normal found at the start of
//! the step, so their gradient misses how a cut turns it — the one thing this
//! shot depends on) and with the force's onset rounded off over 1 cm, so the
//! step a collision starts in does not swing the gradient; and friction with
//! the cloth stays in its viscous range. Finite differences then agree with
//! the tape to 1–4 % (shots that send the red ball into a cushion excepted).
//!
//! The shot is about ten times more sensitive to the aim than to the speed, so
//! plain gradient descent either crawls or, with a larger step, misses the red
//! ball entirely (and a miss has no gradient): the example uses Adam (its
//! per-component step sizes suit a shot aimed mostly along x) with a decaying
//! rate.
//!
//! Gradcheck first, a progress bar while it runs, the loss curve at the end
//! and a plot (`out/billiards_loss.png`); then the optimized shot plays in
//! the viewer (the panel's `shot` switches to the initial guess, as does
//! `--set shot=guess`), or without a display is rendered to PNG frames in
//! `out/billiards/`. The red ball's path is drawn (coral: optimized, blue: the
//! initial guess).
//!
//! Run: `cargo run --release --example billiards` (the whole shot headless:
//! `-- --frames 160 --every 10`; `-- --help` lists the viewer's options).

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use plotters::style::Color as _;
use weft::prelude::*;
use weft_sim::{Control, Model, SemiImplicit, State};
use weft_testkit::billiards::{
    Adam, HALF, RADIUS, ShotConfig, ShotRollout, cushions, pockets, solver, step,
};
use weft_viewer::{App, AppResult, Color, Lines, OrbitCamera, Params, Scene, Settings, Shape};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Parse the viewer's options first, so that `--help` answers at once.
    let options = weft_viewer::Options::from_env();
    let dev = Device::Cpu;
    let config = ShotConfig::example();
    let mut rollout = ShotRollout::new(config, dev)?;
    // The initial guess: straight at the red ball at 1.3 m/s (a full hit
    // sends it along the cue's line, 25° below the pocket).
    let aim = (config.balls[1] - config.balls[0]).normalize();
    let guess = (aim * 1.3).extend(0.0);
    println!(
        "{} balls, {} steps of {:.1} ms; pocket at {:.3?}",
        rollout.model.body_count(),
        config.steps,
        config.dt * 1e3,
        config.pocket
    );

    // Check the gradient once before trusting it.
    let mut cue = Array::from_slice(dev, &[guess]).requires_grad();
    let t = Instant::now();
    let report = gradcheck(&mut [&mut cue], Some(1e-2), |v, loss| {
        rollout.run(v[0], loss)
    })?;
    println!("{report} ({:.1} s)", t.elapsed().as_secs_f32());
    let tape_grad = cue.grad_to_vec().ok_or("gradcheck leaves the gradient")?[0];
    println!("d loss / d cue velocity = {tape_grad:.4?}");

    // Adam on the cue velocity's x and y (the shot stays on the table: z = 0).
    let iterations = 80;
    let mut adam = Adam::new(0.04, 0.95);
    let bar = ProgressBar::new(iterations);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} loss {msg} [{elapsed}]",
    )?);
    let mut losses = Vec::new();
    let mut loss = Array::zeros(dev, [1]).requires_grad();
    let mut tape = Tape::new();
    let t = Instant::now();
    for _ in 0..iterations {
        rollout.gradient(&mut tape, &cue, &mut loss)?;
        let l = loss.to_vec()[0];
        losses.push(l);
        let g = cue.grad_to_vec().ok_or("cue requires grad")?[0].truncate();
        let v = adam.step(cue.to_vec()[0].truncate(), g);
        cue.copy_from_slice(&[v.extend(0.0)])?;
        bar.set_message(format!("{l:.3e}"));
        bar.inc(1);
    }
    bar.finish();
    let seconds = t.elapsed().as_secs_f32();

    let best = cue.to_vec()[0];
    rollout.run(&cue, &mut loss)?;
    let final_loss = loss.to_vec()[0];
    let (q, qd) = rollout.final_state();
    let optimized_path = rollout.paths()[1].clone();
    println!("loss curve (every 5 iterations):");
    for (k, l) in losses.iter().enumerate().step_by(5) {
        println!("  {k:4}  {l:.4e}");
    }
    println!(
        "{iterations} iterations in {seconds:.1} s ({:.0} ms each, forward and backward)",
        1e3 * seconds / iterations as f32
    );
    println!(
        "cue velocity {guess:.3?} ({:.3} m/s) -> {best:.3?} ({:.3} m/s)",
        guess.length(),
        best.length()
    );
    println!(
        "red ball ends at {:.3?}, {:.1} mm from the pocket's centre, moving at {:.1} mm/s",
        q[1].p.truncate(),
        1e3 * (q[1].p.truncate() - config.pocket).length(),
        1e3 * qd[1].top.length()
    );
    println!(
        "loss {:.4e} -> {final_loss:.4e} ({:.2e} of the initial)",
        losses[0],
        final_loss / losses[0]
    );

    std::fs::create_dir_all("out")?;
    plot(&losses, "out/billiards_loss.png")?;
    println!("wrote out/billiards_loss.png");

    // The initial guess's path, for the viewer to show next to the optimized one.
    let guess_path = {
        rollout.run(&Array::from_slice(dev, &[guess]), &mut loss)?;
        rollout.paths()[1].clone()
    };
    let view = ShotView::new(config, [best, guess], [optimized_path, guess_path]);
    weft_viewer::run_with(view, &options)?;
    Ok(())
}

/// The loss per iteration, log scale (no text: plotters is built without fonts).
fn plot(losses: &[f32], path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let log = |l: f32| l.max(1e-12).log10();
    let lo = losses.iter().map(|l| log(*l)).fold(f32::INFINITY, f32::min);
    let hi = losses
        .iter()
        .map(|l| log(*l))
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

/// Steps simulated after the rollout's end before the window replays the shot.
const REST_STEPS: usize = 250;

/// Ball colours: cue, target, the two others.
const BALLS: [Color; 4] = [
    Color::WHITE,
    Color::rgb(0xC6, 0x28, 0x28),
    Color::GOLD,
    Color::rgb(0x1E, 0x4F, 0xB0),
];

/// The shot in the viewer: the optimized one, or the initial guess.
struct ShotView {
    config: ShotConfig,
    /// Cue velocities: optimized, initial guess.
    shots: [Vec3; 2],
    /// The red ball's positions at every step of the rollout, for both.
    paths: [Vec<Vec3>; 2],
    /// 0: the optimized shot, 1: the initial guess.
    which: usize,
    model: Option<Model>,
    a: Option<State>,
    b: Option<State>,
    solver: SemiImplicit,
    control: Control,
    steps: usize,
}

impl ShotView {
    fn new(config: ShotConfig, shots: [Vec3; 2], paths: [Vec<Vec3>; 2]) -> Self {
        ShotView {
            config,
            shots,
            paths,
            which: 0,
            model: None,
            a: None,
            b: None,
            solver: solver(),
            control: Control::empty(Device::Cpu),
            steps: 0,
        }
    }
}

/// The table as drawn: the cloth (a slab under z = 0), the cushions, a wooden
/// rail around them and the pockets (black discs on the cloth).
fn table() -> Vec<Shape> {
    let mut shapes = vec![
        Shape::cuboid(Vec3::new(HALF.x + 0.08, HALF.y + 0.08, 0.02))
            .at(Transform::from_translation(Vec3::new(0.0, 0.0, -0.02)))
            .color(Color::rgb(0x2E, 0x7D, 0x32)),
    ];
    for (centre, half) in cushions() {
        shapes.push(
            Shape::cuboid(half)
                .at(Transform::from_translation(centre))
                .color(Color::rgb(0x1B, 0x5E, 0x20)),
        );
    }
    let rail = Color::rgb(0x6D, 0x4C, 0x41);
    let (w, h) = (0.05, 0.04);
    let (x, y) = (HALF.x + 0.08 + w, HALF.y + 0.08 + w);
    for (c, half) in [
        (Vec3::new(0.0, y, 0.0), Vec3::new(x + w, w, h)),
        (Vec3::new(0.0, -y, 0.0), Vec3::new(x + w, w, h)),
        (Vec3::new(x, 0.0, 0.0), Vec3::new(w, y - w, h)),
        (Vec3::new(-x, 0.0, 0.0), Vec3::new(w, y - w, h)),
    ] {
        shapes.push(
            Shape::cuboid(half)
                .at(Transform::from_translation(c))
                .color(rail),
        );
    }
    for p in pockets() {
        shapes.push(
            Shape::cylinder(0.058, 0.001)
                .at(Transform::from_translation(p.extend(0.0005)))
                .color(Color::BLACK),
        );
    }
    shapes
}

impl App for ShotView {
    fn settings(&self) -> Settings {
        Settings {
            title: "billiards".into(),
            dt: self.config.dt,
            // 50 frames a second.
            steps_per_frame: 10,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(0.25, -1.45, 1.25),
                Vec3::new(0.1, 0.05, 0.0),
            )),
            ground: None,
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let model = self.config.build(Device::Cpu)?;
        let mut a = State::new(&model)?;
        let mut v = model.body_qd.to_vec();
        v[0] = SpatialVector::new(self.shots[self.which], Vec3::ZERO);
        a.body_qd.copy_from_slice(&v)?;
        self.b = Some(State::new(&model)?);
        self.a = Some(a);
        self.model = Some(model);
        self.solver = solver();
        self.steps = 0;
        Ok(())
    }

    fn step(&mut self, dt: f32) -> AppResult {
        if self.steps >= self.config.steps + REST_STEPS {
            return self.reset(); // replay the shot
        }
        let (Some(model), Some(a), Some(b)) = (&self.model, &mut self.a, &mut self.b) else {
            return Ok(());
        };
        let mass = self.config.ball_mass();
        step(model, &mut self.solver, &self.control, a, b, dt, mass)?;
        std::mem::swap(a, b);
        self.steps += 1;
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let Some(a) = &self.a else { return Ok(()) };
        scene.log_shapes("table", &table())?;
        let q = a.body_q.to_vec();
        let balls: Vec<Shape> = q
            .iter()
            .zip(BALLS)
            .map(|(x, c)| Shape::sphere(RADIUS).at(*x).color(c))
            .collect();
        scene.log_shapes("balls", &balls)?;
        // The red ball's path, the shown shot's drawn up to now, bolder.
        let shown = self.steps.min(self.config.steps);
        for (k, (name, c)) in [
            ("optimized path", Color::CORAL),
            ("initial guess path", Color::SKY),
        ]
        .into_iter()
        .enumerate()
        {
            let lift = |p: &Vec3| Vec3::new(p.x, p.y, 0.002);
            let path: Vec<Vec3> = if k == self.which {
                self.paths[k][..=shown].iter().map(lift).collect()
            } else {
                self.paths[k].iter().map(lift).collect()
            };
            let width = if k == self.which { 3.0 } else { 1.5 };
            scene.log_lines(name, Lines::strip(&path).color(c).width(width))?;
        }
        scene.log_scalar("time (s)", (self.steps as f32 * self.config.dt) as f64);
        scene.log_scalar(
            "red ball to pocket (cm)",
            100.0 * (q[1].p.truncate() - self.config.pocket).length() as f64,
        );
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        if p.choice("shot", &mut self.which, &["optimized", "guess"]) {
            let _ = self.reset();
        }
    }
}
