//! Swings a cart-pole up by trajectory optimisation through the simulator: the
//! cart of `assets/robots/cartpole.xml` (a slider along X carrying a hinged
//! pole, loaded by `weft-import`) starts at rest with the pole hanging down, and
//! a sequence of cart forces, one per control interval of 50 ms over a 2.2 s
//! horizon, is optimised by Adam so that at the end of the horizon the pole
//! stands upright and cart and pole are at rest at the rail's middle.
//!
//! Every step is a `FeatherstoneSolver` step (composite rigid bodies, dt 10 ms
//! as in the file). The force of interval `k` is `F·u_k` with `|u_k| ≤ 1`,
//! written into each step's `Control::joint_f` for the slider by a kernel, so
//! the tape differentiates the loss with respect to `u` through all 220
//! steps. `F` is the model's effort limit on the slider (the file's motor:
//! gear 10 × ctrlrange ±1 = 10 N); after each Adam step `u` is clipped back
//! into `[−1, 1]` (projected Adam: at `|u| = 1` the force is exactly at the
//! limit, where the drive does not clamp it, so its gradient still flows).
//! The loss, at the last step (`θ` the hinge angle, 0 upright; `x` the cart):
//!
//! `(1 − cos θ) + 0.05 θ̇² + 0.1 x² + 0.05 ẋ² + 0.002 · mean_k u_k²`.
//!
//! `1 − cos θ` is flat where the pole hangs (θ = π) — zero forces get a zero
//! gradient — so the first guess is a small seeded random force sequence
//! (within ±2 N). The swing-up needs the force at its limit most of the time:
//! with a 2.0 s horizon every seed tried ends 0.12–0.14 rad short of upright,
//! so the horizon is 2.2 s (44 intervals), where the seeds tried (1, 3, 5, 7)
//! end 0.04–0.07 rad from it.
//!
//! The run prints the loss and the final angle error per iteration, and counts
//! the swing-up a success when the pole ends within 0.1 rad (5.7°) of upright,
//! turning at under 0.5 rad/s (else it exits with an error after drawing). It
//! writes the loss curve (`OUT/loss.png`, log scale) and plays the optimised
//! swing-up in the viewer (`--set forces=guess` plays the first guess), or
//! without a display renders it to PNG frames in `OUT` (`--out DIR`; default
//! `out/cartpole_swingup`; by default 56 frames, one per 40 ms of the horizon).
//! The tip's path is drawn (coral; the first guess's in blue), the target (the
//! upright tip) is the gold ball, and the black line on the cart is the force
//! (5 cm per newton).
//!
//! Run: `cargo run --release --example cartpole_swingup` (`-- --help` lists the
//! viewer's options): 300 iterations, each a forward and a backward pass
//! through 220 steps, 15–20 s on a 2-core machine (20–25 s in all with the
//! frames rendered by lavapipe); the loss falls from 2.0 to 3.4e-3 and the
//! pole ends 0.053 rad (3.0°) from upright.
//! `tests/cartpole_swingup.rs` checks the gradient and a few iterations.

use std::path::{Path, PathBuf};
use std::time::Instant;

use plotters::prelude::*;
use plotters::style::Color as _;
use weft::prelude::*;
use weft_articulation::FeatherstoneSolver;
use weft_import::{RobotDescription, RobotHandles, RobotOptions, add_robot, pose_to_transform};
use weft_sim::{Control, Model, ModelBuilder, State};
use weft_testkit::spring_robot::runtime_error;
use weft_viewer::{App, AppResult, Color, Lines, OrbitCamera, Params, Scene, Settings, Shape};

/// The robot file (`assets/robots/cartpole.xml` of this workspace).
pub const ROBOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/robots/cartpole.xml");

/// `joint_f` of one step: the slider (`dof`) gets `limit · u[k]`, every other
/// degree of freedom nothing.
#[weft::kernel]
fn write_effort(u: &Array<f32>, k: i32, dof: i32, limit: f32, joint_f: &mut Array<f32>) {
    let i = tid();
    let mut f = 0.0;
    if i == dof {
        f = limit * u[k];
    }
    joint_f[i] = f;
}

