//! Opens any robot file — URDF (`.urdf`) or MJCF (anything else, e.g.
//! `assets/robots/*.xml`) — through `weft-import`, simulates it with
//! `FeatherstoneSolver` (reduced coordinates, penalty contacts between the
//! links and the ground) and shows it in the viewer with one slider per joint
//! degree of freedom.
//!
//! Run: `cargo run --release --example robot_viewer -- assets/robots/ant.xml`
//! (`assets/robots/humanoid.xml`, `arm7.xml`, `arm7.urdf`, `cartpole.xml`,
//! `double_pendulum.xml`, or your own file; without a path it opens the ant).
//! `--package-path DIR` (repeatable; alias `--mesh-path`) adds a directory to
//! the search path of `package://` mesh URIs; relative mesh paths are looked up
//! next to the file. Every viewer option works too (`--help` lists them).
//!
//! **The sliders set joint targets** by default: each one-axis degree of
//! freedom (revolute, prismatic, and each axis of a universal, D6 or URDF
//! planar joint) gets a slider whose value is its PD drive's position target
//! (`Control::joint_target_pos`). Joints the file drives with a position servo
//! keep the file's gains; every other slider joint gets a drive here: with the
//! file's effort limit `E` (a motor's `gear · ctrlrange`, URDF `effort`) the
//! stiffness is `E / 0.25 rad` (full effort at a quarter radian of error), else
//! `(2π · 2 Hz)² · M_ii` (`M_ii` the joint's diagonal entry of the mass matrix at
//! the initial pose); damping critical for `M_ii`. The choice "sliders set" →
//! `coordinates` makes the sliders set the joint coordinates themselves instead
//! (a puppet: every step starts from the sliders' pose at rest in those
//! coordinates; a free base still falls and touches the ground; paused, moving a
//! slider re-poses the robot at once). Ball and free joints get no slider
//! (Weft has no position drive for them). "sweep" swings every target (or
//! coordinate) sinusoidally about its slider value; "sliders to start pose"
//! puts the sliders back at the file's initial coordinates.
//!
//! Play/pause, step and reset are the panel's buttons (or `Space`, `.`, `r`).
//! The time step is the file's, at most 2 ms (the penalty contacts are explicit:
//! `docs/notes/articulation.md`). A file without a ground plane gets one at
//! z = 0, and a robot that would start below it is lifted onto it. What is drawn:
//! the file's visual geoms (URDF `<visual>`, MJCF geoms), or a body's collision
//! geoms when it has no visual one; planes are the viewer's ground grid.
//!
//! Without a display, or with `--headless`, it writes PNG frames of a short
//! simulation (by default 90 frames, 3 s, with "sweep" on so the joints move)
//! to `out/robot_viewer/` (`--out DIR`, `--frames N`, `--set sweep=false`,
//! `--set 'sliders set=coordinates'`, `--set JOINT=VALUE`). A missing or
//! malformed file, or one Weft cannot simulate, ends with a message naming the
//! file (and line), and exit status 1.

use std::f32::consts::{PI, TAU};
use std::path::PathBuf;
use std::process::ExitCode;

use weft::prelude::*;
use weft_articulation::{ArticulationLayout, FeatherstoneSolver, eval_fk, mass_matrix};
use weft_import::{ImportOptions, RobotDescription, RobotHandles, RobotOptions, add_robot};
use weft_sim::{
    Control, JOINT_BALL, JOINT_FIXED, JOINT_FREE, JOINT_PRISMATIC, Model, ModelBuilder, State,
};
use weft_viewer::{App, AppResult, Options, Params, Scene, Settings};

/// The robot opened when no path is given.
const DEFAULT_ROBOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/robots/ant.xml");
/// The largest time step (s): the contacts are explicit penalties.
const MAX_DT: f64 = 0.002;
/// Error at which a drive made here reaches the joint's effort limit (rad or m).
const FULL_EFFORT_ERROR: f32 = 0.25;
/// Natural frequency of the drives made here for joints without an effort limit (Hz).
const DRIVE_HZ: f32 = 2.0;
/// Sweep period (s).
const SWEEP_PERIOD: f32 = 3.0;

#[path = "common/robot_drawing.rs"]
mod robot_drawing;

use robot_drawing::RobotDrawing;

// ---------------------------------------------------------------------------
// The robot: file, model, sliders.
// ---------------------------------------------------------------------------

