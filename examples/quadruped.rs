//! A quadruped walks on the ground: the ant of `assets/robots/ant.xml` (a
//! spherical torso on a free joint, four legs of two hinges each: a hip about
//! the torso's vertical axis and an ankle that lifts the shin; loaded by
//! `weft-import`) trots forward (+X) on the file's floor under an open-loop
//! periodic gait, stepped by `FeatherstoneSolver` with its link contacts.
//!
//! The gait: each of the eight hinges follows a PD position drive
//! (`Control::joint_target_pos`, with the target's rate in
//! `Control::joint_target_vel`). The file has motors only (gear 40,
//! ctrlrange ±1: an effort limit of 40 N·m, kept) and no gains, so the
//! example sets stiffness 400 N·m/rad and damping 20 N·m·s/rad on every
//! hinge. Diagonal legs move together (a trot: the legs at (+X, +Y) and
//! (−X, −Y), then those at (−X, +Y) and (+X, −Y)): with phase `φ = ωt` for
//! one pair and `ωt + π` for the other, each hip swings `±A sin φ` (signed so
//! that while `cos φ > 0` every foot sweeps backward, −X, under the body: the
//! stance) and each ankle bends the shin down by `stance` less a lift
//! `lift · max(0, −cos φ)`, so a leg is raised only while it swings forward.
//! Period 1.5 s, hips ±25°, ankles 65° in stance, lifted to 30° (the file's
//! limit) mid-swing. The amplitude ramps in over the first period, after the
//! ant has stood for 0.5 s. A hip turns its foot along a circle, so each pair
//! pushes the torso along a diagonal: the torso zigzags (±0.15 m in Y) and
//! the two pairs' sideways pushes cancel over a period.
//!
//! Contacts are `FeatherstoneSolver`'s penalty contacts with the shapes'
//! default stiffness, damping and friction stiffness and the file's friction
//! coefficient (μ = 1), implicit and with anchored friction (the solver's
//! defaults). The step is 1 ms: 0.5 ms and 2 ms walk 4.09 and 4.18 m, 5 ms
//! 3.90 m; at the file's 10 ms it walks 1.7 m, turning 28° (not looked
//! into: the stiff drives, 400 N·m/rad, are a suspect).
//!
//! The run prints the torso's forward distance, sideways drift, height range,
//! tilt and mean speed over the gait, and how the feet touch the floor (the
//! share of each phase a foot presses on it, and how fast it slides then).
//! It counts the walk a success when the torso moves forward at `MIN_SPEED`
//! or more on average, drifts sideways less than a quarter of that distance,
//! stays upright (its vertical axis within 30° of the world's) and clear of
//! the floor (`MIN_HEIGHT`); else it exits with an error after drawing. Then
//! it plays the recorded walk in the viewer, or without a display renders it
//! to PNG frames in `OUT` (`--out DIR`; default `out/quadruped`; by default
//! one frame per 0.1 s of the run), seen from the side, the torso's path
//! drawn on the floor in coral from the teal start mark. `--set key=value`
//! changes the run: `seconds` (of walking), `period` (s), `hip`, `stance`,
//! `lift` (degrees), `ke`, `kd`, `dt`, `kf`, `mu` (of every shape).
//!
//! Run: `cargo run --release --example quadruped`: 10.5 s of simulation
//! (10,500 steps, ~0.7 s on a 2-core machine; ~12 s with the 106 frames
//! rendered by lavapipe). The ant walks 4.09 m forward (0.41 m/s), drifting
//! +0.15 m sideways and turning 0.3°, the torso between 0.567 and 0.606 m up,
//! tilting at most 13° (rocking about the diagonal it stands on).
//!
//! What limits it: the stance feet slide at 0.08 m/s on average (friction is
//! anchored where a foot touches down, so a foot slides only where the
//! drives push it past Coulomb's limit), and a swinging foot presses on the
//! floor for a quarter of its swing (the torso rolls onto it), dragging at
//! ~1 m/s. More friction (μ = 5) holds the dragging feet (0.04 m/s) and
//! shortens the walk (3.3 m, turning 24°). Faster gaits go wrong: with
//! periods of 0.8, 0.6 and 0.5 s the drives (effort limit or not) no longer
//! follow the lift in time, the stance feet press on the floor a quarter to
//! half of their stance, and the ant barely moves or goes backward (0.8 m,
//! −2.9 m, −6.7 m in 10 s); a 2 s period walks 3.0 m.
//!
//! `tests/quadruped.rs` checks the gait's targets and walks 3 s of it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use weft::prelude::*;
use weft_articulation::FeatherstoneSolver;
use weft_import::{RobotDescription, RobotHandles, RobotOptions, add_robot, pose_to_transform};
use weft_sim::{Control, Model, ModelBuilder, State};
use weft_viewer::{App, AppResult, Color, Lines, OrbitCamera, Scene, Settings, Shape};

