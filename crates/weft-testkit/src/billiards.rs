//! The billiards shot of `examples/billiards.rs` and `tests/billiards.rs`: a
//! cue ball is struck so that it cuts a target ball into a corner pocket. The
//! table is a static plane with six cushion boxes (gaps at the pockets), the
//! balls are rigid bodies stepped by [`SemiImplicit`] with penalty contacts,
//! and the loss is the squared distance of the target ball's final position to
//! the pocket's centre; its gradient with respect to the cue ball's initial
//! velocity comes from the tape through every step.
//!
//! Choices that keep the loss smooth enough to descend:
//! - no contact damping (`kd = 0`): a penalty force with damping jumps by
//!   `kd · v` when a gap closes, and the gradient across that jump is wrong
//!   (see `crates/weft-sim/tests/rigid_gradients.rs`); the balls and cushions
//!   are then perfectly elastic;
//! - the balls' contacts with each other are computed here ([`ball_forces`]),
//!   not by weft-sim's penalty contacts: those keep the normal that collision
//!   detection found at the start of the step (detection is off the tape), so
//!   the tape does not see the normal turn as the balls move — and where the
//!   target ball goes is exactly that normal. With it held fixed, the tape's
//!   gradient of this shot disagreed with finite differences in sign. (The
//!   cloth's and the cushions' flat faces have fixed normals: their contacts
//!   stay weft-sim's.)
//! - soft balls ([`BALL_KE`]), their force set in smoothly ([`SMOOTH`]): a
//!   collision lasts about 22 ms, 11 steps of 2 ms, and the step it starts in
//!   no longer swings the gradient;
//! - friction with the cloth kept in its viscous range (`kf · slip` stays
//!   below the Coulomb bound `mu · weight` at every speed of the shot), so it
//!   has no kink: a struck ball's slide still turns into a roll, over ~0.2 s;
//! - rolling resistance as a smooth force (in [`ball_forces`]): a constant
//!   deceleration faded out below a slip speed, so balls stop without a kink;
//! - each ball starts sunk into the cloth by its static penalty depth, so it
//!   does not bounce on the table's undamped spring.
//!
//! With these the tape agrees with central differences to 1–4 % for shots
//! that keep the red ball off the cushions (whose contacts keep weft-sim's
//! kinked onset: a shot into a cushion disagreed by 58 %).

use crate::bounce::smooth_depth;
use weft::prelude::*;
use weft_collide::{CollisionOptions, Filter, Geometry, Material, ShapeDesc};
use weft_sim::{BodyDesc, BodyMass, Control, Model, ModelBuilder, SemiImplicit, SimError, State};

/// Ball radius (m).
pub const RADIUS: f32 = 0.03;
/// Ball density (kg/m³): 0.19 kg balls.
pub const DENSITY: f32 = 1700.0;
/// Half the playing area's length and width (m): a 1.6 m × 0.8 m table.
pub const HALF: Vec2 = Vec2::new(0.8, 0.4);
/// Rolling resistance: the deceleration it gives a ball's centre (m/s²) and the
/// speed (m/s) below which it fades out.
pub const ROLLING: Vec2 = Vec2::new(0.5, 0.05);
/// Penalty stiffness of two balls in contact (N/m, [`ball_forces`]); against
/// the cloth and the cushions a ball's own stiffness is twice this, in series
/// with theirs.
pub const BALL_KE: f32 = 2.0e3;
/// Over how much distance (m) the balls' contact force sets in: it grows
/// quadratically from first touch ([`smooth_depth`]) rather than with a kink,
/// so the step in which a collision starts no longer changes its outcome's
/// derivative (with a kink the tape's gradient of a frictionless shot was
/// −1.54 against finite differences' −0.73; rounded, −0.71 against −0.74).
/// The balls touch 5 mm early.
pub const SMOOTH: f32 = 0.01;
/// Penalty stiffness of the cloth and the cushions (N/m).
pub const TABLE_KE: f32 = 1.0e5;
/// How far a ball's centre may be from a cushion end to pass (m): the gap at a
/// corner pocket runs this far along both cushions from the corner.
pub const CORNER_GAP: f32 = 0.075;
/// Half the gap of a side pocket (m).
pub const SIDE_GAP: f32 = 0.06;