/// One slider: a one-axis degree of freedom.
struct DofSlider {
    /// The `--set` name: the file's joint name (`name[k]` for the axes of a
    /// multi-axis joint).
    name: String,
    /// Its coordinate in `joint_q`.
    q: usize,
    /// Its degree of freedom in `joint_qd` and the control arrays.
    dof: usize,
    /// Slider range: the joint's limits, else ±π (angles) or ±1 m.
    lo: f32,
    hi: f32,
    /// The file's initial coordinate.
    q0: f32,
}

struct Robot {
    description: RobotDescription,
    model: Model,
    drawing: RobotDrawing,
    sliders: Vec<DofSlider>,
    dt: f32,
    /// Drives made here (the rest are the file's).
    added_drives: usize,
}

/// Why the robot could not be opened.
type Failure = Box<dyn std::error::Error>;

impl Robot {
    fn load(path: &std::path::Path, import: &ImportOptions) -> Result<Robot, Failure> {
        let description = weft_import::load(path, import)?;
        for w in &description.warnings {
            println!("robot_viewer: note: {w}");
        }
        let has_floor = description.geoms.iter().any(|g| {
            g.body.is_none()
                && g.role.collides()
                && matches!(g.shape, weft_import::Shape::Plane { .. })
        });
        // Lift a robot that would start below a ground that is not the file's.
        let mut base = Transform::IDENTITY;
        let (mut model, mut handles) = Self::build(&description, base, has_floor)?;
        let drawing = RobotDrawing::new(&description, &handles, base);
        if !has_floor
            && let Some(low) = drawing.lowest_z(&model.body_q.to_vec())
            && low < -1e-3
        {
            println!(
                "robot_viewer: the robot reaches {low:.3} m below the ground at its initial pose: lifted by {:.3} m",
                -low
            );
            base = Transform::from_translation(Vec3::Z * -low);
            (model, handles) = Self::build(&description, base, has_floor)?;
        }
        for w in &handles.warnings {
            println!("robot_viewer: note: {w}");
        }
        let drawing = RobotDrawing::new(&description, &handles, base);
        let sliders = sliders(&description, &handles, &model);
        let added_drives = add_drives(&mut model, &sliders)?;
        let dt = description.options.timestep.unwrap_or(MAX_DT).min(MAX_DT) as f32;
        Ok(Robot {
            description,
            model,
            drawing,
            sliders,
            dt,
            added_drives,
        })
    }

    /// The robot's model with its base at `base`, on a ground plane at z = 0
    /// unless the file has a floor.
    fn build(
        robot: &RobotDescription,
        base: Transform,
        has_floor: bool,
    ) -> Result<(Model, RobotHandles), Failure> {
        let mut builder = ModelBuilder::new();
        builder.gravity = robot.options.gravity.as_vec3();
        let handles = add_robot(&mut builder, robot, base, &RobotOptions::default())?;
        if !has_floor {
            builder.add_body_shape(
                -1,
                Transform::IDENTITY,
                weft_collide::Geometry::Plane {
                    half_extents: Vec2::ZERO,
                },
            );
        }
        Ok((builder.finalize(Device::Cpu)?, handles))
    }
}

/// A slider for every one-axis degree of freedom of the robot's joints.
fn sliders(robot: &RobotDescription, handles: &RobotHandles, model: &Model) -> Vec<DofSlider> {
    let kind = model.joint_type.to_vec();
    let q_start = model.joint_q_start.to_vec();
    let qd_start = model.joint_qd_start.to_vec();
    let dim = model.joint_dof_dim.to_vec();
    let (lower, upper) = (
        model.joint_limit_lower.to_vec(),
        model.joint_limit_upper.to_vec(),
    );
    let q0 = model.joint_q.to_vec();
    let mut out = Vec::new();
    for (file_joint, &j) in handles.joints.iter().enumerate() {
        if [JOINT_FIXED, JOINT_BALL, JOINT_FREE].contains(&kind[j]) {
            continue;
        }
        let linear = dim[j].x as usize;
        let n = linear + dim[j].y as usize;
        for k in 0..n {
            let (q, dof) = (q_start[j] as usize + k, qd_start[j] as usize + k);
            let is_linear = kind[j] == JOINT_PRISMATIC || k < linear;
            let (lo, hi) = if lower[dof].is_finite() && upper[dof].is_finite() {
                (lower[dof], upper[dof])
            } else if is_linear {
                (-1.0, 1.0)
            } else {
                (-PI, PI)
            };
            let name = &robot.joints[file_joint].name;
            out.push(DofSlider {
                name: if n == 1 {
                    name.clone()
                } else {
                    format!("{name}[{k}]")
                },
                q,
                dof,
                lo,
                hi,
                q0: q0[q],
            });
        }
    }
    out
}