/// The robot file (`assets/robots/ant.xml` of this workspace).
pub const ROBOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/robots/ant.xml");

/// The hinges' names in the file, per leg: front left (+X +Y), front right
/// (−X +Y), back left (−X −Y), back right (+X −Y).
const HIPS: [&str; 4] = ["hip_1", "hip_2", "hip_3", "hip_4"];
const ANKLES: [&str; 4] = ["ankle_1", "ankle_2", "ankle_3", "ankle_4"];
/// The sites at the feet (the centres of the shins' end caps).
const FEET: [&str; 4] = [
    "front_left_foot",
    "front_right_foot",
    "back_left_foot",
    "back_right_foot",
];
/// A foot presses on the floor when its site is this close to it (m): half a
/// millimetre into the shin's radius (at least ~25 N on the contact spring).
const TOUCH: f32 = 0.0795;
/// The shins' radius (m).
const SHIN_RADIUS: f32 = 0.08;
/// Sign of each hip's angle that sweeps its foot toward −X (a hip turns its
/// leg about +Z: the legs at +Y sweep back for a growing angle).
const HIP_SIGN: [f32; 4] = [1.0, 1.0, -1.0, -1.0];
/// Sign of each ankle's angle that bends its shin down (the file's ranges:
/// 30°..70° or −70°..−30°).
const ANKLE_SIGN: [f32; 4] = [1.0, -1.0, -1.0, 1.0];
/// Which pair each leg belongs to: diagonal legs move together.
const PAIR: [usize; 4] = [0, 1, 0, 1];

/// The gait and the simulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaitConfig {
    /// Time step (s).
    pub dt: f32,
    /// Time standing still on the floor before the gait starts (s).
    pub settle: f32,
    /// Time walking (s), the first period of it with a growing amplitude.
    pub walk: f32,
    /// Gait period (s).
    pub period: f32,
    /// Hip swing amplitude (rad).
    pub hip: f32,
    /// Ankle angle in stance, from the horizontal (rad).
    pub stance: f32,
    /// How much the ankle rises at the middle of the swing (rad).
    pub lift: f32,
    /// Drive stiffness (N·m/rad) and damping (N·m·s/rad) of every hinge.
    pub ke: f32,
    /// See `ke`.
    pub kd: f32,
    /// Friction stiffness `kf` (N·s/m) of every shape, floor and legs alike
    /// (a touching pair's is half of it: the two in series).
    pub kf: f32,
    /// Friction coefficient of every shape (`None`: the file's, 1).
    pub mu: Option<f32>,
}

impl GaitConfig {
    /// The example's: 10 s of walking at dt 1 ms.
    pub fn example() -> Self {
        GaitConfig {
            dt: 1e-3,
            settle: 0.5,
            walk: 10.0,
            period: 1.5,
            hip: 25f32.to_radians(),
            stance: 65f32.to_radians(),
            lift: 35f32.to_radians(),
            ke: 400.0,
            kd: 20.0,
            kf: weft_collide::Material::default().kf,
            mu: None,
        }
    }