/// What the shot looks like and how long it is simulated.
#[derive(Clone, Copy, Debug)]
pub struct ShotConfig {
    /// Time step (s).
    pub dt: f32,
    /// Steps per rollout.
    pub steps: usize,
    /// The cue ball's start, the target ball's, and two more balls'.
    pub balls: [Vec2; 4],
    /// The pocket the target ball should end in.
    pub pocket: Vec2,
}

impl ShotConfig {
    /// The example's shot: 3 s at 2 ms; the target ball must be cut about
    /// 25° into the top-right corner pocket.
    pub fn example() -> ShotConfig {
        ShotConfig {
            dt: 2e-3,
            steps: 1500,
            balls: [
                Vec2::new(-0.5, -0.15),
                Vec2::new(0.35, 0.05),
                Vec2::new(-0.25, 0.25),
                Vec2::new(0.05, -0.3),
            ],
            pocket: corner_pocket(),
        }
    }

    /// A shorter shot for tests: the same table, the balls closer to the
    /// pocket, 0.9 s at 3 ms.
    pub fn small() -> ShotConfig {
        ShotConfig {
            dt: 3e-3,
            steps: 300,
            balls: [
                Vec2::new(0.1, -0.1),
                Vec2::new(0.45, 0.1),
                Vec2::new(-0.25, 0.25),
                Vec2::new(0.05, -0.3),
            ],
            pocket: corner_pocket(),
        }
    }

    /// A ball's mass (kg).
    pub fn ball_mass(&self) -> f32 {
        DENSITY * 4.0 / 3.0 * std::f32::consts::PI * RADIUS.powi(3)
    }

    /// The table and the balls at rest, on `device`.
    pub fn build(&self, device: Device) -> Result<Model, SimError> {
        let mut b = ModelBuilder::new();
        b.ground = None;
        let mut cloth = ShapeDesc::new(
            -1,
            Transform::IDENTITY,
            Geometry::Plane {
                half_extents: Vec2::ZERO,
            },
        );
        // Friction stiffness 0.6 on the cloth and on the balls, 0.3 N·s/m in
        // series: at 2.5 m/s of slip 0.75 N, below mu · weight = 0.93 N, so the
        // friction stays viscous (smooth) throughout; frictionless cushions.
        cloth.material = material(0.5, 0.6, TABLE_KE);
        b.add_rigid_shape(cloth);
        for (centre, half) in cushions() {
            let mut s = ShapeDesc::new(
                -1,
                Transform::from_translation(centre),
                Geometry::Box { half_extents: half },
            );
            s.material = material(0.0, 0.6, TABLE_KE);
            b.add_rigid_shape(s);
        }
        // Sunk by the static penalty depth of the cloth and the ball in series.
        let sink = self.ball_mass() * 9.81 * (0.5 / BALL_KE + 1.0 / TABLE_KE);
        for p in self.balls {
            let mut d = BodyDesc::new(Transform::from_translation(p.extend(RADIUS - sink)));
            d.mass = BodyMass::Density(DENSITY);
            let body = b.add_body(d) as i32;
            let mut s = ShapeDesc::new(
                body,
                Transform::IDENTITY,
                Geometry::Sphere { radius: RADIUS },
            );
            s.material = material(0.5, 0.6, 2.0 * BALL_KE);
            // Group 2 meets group 1 (the table) only: ball–ball contacts are
            // `ball_forces`'.
            s.filter = Filter { group: 2, mask: 1 };
            b.add_rigid_shape(s);
        }
        b.finalize(device)
    }
}

/// The top-right corner pocket's centre, a little beyond the corner.
pub fn corner_pocket() -> Vec2 {
    HALF + Vec2::splat(0.015)
}

/// The pockets' centres (for drawing): four corners and the middles of the
/// long sides.
pub fn pockets() -> [Vec2; 6] {
    let (x, y) = (HALF.x + 0.015, HALF.y + 0.015);
    [
        Vec2::new(-x, -y),
        Vec2::new(x, -y),
        Vec2::new(-x, y),
        Vec2::new(x, y),
        Vec2::new(0.0, -y - 0.01),
        Vec2::new(0.0, y + 0.01),
    ]
}

/// Undamped contact material: friction `mu`, friction stiffness `kf`, normal
/// stiffness `ke`.
fn material(mu: f32, kf: f32, ke: f32) -> Material {
    Material {
        mu,
        mu_static: mu,
        restitution: 1.0,
        ke,
        kd: 0.0,
        kf,
    }
}