/// `loss[0] += wa (1 − cos θ) + wo θ̇² + wx x² + wv ẋ²` of the last state.
#[weft::kernel]
#[allow(clippy::too_many_arguments)]
fn terminal_loss(
    q: &Array<f32>,
    qd: &Array<f32>,
    cart: i32,
    pole: i32,
    cart_dof: i32,
    pole_dof: i32,
    w: &Array<f32>,
    loss: &mut Array<f32>,
) {
    let x = q[cart];
    let theta = q[pole];
    let v = qd[cart_dof];
    let omega = qd[pole_dof];
    let l = w[0] * (1.0 - cos(theta)) + w[1] * omega * omega + w[2] * x * x + w[3] * v * v;
    atomic_add(&mut loss[0], l);
}

/// `loss[0] += weight · u[k]²` for every interval `k`.
#[weft::kernel]
fn effort_penalty(u: &Array<f32>, weight: f32, loss: &mut Array<f32>) {
    let k = tid();
    atomic_add(&mut loss[0], weight * u[k] * u[k]);
}

/// What is optimised, and how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwingupConfig {
    /// Time step (s).
    pub dt: f32,
    /// Steps per control interval.
    pub steps_per_interval: usize,
    /// Control intervals (the horizon is `dt · steps_per_interval · intervals`).
    pub intervals: usize,
    /// Loss weights of `1 − cos θ`, `θ̇²`, `x²`, `ẋ²` at the last step.
    pub weights: [f32; 4],
    /// Weight of the mean of `u²` (the force relative to its limit, squared).
    pub effort_weight: f32,
}

impl SwingupConfig {
    /// The example's: 2.2 s in 220 steps of 10 ms, 44 intervals of 50 ms.
    pub fn example() -> Self {
        SwingupConfig {
            dt: 0.01,
            steps_per_interval: 5,
            intervals: 44,
            weights: [1.0, 0.05, 0.1, 0.05],
            effort_weight: 0.002,
        }
    }

    /// Number of steps of the horizon.
    pub fn steps(&self) -> usize {
        self.steps_per_interval * self.intervals
    }

    /// The horizon (s).
    pub fn horizon(&self) -> f32 {
        self.dt * self.steps() as f32
    }
}

/// The cart-pole model loaded from [`ROBOT`], and where its parts are.
pub struct Cartpole {
    /// The model.
    pub model: Model,
    /// The file's description (its geoms are drawn).
    pub robot: RobotDescription,
    /// Where the description's bodies and joints went.
    pub handles: RobotHandles,
    /// Coordinates of the slider and the hinge in `joint_q`.
    pub q_index: [usize; 2],
    /// Their degrees of freedom in `joint_qd` and the `Control` arrays.
    pub dof: [usize; 2],
    /// The slider's effort limit (N).
    pub effort_limit: f32,
}

impl Cartpole {
    /// Loads the robot file into a model on `device`.
    pub fn load(device: Device) -> Result<Cartpole, Box<dyn std::error::Error>> {
        let robot = weft_import::load(ROBOT, &Default::default())?;
        let mut builder = ModelBuilder::new();
        let handles = add_robot(
            &mut builder,
            &robot,
            Transform::IDENTITY,
            &RobotOptions::default(),
        )?;
        let model = builder.finalize(device)?;
        let q_index = [handles.q_start[0], handles.q_start[1]];
        let dof = [handles.qd_start[0], handles.qd_start[1]];
        let effort_limit = model.joint_effort_limit.to_vec()[dof[0]];
        if !(effort_limit.is_finite() && effort_limit > 0.0) {
            return Err(format!(
                "the slider's effort limit is {effort_limit}: expected the file's motor to set one"
            )
            .into());
        }
        Ok(Cartpole {
            model,
            robot,
            handles,
            q_index,
            dof,
            effort_limit,
        })
    }

    /// The initial coordinates: cart at the middle, pole hanging down (θ = π).
    pub fn hanging_q(&self) -> Vec<f32> {
        let mut q = self.model.joint_q.to_vec();
        q[self.q_index[0]] = 0.0;
        q[self.q_index[1]] = std::f32::consts::PI;
        q
    }

    /// World pose of the pole's tip (the file's site `tip`) for body poses `body_q`.
    pub fn tip(&self, body_q: &[Transform]) -> Vec3 {
        let k = self
            .handles
            .sites
            .iter()
            .position(|s| s.name == "tip")
            .unwrap_or(0);
        self.handles.site_pose(k, body_q).p
    }
}