    /// Steps before the gait starts.
    pub fn settle_steps(&self) -> usize {
        (self.settle / self.dt).round() as usize
    }

    /// Steps of the whole run (settling and walking).
    pub fn steps(&self) -> usize {
        self.settle_steps() + (self.walk / self.dt).round() as usize
    }

    /// Whether `leg` is in its stance phase at time `t` (its foot sweeping
    /// backward: `cos φ > 0`); always before the gait starts.
    pub fn in_stance(&self, leg: usize, t: f32) -> bool {
        let tau = t - self.settle;
        if tau < 0.0 {
            return true;
        }
        let phi =
            std::f32::consts::TAU / self.period * tau + PAIR[leg] as f32 * std::f32::consts::PI;
        phi.cos() > 0.0
    }

    /// Targets `(angle, rate)` of each leg's hip and ankle at time `t` of the
    /// run (the gait's clock starts after `settle`).
    pub fn targets(&self, t: f32) -> [[(f32, f32); 2]; 4] {
        let tau = (t - self.settle).max(0.0);
        let omega = std::f32::consts::TAU / self.period;
        // The amplitude ramps in over the first period (smoothly).
        let (ramp, ramp_rate) = if tau < self.period {
            let s = tau / self.period;
            (s * s * (3.0 - 2.0 * s), 6.0 * s * (1.0 - s) / self.period)
        } else {
            (1.0, 0.0)
        };
        let mut out = [[(0.0, 0.0); 2]; 4];
        for (leg, o) in out.iter_mut().enumerate() {
            let phi = omega * tau + PAIR[leg] as f32 * std::f32::consts::PI;
            let (s, c) = phi.sin_cos();
            let hip = self.hip * ramp * s;
            let hip_rate = self.hip * (ramp * omega * c + ramp_rate * s);
            // The lift, `max(0, −cos φ)`: only while the leg swings forward.
            let (shape, shape_rate) = if c < 0.0 { (-c, omega * s) } else { (0.0, 0.0) };
            let up = self.lift * ramp * shape;
            let up_rate = self.lift * (ramp * shape_rate + ramp_rate * shape);
            o[0] = (HIP_SIGN[leg] * hip, HIP_SIGN[leg] * hip_rate);
            o[1] = (
                ANKLE_SIGN[leg] * (self.stance - up),
                -ANKLE_SIGN[leg] * up_rate,
            );
        }
        out
    }
}

/// The ant loaded from [`ROBOT`] with the gait's drives, and where its parts are.
pub struct Ant {
    /// The model.
    pub model: Model,
    /// The file's description (its geoms are drawn).
    pub robot: RobotDescription,
    /// Where the description's bodies and joints went.
    pub handles: RobotHandles,
    /// The torso's body.
    pub torso: usize,
    /// Coordinates (`joint_q`) of each leg's hip and ankle.
    pub q_index: [[usize; 2]; 4],
    /// Degrees of freedom (`joint_qd`, `Control`) of each leg's hip and ankle.
    pub dof: [[usize; 2]; 4],
    /// Each leg's foot site (`handles.sites`).
    pub feet: [usize; 4],
}