/// The six cushions as (centre, half extents): two on each long side (the side
/// pocket between them), one on each short side, each stopping short of the
/// corners; 8 cm thick, outside the playing area, 7 cm high.
pub fn cushions() -> Vec<(Vec3, Vec3)> {
    let (t, h) = (0.04, 0.035);
    let mut out = Vec::new();
    let long = 0.5 * (HALF.x - CORNER_GAP - SIDE_GAP);
    let mid = SIDE_GAP + long;
    for sy in [-1.0, 1.0] {
        for sx in [-1.0, 1.0] {
            out.push((
                Vec3::new(sx * mid, sy * (HALF.y + t), h),
                Vec3::new(long, t, h),
            ));
        }
    }
    for sx in [-1.0, 1.0] {
        out.push((
            Vec3::new(sx * (HALF.x + t), 0.0, h),
            Vec3::new(t, HALF.y - CORNER_GAP, h),
        ));
    }
    out
}

/// Each ball's external force: rolling resistance, a deceleration
/// `rolling.x` against its horizontal velocity faded out below the speed
/// `rolling.y` (`a · v / sqrt(|v|² + slip²)`, so a ball stops without a
/// kink), plus the contacts with the other balls: a spring of stiffness `ke`
/// on their overlap (rounded off over `smooth`, see [`SMOOTH`]) along the
/// line between their centres, which turns with them (frictionless,
/// undamped: elastic balls).
#[weft::kernel]
pub fn ball_forces(
    q: &Array<Transform>,
    qd: &Array<SpatialVector>,
    mass: f32,
    rolling: Vec2,
    ke: f32,
    radius: f32,
    smooth: f32,
    f: &mut Array<SpatialVector>,
) {
    let b = tid();
    let v = spatial_top(qd[b]);
    let vh = Vec3::new(v.x, v.y, 0.0);
    let mut force = vh * (-mass * rolling.x / sqrt(dot(vh, vh) + rolling.y * rolling.y));
    let p = q[b].p;
    for o in 0..q.len() {
        if o != b {
            let d = p - q[o].p;
            let l = length(d);
            if l < 2.0 * radius + smooth && l > 0.0 {
                force += d * (ke * smooth_depth(2.0 * radius - l, 0.5 * smooth) / l);
            }
        }
    }
    f[b] = SpatialVector::new(force, Vec3::ZERO);
}

/// The initial velocities: `base`, with the cue ball's (body 0) linear
/// velocity replaced by `cue[0]`.
#[weft::kernel]
pub fn strike(base: &Array<SpatialVector>, cue: &Array<Vec3>, qd: &mut Array<SpatialVector>) {
    let b = tid();
    let v = base[b];
    if b == 0 {
        qd[b] = SpatialVector::new(cue[0], spatial_bottom(v));
    } else {
        qd[b] = v;
    }
}

/// `loss[0] = |xy of ball 1 − pocket|²` (one thread).
#[weft::kernel]
pub fn pocket_loss(q: &Array<Transform>, pocket: Vec2, loss: &mut Array<f32>) {
    let p = q[1].p;
    let dx = p.x - pocket.x;
    let dy = p.y - pocket.y;
    loss[0] = dx * dx + dy * dy;
}

/// One step of the table: the balls' own forces ([`ball_forces`]) into `s0`'s
/// external forces, then the semi-implicit step (cloth and cushion contacts)
/// into `s1`.
pub fn step(
    model: &Model,
    solver: &mut SemiImplicit,
    control: &Control,
    s0: &mut State,
    s1: &mut State,
    dt: f32,
    mass: f32,
) -> Result<(), SimError> {
    ball_forces::launch(
        model.body_count(),
        &s0.body_q,
        &s0.body_qd,
        mass,
        ROLLING,
        BALL_KE,
        RADIUS,
        SMOOTH,
        &mut s0.body_f,
    )?;
    solver.simulate(model, s0, s1, control, dt)
}

/// A solver with collision buffers sized for a few balls (each step on a tape
/// keeps its own contacts: the default capacities would hold megabytes per step).
pub fn solver() -> SemiImplicit {
    let mut s = SemiImplicit::new();
    s.collision = CollisionOptions {
        pair_capacity: Some(64),
        contact_capacity: Some(64),
        ..Default::default()
    };
    s
}

