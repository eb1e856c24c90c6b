//! The cloth throw shared by `examples/cloth_throw.rs` and `tests/cloth_throw.rs`:
//! a square cloth (membrane triangles and bending edges from
//! [`ModelBuilder::add_cloth_grid`]) is thrown tilted and spinning like a frisbee,
//! with one initial velocity `v0` shared by every particle; it flies under gravity,
//! lands on the ground and slides to rest, and the loss is the squared distance of
//! its centre of mass at the last step to a target.
//!
//! Every step is [`SemiImplicit`] (membranes, bending) plus [`soft_ground`], a
//! ground contact written here rather than weft-sim's penalty contact. The latter
//! switches its damping on with a jump and its force with a kink when a particle
//! touches the ground, and its friction has another kink where it reaches
//! Coulomb's cone; with hundreds of particles landing at different steps the
//! final centre of mass is then only piecewise smooth in `v0`, and its gradient
//! jumps from crease to crease. Here the penetration depth is rounded off
//! ([`smooth_depth`]), the damping grows with the depth (Hunt–Crossley: nothing
//! jumps at first touch), the friction is Coulomb's smoothed over a slip speed,
//! and the contact is soft enough that a landing spreads over many steps (see
//! [`SoftGround::for_particles`]). The loss is then continuously differentiable,
//! finite differences agree with the tape, and gradient descent converges.
//!
//! What still makes gradients rough is chaos, not contact: a cloth that tumbles
//! (spin about an axis in its plane) lands folding over itself, and where it
//! folds changes abruptly with the throw. The frisbee spin keeps it spread.

use weft::prelude::*;
use weft_sim::{
    ClothGrid, Control, Model, ModelBuilder, SemiImplicit, SimError, State, TriMaterial,
};

use crate::bounce::smooth_depth;

/// The ground contact's parameters (per particle; the ground is the plane z = 0).
#[weft::structure]
pub struct SoftGround {
    /// Height of the contact surface: the depth `height − z` is rounded off over
    /// `±width`, so a particle touches at `height + width` and rests a little below.
    pub height: f32,
    /// Half width (m) over which the depth's kink at first touch is rounded off.
    pub width: f32,
    /// Normal stiffness (N/m).
    pub ke: f32,
    /// Normal damping per metre of depth (N·s/m²), Hunt–Crossley, capped by
    /// `max_damping`.
    pub kd: f32,
    /// Friction coefficient.
    pub mu: f32,
    /// Sliding speed (m/s) below which Coulomb friction fades to viscous.
    pub slip: f32,
    /// Largest normal and friction damping (N·s/m): half of mass / dt keeps the
    /// explicit step from reversing a velocity in one step.
    pub max_damping: f32,
}

/// `c · cap / (c + cap)`: about `c` while it is small, never above `cap`, smooth.
#[weft::func]
pub fn soft_cap(c: f32, cap: f32) -> f32 {
    c * cap / (c + cap)
}

/// Ground contact forces added to `f`: along +Z a spring on the rounded depth and
/// a damper growing with it, `kd · depth`; along the ground smoothed Coulomb
/// friction `-vt · mu · ke · depth / sqrt(|vt|² + slip²)`. Both dampings are
/// capped ([`soft_cap`]) at `max_damping`, which keeps the explicit step stable.
#[weft::kernel]
pub fn soft_ground(x: &Array<Vec3>, v: &Array<Vec3>, f: &mut Array<Vec3>, g: SoftGround) {
    let i = tid();
    let p = x[i];
    let u = v[i];
    let depth = smooth_depth(g.height - p.z, g.width);
    let f_n = depth * g.ke - soft_cap(depth * g.kd, g.max_damping) * u.z;
    let vt = Vec3::new(u.x, u.y, 0.0);
    // Friction bounded by the spring part of the normal force (never negative,
    // unlike `f_n` as a particle leaves the ground).
    let c = g.mu * depth * g.ke / sqrt(dot(vt, vt) + g.slip * g.slip);
    atomic_add(&mut f[i], Vec3::Z * f_n - vt * soft_cap(c, g.max_damping));
}

/// Initial velocities: the shared throw `v0[0]` plus a fixed spin about the
/// initial centre of mass.
#[weft::kernel]
pub fn throw_velocities(
    x0: &Array<Vec3>,
    v0: &Array<Vec3>,
    center: Vec3,
    spin: Vec3,
    v: &mut Array<Vec3>,
) {
    let i = tid();
    v[i] = v0[0] + cross(spin, x0[i] - center);
}

/// The centre of mass: `com[0] += w[i] · x[i]` (weights sum to one).
#[weft::kernel]
pub fn center_of_mass(x: &Array<Vec3>, w: &Array<f32>, com: &mut Array<Vec3>) {
    let i = tid();
    atomic_add(&mut com[0], x[i] * w[i]);
}

/// `loss[0] = |com[0] − target|²` (one thread).
#[weft::kernel]
pub fn distance_loss(com: &Array<Vec3>, target: Vec3, loss: &mut Array<f32>) {
    let d = com[0] - target;
    loss[0] = dot(d, d);
}