impl Ant {
    /// Loads the robot file into a CPU model with the drives of `config`.
    pub fn load(config: &GaitConfig) -> Result<Ant, Box<dyn std::error::Error>> {
        let dev = Device::Cpu;
        let robot = weft_import::load(ROBOT, &Default::default())?;
        let mut builder = ModelBuilder::new();
        builder.ground = None; // the file has its floor
        builder.gravity = robot.options.gravity.as_vec3();
        let handles = add_robot(
            &mut builder,
            &robot,
            Transform::IDENTITY,
            &RobotOptions::default(),
        )?;
        let mut model = builder.finalize(dev)?;
        let joint = |name: &str| -> Result<usize, String> {
            robot
                .joints
                .iter()
                .position(|j| j.name == name)
                .ok_or_else(|| format!("{ROBOT} has no joint `{name}`"))
        };
        let mut q_index = [[0; 2]; 4];
        let mut dof = [[0; 2]; 4];
        for leg in 0..4 {
            for (k, name) in [HIPS[leg], ANKLES[leg]].into_iter().enumerate() {
                let j = joint(name)?;
                q_index[leg][k] = handles.q_start[j];
                dof[leg][k] = handles.qd_start[j];
            }
        }
        let mut feet = [0; 4];
        for (leg, name) in FEET.into_iter().enumerate() {
            feet[leg] = handles
                .sites
                .iter()
                .position(|s| s.name == name)
                .ok_or_else(|| format!("{ROBOT} has no site `{name}`"))?;
        }
        // PD drives on the eight hinges (the file's motors give none).
        let mut ke = model.joint_target_ke.to_vec();
        let mut kd = model.joint_target_kd.to_vec();
        for d in dof.iter().flatten() {
            ke[*d] = config.ke;
            kd[*d] = config.kd;
        }
        model.joint_target_ke = Array::from_vec(dev, ke);
        model.joint_target_kd = Array::from_vec(dev, kd);
        let shapes = model.rigid_shapes.kf.len();
        model.rigid_shapes.kf = Array::from_vec(dev, vec![config.kf; shapes]);
        if let Some(mu) = config.mu {
            model.rigid_shapes.mu = Array::from_vec(dev, vec![mu; shapes]);
        }
        Ok(Ant {
            model,
            robot,
            torso: handles.bodies[0],
            handles,
            q_index,
            dof,
            feet,
        })
    }

    /// The initial coordinates: the torso at `height` above the floor, level,
    /// the legs at the gait's first targets.
    pub fn initial_q(&self, config: &GaitConfig, height: f32) -> Vec<f32> {
        let mut q = self.model.joint_q.to_vec();
        let root = self.handles.q_start[0];
        q[root..root + 7].copy_from_slice(&[0.0, 0.0, height, 0.0, 0.0, 0.0, 1.0]);
        for (index, t) in self.q_index.iter().zip(&config.targets(0.0)) {
            for (&i, &(pos, _)) in index.iter().zip(t) {
                q[i] = pos;
            }
        }
        q
    }
}

/// The walk: the ant, its solver and two states.
pub struct Walk {
    /// The robot.
    pub ant: Ant,
    /// The gait.
    pub config: GaitConfig,
    solver: FeatherstoneSolver,
    control: Control,
    target_pos: Vec<f32>,
    target_vel: Vec<f32>,
    a: State,
    b: State,
    /// Steps taken.
    pub steps: usize,
}

/// Height the torso starts at (m): with the ankles at 65° its feet are 7 mm
/// above the floor.
pub const START_HEIGHT: f32 = 0.6;

impl Walk {
    /// The ant standing just above the floor, at the start of `config`'s run.
    pub fn new(config: GaitConfig) -> Result<Walk, Box<dyn std::error::Error>> {
        let ant = Ant::load(&config)?;
        let model = &ant.model;
        let solver = FeatherstoneSolver::new(model)?;
        let control = Control::new(model)?;
        let mut a = State::new(model)?;
        a.joint_q
            .copy_from_slice(&ant.initial_q(&config, START_HEIGHT))?;
        weft_articulation::eval_fk(model, &mut a)?;
        let b = State::new(model)?;
        Ok(Walk {
            target_pos: model.joint_target_pos.to_vec(),
            target_vel: model.joint_target_vel.to_vec(),
            solver,
            control,
            a,
            b,
            steps: 0,
            config,
            ant,
        })
    }

    /// Time of the current state (s).
    pub fn time(&self) -> f32 {
        self.steps as f32 * self.config.dt
    }

