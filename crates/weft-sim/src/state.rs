//! What changes from step to step ([`State`]) and what drives it from outside
//! ([`Control`]).

use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code (until issue 28's hygiene fix)
use weft_collide::ShapeSet;

use crate::Model;

/// The time-varying part of a simulation: one per step when a rollout is
/// differentiated (the tape needs every intermediate state), or two swapped each
/// step otherwise.
#[weft::structure]
pub struct State {
    /// Particle positions.
    pub particle_q: Array<Vec3>,
    /// Particle velocities.
    pub particle_qd: Array<Vec3>,
    /// Force accumulator: the integrators add every internal force here before
    /// they integrate, and leave the output state's accumulator at zero. Forces
    /// written here before a step act during that step.
    pub particle_f: Array<Vec3>,
    /// Rigid body poses (body frame in the world).
    pub body_q: Array<Transform>,
    /// Rigid body velocities: linear of the centre of mass, angular; world frame.
    pub body_qd: Array<SpatialVector>,
    /// External wrench on each body: force (top) at the centre of mass and
    /// torque (bottom), world frame; acts during the next step, then cleared.
    pub body_f: Array<SpatialVector>,
    /// Joint position coordinates (see [`JointDesc`](crate::JointDesc) for
    /// their order per joint kind).
    pub joint_q: Array<f32>,
    /// Joint velocity coordinates, one per degree of freedom.
    pub joint_qd: Array<f32>,
}

impl State {
    /// A state holding the model's initial positions and velocities.
    pub fn new(model: &Model) -> Result<State, Error> {
        let device = model.device();
        let n = model.particle_count();
        let mut s = State {
            particle_q: Array::try_zeros(device, [n])?,
            particle_qd: Array::try_zeros(device, [n])?,
            particle_f: Array::try_zeros(device, [n])?,
            body_q: Array::try_zeros(device, [model.body_count()])?,
            body_qd: Array::try_zeros(device, [model.body_count()])?,
            body_f: Array::try_zeros(device, [model.body_count()])?,
            joint_q: Array::try_zeros(device, [model.joint_coord_count()])?,
            joint_qd: Array::try_zeros(device, [model.joint_dof_count()])?,
        };
        s.joint_q.copy_from(&model.joint_q)?;
        s.joint_qd.copy_from(&model.joint_qd)?;
        s.particle_q.copy_from(&model.particle_q)?;
        s.particle_qd.copy_from(&model.particle_qd)?;
        s.body_q.copy_from(&model.body_q)?;
        s.body_qd.copy_from(&model.body_qd)?;
        Ok(s)
    }

    /// Number of particles.
    pub fn particle_count(&self) -> usize {
        self.particle_q.len()
    }

    /// Number of rigid bodies.
    pub fn body_count(&self) -> usize {
        self.body_q.len()
    }

    /// Sets every force (and body wrench) to zero.
    pub fn clear_forces(&mut self) -> Result<(), Error> {
        self.particle_f.try_fill(Vec3::ZERO)?;
        self.body_f
            .try_fill(SpatialVector::new(Vec3::ZERO, Vec3::ZERO))
    }

    /// Copies positions and velocities from `other` (forces too).
    pub fn copy_from(&mut self, other: &State) -> Result<(), Error> {
        self.particle_q.copy_from(&other.particle_q)?;
        self.particle_qd.copy_from(&other.particle_qd)?;
        self.particle_f.copy_from(&other.particle_f)?;
        self.body_q.copy_from(&other.body_q)?;
        self.body_qd.copy_from(&other.body_qd)?;
        self.body_f.copy_from(&other.body_f)?;
        self.joint_q.copy_from(&other.joint_q)?;
        self.joint_qd.copy_from(&other.joint_qd)
    }

    /// Makes positions and velocities (and forces) require gradients.
    pub fn requires_grad(self) -> State {
        State {
            particle_q: self.particle_q.requires_grad(),
            particle_qd: self.particle_qd.requires_grad(),
            particle_f: self.particle_f.requires_grad(),
            body_q: self.body_q.requires_grad(),
            body_qd: self.body_qd.requires_grad(),
            body_f: self.body_f.requires_grad(),
            joint_q: self.joint_q.requires_grad(),
            joint_qd: self.joint_qd.requires_grad(),
        }
    }

    /// Another handle on the same arrays (and gradients).
    pub fn share(&self) -> State {
        State {
            particle_q: self.particle_q.share(),
            particle_qd: self.particle_qd.share(),
            particle_f: self.particle_f.share(),
            body_q: self.body_q.share(),
            body_qd: self.body_qd.share(),
            body_f: self.body_f.share(),
            joint_q: self.joint_q.share(),
            joint_qd: self.joint_qd.share(),
        }
    }
}

/// Inputs that drive a model from outside, per step: external forces and
/// actuation. Empty arrays mean "none".
#[weft::structure]
pub struct Control {
    /// External force on each particle (empty: none).
    pub particle_f: Array<Vec3>,
    /// Relative change of each spring's rest length: the rest length used is
    /// `rest_length * (1 + activation)` (empty: none).
    pub spring_activation: Array<f32>,
    /// Drive position target per joint degree of freedom (empty: none).
    pub joint_target_pos: Array<f32>,
    /// Drive velocity target per joint degree of freedom (empty: none).
    pub joint_target_vel: Array<f32>,
    /// Feed-forward effort per joint degree of freedom, added to the drive
    /// before its effort limit (empty: none).
    pub joint_f: Array<f32>,
}

impl Control {
    /// No external forces, no actuation, on `device`.
    pub fn empty(device: Device) -> Control {
        Control {
            particle_f: Array::zeros(device, [0]),
            spring_activation: Array::zeros(device, [0]),
            joint_target_pos: Array::zeros(device, [0]),
            joint_target_vel: Array::zeros(device, [0]),
            joint_f: Array::zeros(device, [0]),
        }
    }

    /// Zero external forces and activations, sized for `model`; the joint
    /// targets and efforts are the model's initial ones.
    pub fn new(model: &Model) -> Result<Control, Error> {
        let device = model.device();
        let nd = model.joint_dof_count();
        let mut c = Control {
            particle_f: Array::try_zeros(device, [model.particle_count()])?,
            spring_activation: Array::try_zeros(device, [model.spring_count()])?,
            joint_target_pos: Array::try_zeros(device, [nd])?,
            joint_target_vel: Array::try_zeros(device, [nd])?,
            joint_f: Array::try_zeros(device, [nd])?,
        };
        c.joint_target_pos.copy_from(&model.joint_target_pos)?;
        c.joint_target_vel.copy_from(&model.joint_target_vel)?;
        c.joint_f.copy_from(&model.joint_f)?;
        Ok(c)
    }

    /// Another handle on the same arrays (and gradients).
    pub fn share(&self) -> Control {
        Control {
            particle_f: self.particle_f.share(),
            spring_activation: self.spring_activation.share(),
            joint_target_pos: self.joint_target_pos.share(),
            joint_target_vel: self.joint_target_vel.share(),
            joint_f: self.joint_f.share(),
        }
    }
}
