//! The 7-DoF arm of `assets/robots/arm7.xml` (or `arm7.urdf`) follows a moving
//! target with its hand: every step `IkSolver` (damped least squares,
//! warm-started from the last step's solution) turns the target into joint
//! coordinates, and the arm's PD drives track them under `FeatherstoneSolver`
//! (reduced coordinates, contacts with the ground on).
//!
//! Per step of 2 ms, in order:
//!
//! 1. the target moves along its path (a figure-eight, by default 8 s a lap, or
//!    a circle, in the vertical plane in front of the arm; or it is a point set
//!    in the panel, approached at up to 0.6 m/s);
//! 2. `IkSolver::solve` moves the desired coordinates `q*` from where they were
//!    towards the hand (the file's site `ee` on link 7; 12 cm out of link 7's
//!    origin for the URDF, which has no sites) on the target: 8 iterations;
//! 3. `Control::joint_target_pos = q*`, `joint_target_vel = q̇* = (q* −
//!    q*_prev) / dt` and, as feed-forward, `joint_f = ID(q, q̇, q̈*) + b q̇*`:
//!    `weft_articulation::inverse_dynamics` at the current state with the
//!    desired accelerations `q̈* = (q̇* − q̇*_prev) / dt`, plus the joints' own
//!    viscous damping `b` (computed torque). The panel's "feed-forward" choice
//!    has `gravity + Coriolis` (`bias_forces(q, q̇) + b q̇*`) and `none` too;
//! 4. `FeatherstoneSolver::step`. The drives are the example's (the URDF has
//!    no actuators; the MJCF's servos have one gain for every joint): per
//!    joint stiffness `(2π · 4 Hz)² M_ii` and critical damping `2 (2π · 4 Hz)
//!    M_ii`, `M_ii` the diagonal of the mass matrix at the start pose
//!    (implicit in the step, so stable at any gain).
//!
//! Measured (8 s, 4,000 steps, both files alike): with inverse dynamics the
//! hand stays within 0.0003 mm of the target (f32 rounding: the feed-forward
//! is the simulator's own model, so the drives only mop up rounding); with
//! gravity + Coriolis 0.95 mm at most (RMS 0.71; 3.7 mm on a 4 s lap); with no
//! feed-forward 31 mm (gravity sag and lag).
//!
//! It prints the hand–target distance every 0.5 s of simulated time and, at
//! the end, its largest, RMS and last value (ignoring the second after a
//! change in the panel), and fails (exit status 1) when the largest exceeds
//! 1 cm. The panel plots it too ("tracking error (mm)").
//!
//! **Moving the target with the mouse**: press the left button on the gold
//! ball (a ray–sphere test with 8 pixels of slack; Shift + left still pans)
//! and drag it: the target follows the cursor in the plane through the ball
//! facing the camera (where the cursor's ray meets it; a ray parallel to it is
//! ignored), kept within the `x`, `y`, `z` sliders' ranges, and the camera
//! stays still until the release. Grabbing the ball switches "path" to
//! `manual` (the target stops where it was and follows the cursor from there,
//! at up to 0.6 m/s like any manual target), which also ends the pass/fail
//! verdict. Presses elsewhere orbit, pan and zoom the view as usual. The
//! panel's sliders `x`, `y`, `z` still move the target too (the centre of the
//! path, or with "path = manual" the target itself).
//!
//! Drawn: the arm, the target (gold ball), the hand (small coral ball), the line
//! between them (black), the path (gold line) and the hand's trail over the last
//! 2 s (coral line).
//!
//! Run: `cargo run --release --example arm_reach` (a window; `--robot
//! assets/robots/arm7.urdf` for the URDF). Without a display, or with
//! `--headless`, it writes PNG frames of one lap (8 s, 201 frames of 40 ms) to
//! `out/arm_reach/` (`--every 10` saves fewer; `--set path=circle`, `--set
//! period=5`, …).

use std::cell::RefCell;
use std::f32::consts::TAU;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;