    /// One step: the gait's targets at the current time, then a solver step.
    pub fn step(&mut self) -> Result<(), Box<dyn std::error::Error>> {
        let targets = self.config.targets(self.time());
        for (dof, t) in self.ant.dof.iter().zip(&targets) {
            for (&d, &(pos, vel)) in dof.iter().zip(t) {
                self.target_pos[d] = pos;
                self.target_vel[d] = vel;
            }
        }
        self.control
            .joint_target_pos
            .copy_from_slice(&self.target_pos)?;
        self.control
            .joint_target_vel
            .copy_from_slice(&self.target_vel)?;
        self.solver.step(
            &self.ant.model,
            &self.a,
            &mut self.b,
            &self.control,
            self.config.dt,
        )?;
        std::mem::swap(&mut self.a, &mut self.b);
        self.steps += 1;
        Ok(())
    }

    /// Each foot's position (its site: the centre of the shin's end cap) and
    /// its shin's pose now.
    pub fn feet(&self) -> [(Vec3, Transform); 4] {
        let body_q = self.body_q();
        self.ant.feet.map(|k| {
            let site = &self.ant.handles.sites[k];
            (
                self.ant.handles.site_pose(k, &body_q).p,
                body_q[site.body as usize],
            )
        })
    }

    /// Every body's pose now.
    pub fn body_q(&self) -> Vec<Transform> {
        self.a.body_q.to_vec()
    }

    /// The torso's pose now.
    pub fn torso(&self) -> Transform {
        self.body_q()[self.ant.torso]
    }

    /// Contacts found at the last step.
    pub fn contacts(&self) -> Result<usize, Box<dyn std::error::Error>> {
        Ok(self.solver.contact_report()?.found)
    }

    /// Whether every coordinate is finite.
    pub fn finite(&self) -> bool {
        self.a.joint_q.to_vec().iter().all(|x| x.is_finite())
    }
}

/// What the torso did over the gait (from its start to the end of the run).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WalkStats {
    /// Torso position when the gait starts…
    pub start: Vec3,
    /// …and at the end.
    pub end: Vec3,
    /// Lowest and highest torso height during the gait (m).
    pub z_range: [f32; 2],
    /// Smallest `ẑ_torso · ẑ` during the gait (1: level).
    pub min_upright: f32,
    /// Heading at the end: the angle of the torso's X axis about Z (rad).
    pub heading: f32,
    /// Walking time (s).
    pub seconds: f32,
    /// Feet in their stance phase, then in their swing phase: the fraction
    /// of that phase's time a foot presses on the floor, and how fast it
    /// slides meanwhile (m/s, mean horizontal speed of the shin's point at
    /// the bottom of its cap).
    pub feet: [FootStats; 2],
}

/// How the feet touch the floor in one phase of the gait (see [`WalkStats::feet`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootStats {
    /// Fraction of the phase's time a foot presses on the floor.
    pub touching: f32,
    /// Mean sliding speed while it does (m/s).
    pub slip: f32,
}

impl WalkStats {
    /// Distance along +X (m).
    pub fn forward(&self) -> f32 {
        self.end.x - self.start.x
    }

    /// Sideways drift along Y (m).
    pub fn drift(&self) -> f32 {
        self.end.y - self.start.y
    }

    /// Mean forward speed (m/s).
    pub fn speed(&self) -> f32 {
        self.forward() / self.seconds
    }

    /// The largest tilt of the torso from level (rad).
    pub fn max_tilt(&self) -> f32 {
        self.min_upright.clamp(-1.0, 1.0).acos()
    }

    /// Whether this is a walk: at least `min_forward` m forward, sideways
    /// drift under a quarter of the distance, the torso tilted less than 30°
    /// and above `MIN_HEIGHT` throughout.
    pub fn walked(&self, min_forward: f32) -> bool {
        self.forward() >= min_forward
            && self.drift().abs() < 0.25 * self.forward()
            && self.max_tilt() < 30f32.to_radians()
            && self.z_range[0] > MIN_HEIGHT
    }
}