/// The shot with every state allocated (one per step, for the tape), reusable
/// across iterations.
pub struct ShotRollout {
    /// The configuration.
    pub config: ShotConfig,
    /// The table and balls.
    pub model: Model,
    states: Vec<State>,
    solver: SemiImplicit,
    control: Control,
}

fn runtime(e: SimError) -> weft::Error {
    match e {
        SimError::Runtime(e) => e,
        other => weft::Error::Shape(other.to_string()),
    }
}

impl ShotRollout {
    /// A rollout of `config` on `device`.
    pub fn new(config: ShotConfig, device: Device) -> Result<ShotRollout, SimError> {
        let model = config.build(device)?;
        let states = (0..=config.steps)
            .map(|_| State::new(&model))
            .collect::<Result<_, _>>()?;
        Ok(ShotRollout {
            config,
            control: Control::empty(device),
            solver: solver(),
            model,
            states,
        })
    }

    /// Strikes the cue ball at `cue[0]`, simulates the shot and writes the
    /// loss (differentiable inside [`Tape::record`]).
    pub fn run(&mut self, cue: &Array<Vec3>, loss: &mut Array<f32>) -> Result<(), weft::Error> {
        let n = self.model.body_count();
        self.states[0].body_q.copy_from(&self.model.body_q)?;
        strike::launch(n, &self.model.body_qd, cue, &mut self.states[0].body_qd)?;
        let mass = self.config.ball_mass();
        for k in 0..self.config.steps {
            let (done, next) = self.states.split_at_mut(k + 1);
            step(
                &self.model,
                &mut self.solver,
                &self.control,
                &mut done[k],
                &mut next[0],
                self.config.dt,
                mass,
            )
            .map_err(runtime)?;
        }
        let last = &self.states[self.config.steps];
        pocket_loss::launch(1, &last.body_q, self.config.pocket, loss)
    }

    /// Runs on `tape` (reset first) and back-propagates: `cue`'s gradient
    /// (zeroed first) then holds d loss / d cue velocity.
    pub fn gradient(
        &mut self,
        tape: &mut Tape,
        cue: &Array<Vec3>,
        loss: &mut Array<f32>,
    ) -> Result<(), weft::Error> {
        tape.reset();
        cue.zero_grad();
        tape.record(|| self.run(cue, loss))?;
        tape.backward(loss)
    }

    /// Every ball's position at every step of the last run.
    pub fn paths(&self) -> Vec<Vec<Vec3>> {
        let poses: Vec<Vec<Transform>> = self.states.iter().map(|s| s.body_q.to_vec()).collect();
        (0..self.model.body_count())
            .map(|b| poses.iter().map(|q| q[b].p).collect())
            .collect()
    }

    /// The balls' poses and velocities after the last run.
    pub fn final_state(&self) -> (Vec<Transform>, Vec<SpatialVector>) {
        let last = &self.states[self.config.steps];
        (last.body_q.to_vec(), last.body_qd.to_vec())
    }
}

/// Adam (Kingma & Ba) for a 2-D parameter with a learning rate decaying by
/// `decay` each step: the shot's optimizer (see `examples/billiards.rs` for
/// why not plain gradient descent).
#[derive(Clone, Copy, Debug)]
pub struct Adam {
    /// Learning rate of the first step (m/s for a velocity).
    pub lr: f32,
    /// Factor on the learning rate per step.
    pub decay: f32,
    m: Vec2,
    s: Vec2,
    k: i32,
}

impl Adam {
    /// Adam with the usual moment rates (0.9, 0.999).
    pub fn new(lr: f32, decay: f32) -> Adam {
        Adam {
            lr,
            decay,
            m: Vec2::ZERO,
            s: Vec2::ZERO,
            k: 0,
        }
    }

    /// The parameter `x` after one step along its gradient `g`.
    pub fn step(&mut self, x: Vec2, g: Vec2) -> Vec2 {
        let (b1, b2) = (0.9f32, 0.999f32);
        self.k += 1;
        self.m = self.m * b1 + g * (1.0 - b1);
        self.s = self.s * b2 + g * g * (1.0 - b2);
        let m = self.m / (1.0 - b1.powi(self.k));
        let s = self.s / (1.0 - b2.powi(self.k));
        x - m / (s.map(f32::sqrt) + 1e-8) * self.lr * self.decay.powi(self.k - 1)
    }
}