use weft::prelude::*;
use weft_articulation::{
    ArticulationLayout, FeatherstoneSolver, IkSolver, IkTarget, bias_forces, eval_fk,
    inverse_dynamics, mass_matrix,
};
use weft_import::{ImportOptions, RobotOptions, add_robot};
use weft_sim::{Control, Model, ModelBuilder, State};
use weft_viewer::{
    App, AppResult, Color, Lines, Options, OrbitCamera, Params, PointerButton, PointerEvent,
    PointerKind, PointerResponse, Scene, Settings, Shape,
};

/// The arm opened unless `--robot PATH` says otherwise.
const DEFAULT_ROBOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/robots/arm7.xml");
/// Time step (s).
const DT: f32 = 0.002;
/// IK iterations per step (warm-started: the target moves little in a step).
const IK_ITERATIONS: usize = 8;
/// Natural frequency of the drives (Hz).
const DRIVE_HZ: f32 = 4.0;
/// Fastest the commanded target moves towards a jump (m/s).
const MAX_SPEED: f32 = 0.6;
/// The start pose the first IK solve begins from (a bent elbow, in the limits).
const SEED: [f32; 7] = [0.0, 0.4, 0.0, -1.6, 0.0, 1.2, 0.0];
/// The largest tracking error the run accepts (m).
const TOLERANCE: f32 = 0.01;
/// Simulated seconds ignored after a change in the panel.
const SETTLE: f32 = 1.0;
/// Radius of the target ball (m).
const TARGET_RADIUS: f32 = 0.03;
/// How far from the ball (pixels) a press still grabs it.
const GRAB_SLACK_PX: f32 = 8.0;
/// The ranges of the sliders `x`, `y`, `z` (m); a dragged target stays in them.
const POINT_RANGE: [(f32, f32); 3] = [(-0.2, 0.9), (-0.7, 0.7), (0.05, 1.2)];
/// The ball's colour while the cursor is over it or drags it.
const GOLD_LIT: Color = Color::rgb(0xFF, 0xE8, 0x96);

#[path = "common/robot_drawing.rs"]
mod robot_drawing;

use robot_drawing::RobotDrawing;

// ---------------------------------------------------------------------------
// The arm.
// ---------------------------------------------------------------------------

type Failure = Box<dyn std::error::Error>;

struct Arm {
    model: Model,
    drawing: RobotDrawing,
    /// The body carrying the hand, and the hand's point in its frame.
    hand_body: usize,
    hand_offset: Vec3,
    /// Coordinates the IK solve starts from at a reset.
    start_q: Vec<f32>,
    /// The joints' viscous damping (the file's), per degree of freedom.
    damping: Vec<f32>,
}

/// `tau + damping · qd`: the efforts that also cancel the joints' own damping.
fn plus_damping(mut tau: Vec<f32>, damping: &[f32], qd: &[f32]) -> Vec<f32> {
    for ((t, c), v) in tau.iter_mut().zip(damping).zip(qd) {
        *t += c * v;
    }
    tau
}

impl Arm {
    fn load(path: &std::path::Path) -> Result<Arm, Failure> {
        let robot = weft_import::load(path, &ImportOptions::default())?;
        let mut builder = ModelBuilder::new();
        builder.gravity = robot.options.gravity.as_vec3();
        let handles = add_robot(
            &mut builder,
            &robot,
            Transform::IDENTITY,
            &RobotOptions::default(),
        )?;
        let has_floor = robot.geoms.iter().any(|g| {
            g.body.is_none()
                && g.role.collides()
                && matches!(g.shape, weft_import::Shape::Plane { .. })
        });
        if !has_floor {
            builder.add_body_shape(
                -1,
                Transform::IDENTITY,
                weft_collide::Geometry::Plane {
                    half_extents: Vec2::ZERO,
                },
            );
        }
        let mut model = builder.finalize(Device::Cpu)?;
        if model.joint_coord_count() != model.joint_dof_count() || model.joint_dof_count() == 0 {
            return Err(format!(
                "{}: arm_reach drives arms of one-axis joints; this robot has {} coordinates and {} degrees of freedom",
                path.display(),
                model.joint_coord_count(),
                model.joint_dof_count()
            )
            .into());
        }
        // The hand: the site `ee`, else 12 cm out of link 7 (arm7.urdf has no sites).
        let (hand_body, hand_offset) =
            if let Some(site) = handles.sites.iter().find(|s| s.name == "ee") {
                (site.body as usize, site.transform.p)
            } else {
                let b = robot
                    .body_index("link7")
                    .unwrap_or(robot.bodies.len().saturating_sub(1));
                println!(
                    "arm_reach: no site `ee` in the file: the hand is 12 cm along Z of body `{}`",
                    robot.bodies[b].name
                );
                (handles.bodies[b], Vec3::new(0.0, 0.0, 0.12))
            };
        let mut start_q = model.joint_q.to_vec();
        if start_q.len() == SEED.len() {
            start_q.copy_from_slice(&SEED);
        }
        set_drives(&mut model, &start_q)?;
        let drawing = RobotDrawing::new(&robot, &handles, Transform::IDENTITY);
        Ok(Arm {
            damping: model.joint_damping.to_vec(),
            model,
            drawing,
            hand_body,
            hand_offset,
            start_q,
        })
    }

