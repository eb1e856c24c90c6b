//! The spring robot shared by `examples/spring_robot.rs` and `tests/spring_robot.rs`
//! (after DiffTaichi's `mass_spring` task): a planar body of particles and springs
//! in the XZ plane standing on two legs on the ground, some springs actuated by an
//! open-loop controller, a differentiable rollout of semi-implicit Euler steps
//! (one [`State`] and one [`Control`] per step, so a tape keeps every step) and a
//! loss that rewards walking forward (+X).
//!
//! The controller drives actuator `j` (one per actuated spring) with
//! `activation_j(t) = A · tanh(Σ_k W_jk · sin(ω t + 2πk/K) + b_j)`: the spring's rest
//! length is `rest · (1 + activation)`. It is a kernel ([`controller`]) writing
//! each step's `control.spring_activation`, so the tape differentiates the loss
//! with respect to the weights `W` and biases `b`.

use weft::prelude::*;
use weft_sim::{Control, Model, ModelBuilder, SemiImplicit, SimError, State};

/// Size of a cell of the robot's lattice (m).
pub const CELL: f32 = 0.1;
/// Time step (s).
pub const DT: f32 = 1.0 / 480.0;
/// Number of sine inputs of the controller (`K`).
pub const WAVES: usize = 6;
/// Angular frequency of the controller's sines (rad/s): a 2 Hz gait.
pub const OMEGA: f32 = 4.0 * std::f32::consts::PI;
/// Mass of each particle (kg).
pub const MASS: f32 = 0.5;
/// Height of the body in cells.
pub const BODY: i32 = 2;
/// Contact radius of each particle (m).
pub const RADIUS: f32 = 0.02;

/// Physical parameters of the robot and its ground.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RobotParams {
    /// Spring stiffness (N/m).
    pub spring_ke: f32,
    /// Spring damping along the spring (N·s/m).
    pub spring_kd: f32,
    /// Ground friction coefficient.
    pub mu: f32,
    /// Ground contact stiffness (N/m).
    pub contact_ke: f32,
    /// Ground contact damping (N·s/m, approaching only).
    pub contact_kd: f32,
    /// Friction regularisation (N·s/m): viscous below the Coulomb cap.
    pub contact_kf: f32,
    /// Largest relative change of an actuated spring's rest length (`A`).
    pub amplitude: f32,
}

impl Default for RobotParams {
    fn default() -> Self {
        RobotParams {
            spring_ke: 5000.0,
            spring_kd: 10.0,
            mu: 1.0,
            contact_ke: 5000.0,
            contact_kd: 50.0,
            contact_kf: 100.0,
            amplitude: 0.1,
        }
    }
}

/// Writes each spring's activation for time `t`: actuated springs (with
/// `actuator[s] = j >= 0`) get `amplitude · tanh(Σ_k w[j·K + k] sin(ω t + 2πk/K) + b[j])`,
/// the others 0.
#[weft::kernel]
#[allow(clippy::too_many_arguments)]
pub fn controller(
    weights: &Array<f32>,
    bias: &Array<f32>,
    actuator: &Array<i32>,
    activation: &mut Array<f32>,
    waves: i32,
    t: f32,
    omega: f32,
    amplitude: f32,
) {
    let s = tid();
    let j = actuator[s];
    let mut a = 0.0;
    if j >= 0 {
        let mut sum = bias[j];
        for k in 0..waves {
            let phase = omega * t + 2.0 * std::f32::consts::PI * (k as f32) / (waves as f32);
            sum += weights[j * waves + k] * sin(phase);
        }
        a = amplitude * tanh(sum);
    }
    activation[s] = a;
}

/// `loss[0] += -weight[i] · (x[i].x - x0[i].x)`: with mass fractions as weights,
/// minus the distance the centre of mass moved along +X.
#[weft::kernel]
pub fn walk_loss(x: &Array<Vec3>, x0: &Array<Vec3>, weight: &Array<f32>, loss: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut loss[0], -weight[i] * (x[i].x - x0[i].x));
}

/// The robot: its model (whose initial state is the robot standing at rest on the
/// ground), which springs are actuated, and the mass fractions of its particles.
pub struct Robot {
    /// The model; `model.particle_q` is the settled pose.
    pub model: Model,
    /// Per spring: its actuator (row of the weights), or -1 when passive.
    pub actuator: Array<i32>,
    /// Number of actuators.
    pub actuators: usize,
    /// Mass fraction of each particle (for the centre of mass).
    pub weight: Array<f32>,
    /// Per spring: its two particles (for drawing).
    pub springs: Vec<[usize; 2]>,
    /// The parameters it was built with.
    pub params: RobotParams,
}

