//! A mass-spring robot learns to walk: the rest lengths of the 16 leg springs (of
//! 76) follow an open-loop controller, `A · tanh(W · sin(ω t + 2πk/K) + b)`, and
//! gradient descent (Adam) through the whole rollout — 960 semi-implicit Euler steps
//! (2 s) with ground contact and friction — tunes `W` and `b` so that the robot's
//! centre of mass moves as far as it can along +X, as in DiffTaichi's
//! `mass_spring` task. The controller is a `#[weft::kernel]` writing each step's
//! spring activations, so the tape differentiates the distance with respect to
//! its parameters.
//!
//! Run: `cargo run --release --example spring_robot`. It checks the controller's
//! gradient against finite differences on a short rollout, optimizes (a progress
//! bar, then the distance walked per iteration), writes the loss curve to
//! `out/spring_robot_loss.png`, and shows the learnt gait in the viewer: a window,
//! or PNG frames in `out/spring_robot/` without a display (60 frames, 1 s, by
//! default; `--headless --frames 240 --every 15` covers 4 s; `--help` lists the
//! viewer's options; `SPRING_ROBOT_ITERS=N` sets the number of iterations). The
//! viewer runs the same controller on past the optimized 2 s: the gait was tuned
//! for that window only, and after it the robot mostly stands and rocks.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use plotters::style::Color as _;
use weft::prelude::*;
use weft_sim::{Control, SemiImplicit, State};
use weft_testkit::spring_robot::{
    Adam, CELL, DT, RADIUS, Robot, RobotParams, Rollout, WAVES, runtime_error,
};
use weft_viewer::{
    App, AppResult, Color, Colormap, Lines, OrbitCamera, Params, Points, Scene, Settings,
};

/// Steps of the optimized rollout (2 s).
const STEPS: usize = 960;
/// Steps of the rollout whose gradient is checked.
const CHECK_STEPS: usize = 120;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dev = Device::Cpu;
    let iterations: usize = std::env::var("SPRING_ROBOT_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(80);
    let params = RobotParams::default();
    let robot = Robot::new(dev, &params)?;
    println!(
        "robot: {} particles, {} springs, {} actuated; {} controller parameters",
        robot.model.particle_count(),
        robot.model.spring_count(),
        robot.actuators,
        robot.parameter_count()
    );
    let (w0, b0) = robot.initial_parameters(1, 0.5);
    let mut weights = Array::from_vec(dev, w0).requires_grad();
    let mut bias = Array::from_vec(dev, b0).requires_grad();

    // Check the controller's gradient before trusting it, on a short rollout
    // (0.25 s). Contacts make the loss only piecewise smooth (a contact starts with
    // a kink of the force, friction switches between its viscous and Coulomb
    // regimes), so central differences agree only as far as no kink falls
    // between x - h and x + h.
    let t = Instant::now();
    let mut check = Rollout::new(Robot::new(dev, &params)?, CHECK_STEPS)?;
    let report = gradcheck(&mut [&mut weights, &mut bias], Some(1e-2), |p, loss| {
        check.run(p[0], p[1], loss)
    })?;
    let scale = weights
        .grad_to_vec()
        .into_iter()
        .chain(bias.grad_to_vec())
        .flatten()
        .fold(0.0f32, |m, g| m.max(g.abs())) as f64;
    println!("{report}");
    println!(
        "  worst error / largest gradient component: {:.2e} ({CHECK_STEPS} steps, {:.1} s)",
        report.max_abs / scale,
        t.elapsed().as_secs_f64()
    );

    // Optimize.
    let t = Instant::now();
    let mut rollout = Rollout::new(robot, STEPS)?;
    let n_w = weights.len();
    let mut x: Vec<f32> = weights.to_vec().into_iter().chain(bias.to_vec()).collect();
    let mut adam = Adam::new(x.len(), 0.05);
    let bar = ProgressBar::new(iterations as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} walked {msg} m",
    )?);
    let mut losses = Vec::new();
    let mut walked = Vec::new();
    let mut loss = Array::zeros(dev, [1]).requires_grad();
    let mut tape = Tape::new();
    for _ in 0..iterations {
        rollout.gradient(&mut tape, &weights, &bias, &mut loss)?;
        let l = loss.to_vec()[0];
        losses.push(l);
        walked.push(rollout.distance());
        let g: Vec<f32> = weights
            .grad_to_vec()
            .expect("weights require grad")
            .into_iter()
            .chain(bias.grad_to_vec().expect("bias requires grad"))
            .collect();
        adam.step(&mut x, &g);
        weights.copy_from_slice(&x[..n_w])?;
        bias.copy_from_slice(&x[n_w..])?;
        bar.set_message(format!("{:.3}", -l));
        bar.inc(1);
    }
    bar.finish();
    rollout.run(&weights, &bias, &mut loss)?;
    walked.push(rollout.distance());
    losses.push(loss.to_vec()[0]);
    let (low, high) = rollout.height_range();
    println!(
        "distance walked by the centre of mass in {:.1} s, per iteration (m):",
        STEPS as f32 * DT
    );
    for (k, d) in walked.iter().enumerate() {
        print!("{d:7.3}{}", if k % 10 == 9 { "\n" } else { " " });
    }
    println!();
    println!(
        "{:.3} m -> {:.3} m ({:.1} body lengths of {:.1} m) in {iterations} iterations, {:.1} s; \
         particle heights stayed within [{low:.3}, {high:.3}] m",
        walked[0],
        walked[walked.len() - 1],
        walked[walked.len() - 1] / (6.0 * CELL),
        6.0 * CELL,
        t.elapsed().as_secs_f64()
    );

    std::fs::create_dir_all("out")?;
    plot(&losses, "out/spring_robot_loss.png")?;
    println!("wrote out/spring_robot_loss.png (loss = minus the distance, per iteration)");

    let robot = rollout.robot;
    weft_viewer::run(Walker::new(robot, weights, bias))?;
    Ok(())
}