    /// The hand's world position for body poses `body_q`.
    fn hand(&self, body_q: &[Transform]) -> Vec3 {
        body_q[self.hand_body].transform_point(self.hand_offset)
    }
}

/// The example's drives: per joint `(2π f)² M_ii` and `2 (2π f) M_ii` (`M_ii`
/// at `q`, armature included).
fn set_drives(model: &mut Model, q: &[f32]) -> Result<(), Failure> {
    let layout = ArticulationLayout::new(model)?;
    let mass = mass_matrix(model, &layout, &Array::from_slice(Device::Cpu, q))?.to_vec();
    let armature = model.joint_armature.to_vec();
    let n = model.joint_dof_count();
    let (mut ke, mut kd) = (vec![0.0; n], vec![0.0; n]);
    let w = TAU * DRIVE_HZ;
    for a in 0..layout.articulation_count() {
        let dofs = layout.dofs(a);
        let (start, m) = (layout.mass_range(a).start, dofs.len());
        for (i, d) in dofs.enumerate() {
            let mii = mass[start + i * m + i] + armature[d];
            ke[d] = w * w * mii;
            kd[d] = 2.0 * w * mii;
        }
    }
    model.joint_target_ke.copy_from_slice(&ke)?;
    model.joint_target_kd.copy_from_slice(&kd)?;
    Ok(())
}

// ---------------------------------------------------------------------------
// Tracking statistics, shared with `main` for the summary.
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Tracking {
    /// (time, hand–target distance) per step counted.
    samples: Vec<(f32, f32)>,
    /// Steps before this time are not counted (after a reset or a change).
    settle_until: f32,
    /// Whether the target was ever set by hand (then no pass/fail).
    manual: bool,
}

impl Tracking {
    fn summary(&self) -> Option<(f32, f32, f32, f32)> {
        let (&(_, last), n) = (self.samples.last()?, self.samples.len() as f32);
        let max = self.samples.iter().map(|s| s.1).fold(0.0f32, f32::max);
        let at = self
            .samples
            .iter()
            .find(|s| s.1 == max)
            .map_or(0.0, |s| s.0);
        let rms = (self.samples.iter().map(|s| s.1 * s.1).sum::<f32>() / n).sqrt();
        Some((max, at, rms, last))
    }
}

// ---------------------------------------------------------------------------
// The app.
// ---------------------------------------------------------------------------

const PATHS: [&str; 3] = ["figure-eight", "circle", "manual"];
/// The index of `manual` in [`PATHS`].
const MANUAL: usize = 2;

/// A drag of the target: the plane it moves in and where in it the ball was held.
struct Grab {
    /// A point of the plane (the target when grabbed) and its normal (the view direction).
    plane: (Vec3, Vec3),
    /// From the target to the grabbed point of the plane.
    offset: Vec3,
}