/// The rollout: every state and every interval's control allocated up front
/// (the tape keeps them all), reused across iterations.
pub struct Swingup {
    /// The robot.
    pub cartpole: Cartpole,
    /// The settings.
    pub config: SwingupConfig,
    solver: FeatherstoneSolver,
    states: Vec<State>,
    controls: Vec<Control>,
    q0: Array<f32>,
    qd0: Array<f32>,
    weights: Array<f32>,
}

impl Swingup {
    /// A rollout of `config` on the CPU.
    pub fn new(config: SwingupConfig) -> Result<Swingup, Box<dyn std::error::Error>> {
        let dev = Device::Cpu;
        let cartpole = Cartpole::load(dev)?;
        let model = &cartpole.model;
        let mut solver = FeatherstoneSolver::new(model)?;
        // The file's geoms are visual only (contype 0): nothing to touch.
        solver.enable_contacts = false;
        let mut states: Vec<State> = (0..=config.steps())
            .map(|_| State::new(model).map(State::requires_grad))
            .collect::<Result<_, _>>()?;
        let controls = (0..config.intervals)
            .map(|_| Control::new(model))
            .collect::<Result<_, _>>()?;
        let q0 = Array::from_vec(dev, cartpole.hanging_q());
        let qd0 = Array::zeros(dev, [model.joint_dof_count()]);
        // The first state's body poses (not on the tape: `run` only resets
        // its coordinates, to the same values).
        states[0].joint_q.copy_from(&q0)?;
        weft_articulation::eval_fk(model, &mut states[0])?;
        let weights = Array::from_slice(dev, &config.weights);
        Ok(Swingup {
            solver,
            states,
            controls,
            q0,
            qd0,
            weights,
            config,
            cartpole,
        })
    }

    /// Simulates the horizon from the hanging pose under forces `F·u` (one
    /// `u` per interval, `|u| ≤ 1`) and writes the loss to `loss[0]`.
    pub fn run(&mut self, u: &Array<f32>, loss: &mut Array<f32>) -> Result<(), Error> {
        let c = self.config;
        let cp = &self.cartpole;
        let model = &cp.model;
        let nd = model.joint_dof_count();
        self.states[0].joint_q.copy_from(&self.q0)?;
        self.states[0].joint_qd.copy_from(&self.qd0)?;
        for (k, control) in self.controls.iter_mut().enumerate() {
            write_effort::launch(
                nd,
                u,
                k as i32,
                cp.dof[0] as i32,
                cp.effort_limit,
                &mut control.joint_f,
            )?;
        }
        for s in 0..c.steps() {
            let (done, next) = self.states.split_at_mut(s + 1);
            self.solver
                .step(
                    model,
                    &done[s],
                    &mut next[0],
                    &self.controls[s / c.steps_per_interval],
                    c.dt,
                )
                .map_err(runtime_error)?;
        }
        let end = &self.states[c.steps()];
        loss.fill(0.0);
        terminal_loss::launch(
            1,
            &end.joint_q,
            &end.joint_qd,
            cp.q_index[0] as i32,
            cp.q_index[1] as i32,
            cp.dof[0] as i32,
            cp.dof[1] as i32,
            &self.weights,
            loss,
        )?;
        effort_penalty::launch(c.intervals, u, c.effort_weight / c.intervals as f32, loss)
    }

    /// Runs on `tape` (reset first) and back-propagates `loss`: `u`'s gradient
    /// (zeroed first) then holds d loss / d u.
    pub fn gradient(
        &mut self,
        tape: &mut Tape,
        u: &Array<f32>,
        loss: &mut Array<f32>,
    ) -> Result<(), Error> {
        tape.reset();
        u.zero_grad();
        tape.record(|| self.run(u, loss))?;
        tape.backward(loss)
    }

    /// One iteration: the loss and its gradient at `u` (returns the loss),
    /// then an Adam step on `u`, clipped back into `[−1, 1]`.
    pub fn descend(
        &mut self,
        tape: &mut Tape,
        adam: &mut Adam,
        u: &mut Array<f32>,
        loss: &mut Array<f32>,
    ) -> Result<f32, Error> {
        self.gradient(tape, u, loss)?;
        let g = u.grad_to_vec().expect("u requires grad");
        let mut x = u.to_vec();
        adam.step(&mut x, &g);
        for v in &mut x {
            *v = v.clamp(-1.0, 1.0);
        }
        u.copy_from_slice(&x)?;
        Ok(loss.to_vec()[0])
    }