/// What is thrown, how, and for how long.
#[derive(Clone, Copy, Debug)]
pub struct ThrowConfig {
    /// Cells per side of the square cloth (`(cells + 1)²` particles).
    pub cells: usize,
    /// Side length (m).
    pub size: f32,
    /// Mass of each particle (kg).
    pub particle_mass: f32,
    /// Initial centre of the cloth.
    pub center: Vec3,
    /// Initial tilt of the cloth (radians about X, then about Y).
    pub tilt: [f32; 2],
    /// Spin about the cloth's normal through its centre (rad/s), on top of `v0`:
    /// a frisbee's spin, which keeps the cloth spread.
    pub spin: f32,
    /// Membrane stiffness (`k_mu` and `k_lambda`).
    pub stiffness: f32,
    /// Membrane strain-rate damping.
    pub damping: f32,
    /// Bending stiffness.
    pub bending: f32,
    /// Ground contact.
    pub ground: SoftGround,
    /// Steps per rollout.
    pub steps: usize,
    /// Time step (s).
    pub dt: f32,
}

impl ThrowConfig {
    /// The example's throw: a 0.8 m cloth of 16 × 16 cells (289 particles, 2.3 kg
    /// in all), 1.5 s in 600 steps of 2.5 ms: about 0.9 s of flight, then it
    /// lands, slides and comes to rest well before the last step.
    pub fn example() -> Self {
        let (particle_mass, dt) = (0.008, 1.0 / 400.0);
        ThrowConfig {
            cells: 16,
            size: 0.8,
            particle_mass,
            center: Vec3::new(-1.2, 0.0, 0.9),
            tilt: [0.3, -0.2],
            spin: 4.0,
            stiffness: 150.0,
            damping: 0.25,
            bending: 0.05,
            ground: SoftGround::for_particles(particle_mass, dt),
            steps: 600,
            dt,
        }
    }

    /// A small throw for tests: 4 × 4 cells (25 particles), 1.2 s in 240 steps.
    pub fn small() -> Self {
        let (particle_mass, dt) = (0.04, 1.0 / 200.0);
        ThrowConfig {
            cells: 4,
            size: 0.6,
            particle_mass,
            center: Vec3::new(-0.6, 0.0, 0.6),
            tilt: [0.3, -0.2],
            spin: 4.0,
            stiffness: 100.0,
            damping: 0.5,
            bending: 0.2,
            ground: SoftGround::for_particles(particle_mass, dt),
            steps: 240,
            dt,
        }
    }

    /// The cloth's initial orientation.
    pub fn rotation(&self) -> Quat {
        Quat::from_rotation_y(self.tilt[1]) * Quat::from_rotation_x(self.tilt[0])
    }

    /// The spin as an angular velocity (rad/s).
    pub fn angular_velocity(&self) -> Vec3 {
        self.rotation() * Vec3::Z * self.spin
    }

    /// The cloth's model: no ground of weft-sim's (the ground is [`soft_ground`]).
    pub fn build(&self, device: Device) -> Result<Model, SimError> {
        let mut b = ModelBuilder::new();
        b.ground = None;
        let rot = self.rotation();
        let half = Vec3::new(self.size / 2.0, self.size / 2.0, 0.0);
        let cell = self.size / self.cells as f32;
        b.add_cloth_grid(&ClothGrid {
            pos: self.center - rot * half,
            rot,
            dim_x: self.cells,
            dim_y: self.cells,
            cell_x: cell,
            cell_y: cell,
            mass: self.particle_mass,
            radius: 0.005,
            material: TriMaterial {
                k_mu: self.stiffness,
                k_lambda: self.stiffness,
                k_damp: self.damping,
                ..Default::default()
            },
            edge_ke: self.bending,
            edge_kd: 0.01 * self.bending,
            ..Default::default()
        });
        b.finalize(device)
    }
}

impl SoftGround {
    /// Contact for particles of `mass` stepped by `dt`, soft enough that a landing
    /// spreads over many steps: a stiffness of ω · dt = 0.3 (a landing at 4 m/s
    /// sinks about 3 cm, a resting particle sits about 8 mm above the ground), the
    /// kink rounded over ±2 cm, damping near critical once a particle is a few
    /// millimetres in (it barely bounces), and friction 0.6. A stiffer contact
    /// (ω · dt = 0.8, ±5 mm) resolves a landing in two or three steps, and then the result depends on where between two steps
    /// a particle touches down: the gradient with respect to the vertical throw
    /// speed oscillates with a period of one step's shift of the landing.
    pub fn for_particles(mass: f32, dt: f32) -> Self {
        let ke = mass * (0.3 / dt) * (0.3 / dt);
        SoftGround {
            height: -0.005,
            width: 0.02,
            ke,
            kd: 2.0 * ke,
            mu: 0.6,
            slip: 0.05,
            max_damping: 0.5 * mass / dt,
        }
    }
}

/// One step: the ground's forces, then [`SemiImplicit`] with the cloth's own.
pub struct Stepper {
    solver: SemiImplicit,
    control: Control,
    ground: SoftGround,
    dt: f32,
}