struct ArmReach {
    arm: Arm,
    /// 0 figure-eight, 1 circle, 2 manual.
    path: usize,
    /// Centre of the path, or the manual target (m).
    point: [f32; 3],
    /// Half-width of the path (m); its height is half that.
    size: f32,
    /// Seconds per lap.
    period: f32,
    solver: Option<FeatherstoneSolver>,
    ik: Option<IkSolver>,
    control: Option<Control>,
    a: Option<State>,
    b: Option<State>,
    /// Desired coordinates (the IK's solution), as the IK solver takes them.
    q_ik: Option<Array<f32>>,
    q_prev: Vec<f32>,
    /// The desired velocities of the last step.
    qd_prev: Vec<f32>,
    /// Feed-forward: 0 inverse dynamics, 1 gravity and Coriolis, 2 none.
    feed_forward: usize,
    /// Scratch state for the hand at the IK solution.
    fk: Option<State>,
    /// The commanded target.
    goal: Vec3,
    time: f32,
    next_print: f32,
    /// The hand's recent positions (time, point), for its trail.
    trail: Vec<(f32, Vec3)>,
    stats: Rc<RefCell<Tracking>>,
    /// The mouse's drag of the target, if any.
    grab: Option<Grab>,
    /// Whether the cursor is over the target ball.
    hover: bool,
}

impl ArmReach {
    fn new(arm: Arm, stats: Rc<RefCell<Tracking>>) -> Self {
        ArmReach {
            arm,
            path: 0,
            point: [0.45, 0.0, 0.55],
            size: 0.2,
            period: 8.0,
            solver: None,
            ik: None,
            control: None,
            a: None,
            b: None,
            q_ik: None,
            q_prev: Vec::new(),
            qd_prev: Vec::new(),
            feed_forward: 0,
            fk: None,
            goal: Vec3::ZERO,
            time: 0.0,
            next_print: 0.0,
            trail: Vec::new(),
            stats,
            grab: None,
            hover: false,
        }
    }

    /// Whether `e`'s ray passes within the ball (and a few pixels around it).
    fn on_target(&self, e: &PointerEvent) -> bool {
        let radius = TARGET_RADIUS + GRAB_SLACK_PX * e.pixel_size(self.goal);
        e.ray.hit_sphere(self.goal, radius).is_some()
    }

    /// Sets the manual target (clamped to the sliders' ranges).
    fn set_point(&mut self, p: Vec3) {
        for (k, (lo, hi)) in POINT_RANGE.into_iter().enumerate() {
            self.point[k] = p[k].clamp(lo, hi);
        }
    }

    /// The target becomes the mouse's: "path" goes to manual, from where the target is.
    fn take_manual(&mut self) {
        if self.path != MANUAL {
            self.path = MANUAL;
            self.set_point(self.goal);
        }
        let mut stats = self.stats.borrow_mut();
        stats.manual = true;
        stats.settle_until = self.time + SETTLE;
    }

    /// Where the path puts the target at time `t`.
    fn path_point(&self, t: f32) -> Vec3 {
        let c = Vec3::from(self.point);
        let s = TAU * t / self.period;
        let (a, b) = (self.size, 0.5 * self.size);
        match self.path {
            0 => c + Vec3::new(0.0, a * s.sin(), b * (2.0 * s).sin()),
            1 => c + Vec3::new(0.0, a * s.sin(), a * s.cos()),
            _ => c,
        }
    }

    /// The whole path, for drawing.
    fn path_line(&self) -> Vec<Vec3> {
        (0..=200)
            .map(|k| self.path_point(self.period * k as f32 / 200.0))
            .collect()
    }

    /// The hand's position at coordinates `q` (forward kinematics on a scratch state).
    fn hand_at(&mut self, q: &Array<f32>) -> AppResult<Vec3> {
        let fk = self.fk.as_mut().ok_or("not reset")?;
        fk.joint_q.copy_from(q)?;
        eval_fk(&self.arm.model, fk)?;
        Ok(self.arm.hand(&fk.body_q.to_vec()))
    }
}