impl Robot {
    /// Builds the robot on `device` and lets it settle on the ground (0.3 s with no
    /// actuation); the settled pose becomes the model's initial state.
    ///
    /// The lattice (cells of [`CELL`]): a body 6 cells long and [`BODY`] high,
    /// lifted 2 cells off the ground by a leg of 1 × 2 cells under each end. Every
    /// cell has its 4 edges and 2 diagonals as springs; the vertical edges and
    /// diagonals of the legs are actuated (16 actuators): 29 particles and 76
    /// springs in all.
    pub fn new(device: Device, params: &RobotParams) -> Result<Robot, SimError> {
        let cells: Vec<([i32; 2], bool)> = {
            let mut c = Vec::new();
            for i in 0..6 {
                for z in 2..2 + BODY {
                    c.push(([i, z], false));
                }
            }
            for k in 0..2 {
                c.push(([0, k], true));
                c.push(([5, k], true));
            }
            c
        };
        let mut b = ModelBuilder::new();
        b.ground.as_mut().expect("default ground").mu = params.mu;
        b.contact.ke = params.contact_ke;
        b.contact.kd = params.contact_kd;
        b.contact.kf = params.contact_kf;
        let mut corners: Vec<[i32; 2]> = Vec::new();
        let mut id = |b: &mut ModelBuilder, c: [i32; 2]| -> usize {
            if let Some(k) = corners.iter().position(|p| *p == c) {
                return k;
            }
            corners.push(c);
            let q = Vec3::new(c[0] as f32 * CELL, 0.0, c[1] as f32 * CELL + RADIUS);
            b.add_particle(q, Vec3::ZERO, MASS, RADIUS)
        };
        // (particle pair, actuated), without duplicates of shared edges.
        let mut springs: Vec<([usize; 2], bool)> = Vec::new();
        for (c, actuated_cell) in &cells {
            let [x, z] = *c;
            let p00 = id(&mut b, [x, z]);
            let p10 = id(&mut b, [x + 1, z]);
            let p01 = id(&mut b, [x, z + 1]);
            let p11 = id(&mut b, [x + 1, z + 1]);
            let leg = z < 2;
            let edges = [
                ([p00, p10], false),
                ([p01, p11], false),
                ([p00, p01], leg),
                ([p10, p11], leg),
                ([p00, p11], true),
                ([p10, p01], true),
            ];
            for ([i, j], act) in edges {
                let act = act && *actuated_cell;
                match springs
                    .iter_mut()
                    .find(|(s, _)| *s == [i, j] || *s == [j, i])
                {
                    Some(s) => s.1 |= act,
                    None => springs.push(([i, j], act)),
                }
            }
        }
        let mut actuator = Vec::new();
        let mut actuators = 0;
        for ([i, j], act) in &springs {
            b.add_spring(*i, *j, params.spring_ke, params.spring_kd);
            if *act {
                actuator.push(actuators as i32);
                actuators += 1;
            } else {
                actuator.push(-1);
            }
        }
        let n = b.particle_count();
        let model = b.finalize(device)?;
        let mut robot = Robot {
            weight: Array::from_vec(device, vec![1.0 / n as f32; n]),
            actuator: Array::from_vec(device, actuator),
            actuators,
            springs: springs.iter().map(|(s, _)| *s).collect(),
            params: *params,
            model,
        };
        robot.settle(0.3)?;
        Ok(robot)
    }

    /// Simulates `seconds` without actuation and makes the result the initial state.
    fn settle(&mut self, seconds: f32) -> Result<(), SimError> {
        let (mut a, mut c) = (State::new(&self.model)?, State::new(&self.model)?);
        let control = Control::empty(self.model.device());
        let mut solver = SemiImplicit::new();
        for _ in 0..(seconds / DT).round() as usize {
            solver.simulate(&self.model, &mut a, &mut c, &control, DT)?;
            std::mem::swap(&mut a, &mut c);
        }
        self.model.particle_q.copy_from(&a.particle_q)?;
        self.model.particle_qd.fill(Vec3::ZERO);
        Ok(())
    }

    /// Number of controller parameters: `actuators × WAVES` weights, `actuators`
    /// biases.
    pub fn parameter_count(&self) -> usize {
        self.actuators * (WAVES + 1)
    }

    /// Writes the activations of time `t` into `control.spring_activation`.
    pub fn actuate(
        &self,
        weights: &Array<f32>,
        bias: &Array<f32>,
        control: &mut Control,
        t: f32,
    ) -> Result<(), Error> {
        controller::launch(
            self.model.spring_count(),
            weights,
            bias,
            &self.actuator,
            &mut control.spring_activation,
            WAVES as i32,
            t,
            OMEGA,
            self.params.amplitude,
        )
    }