    /// `(x, θ, ẋ, θ̇)` at the last step of the last run.
    pub fn final_state(&self) -> [f32; 4] {
        let cp = &self.cartpole;
        let end = &self.states[self.config.steps()];
        let (q, qd) = (end.joint_q.to_vec(), end.joint_qd.to_vec());
        [
            q[cp.q_index[0]],
            q[cp.q_index[1]],
            qd[cp.dof[0]],
            qd[cp.dof[1]],
        ]
    }

    /// The pole's tip at every step of the last run.
    pub fn tip_path(&self) -> Vec<Vec3> {
        self.states
            .iter()
            .map(|s| self.cartpole.tip(&s.body_q.to_vec()))
            .collect()
    }

    /// The forces (N) of `u`, one per interval.
    pub fn forces(&self, u: &[f32]) -> Vec<f32> {
        u.iter().map(|x| self.cartpole.effort_limit * x).collect()
    }
}

/// How far `theta` is from upright (rad, in `[0, π]`).
pub fn angle_error(theta: f32) -> f32 {
    theta.sin().atan2(theta.cos()).abs()
}

/// The swing-up succeeds when the pole ends within this angle of upright (rad)…
pub const ANGLE_TOLERANCE: f32 = 0.1;
/// …turning slower than this (rad/s).
pub const RATE_TOLERANCE: f32 = 0.5;

/// Adam (Kingma & Ba) over a flat parameter vector.
pub struct Adam {
    /// Step size.
    pub lr: f32,
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    /// Adam for `n` parameters with step size `lr` (β = 0.9, 0.999).
    pub fn new(n: usize, lr: f32) -> Adam {
        Adam {
            lr,
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    /// One step: moves `x` against the gradient `g`.
    pub fn step(&mut self, x: &mut [f32], g: &[f32]) {
        let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
        self.t += 1;
        let c1 = 1.0 - b1.powi(self.t);
        let c2 = 1.0 - b2.powi(self.t);
        for i in 0..x.len() {
            self.m[i] = b1 * self.m[i] + (1.0 - b1) * g[i];
            self.v[i] = b2 * self.v[i] + (1.0 - b2) * g[i] * g[i];
            x[i] -= self.lr * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + eps);
        }
    }
}

/// The first guess: small seeded random forces (within ±0.2 of the limit).
pub fn initial_guess(intervals: usize) -> Vec<f32> {
    weft_testkit::random_f32s(intervals, 7, -0.2, 0.2)
}

/// Iterations of the example's optimisation.
const ITERATIONS: usize = 300;
/// Adam's first step size (on `u`, the force over its limit)…
const LEARNING_RATE: f32 = 0.05;
/// …multiplied by this every iteration (0.22 of it at the end).
const DECAY: f32 = 0.995;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Parse the viewer's options first, so that `--help` answers at once.
    let mut options = weft_viewer::Options::from_env();
    let out: PathBuf = options
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join("cartpole_swingup"));
    options.out = Some(out.clone());
    let config = SwingupConfig::example();
    let steps_per_frame = 4;
    // Headless, by default one frame per 4 steps over the whole horizon.
    options
        .frames
        .get_or_insert((config.steps() / steps_per_frame + 1) as u64);

    let mut rollout = Swingup::new(config)?;
    println!(
        "cartpole from {ROBOT}: slider effort limit {:.1} N; {} steps of {:.0} ms ({:.1} s), {} force intervals",
        rollout.cartpole.effort_limit,
        config.steps(),
        config.dt * 1e3,
        config.horizon(),
        config.intervals
    );

    let guess = initial_guess(config.intervals);
    let mut u = Array::from_slice(Device::Cpu, &guess).requires_grad();
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    let mut adam = Adam::new(config.intervals, LEARNING_RATE);
    let mut losses = Vec::with_capacity(ITERATIONS + 1);
    let t = Instant::now();
    println!("iteration  loss        angle error (rad)");
    for it in 0..ITERATIONS {
        adam.lr = LEARNING_RATE * DECAY.powi(it as i32);
        let l = rollout.descend(&mut tape, &mut adam, &mut u, &mut loss)?;
        losses.push(l);
        // The angle error of the rollout this loss is of (before the step).
        let err = angle_error(rollout.final_state()[1]);
        println!("{it:9}  {l:.4e}  {err:.4}");
    }
    let seconds = t.elapsed().as_secs_f32();

    let best = u.to_vec();
    rollout.run(&u, &mut loss)?;
    let final_loss = loss.to_vec()[0];
    let [x, theta, v, omega] = rollout.final_state();
    let optimised_path = rollout.tip_path();
    let err = angle_error(theta);
    println!(
        "{ITERATIONS} iterations in {seconds:.1} s ({:.0} ms each, forward and backward)",
        1e3 * seconds / ITERATIONS as f32
    );
    println!(
        "loss {:.4e} -> {final_loss:.4e} ({:.2e} of the initial)",
        losses[0],
        final_loss / losses[0]
    );
    let forces = rollout.forces(&best);
    println!(
        "forces (N, one per {:.0} ms): {:.1?}",
        1e3 * config.dt * config.steps_per_interval as f32,
        forces
    );
    println!(
        "at {:.1} s: pole angle {theta:.4} rad, {err:.4} rad ({:.2}°) from upright, turning at {omega:.3} rad/s; cart at x = {x:.3} m, moving at {v:.3} m/s",
        config.horizon(),
        err.to_degrees()
    );
    losses.push(final_loss);

    std::fs::create_dir_all(&out)?;
    let plot_path = out.join("loss.png");
    plot(&losses, &plot_path)?;
    println!("wrote {}", plot_path.display());

    let success = err < ANGLE_TOLERANCE && omega.abs() < RATE_TOLERANCE;
    let verdict = format!(
        "{}: final angle error {err:.4} rad ({:.2}°; needs < {ANGLE_TOLERANCE} rad), angular velocity {omega:.3} rad/s (needs |θ̇| < {RATE_TOLERANCE})",
        if success { "SUCCESS" } else { "FAILURE" },
        err.to_degrees()
    );

    // The first guess's path too, for the viewer's `forces=guess`.
    rollout.run(&Array::from_slice(Device::Cpu, &guess), &mut loss)?;
    let guess_path = rollout.tip_path();
    let guess_forces = rollout.forces(&guess);
    let view = SwingupView::new(
        rollout.cartpole,
        config,
        steps_per_frame as u32,
        [forces, guess_forces],
        [optimised_path, guess_path],
    );
    weft_viewer::run_with(view, &options)?;
    println!("{verdict}");
    if success { Ok(()) } else { Err(verdict.into()) }
}