/// The torso (radius 0.25 m) must stay this high (m): the legs carry it.
pub const MIN_HEIGHT: f32 = 0.3;
/// The example's success: at least this mean forward speed (m/s; the gait
/// gives about 0.4).
pub const MIN_SPEED: f32 = 0.2;

/// Runs the whole of `walk`'s configuration, calling `sample` with each
/// state (the first included), and returns what the torso did.
pub fn run(
    walk: &mut Walk,
    mut sample: impl FnMut(&Walk),
) -> Result<WalkStats, Box<dyn std::error::Error>> {
    let c = walk.config;
    let settle = c.settle_steps();
    let mut stats = WalkStats {
        start: walk.torso().p,
        end: walk.torso().p,
        z_range: [f32::INFINITY, f32::NEG_INFINITY],
        min_upright: 1.0,
        heading: 0.0,
        seconds: c.walk,
        feet: [FootStats::default(); 2],
    };
    // Per phase (stance, swing): summed slip, samples touching, samples.
    let mut slip = [0.0f64; 2];
    let mut touching = [0usize; 2];
    let mut samples = [0usize; 2];
    let mut feet = walk.feet();
    sample(walk);
    while walk.steps < c.steps() {
        walk.step()?;
        let now = walk.feet();
        if !walk.finite() {
            return Err(format!("non-finite coordinates at step {}", walk.steps).into());
        }
        let torso = walk.torso();
        if walk.steps == settle {
            stats.start = torso.p;
        }
        if walk.steps >= settle {
            stats.z_range[0] = stats.z_range[0].min(torso.p.z);
            stats.z_range[1] = stats.z_range[1].max(torso.p.z);
            stats.min_upright = stats.min_upright.min((torso.q * Vec3::Z).z);
            for (leg, ((a, shin_a), (b, shin_b))) in feet.iter().zip(&now).enumerate() {
                let phase = if c.in_stance(leg, walk.time()) { 0 } else { 1 };
                samples[phase] += 1;
                if a.z < TOUCH && b.z < TOUCH {
                    touching[phase] += 1;
                    // The shin's material point at the bottom of the cap:
                    // where it went over the step (rolling is not sliding).
                    let bottom = *a - Vec3::Z * SHIN_RADIUS;
                    let moved = shin_b.transform_point(shin_a.inverse().transform_point(bottom));
                    slip[phase] += ((moved - bottom).truncate().length() / c.dt) as f64;
                }
            }
        }
        feet = now;
        sample(walk);
    }
    for phase in 0..2 {
        stats.feet[phase] = FootStats {
            touching: touching[phase] as f32 / samples[phase].max(1) as f32,
            slip: (slip[phase] / touching[phase].max(1) as f64) as f32,
        };
    }
    let torso = walk.torso();
    stats.end = torso.p;
    let x = torso.q * Vec3::X;
    stats.heading = x.y.atan2(x.x);
    Ok(stats)
}