/// The loss per iteration (no text: plotters is built without fonts).
fn plot(losses: &[f32], path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let lo = losses.iter().cloned().fold(f32::INFINITY, f32::min);
    let hi = losses.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let pad = 0.05 * (hi - lo).max(1e-3);
    let mut chart = ChartBuilder::on(&root)
        .margin(20)
        .build_cartesian_2d(0f32..losses.len() as f32, lo - pad..hi + pad)?;
    chart.configure_mesh().x_labels(0).y_labels(0).draw()?;
    chart.draw_series(LineSeries::new(
        losses.iter().enumerate().map(|(i, l)| (i as f32, *l)),
        BLUE.stroke_width(2),
    ))?;
    root.present()?;
    Ok(())
}

/// The learnt gait in the viewer: the same controller kernel and integrator as the
/// optimization, running on past the optimized 2 s.
struct Walker {
    robot: Robot,
    weights: Array<f32>,
    bias: Array<f32>,
    a: Option<State>,
    b: Option<State>,
    control: Control,
    solver: SemiImplicit,
    time: f32,
    start: f32,
    pairs: Vec<[u32; 2]>,
}

impl Walker {
    fn new(robot: Robot, weights: Array<f32>, bias: Array<f32>) -> Self {
        let control = Control::new(&robot.model).expect("sized for the model");
        let pairs = robot
            .springs
            .iter()
            .map(|s| [s[0] as u32, s[1] as u32])
            .collect();
        let start = robot.center_of_mass(&robot.model.particle_q.to_vec()).x;
        Walker {
            robot,
            weights,
            bias,
            a: None,
            b: None,
            control,
            solver: SemiImplicit::new(),
            time: 0.0,
            start,
            pairs,
        }
    }
}

impl App for Walker {
    fn settings(&self) -> Settings {
        Settings {
            title: "spring_robot".into(),
            dt: DT,
            steps_per_frame: 8,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(1.0, -2.4, 0.7),
                Vec3::new(1.0, 0.0, 0.2),
            )),
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        self.a = Some(State::new(&self.robot.model)?);
        self.b = Some(State::new(&self.robot.model)?);
        self.time = 0.0;
        Ok(())
    }

    fn step(&mut self, dt: f32) -> AppResult {
        let (Some(a), Some(b)) = (&mut self.a, &mut self.b) else {
            return Ok(());
        };
        self.robot
            .actuate(&self.weights, &self.bias, &mut self.control, self.time)?;
        self.solver
            .simulate(&self.robot.model, a, b, &self.control, dt)
            .map_err(runtime_error)?;
        std::mem::swap(a, b);
        self.time += dt;
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let Some(a) = &self.a else { return Ok(()) };
        let q = a.particle_q.to_vec();
        let act = self.control.spring_activation.to_vec();
        let actuator = self.robot.actuator.to_vec();
        // Passive springs dark; actuated ones blue (shortened) to red (lengthened).
        let colors: Vec<Color> = act
            .iter()
            .zip(&actuator)
            .map(|(a, j)| {
                if *j < 0 {
                    Color::rgb(40, 40, 48)
                } else {
                    Colormap::Coolwarm.map_value(
                        *a,
                        (-self.robot.params.amplitude, self.robot.params.amplitude),
                    )
                }
            })
            .collect();
        scene.log_lines(
            "springs",
            Lines::indexed(&q, &self.pairs).colors(&colors).width(3.0),
        )?;
        scene.log_points(
            "particles",
            Points::new(&q).radius(RADIUS).color(Color::GOLD),
        )?;
        // Where the centre of mass started, and where it is.
        let com = self.robot.center_of_mass(&q);
        let marks = [
            [
                Vec3::new(self.start, 0.0, 0.0),
                Vec3::new(self.start, 0.0, 0.4),
            ],
            [Vec3::new(com.x, 0.0, 0.0), Vec3::new(com.x, 0.0, 0.4)],
        ];
        scene.log_lines(
            "start and centre of mass",
            Lines::segments(&marks).colors(&[Color::GREY, Color::TEAL]),
        )?;
        scene.log_scalar("time (s)", self.time as f64);
        scene.log_scalar("distance walked (m)", (com.x - self.start) as f64);
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        p.label(&format!(
            "open-loop controller: {} actuators x {WAVES} sines, optimized over {:.1} s",
            self.robot.actuators,
            STEPS as f32 * DT
        ));
    }
}
