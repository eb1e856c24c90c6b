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
        };
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
        self.body_f.copy_from(&other.body_f)
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
}

impl Control {
    /// No external forces, no actuation, on `device`.
    pub fn empty(device: Device) -> Control {
        Control {
            particle_f: Array::zeros(device, [0]),
            spring_activation: Array::zeros(device, [0]),
        }
    }

    /// Zero external forces and activations, sized for `model`.
    pub fn new(model: &Model) -> Result<Control, Error> {
        let device = model.device();
        Ok(Control {
            particle_f: Array::try_zeros(device, [model.particle_count()])?,
            spring_activation: Array::try_zeros(device, [model.spring_count()])?,
        })
    }

    /// Another handle on the same arrays (and gradients).
    pub fn share(&self) -> Control {
        Control {
            particle_f: self.particle_f.share(),
            spring_activation: self.spring_activation.share(),
        }
    }
}