impl Stepper {
    /// A stepper for `config` on `device`.
    pub fn new(config: &ThrowConfig, device: Device) -> Self {
        Stepper {
            solver: SemiImplicit::new(),
            control: Control::empty(device),
            ground: config.ground,
            dt: config.dt,
        }
    }

    /// Steps `s_in` into `s_out` (a new `s_out` per step when a tape records).
    pub fn step(
        &mut self,
        model: &Model,
        s_in: &mut State,
        s_out: &mut State,
    ) -> Result<(), SimError> {
        let n = model.particle_count();
        soft_ground::launch(
            n,
            &s_in.particle_q,
            &s_in.particle_qd,
            &mut s_in.particle_f,
            self.ground,
        )?;
        self.solver
            .simulate(model, s_in, s_out, &self.control, self.dt)
    }
}

/// Initial velocities for the throw `v0` (with the config's spin), on the host:
/// what [`throw_velocities`] computes.
pub fn initial_velocities(config: &ThrowConfig, model: &Model, v0: Vec3) -> Vec<Vec3> {
    let x0 = model.particle_q.to_vec();
    let center = x0.iter().sum::<Vec3>() / x0.len() as f32;
    x0.iter()
        .map(|x| v0 + config.angular_velocity().cross(*x - center))
        .collect()
}

fn runtime(e: SimError) -> Error {
    match e {
        SimError::Runtime(e) => e,
        e => Error::Shape(e.to_string()),
    }
}

/// The throw with every state allocated up front (one per step, so a tape can
/// replay any step), reusable across optimization iterations.
pub struct ThrowRollout {
    /// The throw.
    pub config: ThrowConfig,
    /// The cloth.
    pub model: Model,
    /// Where the centre of mass should end.
    pub target: Vec3,
    states: Vec<State>,
    stepper: Stepper,
    weights: Array<f32>,
    com: Array<Vec3>,
    center: Vec3,
}

impl ThrowRollout {
    /// The rollout of `config` on `device` towards `target`.
    pub fn new(config: ThrowConfig, device: Device, target: Vec3) -> Result<Self, SimError> {
        let model = config.build(device)?;
        let states = (0..=config.steps)
            .map(|_| State::new(&model))
            .collect::<Result<Vec<_>, _>>()?;
        let m = model.particle_mass.to_vec();
        let total: f32 = m.iter().sum();
        let x0 = model.particle_q.to_vec();
        let center = x0.iter().zip(&m).map(|(x, m)| *x * *m).sum::<Vec3>() / total;
        Ok(ThrowRollout {
            stepper: Stepper::new(&config, device),
            weights: Array::from_vec(device, m.iter().map(|m| m / total).collect()),
            com: Array::zeros(device, [1]),
            center,
            states,
            config,
            model,
            target,
        })
    }

    /// Number of particles.
    pub fn particle_count(&self) -> usize {
        self.model.particle_count()
    }

    /// Simulates the throw `v0[0]` and writes the loss to `loss[0]`.
    pub fn run(&mut self, v0: &Array<Vec3>, loss: &mut Array<f32>) -> Result<(), Error> {
        let n = self.particle_count();
        self.states[0].particle_f.fill(Vec3::ZERO);
        throw_velocities::launch(
            n,
            &self.model.particle_q,
            v0,
            self.center,
            self.config.angular_velocity(),
            &mut self.states[0].particle_qd,
        )?;
        for k in 0..self.config.steps {
            let (done, next) = self.states.split_at_mut(k + 1);
            self.stepper
                .step(&self.model, &mut done[k], &mut next[0])
                .map_err(runtime)?;
        }
        self.com.fill(Vec3::ZERO);
        let last = &self.states[self.config.steps];
        center_of_mass::launch(n, &last.particle_q, &self.weights, &mut self.com)?;
        distance_loss::launch(1, &self.com, self.target, loss)
    }

    /// Runs on `tape` (reset first) and back-propagates `loss`: `v0`'s gradient
    /// (zeroed first) then holds d loss / d v0.
    pub fn gradient(
        &mut self,
        tape: &mut Tape,
        v0: &Array<Vec3>,
        loss: &mut Array<f32>,
    ) -> Result<(), Error> {
        tape.reset();
        v0.zero_grad();
        tape.record(|| self.run(v0, loss))?;
        tape.backward(loss)
    }

    /// The centre of mass at the last step (after a run).
    pub fn final_com(&self) -> Vec3 {
        self.com.to_vec()[0]
    }

    /// The centre of mass at every step of the last run, from the initial state on.
    pub fn com_path(&self) -> Vec<Vec3> {
        let w = self.weights.to_vec();
        self.states
            .iter()
            .map(|s| {
                s.particle_q
                    .to_vec()
                    .iter()
                    .zip(&w)
                    .map(|(x, w)| *x * *w)
                    .sum()
            })
            .collect()
    }

    /// The largest speed of a particle at the last step (after a run): how far the
    /// cloth is from rest.
    pub fn final_max_speed(&self) -> f32 {
        self.states[self.config.steps]
            .particle_qd
            .to_vec()
            .iter()
            .map(|v| v.length())
            .fold(0.0, f32::max)
    }
}