/// Gait settings from `--set key=value` (taken out of `options.set`, the rest
/// left for the viewer): `seconds` of walking, `period` (s), `hip`, `stance`,
/// `lift` (degrees), `ke`, `kd` (the drives), `dt` (s), `kf`, `mu` (every
/// shape's friction).
fn gait_overrides(
    options: &mut weft_viewer::Options,
    config: &mut GaitConfig,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut rest = Vec::new();
    for s in std::mem::take(&mut options.set) {
        let Some((key, value)) = s.split_once('=') else {
            rest.push(s);
            continue;
        };
        if key.trim() == "mu" {
            config.mu = Some(
                value
                    .trim()
                    .parse()
                    .map_err(|e| format!("--set {s}: {e}"))?,
            );
            continue;
        }
        let field = match key.trim() {
            "seconds" => &mut config.walk,
            "period" => &mut config.period,
            "hip" => &mut config.hip,
            "stance" => &mut config.stance,
            "lift" => &mut config.lift,
            "ke" => &mut config.ke,
            "kd" => &mut config.kd,
            "dt" => &mut config.dt,
            "kf" => &mut config.kf,
            _ => {
                rest.push(s);
                continue;
            }
        };
        let v: f32 = value
            .trim()
            .parse()
            .map_err(|e| format!("--set {s}: {e}"))?;
        *field = if matches!(key.trim(), "hip" | "stance" | "lift") {
            v.to_radians()
        } else {
            v
        };
    }
    options.set = rest;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Parse the viewer's options first, so that `--help` answers at once.
    let mut options = weft_viewer::Options::from_env();
    let out: PathBuf = options
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join("quadruped"));
    options.out = Some(out.clone());
    let mut config = GaitConfig::example();
    gait_overrides(&mut options, &mut config)?;
    // One recorded pose per 0.1 s; headless, one frame per recorded pose.
    let sample_every = ((0.1 / config.dt).round() as usize).max(1);
    let samples = config.steps() / sample_every + 1;
    options.frames.get_or_insert(samples as u64);

    let mut walk = Walk::new(config)?;
    println!(
        "ant from {ROBOT}: {} bodies, {} coordinates; drives ke {} N·m/rad, kd {} N·m·s/rad, effort limit {:.0} N·m",
        walk.ant.model.body_count(),
        walk.ant.model.joint_coord_count(),
        config.ke,
        config.kd,
        walk.ant.model.joint_effort_limit.to_vec()[walk.ant.dof[0][0]],
    );
    println!(
        "trot: period {:.2} s, hip ±{:.0}°, ankle {:.0}° in stance, lifted {:.0}° in swing; {:.1} s settling + {:.1} s walking, {} steps of {} ms",
        config.period,
        config.hip.to_degrees(),
        config.stance.to_degrees(),
        config.lift.to_degrees(),
        config.settle,
        config.walk,
        config.steps(),
        config.dt * 1e3
    );
    let mut frames: Vec<Vec<Transform>> = Vec::with_capacity(samples);
    let t0 = Instant::now();
    let report_every = (1.0 / config.dt).round() as usize;
    let stats = run(&mut walk, |w| {
        if w.steps % sample_every == 0 {
            frames.push(w.body_q());
        }
        if w.steps % report_every == 0 && w.steps > 0 {
            let p = w.torso().p;
            let n = w.contacts().unwrap_or(0);
            println!(
                "t = {:5.2} s: torso at ({:+.3}, {:+.3}, {:.3}) m, {n} contacts",
                w.time(),
                p.x,
                p.y,
                p.z
            );
        }
    })?;
    let seconds = t0.elapsed().as_secs_f32();
    println!(
        "{} steps in {seconds:.1} s ({:.3} ms per step)",
        config.steps(),
        1e3 * seconds / config.steps() as f32
    );
    println!(
        "over {:.1} s of gait: forward {:.3} m, sideways drift {:+.3} m, torso height {:.3}..{:.3} m, tilt at most {:.1}°, heading {:+.1}°, mean speed {:.3} m/s",
        stats.seconds,
        stats.forward(),
        stats.drift(),
        stats.z_range[0],
        stats.z_range[1],
        stats.max_tilt().to_degrees(),
        stats.heading.to_degrees(),
        stats.speed()
    );
    let [stance, swing] = stats.feet;
    println!(
        "feet in stance press on the floor {:.0}% of the time, sliding at {:.3} m/s meanwhile; in swing {:.0}%, at {:.3} m/s",
        100.0 * stance.touching,
        stance.slip,
        100.0 * swing.touching,
        swing.slip
    );
    let min_forward = MIN_SPEED * stats.seconds;
    let success = stats.walked(min_forward);
    let verdict = format!(
        "{}: the ant walked {:.3} m forward in {:.1} s ({:.3} m/s; needs ≥ {min_forward:.1} m), drifting {:+.3} m sideways (needs < a quarter of the distance), tilting at most {:.1}° (needs < 30°), torso at least {:.3} m up (needs > {MIN_HEIGHT})",
        if success { "SUCCESS" } else { "FAILURE" },
        stats.forward(),
        stats.seconds,
        stats.speed(),
        stats.drift(),
        stats.max_tilt().to_degrees(),
        stats.z_range[0],
    );
    println!("{verdict}");

    let path: Vec<Vec3> = frames.iter().map(|b| b[walk.ant.torso].p).collect();
    let view = WalkView {
        ant: walk.ant,
        frames,
        path,
        frame: 0,
        dt: config.dt * sample_every as f32,
    };
    weft_viewer::run_with(view, &options)?;
    println!("{verdict}");
    if success { Ok(()) } else { Err(verdict.into()) }
}