/// The loss per iteration, log scale (no text: plotters is built without fonts).
fn plot(losses: &[f32], path: &Path) -> Result<(), Box<dyn std::error::Error>> {
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

/// The swing-up in the viewer: the optimised forces, or the first guess.
struct SwingupView {
    cartpole: Cartpole,
    config: SwingupConfig,
    steps_per_frame: u32,
    /// Forces per interval (N): optimised, first guess.
    forces: [Vec<f32>; 2],
    /// The tip's path over the horizon under each.
    paths: [Vec<Vec3>; 2],
    /// 0: optimised, 1: the first guess.
    which: usize,
    solver: Option<FeatherstoneSolver>,
    control: Option<Control>,
    a: Option<State>,
    b: Option<State>,
    steps: usize,
}

/// Steps held at the end of the horizon (pole left to itself) before a replay.
const REST_STEPS: usize = 50;

impl SwingupView {
    fn new(
        cartpole: Cartpole,
        config: SwingupConfig,
        steps_per_frame: u32,
        forces: [Vec<f32>; 2],
        paths: [Vec<Vec3>; 2],
    ) -> Self {
        SwingupView {
            cartpole,
            config,
            steps_per_frame,
            forces,
            paths,
            which: 0,
            solver: None,
            control: None,
            a: None,
            b: None,
            steps: 0,
        }
    }

    /// The force of the current step (N; 0 after the horizon).
    fn force(&self) -> f32 {
        let k = self.steps / self.config.steps_per_interval;
        self.forces[self.which].get(k).copied().unwrap_or(0.0)
    }
}

impl App for SwingupView {
    fn settings(&self) -> Settings {
        Settings {
            title: "cartpole_swingup".into(),
            dt: self.config.dt,
            steps_per_frame: self.steps_per_frame,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(0.0, -3.6, 1.45),
                Vec3::new(0.0, 0.0, 1.0),
            )),
            size: [960, 540],
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let model = &self.cartpole.model;
        let mut a = State::new(model)?;
        a.joint_q.copy_from_slice(&self.cartpole.hanging_q())?;
        weft_articulation::eval_fk(model, &mut a)?;
        let mut solver = FeatherstoneSolver::new(model)?;
        solver.enable_contacts = false;
        self.solver = Some(solver);
        self.control = Some(Control::new(model)?);
        self.b = Some(State::new(model)?);
        self.a = Some(a);
        self.steps = 0;
        Ok(())
    }

    fn step(&mut self, _dt: f32) -> AppResult {
        if self.steps >= self.config.steps() + REST_STEPS {
            return self.reset();
        }
        let f = self.force();
        let cp = &self.cartpole;
        let (Some(solver), Some(control), Some(a), Some(b)) = (
            &mut self.solver,
            &mut self.control,
            &mut self.a,
            &mut self.b,
        ) else {
            return Ok(());
        };
        let mut joint_f = vec![0.0; cp.model.joint_dof_count()];
        joint_f[cp.dof[0]] = f;
        control.joint_f.copy_from_slice(&joint_f)?;
        solver.step(&cp.model, a, b, control, self.config.dt)?;
        std::mem::swap(a, b);
        self.steps += 1;
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let Some(a) = &self.a else { return Ok(()) };
        let cp = &self.cartpole;
        let body_q = a.body_q.to_vec();
        // The file's geoms (rail, cart, pole) at their bodies' poses.
        let mut shapes = Vec::new();
        for g in &cp.robot.geoms {
            let local = pose_to_transform(&g.pose);
            let pose = match g.body {
                Some(b) => body_q[cp.handles.bodies[b]] * local,
                None => local,
            };
            let shape = match g.shape {
                weft_import::Shape::Sphere { radius } => Shape::sphere(radius as f32),
                weft_import::Shape::Capsule {
                    radius,
                    half_length,
                } => Shape::capsule(radius as f32, half_length as f32),
                weft_import::Shape::Cylinder {
                    radius,
                    half_length,
                } => Shape::cylinder(radius as f32, half_length as f32),
                weft_import::Shape::Box { half_extents } => Shape::cuboid(half_extents.as_vec3()),
                _ => continue,
            };
            let [r, gr, bl, _] = g.rgba.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
            shapes.push(shape.at(pose).color(Color::rgb(r, gr, bl)));
        }
        // The target: where the tip is when the pole stands upright at x = 0.
        // (The model's body poses are the file's: q = 0, the pole upright.)
        let target = cp.tip(&cp.model.body_q.to_vec());
        shapes.push(
            Shape::sphere(0.035)
                .at(Transform::from_translation(target))
                .color(Color::GOLD),
        );
        scene.log_shapes("cartpole", &shapes)?;
        // The tip's path so far (and the other force sequence's, thin).
        let shown = self.steps.min(self.config.steps());
        for (k, (name, c)) in [
            ("optimised tip path", Color::CORAL),
            ("first guess tip path", Color::SKY),
        ]
        .into_iter()
        .enumerate()
        {
            let (path, width) = if k == self.which {
                (&self.paths[k][..=shown], 3.0)
            } else {
                (&self.paths[k][..], 1.0)
            };
            scene.log_lines(name, Lines::strip(path).color(c).width(width))?;
        }
        // The force on the cart: 5 cm per newton, from the cart's top.
        let cart = body_q[cp.handles.bodies[0]].p + Vec3::Z * 0.08;
        let f = self.force();
        scene.log_lines(
            "force",
            Lines::vectors(&[cart], &[Vec3::X * f], 0.05)
                .color(Color::BLACK)
                .width(4.0),
        )?;
        let q = a.joint_q.to_vec();
        let qd = a.joint_qd.to_vec();
        scene.log_scalar("time (s)", (self.steps as f32 * self.config.dt) as f64);
        scene.log_scalar("force (N)", f as f64);
        scene.log_scalar(
            "angle from upright (deg)",
            angle_error(q[cp.q_index[1]]).to_degrees() as f64,
        );
        scene.log_scalar("pole rate (rad/s)", qd[cp.dof[1]] as f64);
        scene.log_scalar("cart x (m)", q[cp.q_index[0]] as f64);
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        if p.choice("forces", &mut self.which, &["optimised", "guess"]) {
            let _ = self.reset();
        }
    }
}