/// Gives every slider joint without a position drive one (see the module
/// docs); returns how many it made.
fn add_drives(model: &mut Model, sliders: &[DofSlider]) -> Result<usize, Failure> {
    let mut ke = model.joint_target_ke.to_vec();
    let mut kd = model.joint_target_kd.to_vec();
    let mut target = model.joint_target_pos.to_vec();
    let limit = model.joint_effort_limit.to_vec();
    let armature = model.joint_armature.to_vec();
    // Diagonal of the mass matrix at the initial pose, per degree of freedom.
    let layout = ArticulationLayout::new(model)?;
    let mass = mass_matrix(model, &layout, &model.joint_q)?.to_vec();
    let mut diag = vec![0.0f32; model.joint_dof_count()];
    for a in 0..layout.articulation_count() {
        let dofs = layout.dofs(a);
        let (start, n) = (layout.mass_range(a).start, dofs.len());
        for (i, d) in dofs.enumerate() {
            diag[d] = mass[start + i * n + i] + armature[d];
        }
    }
    let mut added = 0;
    for s in sliders {
        let d = s.dof;
        // The drive's target starts at the initial pose either way.
        target[d] = s.q0;
        if ke[d] > 0.0 {
            continue;
        }
        let m = diag[d].max(1e-6);
        ke[d] = if limit[d].is_finite() && limit[d] > 0.0 {
            limit[d] / FULL_EFFORT_ERROR
        } else {
            (TAU * DRIVE_HZ).powi(2) * m
        };
        kd[d] = kd[d].max(2.0 * (ke[d] * m).sqrt());
        added += 1;
    }
    model.joint_target_ke.copy_from_slice(&ke)?;
    model.joint_target_kd.copy_from_slice(&kd)?;
    model.joint_target_pos.copy_from_slice(&target)?;
    Ok(added)
}

// ---------------------------------------------------------------------------
// The app.
// ---------------------------------------------------------------------------

const TARGETS: usize = 0;
const COORDINATES: usize = 1;

struct RobotViewer {
    robot: Robot,
    /// What the sliders set: [`TARGETS`] or [`COORDINATES`].
    mode: usize,
    sweep: bool,
    /// Slider values, one per [`DofSlider`].
    values: Vec<f32>,
    solver: Option<FeatherstoneSolver>,
    control: Option<Control>,
    /// The control's position and velocity targets on the host.
    target_pos: Vec<f32>,
    target_vel: Vec<f32>,
    a: Option<State>,
    b: Option<State>,
    time: f32,
}

impl RobotViewer {
    fn new(robot: Robot, sweep: bool) -> Self {
        let values = robot
            .sliders
            .iter()
            .map(|s| s.q0.clamp(s.lo, s.hi))
            .collect();
        let target_pos = robot.model.joint_target_pos.to_vec();
        let target_vel = robot.model.joint_target_vel.to_vec();
        RobotViewer {
            robot,
            mode: TARGETS,
            sweep,
            values,
            solver: None,
            control: None,
            target_pos,
            target_vel,
            a: None,
            b: None,
            time: 0.0,
        }
    }

    /// What slider `k` asks for at time `t`: its value, swept if asked (then
    /// within the slider's range), and the rate of change.
    fn wanted(&self, k: usize, t: f32) -> (f32, f32) {
        let s = &self.robot.sliders[k];
        let v = self.values[k];
        if !self.sweep {
            return (v, 0.0);
        }
        let amplitude = (0.3 * 0.5 * (s.hi - s.lo)).min(0.5);
        let w = TAU / SWEEP_PERIOD;
        let phase = 0.9 * k as f32;
        let x = v + amplitude * (w * t + phase).sin();
        if x < s.lo || x > s.hi {
            (x.clamp(s.lo, s.hi), 0.0)
        } else {
            (x, amplitude * w * (w * t + phase).cos())
        }
    }