/// The recorded walk in the viewer, one recorded pose per viewer step.
struct WalkView {
    ant: Ant,
    /// Every body's pose, per recorded instant.
    frames: Vec<Vec<Transform>>,
    /// The torso's position at each.
    path: Vec<Vec3>,
    frame: usize,
    /// Time between recorded poses (s).
    dt: f32,
}

impl App for WalkView {
    fn settings(&self) -> Settings {
        // Wide enough for the whole walk, seen from the side and above.
        let (lo, hi) = self.path.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let centre = Vec3::new(0.5 * (lo.x + hi.x), 0.5 * (lo.y + hi.y), 0.3);
        // The path and the legs' reach (0.85 m) on either side of it.
        let span = (hi.x - lo.x).max(hi.y - lo.y).max(1.0) + 2.2;
        Settings {
            title: "quadruped".into(),
            dt: self.dt,
            steps_per_frame: 1,
            camera: Some(OrbitCamera::look_at(
                centre + Vec3::new(-0.1 * span, -0.72 * span, 0.3 * span),
                centre,
            )),
            size: [960, 540],
            ..Default::default()
        }
    }

    fn reset(&mut self) -> AppResult {
        self.frame = 0;
        Ok(())
    }

    fn step(&mut self, _dt: f32) -> AppResult {
        self.frame = (self.frame + 1) % self.frames.len().max(1);
        Ok(())
    }

    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let Some(body_q) = self.frames.get(self.frame) else {
            return Ok(());
        };
        let ant = &self.ant;
        // The file's geoms (torso, thighs, shins) at their bodies' poses.
        let mut shapes = Vec::new();
        for g in &ant.robot.geoms {
            let Some(b) = g.body else { continue }; // the floor: the viewer's ground
            let pose = body_q[ant.handles.bodies[b]] * pose_to_transform(&g.pose);
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
        // The start: a teal marker on the floor under where the torso began.
        let start = self.path[0];
        shapes.push(
            Shape::cylinder(0.05, 0.005)
                .at(Transform::from_translation(Vec3::new(
                    start.x, start.y, 0.005,
                )))
                .color(Color::TEAL),
        );
        scene.log_shapes("ant", &shapes)?;
        // The torso's path so far, on the floor.
        let floor: Vec<Vec3> = self.path[..=self.frame]
            .iter()
            .map(|p| Vec3::new(p.x, p.y, 0.01))
            .collect();
        scene.log_lines(
            "torso path",
            Lines::strip(&floor).color(Color::CORAL).width(3.0),
        )?;
        let p = self.path[self.frame];
        scene.log_scalar("time (s)", (self.frame as f32 * self.dt) as f64);
        scene.log_scalar("torso x (m)", p.x as f64);
        scene.log_scalar("torso y (m)", p.y as f64);
        scene.log_scalar("torso z (m)", p.z as f64);
        Ok(())
    }
}