impl App for ArmReach {
    fn settings(&self) -> Settings {
        Settings {
            title: "arm_reach".into(),
            dt: DT,
            steps_per_frame: 8,
            camera: Some(OrbitCamera::look_at(
                Vec3::new(1.5, -0.95, 0.95),
                Vec3::new(0.28, 0.0, 0.45),
            )),
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let model = &self.arm.model;
        self.solver = Some(FeatherstoneSolver::new(model)?);
        self.control = Some(Control::new(model)?);
        let mut ik = IkSolver::new(
            model,
            1,
            &[IkTarget::position(self.arm.hand_body, self.arm.hand_offset)],
        )?;
        // Start on the path: a full solve from the seed pose.
        self.time = 0.0;
        self.goal = self.path_point(0.0);
        let mut q = Array::from_slice(Device::Cpu, &self.arm.start_q);
        ik.iterations = 300;
        ik.solve(
            model,
            &mut q,
            &Array::from_slice(Device::Cpu, &[self.goal]),
            &Array::zeros(Device::Cpu, [0]),
        )?;
        // …and the path's velocity there, from the solve one step later.
        let mut q1 = Array::from_slice(Device::Cpu, &q.to_vec());
        ik.solve(
            model,
            &mut q1,
            &Array::from_slice(Device::Cpu, &[self.path_point(DT)]),
            &Array::zeros(Device::Cpu, [0]),
        )?;
        ik.iterations = IK_ITERATIONS;
        self.q_prev = q.to_vec();
        self.qd_prev = (q1.to_vec().iter().zip(&self.q_prev))
            .map(|(b, a)| (b - a) / DT)
            .collect();
        let mut a = State::new(model)?;
        a.joint_q.copy_from(&q)?;
        a.joint_qd.copy_from_slice(&self.qd_prev)?;
        eval_fk(model, &mut a)?;
        self.q_ik = Some(q);
        self.ik = Some(ik);
        self.a = Some(a);
        self.b = Some(State::new(model)?);
        self.fk = Some(State::new(model)?);
        self.trail.clear();
        self.next_print = 0.0;
        let mut stats = self.stats.borrow_mut();
        stats.samples.clear();
        stats.settle_until = 0.0;
        Ok(())
    }

    fn step(&mut self, dt: f32) -> AppResult {
        let t = self.time + dt;
        // 1. The target.
        let want = self.path_point(t);
        let jump = want - self.goal;
        self.goal += jump.clamp_length_max(MAX_SPEED * dt);
        let goal = self.goal;
        let model = &self.arm.model;
        let (Some(solver), Some(ik), Some(control), Some(q_ik), Some(a), Some(b)) = (
            &mut self.solver,
            &mut self.ik,
            &mut self.control,
            &mut self.q_ik,
            &mut self.a,
            &mut self.b,
        ) else {
            return Ok(());
        };
        // 2. Desired coordinates, warm-started.
        ik.solve(
            model,
            q_ik,
            &Array::from_slice(Device::Cpu, &[goal]),
            &Array::zeros(Device::Cpu, [0]),
        )?;
        let q_des = q_ik.to_vec();
        let qd_des: Vec<f32> = q_des
            .iter()
            .zip(&self.q_prev)
            .map(|(q, p)| (q - p) / dt)
            .collect();
        // 3. Drives' targets and the feed-forward efforts.
        control.joint_target_pos.copy_from_slice(&q_des)?;
        control.joint_target_vel.copy_from_slice(&qd_des)?;
        match self.feed_forward {
            0 => {
                let qdd_des: Vec<f32> = qd_des
                    .iter()
                    .zip(&self.qd_prev)
                    .map(|(v, p)| (v - p) / dt)
                    .collect();
                let qdd = Array::from_slice(Device::Cpu, &qdd_des);
                let tau = inverse_dynamics(model, &a.joint_q, &a.joint_qd, &qdd)?.to_vec();
                let tau = plus_damping(tau, &self.arm.damping, &qd_des);
                control.joint_f.copy_from_slice(&tau)?;
            }
            1 => {
                let tau = bias_forces(model, &a.joint_q, &a.joint_qd)?.to_vec();
                let tau = plus_damping(tau, &self.arm.damping, &qd_des);
                control.joint_f.copy_from_slice(&tau)?;
            }
            _ => control.joint_f.fill(0.0),
        }
        // 4. Step.
        solver.step(model, a, b, control, dt)?;
        std::mem::swap(a, b);
        self.q_prev = q_des;
        self.qd_prev = qd_des;
        self.time = t;

        let hand = self.arm.hand(&a.body_q.to_vec());
        let err = (hand - goal).length();
        {
            let mut stats = self.stats.borrow_mut();
            if self.path == MANUAL {
                stats.manual = true;
            }
            if t >= stats.settle_until {
                stats.samples.push((t, err));
            }
        }
        if t + 0.5 * dt >= self.next_print {
            self.next_print += 0.5;
            let q = self.q_ik.as_ref().expect("set above").share();
            let ik_err = (self.hand_at(&q)? - goal).length();
            println!(
                "t = {t:5.2} s  target ({:6.3}, {:6.3}, {:6.3})  hand–target {:8.4} mm  (IK solution {:7.4} mm)",
                goal.x,
                goal.y,
                goal.z,
                1e3 * err,
                1e3 * ik_err
            );
        }
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let Some(a) = &self.a else { return Ok(()) };
        let body_q = a.body_q.to_vec();
        self.arm.drawing.draw(scene, "arm", &body_q)?;
        let hand = self.arm.hand(&body_q);
        let now = self.time;
        self.trail.retain(|(t, _)| *t > now - 2.0 && *t <= now);
        // Redraws without a step (the mouse, when paused) add no point.
        if self.trail.last().is_none_or(|(t, _)| *t < now) {
            self.trail.push((now, hand));
        }
        let trail: Vec<Vec3> = self.trail.iter().map(|(_, p)| *p).collect();
        scene.log_shapes(
            "target and hand",
            &[
                Shape::sphere(TARGET_RADIUS)
                    .at(Transform::from_translation(self.goal))
                    .color(if self.hover || self.grab.is_some() {
                        GOLD_LIT
                    } else {
                        Color::GOLD
                    }),
                Shape::sphere(0.015)
                    .at(Transform::from_translation(hand))
                    .color(Color::CORAL),
            ],
        )?;
        scene.log_lines(
            "hand to target",
            Lines::segments(&[[hand, self.goal]])
                .color(Color::BLACK)
                .width(2.0),
        )?;
        let point = Vec3::from(self.point);
        if self.path == MANUAL && (point - self.goal).length() > 1e-3 {
            // Where the target is heading (it moves at up to MAX_SPEED).
            scene.log_shapes(
                "commanded target",
                &[Shape::sphere(0.01)
                    .at(Transform::from_translation(point))
                    .color(Color::GOLD)],
            )?;
        }
        if self.path != MANUAL {
            scene.log_lines(
                "path",
                Lines::strip(&self.path_line())
                    .color(Color::GOLD)
                    .width(1.5),
            )?;
        }
        if trail.len() > 1 {
            scene.log_lines(
                "hand trail",
                Lines::strip(&trail).color(Color::CORAL).width(2.5),
            )?;
        }
        scene.log_scalar(
            "tracking error (mm)",
            1e3 * (hand - self.goal).length() as f64,
        );
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        p.label("Drag the gold ball with the left button (path becomes manual), or drag x, y, z (the path's centre, or the target itself with path = manual).");
        let mut changed = p.choice("path", &mut self.path, &PATHS);
        let names = ["x", "y", "z"];
        for ((value, name), (lo, hi)) in self.point.iter_mut().zip(names).zip(POINT_RANGE) {
            changed |= p.slider(name, value, lo..=hi);
        }
        changed |= p.slider("size", &mut self.size, 0.0..=0.4);
        changed |= p.slider("period", &mut self.period, 3.0..=20.0);
        changed |= p.choice(
            "feed-forward",
            &mut self.feed_forward,
            &["inverse dynamics", "gravity + Coriolis", "none"],
        );
        if changed {
            let mut stats = self.stats.borrow_mut();
            stats.settle_until = self.time + SETTLE;
            if self.path == MANUAL {
                stats.manual = true;
            }
        }
    }

    fn pointer(&mut self, e: &PointerEvent) -> PointerResponse {
        match e.kind {
            // Left press on the ball (Shift + left pans, as elsewhere): grab it in
            // the plane through it facing the camera.
            PointerKind::Press => {
                if !e.is_press(PointerButton::Left) || e.modifiers.shift || !self.on_target(e) {
                    return PointerResponse::Ignored;
                }
                let normal = e.camera.forward();
                let held = e
                    .ray
                    .hit_plane(self.goal, normal)
                    .map_or(self.goal, |t| e.ray.at(t));
                self.grab = Some(Grab {
                    plane: (self.goal, normal),
                    offset: held - self.goal,
                });
                self.take_manual();
                PointerResponse::Captured
            }
            PointerKind::Move => {
                let Some(grab) = &self.grab else {
                    // Hovering: redraw only when the highlight changes.
                    let hover = self.on_target(e);
                    let changed = hover != self.hover;
                    self.hover = hover;
                    return PointerResponse::captured_if(changed);
                };
                let ((point, normal), offset) = (grab.plane, grab.offset);
                if let Some(t) = e.ray.hit_plane(point, normal) {
                    self.set_point(e.ray.at(t) - offset);
                }
                PointerResponse::Captured
            }
            PointerKind::Release => {
                self.hover = self.on_target(e);
                PointerResponse::captured_if(self.grab.take().is_some())
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Command line.
// ---------------------------------------------------------------------------

/// The viewer's options that take a value.
const VIEWER_VALUE_FLAGS: [&str; 7] = [
    "--frames",
    "--out",
    "--every",
    "--size",
    "--steps-per-frame",
    "--set",
    "--msaa",
];

const USAGE: &str = "usage: arm_reach [--robot PATH] [VIEWER OPTIONS]

  --robot PATH   the arm (default assets/robots/arm7.xml; assets/robots/arm7.urdf works too)

Headless (no display, or --headless): PNG frames of one 8 s lap to out/arm_reach/.";

fn parse_args() -> Result<(PathBuf, Options), String> {
    let mut robot = PathBuf::from(DEFAULT_ROBOT);
    let mut viewer = vec!["arm_reach".to_string()];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            let help = Options::parse_from(["arm_reach", "-h"])
                .err()
                .map(|e| e.to_string().trim_start_matches("parameter: ").to_string())
                .unwrap_or_default();
            println!("{USAGE}\n\nViewer options:\n{help}");
            std::process::exit(0);
        }
        if let Some(p) = arg.strip_prefix("--robot=") {
            robot = PathBuf::from(p);
        } else if arg == "--robot" {
            robot = PathBuf::from(
                args.next()
                    .ok_or_else(|| format!("--robot needs a path\n\n{USAGE}"))?,
            );
        } else if VIEWER_VALUE_FLAGS.contains(&arg.as_str()) {
            viewer.push(arg);
            viewer.extend(args.next());
        } else {
            viewer.push(arg);
        }
    }
    let options = Options::parse_from(viewer).map_err(|e| format!("{e}\n\n{USAGE}"))?;
    Ok((robot, options))
}

fn main() -> ExitCode {
    let (path, mut options) = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("arm_reach: {e}");
            return ExitCode::from(2);
        }
    };
    let arm = match Arm::load(&path) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("arm_reach: cannot open `{}`: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    if options.mode() != weft_viewer::Mode::Window {
        // One 8 s lap in frames of 40 ms.
        options.steps_per_frame.get_or_insert(20);
        options.frames.get_or_insert(201);
    }
    println!(
        "arm_reach: {} ({} joints, {} degrees of freedom); IK {IK_ITERATIONS} iterations per step of {DT} s; drives at {DRIVE_HZ} Hz with inverse-dynamics feed-forward",
        path.display(),
        arm.model.joint_count(),
        arm.model.joint_dof_count()
    );
    let stats = Rc::new(RefCell::new(Tracking::default()));
    if let Err(e) = weft_viewer::run_with(ArmReach::new(arm, stats.clone()), &options) {
        eprintln!("arm_reach: {e}");
        return ExitCode::FAILURE;
    }
    let stats = stats.borrow();
    let Some((max, at, rms, last)) = stats.summary() else {
        return ExitCode::SUCCESS;
    };
    println!(
        "hand–target distance over {} steps: largest {:.4} mm (at t = {at:.2} s), RMS {:.4} mm, last {:.4} mm",
        stats.samples.len(),
        1e3 * max,
        1e3 * rms,
        1e3 * last
    );
    if stats.manual || max <= TOLERANCE {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "arm_reach: FAILURE: the hand strayed {:.2} mm from the target (tolerance {:.0} mm)",
            1e3 * max,
            1e3 * TOLERANCE
        );
        ExitCode::FAILURE
    }
}