    /// Puts the slider coordinates of `state` at the sliders' values for time
    /// `t` (with their rates), and the drives' targets there too.
    fn pose_state(&mut self, t: f32, with_fk: bool) -> AppResult {
        let Some(a) = self.a.as_mut() else {
            return Ok(());
        };
        let mut q = a.joint_q.to_vec();
        let mut qd = a.joint_qd.to_vec();
        for k in 0..self.robot.sliders.len() {
            let (x, v) = self.wanted(k, t);
            let s = &self.robot.sliders[k];
            q[s.q] = x;
            qd[s.dof] = v;
            self.target_pos[s.dof] = x;
            self.target_vel[s.dof] = v;
        }
        let a = self.a.as_mut().expect("checked above");
        a.joint_q.copy_from_slice(&q)?;
        a.joint_qd.copy_from_slice(&qd)?;
        if with_fk {
            eval_fk(&self.robot.model, a)?;
        }
        Ok(())
    }
}

impl App for RobotViewer {
    fn settings(&self) -> Settings {
        let dt = self.robot.dt;
        Settings {
            title: "robot_viewer".into(),
            dt,
            steps_per_frame: ((1.0 / 60.0) / dt).round().max(1.0) as u32,
            camera: None,
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        let model = &self.robot.model;
        let mut solver = FeatherstoneSolver::new(model)?;
        solver.enable_contacts = self.robot.description.options.contacts;
        self.solver = Some(solver);
        self.control = Some(Control::new(model)?);
        self.target_pos = model.joint_target_pos.to_vec();
        self.target_vel = model.joint_target_vel.to_vec();
        self.a = Some(State::new(model)?);
        self.b = Some(State::new(model)?);
        self.time = 0.0;
        if self.mode == COORDINATES {
            self.pose_state(0.0, true)?;
        } else if let Some(a) = self.a.as_mut() {
            eval_fk(model, a)?;
        }
        Ok(())
    }

    fn step(&mut self, dt: f32) -> AppResult {
        let t = self.time;
        if self.mode == COORDINATES {
            self.pose_state(t, false)?;
        } else {
            for k in 0..self.robot.sliders.len() {
                let (x, v) = self.wanted(k, t);
                let d = self.robot.sliders[k].dof;
                self.target_pos[d] = x;
                self.target_vel[d] = v;
            }
        }
        let (Some(solver), Some(control), Some(a), Some(b)) = (
            &mut self.solver,
            &mut self.control,
            &mut self.a,
            &mut self.b,
        ) else {
            return Ok(());
        };
        control.joint_target_pos.copy_from_slice(&self.target_pos)?;
        control.joint_target_vel.copy_from_slice(&self.target_vel)?;
        solver.step(&self.robot.model, a, b, control, dt)?;
        std::mem::swap(a, b);
        self.time += dt;
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let (Some(a), Some(solver)) = (&self.a, &self.solver) else {
            return Ok(());
        };
        let body_q = a.body_q.to_vec();
        self.robot.drawing.draw(scene, "robot", &body_q)?;
        let q = a.joint_q.to_vec();
        let worst = self
            .robot
            .sliders
            .iter()
            .map(|s| (q[s.q] - self.target_pos[s.dof]).abs())
            .fold(0.0f32, f32::max);
        scene.log_scalar("largest |q − target| (rad or m)", worst as f64);
        scene.log_scalar("contacts", solver.contact_report()?.found as f64);
        if let Some(low) = self.robot.drawing.lowest_z(&body_q) {
            scene.log_scalar("lowest point (m)", low as f64);
        }
        Ok(())
    }

    fn params(&mut self, p: &mut Params) {
        let r = &self.robot;
        p.label(&format!(
            "{}: {} bodies, {} degrees of freedom, {} sliders ({} drives added here)",
            r.description.name,
            r.description.bodies.len(),
            r.model.joint_dof_count(),
            r.sliders.len(),
            r.added_drives
        ));
        let mut pose = p.choice(
            "sliders set",
            &mut self.mode,
            &["joint targets", "coordinates"],
        );
        pose |= p.checkbox("sweep", &mut self.sweep);
        if p.button("sliders to start pose") {
            for (v, s) in self.values.iter_mut().zip(&self.robot.sliders) {
                *v = s.q0.clamp(s.lo, s.hi);
            }
            pose = true;
        }
        for (k, s) in self.robot.sliders.iter().enumerate() {
            pose |= p.slider(&s.name, &mut self.values[k], s.lo..=s.hi);
        }
        // Posing by coordinates shows at once, playing or not.
        if pose && self.mode == COORDINATES {
            let t = self.time;
            if let Err(e) = self.pose_state(t, true) {
                eprintln!("robot_viewer: {e}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Command line.
// ---------------------------------------------------------------------------

/// The viewer's options that take a value (their value is passed on with them).
const VIEWER_VALUE_FLAGS: [&str; 7] = [
    "--frames",
    "--out",
    "--every",
    "--size",
    "--steps-per-frame",
    "--set",
    "--msaa",
];

const USAGE: &str = "usage: robot_viewer [PATH] [--package-path DIR]... [VIEWER OPTIONS]

  PATH                 a URDF (.urdf) or MJCF (.xml) robot file (default: assets/robots/ant.xml)
  --package-path DIR   where package:// mesh URIs are looked up (repeatable; alias --mesh-path)

The sliders set joint targets (PD drives); --set 'sliders set=coordinates' makes
them set the joint coordinates. Headless (no display, or --headless): PNG frames
of a 3 s simulation with the targets swept, to out/robot_viewer/.";

struct Args {
    path: PathBuf,
    import: ImportOptions,
    options: Options,
}

fn parse_args() -> Result<Args, String> {
    let mut path = None;
    let mut import = ImportOptions::default();
    let mut viewer = vec!["robot_viewer".to_string()];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            let help = Options::parse_from(["robot_viewer", "-h"])
                .err()
                .map(|e| e.to_string().trim_start_matches("parameter: ").to_string())
                .unwrap_or_default();
            println!("{USAGE}\n\nViewer options:\n{help}");
            std::process::exit(0);
        }
        if let Some(dir) = ["--package-path", "--mesh-path"]
            .iter()
            .find_map(|f| arg.strip_prefix(&format!("{f}=")))
        {
            import = import.with_package_path(dir);
        } else if arg == "--package-path" || arg == "--mesh-path" {
            let dir = args
                .next()
                .ok_or_else(|| format!("{arg} needs a directory\n\n{USAGE}"))?;
            import = import.with_package_path(dir);
        } else if VIEWER_VALUE_FLAGS.contains(&arg.as_str()) {
            viewer.push(arg);
            viewer.extend(args.next());
        } else if arg.starts_with('-') {
            viewer.push(arg);
        } else if path.is_none() {
            path = Some(PathBuf::from(arg));
        } else {
            return Err(format!(
                "one robot file at a time (got a second: `{arg}`)\n\n{USAGE}"
            ));
        }
    }
    let options = Options::parse_from(viewer).map_err(|e| format!("{e}\n\n{USAGE}"))?;
    let path = path.unwrap_or_else(|| {
        println!("robot_viewer: no robot file given: opening {DEFAULT_ROBOT} (`--help` for usage)");
        PathBuf::from(DEFAULT_ROBOT)
    });
    Ok(Args {
        path,
        import,
        options,
    })
}

fn main() -> ExitCode {
    let Args {
        path,
        import,
        mut options,
    } = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("robot_viewer: {e}");
            return ExitCode::from(2);
        }
    };
    let robot = match Robot::load(&path, &import) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("robot_viewer: cannot open `{}`: {e}", path.display());
            if e.to_string().contains("package://") {
                eprintln!(
                    "robot_viewer: give the directory that holds the package with --package-path DIR"
                );
            }
            return ExitCode::FAILURE;
        }
    };
    let headless = options.mode() != weft_viewer::Mode::Window;
    println!(
        "robot_viewer: {} from {}: {} bodies, {} joints, {} coordinates, {} sliders ({} drives added), dt {} s",
        robot.description.name,
        path.display(),
        robot.model.body_count(),
        robot.model.joint_count(),
        robot.model.joint_coord_count(),
        robot.sliders.len(),
        robot.added_drives,
        robot.dt
    );
    if headless {
        // A short film: 3 s at 30 frames per second, the targets swept.
        let per_frame = ((1.0 / 30.0) / robot.dt).round().max(1.0) as u32;
        options.steps_per_frame.get_or_insert(per_frame);
        options.frames.get_or_insert(90);
    }
    match weft_viewer::run_with(RobotViewer::new(robot, headless), &options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("robot_viewer: {e}");
            ExitCode::FAILURE
        }
    }
}