    /// The centre of mass of positions `q`.
    pub fn center_of_mass(&self, q: &[Vec3]) -> Vec3 {
        q.iter().sum::<Vec3>() / q.len() as f32
    }

    /// Initial controller parameters: weights uniform in `±scale` (seeded), zero
    /// biases.
    pub fn initial_parameters(&self, seed: u64, scale: f32) -> (Vec<f32>, Vec<f32>) {
        (
            crate::random_f32s(self.actuators * WAVES, seed, -scale, scale),
            vec![0.0; self.actuators],
        )
    }
}

/// The `weft::Error` of a simulation error (runtime errors pass through).
pub fn runtime_error(e: SimError) -> Error {
    match e {
        SimError::Runtime(e) => e,
        e => Error::Shape(e.to_string()),
    }
}

/// A rollout of `steps` steps with every state and control allocated up front,
/// reusable across optimization iterations.
pub struct Rollout {
    /// The robot.
    pub robot: Robot,
    states: Vec<State>,
    controls: Vec<Control>,
    solver: SemiImplicit,
}

impl Rollout {
    /// A rollout of `robot` over `steps` steps of [`DT`].
    pub fn new(robot: Robot, steps: usize) -> Result<Rollout, SimError> {
        let model = &robot.model;
        Ok(Rollout {
            states: (0..=steps)
                .map(|_| State::new(model))
                .collect::<Result<_, _>>()?,
            controls: (0..steps)
                .map(|_| Control::new(model))
                .collect::<Result<_, _>>()?,
            solver: SemiImplicit::new(),
            robot,
        })
    }

    /// Number of steps.
    pub fn steps(&self) -> usize {
        self.controls.len()
    }

    /// Simulates from the settled pose with the controller's `weights`
    /// (`actuators × WAVES`, row-major) and `bias`, and writes the loss, minus
    /// the distance the centre of mass moved along +X, to `loss[0]`.
    pub fn run(
        &mut self,
        weights: &Array<f32>,
        bias: &Array<f32>,
        loss: &mut Array<f32>,
    ) -> Result<(), Error> {
        let model = &self.robot.model;
        self.states[0].particle_q.copy_from(&model.particle_q)?;
        self.states[0].particle_qd.copy_from(&model.particle_qd)?;
        self.states[0].particle_f.fill(Vec3::ZERO);
        for k in 0..self.steps() {
            self.robot
                .actuate(weights, bias, &mut self.controls[k], k as f32 * DT)?;
            let (done, next) = self.states.split_at_mut(k + 1);
            self.solver
                .simulate(model, &mut done[k], &mut next[0], &self.controls[k], DT)
                .map_err(runtime_error)?;
        }
        loss.fill(0.0);
        walk_loss::launch(
            model.particle_count(),
            &self.states[self.steps()].particle_q,
            &model.particle_q,
            &self.robot.weight,
            loss,
        )
    }

    /// Runs on `tape` (reset first) and back-propagates `loss`: the gradients of
    /// `weights` and `bias` (zeroed first) then hold d loss / d parameters.
    pub fn gradient(
        &mut self,
        tape: &mut Tape,
        weights: &Array<f32>,
        bias: &Array<f32>,
        loss: &mut Array<f32>,
    ) -> Result<(), Error> {
        tape.reset();
        weights.zero_grad();
        bias.zero_grad();
        tape.record(|| self.run(weights, bias, loss))?;
        tape.backward(loss)
    }

    /// Positions after step `k` of the last run (`k = 0`: the initial pose).
    pub fn positions(&self, k: usize) -> Vec<Vec3> {
        self.states[k].particle_q.to_vec()
    }

    /// How far the centre of mass moved along +X in the last run (m).
    pub fn distance(&self) -> f32 {
        let q0 = self.robot.model.particle_q.to_vec();
        let q1 = self.positions(self.steps());
        (self.robot.center_of_mass(&q1) - self.robot.center_of_mass(&q0)).x
    }

    /// The lowest and highest particle height over the last run (m), to tell a
    /// robot that stays upright from one that falls through or flies off.
    pub fn height_range(&self) -> (f32, f32) {
        let mut range = (f32::INFINITY, f32::NEG_INFINITY);
        for s in &self.states {
            for p in s.particle_q.to_vec() {
                range = (range.0.min(p.z), range.1.max(p.z));
            }
        }
        range
    }
}

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
